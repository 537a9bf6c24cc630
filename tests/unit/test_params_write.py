"""Writing .pdiparams: every fixture file rewritten unchanged is byte-identical, and what the
writer refuses."""

from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.errors import ParamsError
from pirc.runtime.params import _bfloat16_bits, read_params, read_tensors, write_params

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# every parameters file saved beside its program (a fuzz reproducer's damaged .pdiparams,
# tests/fixtures/fuzz_passes/, has none: it is refused, test_bad_inputs.py)
PARAM_FILES = sorted(p for p in FIXTURES.rglob("*.pdiparams")
                     if Path(str(p).replace(".pdiparams", ".json")).exists())


def _program_of(path: Path):
    return pirc.load(str(path).replace(".pdiparams", ".json"))


def test_every_fixture_parameters_file_is_found():
    assert len(PARAM_FILES) >= 41


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_unchanged_parameters_rewrite_byte_identical(path, tmp_path):
    program = _program_of(path)
    out = tmp_path / "out.pdiparams"
    write_params(str(out), read_params(str(path), program), program)
    assert out.read_bytes() == path.read_bytes()


def test_writer_keeps_only_the_program_parameters(tmp_path):
    path = FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"
    program = _program_of(path)
    params = read_params(str(path), program)
    params["no_longer_used"] = np.ones(3, np.float32)
    out = tmp_path / "out.pdiparams"
    write_params(str(out), params, program)
    assert out.read_bytes() == path.read_bytes()


def test_missing_parameter_is_named(tmp_path):
    path = FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"
    program = _program_of(path)
    params = read_params(str(path), program)
    del params["linear_0.b_0"]
    with pytest.raises(ParamsError, match="linear_0.b_0"):
        write_params(str(tmp_path / "out.pdiparams"), params, program)
    assert not (tmp_path / "out.pdiparams").exists()


def test_wrong_shape_is_refused(tmp_path):
    path = FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"
    program = _program_of(path)
    params = read_params(str(path), program)
    params["linear_0.b_0"] = np.zeros((2, 2), np.float32)
    with pytest.raises(ParamsError, match=r"linear_0.b_0: the program declares shape \[\d+\]"):
        write_params(str(tmp_path / "out.pdiparams"), params, program)


def test_failed_write_leaves_the_old_file(tmp_path):
    path = FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"
    program = _program_of(path)
    out = tmp_path / "out.pdiparams"
    out.write_bytes(b"old")
    with pytest.raises(ParamsError):
        write_params(str(out), {}, program)
    assert out.read_bytes() == b"old"


def test_values_are_written_in_the_declared_dtype(tmp_path):
    """A float64 array for a float32 parameter is written as float32 (code 5)."""
    path = FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"
    program = _program_of(path)
    params = {k: v.astype(np.float64) for k, v in read_params(str(path), program).items()}
    out = tmp_path / "out.pdiparams"
    write_params(str(out), params, program)
    assert out.read_bytes() == path.read_bytes()
    assert all(t.dtype == np.float32 for t in read_tensors(str(out)))


def test_bfloat16_narrowing_is_exact_for_widened_values_and_rounds_to_even():
    bits = np.array([0x3F80, 0xBF81, 0x7F80, 0x0001], np.uint16)
    widened = (bits.astype(np.uint32) << 16).view(np.float32)
    assert _bfloat16_bits(widened).tolist() == bits.tolist()
    # 1 + 2**-8 lies halfway between two bfloat16 values: rounds to the even one (1.0)
    assert _bfloat16_bits(np.array([1 + 2 ** -8], np.float32)).tolist() == [0x3F80]
    assert _bfloat16_bits(np.array([1 + 3 * 2 ** -8], np.float32)).tolist() == [0x3F82]
