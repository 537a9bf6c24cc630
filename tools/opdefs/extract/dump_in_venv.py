"""Run by tools/opdefs/extract.py with the Paddle venv's own python:

    <venv>/bin/python dump_in_venv.py LIB.so OUT.json

Imports paddle (which registers its dialects and loads libpaddle.so), loads the op_dump
library compiled against this very wheel and lets it write the raw op dump to OUT.json.
Prints `paddle <version>` on success.  Must not run with site-packages/paddle as the working
directory (paddle/signal.py would shadow the standard library's signal module).
"""

import ctypes
import sys


def main() -> int:
    lib_path, out_path = sys.argv[1], sys.argv[2]
    import paddle  # noqa: F401  (registers the dialects, loads libpaddle.so)

    lib = ctypes.CDLL(lib_path)
    lib.pirc_dump_ops.argtypes = [ctypes.c_char_p]
    lib.pirc_dump_ops.restype = ctypes.c_int
    if lib.pirc_dump_ops(out_path.encode()) != 0:
        print(f"op_dump: could not write {out_path}", file=sys.stderr)
        return 1
    print(f"paddle {paddle.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
