"""The passes respect the alias model (pirc.ir.aliasing): the miscompiles and refusals the
pass fuzzer found (tests/fixtures/fuzz_passes, copied from ../shared/fuzz-passes-crashes), and
the dev-zoo LLaMA mask, each as a regression test.  Every test runs the program before and
after the passes (the Python API) and compares bit for bit, and checks the IR's shape."""

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.ir.aliasing import AliasAnalysis
from pirc.passes import run_pipeline

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FUZZ = FIXTURES / "fuzz_passes"
ZOO = FIXTURES / "zoo" / "3.3.1"


def _program(stem: str):
    return pirc.load(str(FUZZ / f"{stem}.pir.txt"), from_version=4)


def _inputs(stem: str) -> dict:
    path = FUZZ / f"{stem}.inputs.npz"
    if not path.exists():
        return {}
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _params(stem: str, program):
    path = FUZZ / f"{stem}.pdiparams"
    return pirc.read_params(str(path), program) if path.exists() else None


def _same_outputs(before, after, inputs, params=None, after_params=None):
    want = pirc.run(before, inputs, params)
    got = pirc.run(after, inputs, after_params if after_params is not None else params)
    assert list(got) == list(want)
    for name in want:
        assert got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def _count(program, name: str) -> int:
    return sum(1 for op in program.walk() if op.name == name)


@pytest.mark.parametrize("pipeline", ["cse", "const-fold,cse", "default"])
def test_cse_does_not_merge_across_a_write_of_an_operand(pipeline):
    # exp(x); relu_(x); exp(x): the second exp reads the written x
    stem = "miscompile-cse-merges-across-inplace-write-of-operand"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    assert _count(after, "pd_op.exp") == 2
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("pipeline", ["cse", "const-fold,cse", "default"])
def test_cse_does_not_merge_into_a_value_written_later(pipeline):
    # two exp(x), the first written by tanh_: merging would make `a` read tanh's values
    stem = "miscompile-cse-merges-into-inplace-written-value"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    assert _count(after, "pd_op.exp") == 2
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("pipeline", ["const-fold,cse", "default"])
def test_cse_does_not_merge_a_zeros_full_into_const_folds_written_full(pipeline):
    # const-fold folds the concat to full + assign_value_; the later zeros full must stay
    stem = "miscompile-cse-merges-into-inplace-written-full"
    before, after = _program(stem), _program(stem)
    run_pipeline(after, pipeline)
    aliases = AliasAnalysis(after)
    adds = [op for op in after.walk() if op.name == "pd_op.add"]
    assert len(adds) == 2
    # the two adds read different buffers: one written in place, one not
    assert aliases.buffer_of(adds[0].operands[1]) != aliases.buffer_of(adds[1].operands[1])
    _same_outputs(before, after, _inputs(stem))


@pytest.mark.parametrize("model", ["llama", "llama_gqa"])
def test_llama_mask_constants_written_by_assign_value_stay_two_buffers(model):
    program = pirc.load(str(ZOO / f"{model}.3.3.1.json"))
    pirc.upgrade(program)
    fulls = [op.operands[0].owner for op in program.walk() if op.name == "pd_op.assign_value_"]
    assert len(fulls) == 2 and all(f.name == "pd_op.full" for f in fulls)
    run_pipeline(program, "default")
    writes = [op for op in program.walk() if op.name == "pd_op.assign_value_"]
    assert len(writes) == 2
    written = {id(op.operands[0]) for op in writes}
    assert len(written) == 2, "cse merged the two written pd_op.full: one buffer, two writes"
    aliases = AliasAnalysis(program)
    assert len({aliases.buffer_of(op.operands[0]) for op in writes}) == 2
