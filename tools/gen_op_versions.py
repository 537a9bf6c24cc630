"""Write pirc/runtime/op_versions.json from the live kernel registry.

    python -m tools.gen_op_versions          # rewrite the table
    python -m tools.gen_op_versions --check  # exit 1 when the committed table is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parents[1] / "pirc" / "runtime" / "op_versions.json"


def current_text() -> str:
    from pirc.lower.lower import load_kernels
    from pirc.runtime.op_versions import table_text
    from pirc.runtime.registry import REGISTRY

    load_kernels()
    return table_text(REGISTRY)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = current_text()
    if "--check" in argv:
        if TABLE.read_text(encoding="utf-8") != text:
            print(f"{TABLE} is stale: run python -m tools.gen_op_versions", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
