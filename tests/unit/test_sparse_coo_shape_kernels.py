"""The sparse COO make / cast / coalesce / reshape / transpose / slice / mask kernels
(pirc/lower/kernels/sparse_coo_shape.py): what the Paddle fixtures cannot show, i.e. the clear
errors on inputs Paddle's CPU kernels mishandle or refuse, and the version split of cast."""

import pytest
import torch

from pirc.lower.kernels.sparse_coo import SparseCoo
from pirc.runtime.registry import REGISTRY


def k(name, version=4):
    return REGISTRY.resolve(f"pd_op.{name}", version).fn


IDX = torch.tensor([[2, 0, 2, 1, 0], [1, 3, 1, 0, 3]])


def coo(values, shape, indices=IDX):
    return SparseCoo(indices, values, tuple(shape))


def hybrid():
    return coo(torch.arange(15.0).reshape(5, 3), [3, 4, 3])


def test_sparse_coo_tensor_checks_the_parts():
    with pytest.raises(ValueError, match="one row per entry"):
        k("sparse_coo_tensor_sp")(torch.ones(4), IDX, shape=[3, 4])
    with pytest.raises(ValueError, match="indices must be 2-D"):
        k("sparse_coo_tensor_sp")(torch.ones(5), IDX[0], shape=[3, 4])
    with pytest.raises(ValueError, match="do not fit shape"):
        k("sparse_coo_tensor_sp")(torch.ones(5, 2), IDX, shape=[3, 4, 3])


def test_coalesce_refuses_two_dense_dims():
    x = coo(torch.ones(5, 3, 2), [3, 4, 3, 2])
    with pytest.raises(ValueError, match="more than one dense dim"):
        k("coalesce_sp")(x)


def test_coalesce_keeps_a_lone_negative_zero_and_sums_in_stored_order():
    x = coo(torch.tensor([1e8, -0.0, 1.0, 2.0, -1e8]), [3, 4])
    out = k("coalesce_sp")(x)
    assert out.indices.tolist() == [[0, 1, 2], [3, 0, 1]]
    # (0, 3): -0.0 + -1e8; (1, 0): 2; (2, 1): 1e8 + 1 (= 1e8 in float32)
    assert out.values.tolist() == [-1e8, 2.0, 1e8]


def test_transpose_refuses_hybrid_and_bad_perm():
    with pytest.raises(ValueError, match="hybrid"):
        k("transpose_coo_sp")(hybrid(), perm=[1, 0, 2])
    with pytest.raises(ValueError, match="not a permutation"):
        k("transpose_coo_sp")(coo(torch.ones(5), [3, 4]), perm=[-1, 0])


def test_slice_refuses_hybrid_and_bad_axes():
    with pytest.raises(ValueError, match="hybrid"):
        k("slice_coo_sp")(hybrid(), [0], [2], axes=[0])
    x = coo(torch.ones(5), [3, 4])
    with pytest.raises(ValueError, match="below the rank"):
        k("slice_coo_sp")(x, [0], [2], axes=[2])
    with pytest.raises(ValueError, match="one entry each"):
        k("slice_coo_sp")(x, [0, 1], [2], axes=[0])


def test_reshape_checks_the_shape():
    x = coo(torch.ones(5), [3, 4])
    with pytest.raises(ValueError, match="does not fit"):
        k("reshape_coo_sp")(x, [3, 5])
    with pytest.raises(ValueError, match="only the sparse dims"):
        k("reshape_coo_sp")(hybrid(), [3, 12])


def test_mask_as_checks_the_shape():
    with pytest.raises(ValueError, match="same shape"):
        k("mask_as_coo_sp")(torch.ones(3, 5), coo(torch.ones(5), [3, 4]))


def test_wrong_operand_is_a_type_error():
    with pytest.raises(TypeError, match="sparse COO"):
        k("coalesce_sp")(torch.ones(3))


def test_cast_follows_the_dense_cast_versions():
    x = coo(torch.full((5,), 1e-3), [3, 4])
    old = k("cast_coo_sp", 1)(x, value_dtype=torch.float16)
    new = k("cast_coo_sp", 4)(x, value_dtype=torch.float16, index_dtype=torch.int32)
    assert old.values[0].item() < new.values[0].item()  # truncated before PIR version 3
    assert new.indices.dtype == torch.int32 and old.indices.dtype == torch.int64
