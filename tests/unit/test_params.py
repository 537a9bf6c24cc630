"""Reading .pdiparams: real corpus files, every dtype Paddle writes, and broken files."""

import struct
from pathlib import Path

import numpy as np
import pytest

import pirc
from pirc.errors import ParamsError
from pirc.runtime.params import DTYPES, read_params, read_tensors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PARAM_FILES = sorted(FIXTURES.glob("*/*/*.pdiparams"))


def stream(array: np.ndarray, code: int, lod=(), packed=False, desc_extra=b"") -> bytes:
    """One DenseTensor stream as Paddle writes it (FORMAT-NOTES 4.6)."""
    def varint(v):
        v &= (1 << 64) - 1
        out = b""
        while True:
            b = v & 0x7F
            v >>= 7
            if v:
                out += bytes([b | 0x80])
            else:
                return out + bytes([b])
    desc = b"\x08" + varint(code)
    if packed:
        dims = b"".join(varint(d) for d in array.shape)
        desc += b"\x12" + varint(len(dims)) + dims
    else:
        desc += b"".join(b"\x10" + varint(d) for d in array.shape)
    desc += desc_extra
    out = struct.pack("<IQ", 0, len(lod))
    for level in lod:
        out += struct.pack("<Q", 8 * len(level)) + struct.pack(f"<{len(level)}Q", *level)
    return out + struct.pack("<Ii", 0, len(desc)) + desc + array.tobytes()


def test_corpus_files_are_found():
    assert len(PARAM_FILES) >= 14


@pytest.mark.parametrize("path", PARAM_FILES, ids=lambda p: p.name)
def test_corpus_params_match_the_program_parameters(path):
    program = pirc.load(str(path).replace(".pdiparams", ".json"))
    params = read_params(str(path), program)
    declared = {op.attributes["parameter_name"].data: op.results[0].type
                for op in program.walk() if op.name == "builtin.parameter"}
    assert sorted(params) == sorted(declared)
    for name, array in params.items():
        assert tuple(array.shape) == declared[name].shape, name


def test_mlp_has_four_params_in_sorted_order():
    path = FIXTURES / "corpus" / "3.0.0" / "mlp.3.0.0.pdiparams"
    params = pirc.read_params(str(path), pirc.load(str(path).replace(".pdiparams", ".json")))
    assert list(params) == ["linear_0.b_0", "linear_0.w_0", "linear_1.b_0", "linear_1.w_0"]
    assert params["linear_0.w_0"].shape == (784, 32) and params["linear_0.w_0"].dtype == np.float32
    # Without names: file order, keyed by position.
    assert list(read_params(str(path))) == ["0", "1", "2", "3"]


def test_half_and_double_params():
    path = FIXTURES / "generated" / "3.3.1" / "halfs.3.3.1.pdiparams"
    params = read_params(str(path), ["halfs_w64", "halfs_w16"])  # names are sorted here
    assert params["halfs_w16"].dtype == np.float16 and params["halfs_w64"].dtype == np.float64


@pytest.mark.parametrize("code", sorted(DTYPES))
def test_every_dtype_round_trips(tmp_path, code):
    name, np_dtype = DTYPES[code]
    rng = np.random.default_rng(code)
    raw = (rng.standard_normal((2, 3)) * 10)
    if name == "bfloat16":
        expect = raw.astype(np.float32)
        expect = (expect.view(np.uint32) & 0xFFFF0000).view(np.float32)  # exactly representable
        data = (expect.view(np.uint32) >> 16).astype(np.uint16)
    elif name.startswith("complex"):
        expect = (raw + 1j * raw[::-1]).astype(np_dtype)
        data = expect
    else:
        expect = raw.astype(np_dtype)
        data = expect
    f = tmp_path / "p.pdiparams"
    f.write_bytes(stream(data, code))
    got = read_tensors(str(f))[0]
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, expect)
    assert got.dtype == (np.float32 if name == "bfloat16" else np_dtype)


def test_lod_levels_packed_dims_and_zero_d(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    s = np.array(7, dtype=np.int64)
    f = tmp_path / "p.pdiparams"
    f.write_bytes(stream(a, 5, lod=[(0, 1, 3)], packed=True) + stream(s, 3))
    got = read_params(str(f), ["a", "s"])
    np.testing.assert_array_equal(got["a"], a)
    assert got["s"].shape == () and got["s"] == 7


def test_truncated_file_is_a_clear_error(tmp_path):
    good = stream(np.ones((4, 4), np.float32), 5)
    for cut in (3, 10, 20, len(good) - 1):
        f = tmp_path / "t.pdiparams"
        f.write_bytes(good[:cut])
        with pytest.raises(ParamsError, match="truncated"):
            read_tensors(str(f))


def test_unknown_dtype_and_wrong_count(tmp_path):
    f = tmp_path / "u.pdiparams"
    f.write_bytes(stream(np.ones(2, np.float32), 99))
    with pytest.raises(ParamsError, match="unknown data type code 99"):
        read_tensors(str(f))
    f.write_bytes(stream(np.ones(2, np.float32), 5))
    with pytest.raises(ParamsError, match="holds 1 tensors but the program expects 2 persisted parameters"):
        read_params(str(f), ["a", "b"])


def test_missing_file():
    with pytest.raises(ParamsError, match="cannot read parameters file"):
        read_tensors("/nonexistent/x.pdiparams")
