"""Builders of the ops that move, view or re-lay a tensor's memory without computing on it:
the place copies (memcpy, memcpy_d2h, memcpy_h2d), the fused buffer of coalesce_tensor, the
layout transfers (trans_layout, onednn_to_paddle_layout, npu_identity), view_slice and the
in-place nop_. On the CPU wheel each one's result is its input's values (or a permutation or
slice of them), which the fixtures check on every dtype and on boundary values."""
import numpy as np
import paddle

from . import boundary, int_boundary, op

C = paddle._C_ops


def _typed(f, empty=True):
    """One feed per dtype the copies are tried on, boundary values where the dtype has them."""
    return [f("b", [21], value=boundary()), f("d", [21], value=boundary("float64")),
            f("i", [9], value=int_boundary("int64")), f("j", [9], value=int_boundary()),
            f("m", [2, 3, 4]), f("s", [], value=np.array(-0.0, "float32")),
            f("t", [5], "bool")] + ([f("z", [0, 3])] if empty else [])


# memcpy's dst_place_type: 0 CPU, 1 the accelerator (CUDA), 2 CUDA pinned, 3 XPU, ...; on the
# CPU wheel only 0 is a place the kernel knows (the others raise _Map_base::at)
@op("memcpy")
def _memcpy(f):
    return [C.memcpy(v, 0) for v in _typed(f)], {}


@op("memcpy_d2h")
def _memcpy_d2h(f):
    # dst_place_type 0: CPU; 1 (CUDA pinned) needs a CUDA build
    return [C.memcpy_d2h(v, 0) for v in _typed(f)], {}


@op("memcpy_h2d")
def _memcpy_h2d(f):
    # on the CPU wheel the "device" is the CPU for dst_place_type 0 and 1 alike
    # (an empty input comes back unallocated, which the executor fetches as None: left out)
    vs = _typed(f, empty=False)
    return [C.memcpy_h2d(v, 0) for v in vs] + [C.memcpy_h2d(vs[0], 1)], {}


@op("nop_")
def _nop_(f):
    # nop_ writes into its input, so its result is the (already computed) input: fetched both
    # directly and through a later use
    # (its kernel is registered for float32 only: an int64 input is refused at build time)
    x = f("x", [21], value=boundary())
    a = C.nop_(paddle.scale(x, 1.0))
    return [a, paddle.scale(a, 2.0), C.nop_(paddle.scale(f("m", [2, 3]), -1.0))], {}


@op("npu_identity")
def _npu_identity(f):
    # format -1 keeps the layout; other formats matter only on an NPU
    vs = _typed(f)
    return [C.npu_identity(v, -1) for v in vs] + [C.npu_identity(vs[4], 3)], {}


@op("onednn_to_paddle_layout")
def _onednn_to_paddle_layout(f):
    # dst_layout: a DataLayout (0 NHWC, 1 NCHW, 2 ANY, 3 ONEDNN); a fed tensor is already in
    # Paddle's layout, so the transfer copies it
    x4 = f("x4", [2, 3, 4, 5])
    vs = _typed(f)
    return [C.onednn_to_paddle_layout(x4, k) for k in (0, 1, 2)] + \
        [C.onednn_to_paddle_layout(v, 1) for v in vs], {}


@op("trans_layout")
def _trans_layout(f):
    x4, x3 = f("x4", [2, 3, 4, 5]), f("x3", [3, 1, 4], "int64", lo=-9, hi=9)
    b = f("b", [3, 7], value=boundary().reshape(3, 7))
    return [C.trans_layout(x4, [0, 2, 3, 1]), C.trans_layout(x4, [0, 3, 1, 2]),
            C.trans_layout(x4, [0, 1, 2, 3]), C.trans_layout(x3, [2, 0, 1]),
            C.trans_layout(b, [1, 0])], {}


@op("view_slice")
def _view_slice(f):
    # rows [begin_idx, end_idx) of dim 0 (the infer-meta requires begin < end)
    x, i = f("x", [5, 3]), f("i", [4, 2, 2], "int32", lo=-9, hi=9)
    b = f("b", [21], value=boundary())
    return [C.view_slice(x, 0, 5), C.view_slice(x, 1, 3), C.view_slice(x, 4, 5),
            C.view_slice(i, 2, 4), C.view_slice(b, 3, 11)], {}


def _coalesce(fn, f, inplace):
    a, b = f("a", [2, 3]), f("b", [5], value=boundary()[:5])
    d = f("d", [3, 2], "float64")
    c = f("c", [1, 7], "int32", lo=-9, hi=9)
    src = (lambda v: paddle.scale(v, 1.0)) if inplace else (lambda v: v)
    outs = []
    # copy_data: the outputs are the inputs, stored back to back in the fused buffer; with
    # use_align each one starts on a 4096-byte boundary and the gaps are uninitialised memory,
    # so the fused buffer is fetched only when nothing is left unset
    o, fused = fn([src(a), src(b)], paddle.float32, True, False, False, 0.0, False, -1, -1, [], [])
    outs += list(o) + [fused]
    o, _ = fn([src(a), src(b)], paddle.float32, True, False, False, 0.0, True, -1, -1, [], [])
    outs += list(o)
    o, fused = fn([src(d)], paddle.float64, True, False, False, 0.0, False, -1, -1, [], [])
    outs += list(o) + [fused]
    o, fused = fn([src(c), src(c)], paddle.int32, True, False, False, 0.0, False, -1, -1, [], [])
    outs += list(o) + [fused]
    # set_constant fills the whole buffer (gaps too) and the outputs view it
    o, fused = fn([src(a), src(b)], paddle.float32, False, True, False, -2.5, True, -1, -1, [], [])
    outs += list(o) + [fused]
    o, fused = fn([src(a), src(b)], paddle.float32, False, True, False, 1.5, True, 64, -1, [], [])
    outs += list(o) + [fused]
    o, fused = fn([src(d), src(d)], paddle.float64, False, True, False, 3.0, True, -1, 4, [], [])
    outs += list(o) + [fused]
    return outs, {}


@op("coalesce_tensor")
def _coalesce_tensor(f):
    return _coalesce(C.coalesce_tensor, f, False)


@op("coalesce_tensor_")
def _coalesce_tensor_(f):
    return _coalesce(C.coalesce_tensor_, f, True)
