#!/usr/bin/env python3
"""Extract the PIR op definitions of one Paddle release from an installed wheel.

    python tools/opdefs/extract.py --venv /tmp/pd331 -o tools/opdefs/opdefs-3.3.1.json

`--venv` is a virtual environment with the paddlepaddle CPU wheel installed (see
tools/opdefs/README.md).  Steps:

1. compile tools/opdefs/extract/op_dump.cc against that wheel's headers and libpaddle.so
   (g++, or $CXX; about 5 s);
2. run tools/opdefs/extract/dump_in_venv.py with the venv's python: it imports paddle, loads
   the library and dumps every registered op (dialect, registered attribute names and the
   op-info record of its OpYamlInfoInterface);
3. scan the wheel's shipped headers for each op's class (`Build(...)` defaults, operand /
   result accessors; tools/opdefs/extract/cpp_headers.py);
4. merge both into opdefs records (tools/opdefs/extract/opdef_records.py) and write them in
   the committed files' format.

`--check FILE` compares the result with FILE instead of writing, and lists the records that
differ (exit status 1 if any).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXTRACT = HERE / "extract"
sys.path.insert(0, str(EXTRACT))

import cpp_headers  # noqa: E402
import opdef_records  # noqa: E402


def paddle_dir(venv: Path) -> Path:
    """site-packages/paddle of the venv, as the venv's own python reports it."""
    python = venv / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"extract: {python} not found (is {venv} a virtual environment?)")
    code = ("import sysconfig; p = sysconfig.get_paths(); "
            "print(p['platlib']); print(p['purelib'])")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    for line in out.stdout.split():
        candidate = Path(line) / "paddle"
        if (candidate / "base" / "libpaddle.so").exists():
            return candidate
    raise SystemExit(f"extract: no paddle wheel with base/libpaddle.so in {venv}")


def compile_dump_library(paddle: Path, out: Path) -> None:
    """Build op_dump.cc into `out`, against this wheel's headers and libpaddle.so."""
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise SystemExit(f"extract: C++ compiler {cxx!r} not found (set $CXX)")
    include = paddle / "include"
    cmd = [cxx, "-std=c++17", "-O0", "-fPIC", "-shared", "-D_GLIBCXX_USE_CXX11_ABI=1",
           f"-I{include}", f"-I{include / 'third_party'}", str(EXTRACT / "op_dump.cc"),
           "-o", str(out), f"-L{paddle / 'base'}", "-l:libpaddle.so",
           f"-Wl,-rpath,{paddle / 'base'}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("extract: compiling op_dump.cc failed:\n" + done.stderr[-4000:])


def dump_ops(venv: Path, library: Path, raw: Path, workdir: Path) -> str:
    """Run the dump inside the venv's python; returns the Paddle version it reports."""
    done = subprocess.run([str(venv / "bin" / "python"), str(EXTRACT / "dump_in_venv.py"),
                           str(library), str(raw)],
                          capture_output=True, text=True, cwd=workdir)
    if done.returncode != 0:
        raise SystemExit("extract: the op dump failed:\n" + (done.stdout + done.stderr)[-4000:])
    lines = [line for line in done.stdout.splitlines() if line.startswith("paddle ")]
    return lines[-1].split()[1] if lines else "?"


def extract(venv: Path, keep_raw: Path | None = None) -> tuple[str, dict[str, dict]]:
    """(Paddle version, {op name: record}) of the wheel installed in `venv`."""
    paddle = paddle_dir(venv)
    with tempfile.TemporaryDirectory(prefix="pirc-opdefs-") as tmp:
        workdir = Path(tmp)
        library = workdir / "op_dump.so"
        raw = workdir / "ops.json"
        start = time.monotonic()
        compile_dump_library(paddle, library)
        compiled = time.monotonic()
        version = dump_ops(venv, library, raw, workdir)
        raw_ops = json.loads(raw.read_text())
        if keep_raw is not None:
            shutil.copyfile(raw, keep_raw)
    op_classes = cpp_headers.scan_include_dir(paddle / "include" / "paddle")
    records = opdef_records.build_records(raw_ops, op_classes)
    print(f"extract: paddle {version} at {paddle}: {len(records)} ops "
          f"(compile {compiled - start:.1f} s, total {time.monotonic() - start:.1f} s)",
          file=sys.stderr)
    return version, records


def differences(records: dict[str, dict], reference: dict[str, dict]) -> list[str]:
    """One line per op whose record differs (or exists on one side only)."""
    lines = []
    for name in sorted(set(records) | set(reference)):
        mine, theirs = records.get(name), reference.get(name)
        if mine == theirs:
            continue
        if mine is None or theirs is None:
            lines.append(f"{name}: only in {'reference' if mine is None else 'extraction'}")
            continue
        keys = [k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]
        lines.append(f"{name}: {', '.join(keys)} differ")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, required=True,
                        help="virtual environment with the paddlepaddle wheel installed")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("-o", "--output", type=Path, help="opdefs JSON file to write")
    target.add_argument("--check", type=Path, metavar="FILE",
                        help="compare with FILE instead of writing; exit 1 if it differs")
    parser.add_argument("--keep-raw", type=Path, metavar="FILE",
                        help="also keep op_dump's raw output (for debugging)")
    args = parser.parse_args(argv)

    _, records = extract(args.venv.resolve(), args.keep_raw)
    text = opdef_records.dumps(records)
    if args.output:
        args.output.write_text(text)
        print(f"wrote {args.output}: {len(records)} ops")
        return 0
    reference_text = args.check.read_text()
    diff = differences(records, json.loads(reference_text))
    for line in diff:
        print(line)
    identical = text == reference_text
    print(f"{args.check}: {len(records) - len(diff)} of {len(records)} records identical; "
          f"files {'byte-identical' if identical else 'differ'}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
