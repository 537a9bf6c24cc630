"""The programs the passes' fast-path tests run both ways: every corpus JSON and the
benchmark's generated program (3000 ops), by key, and how each is loaded (upgraded to PIR
version 4 first, as the passes find it after `--upgrade`)."""

from __future__ import annotations

import pirc
from pirc.passes import run_pipeline
from pirc.text.parser import parse_text

from corpus_files import all_jsons
from tools.bench_frontend import generate

# key -> the JSON file, or None for the generated program
PROGRAMS = {f"{p.parent.parent.name}/{p.parent.name}/{p.stem}": p for p in all_jsons()}
PROGRAMS["generated-3000"] = None


def load_program(key: str, verify_each=True):
    """The program of `key`, upgraded to version 4 where older (`verify_each`: the upgrade's)."""
    path = PROGRAMS[key]
    program = parse_text(generate(3000), "bench.pir", 4) if path is None else pirc.load(str(path))
    if program.version != 4:
        run_pipeline(program, "upgrade", verify_each=verify_each)
    return program
