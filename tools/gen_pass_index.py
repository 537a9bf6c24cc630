"""Write pirc/passes/index.txt (which module registers each of pirc's passes) from a full
scan of the pass packages:

    python -m tools.gen_pass_index

tests/unit/test_pass_index.py fails while the committed index is not what this writes.
"""

from __future__ import annotations


def main() -> None:
    from pirc.passes.infra.registry import INDEX_FILE, all_passes, index_text

    INDEX_FILE.write_text(index_text(all_passes()), encoding="utf-8")
    print(f"wrote {INDEX_FILE}")


if __name__ == "__main__":
    main()
