"""Upgrade benchmark: what patches 2-4 add to a round trip of a large version-1 program.

The program is tools/bench_frontend.py's (copies of the top-level ops of Paddle 3.3.1's
transformer, cnn and mlp), read as Paddle text of PIR version 1, so pool2d's arrays are
Int32 and patches 2, 3 and 4 all run.  Figures, each the best of --runs:

* reading and validating the patch folder, and compiling patches 2-4;
* the upgrade alone, in process, on a freshly parsed program;
* `pirc-opt IN --from-version=1 -o OUT` with and without `--upgrade`, whole process
  (the difference is what the upgrade adds to the round trip; verification on).

    python tools/bench_upgrade.py [--ops 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def best(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        times.append(fn())
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    from bench_frontend import generate
    from pirc.text.parser import parse_text
    from pirc.versioning import upgrade as U
    from pirc.versioning.compiler import compile_patch
    from pirc.versioning.patch_sets import load_patch_set

    text = generate(args.ops)

    def load():
        start = time.perf_counter()
        load_patch_set()
        return time.perf_counter() - start

    patches = load_patch_set()

    def compile_all():
        start = time.perf_counter()
        for n in (2, 3, 4):
            compile_patch(patches.files[n])
        return time.perf_counter() - start

    def upgrade():
        program = parse_text(text, "<bench>", 1)
        start = time.perf_counter()
        U.change_version(program)
        return time.perf_counter() - start

    print(f"program: {args.ops} ops, PIR version 1")
    print(f"read + validate patches/: {best(args.runs, load):.3f} s")
    print(f"compile patches 2-4:      {best(args.runs, compile_all) * 1000:.2f} ms")
    print(f"upgrade 1 -> 4 in process: {best(args.runs, upgrade):.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "bench.pir.txt"
        source.write_text(text)
        out = Path(tmp) / "out.pir"

        def cli(*extra):
            def run():
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pirc", str(source), "--from-version=1",
                                "-o", str(out), *extra], check=True, cwd=ROOT)
                return time.perf_counter() - start
            return run

        plain = best(args.runs, cli())
        upgraded = best(args.runs, cli("--upgrade"))
        print(f"pirc-opt round trip:            {plain:.2f} s")
        print(f"pirc-opt round trip --upgrade:  {upgraded:.2f} s  (+{upgraded - plain:.2f} s)")


if __name__ == "__main__":
    main()
