"""Write pirc/passes/index.txt (which module registers each of pirc's passes) from a full
scan of the pass packages.

    python -m tools.gen_pass_index          # rewrite the index
    python -m tools.gen_pass_index --check  # exit 1 when the committed index is stale
"""

from __future__ import annotations

import sys


def current_text() -> str:
    from pirc.passes.infra.registry import all_passes, index_text

    return index_text(all_passes())


def main(argv=None) -> int:
    from pirc.passes.infra.registry import INDEX_FILE

    argv = sys.argv[1:] if argv is None else argv
    text = current_text()
    if "--check" in argv:
        if INDEX_FILE.read_text(encoding="utf-8") != text:
            print(f"{INDEX_FILE} is stale: run python -m tools.gen_pass_index", file=sys.stderr)
            return 1
        return 0
    INDEX_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {INDEX_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
