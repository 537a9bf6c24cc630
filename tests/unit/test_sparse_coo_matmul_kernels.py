"""The sparse matmul family (tools/paddle_oracle/op_builders/sparse_coo_matmul.py) has no
kernel: Paddle's CPU wheel builds none of its ops into a program that runs, so there is no
fixture to prove a kernel against (gen_log.*.sparse_coo_matmul.json holds Paddle's exceptions).
Two of them (addmm_coo_dense_sp, mv_coo_sp) do build, and their stub CPU kernels fail only at
run time: those real Paddle programs must still read, verify and round trip, and lowering them
must name the op that has no kernel rather than fail somewhere else."""

from pathlib import Path

import pytest

import pirc
from pirc.lower import missing_lowerings

OPS = Path(__file__).resolve().parents[1] / "fixtures" / "ops"
VERSIONS = {"3.0.0": 1, "3.3.1": 4}
CASES = [(ver, op) for ver in sorted(VERSIONS) for op in ("addmm_coo_dense_sp", "mv_coo_sp")]


@pytest.mark.parametrize("ver,op", CASES)
def test_saved_program_round_trips(ver, op):
    text = (OPS / ver / f"{op}.{ver}.json").read_text()
    program = pirc.parse(text, format="json")
    pirc.verify(program)
    assert pirc.to_text(program, "json") == text
    printed = (OPS / ver / f"{op}.{ver}.loaded.pir.txt").read_text()
    again = pirc.parse(printed, from_version=VERSIONS[ver])
    pirc.verify(again)
    assert pirc.to_text(again, "paddle") == printed


@pytest.mark.parametrize("ver,op", CASES)
def test_lowering_names_the_op_without_a_kernel(ver, op):
    program = pirc.parse((OPS / ver / f"{op}.{ver}.json").read_text(), format="json")
    missing = missing_lowerings(program)
    assert any(m.startswith(f"pd_op.{op} has no lowering") for m in missing), missing
