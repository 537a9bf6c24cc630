"""Subgraph fingerprints: the same computation gives the same `pfp1:` digest whatever its
spelling (SSA names, op order, the reader, the process, PYTHONHASHSEED, parameter names),
and any change to what it computes gives another."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import FloatAttr, StringAttr

import pirc
from pirc.ir.program import is_fingerprint
from pirc.passes.infra.fingerprint import Fingerprinter, fingerprint, program_fingerprint
from pirc.text.parser import parse_text

ROOT = Path(__file__).resolve().parents[2]
SMALL = (ROOT / "tests" / "lit" / "passes" / "Inputs" / "small.pir").read_text()
TRANSFORMER = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1" / "transformer.3.3.1.json"
CNN = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1" / "cnn.3.3.1.json"


def fp_of_text(text: str) -> str:
    return program_fingerprint(parse_text(text, "p.pir", 4))


def test_the_format():
    fp = fp_of_text(SMALL)
    assert is_fingerprint(fp) and fp.startswith("pfp1:") and len(fp) == 69


def test_ssa_names_do_not_count():
    renamed = SMALL
    for i in reversed(range(6)):
        renamed = renamed.replace(f"%{i})", f"%v{i + 40})").replace(f"%{i},", f"%v{i + 40},")
    assert renamed != SMALL
    assert fp_of_text(renamed) == fp_of_text(SMALL)


def test_the_order_of_independent_ops_does_not_count():
    lines = SMALL.splitlines()
    relu, tanh = lines[2], lines[3]
    swapped = "\n".join(lines[:2] + [tanh, relu] + lines[4:])
    assert fp_of_text(swapped) == fp_of_text(SMALL)


def test_what_is_computed_counts():
    assert fp_of_text(SMALL.replace('"pd_op.relu"', '"pd_op.sigmoid"')) != fp_of_text(SMALL)
    assert fp_of_text(SMALL.replace("(%2, %3)", "(%3, %2)")) == fp_of_text(SMALL)  # equal operands
    # the add reads two different values instead of the relu and a tanh: another edge
    assert fp_of_text(SMALL.replace("(%2, %3)", "(%1, %3)")) != fp_of_text(SMALL)
    assert fp_of_text(SMALL.replace("shape:[2,3]", "shape:[2,4]")) != fp_of_text(SMALL)


def test_floats_count_exactly():
    p = pirc.load(str(TRANSFORMER))
    before = program_fingerprint(p)
    op = next(o for o in p.walk() if any(isinstance(a, FloatAttr) for a in o.attributes.values()))
    key = next(k for k, a in op.attributes.items() if isinstance(a, FloatAttr))
    old = op.attributes[key]
    width = np.float32 if old.type.bitwidth == 32 else np.float64  # one ulp in the attribute's own type
    bumped = float(np.nextafter(width(old.value.data), width(np.inf)))
    op.attributes[key] = FloatAttr(bumped, old.type)
    assert program_fingerprint(p) != before
    op.attributes[key] = old
    assert program_fingerprint(p) == before


def test_parameters_count_by_shape_and_dtype_not_by_name():
    p = pirc.load(str(CNN))
    before = program_fingerprint(p)
    param = next(o for o in p.block.ops if o.name == "builtin.parameter")
    param.attributes["parameter_name"] = StringAttr("renamed_w")
    assert program_fingerprint(p) == before


def test_json_and_canonical_text_of_one_program_agree():
    p = pirc.load(str(TRANSFORMER))
    again = parse_text(pirc.to_text(p), "t.pir")
    assert program_fingerprint(again) == program_fingerprint(p)


def test_a_subgraph_in_any_order_and_a_long_chain():
    text = __import__("tools.bench_frontend", fromlist=["generate"]).generate(3000)
    p = parse_text(text, "g.pir", 4)
    ops = list(p.block.ops)
    shuffled = ops[:]
    random.Random(7).shuffle(shuffled)
    assert fingerprint(shuffled, 4) == program_fingerprint(p)
    # free inputs count by type: the tail of the program alone fingerprints the same
    # whatever produced its inputs
    assert fingerprint(ops[-5:], 4) == fingerprint(list(reversed(ops[-5:])), 4)


def test_the_incremental_program_fingerprint_sees_every_change():
    p = parse_text(SMALL, "p.pir", 4)
    f = Fingerprinter(4)
    first = f.program(p)
    assert f.program(p) == first
    pirc.run_pipeline(p, "cse")
    assert f.program(p) == Fingerprinter(4).program(p) != first
    tanh = next(o for o in p.block.ops if o.name == "pd_op.tanh")
    tanh.attributes["stop_gradient"] = tanh.attributes["stop_gradient"].__class__([])
    assert f.program(p) == Fingerprinter(4).program(p)
    # hashed again: the tanh, and downstream of it what its new hash changes
    assert [o.name for o in f.touched] == ["pd_op.tanh", "pd_op.add", "pd_op.fetch"]
    add = next(o for o in p.block.ops if o.name == "pd_op.add")
    relu = next(o for o in p.block.ops if o.name == "pd_op.relu")
    add.operands = [add.operands[0], relu.results[0]]  # an operand edited in place
    assert f.program(p) == Fingerprinter(4).program(p)
    assert add in f.touched


def test_processes_and_hash_seeds_agree():
    code = ("import pirc; from pirc.passes.infra.fingerprint import program_fingerprint; "
            f"print(program_fingerprint(pirc.load({str(TRANSFORMER)!r})))")
    seen = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        seen.add(out.stdout.strip())
    assert seen == {program_fingerprint(pirc.load(str(TRANSFORMER)))}


def test_block_argument_attributes_of_paddle_text():
    """Paddle's text gives each block argument an attribute dict (`^%arg_0 {}`), held in the
    `pir.block_arg_attrs` property: the fingerprint spells it (it once raised an internal
    error, so `pirc-opt -p default` failed on any such while loop)."""
    text = (ROOT / "tests" / "fixtures" / "aliasing" / "while_writes_outer.pir.txt").read_text()
    assert "^%arg_0 {}" in text
    fp = fp_of_text(text)
    assert is_fingerprint(fp) and fp == fp_of_text(text)
    program = parse_text(text, "p.pir", 4)
    pirc.run_pipeline(program, "default")
    pirc.verify(program)
