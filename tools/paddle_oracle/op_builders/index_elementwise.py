"""Builders of the strided advanced-indexing ops of Paddle >= 3.1: index_elementwise_get and
index_elementwise_put (a Scalar value), index_elementwise_put_with_tensor (a tensor value),
and the in-place forms of the two puts.

Their attributes describe a TensorIterator-style restride, as the eager getitem/setitem path
computes it (PyTorch's index kernel convention, which Paddle's kernels follow): for indices on
the adjacent dims [start, start+k) of a view of x whose index tensors broadcast to shape B,
  input_dims    = shape[:start] + B + shape[start+k:]     (the result's shape)
  input_strides = strides[:start] + [0]*len(B) + strides[start+k:]   (elements)
  index_dims    = shape[start:start+k] + [-1] + B + [1]*len(shape[start+k:])
                  (the sizes negative indices wrap by, then -1, then the shape the kernel
                   reads every index tensor's contiguous data as)
  index_stride  = [strides[d] * itemsize for the indexed dims]       (bytes)
  slice_offset  = the view's byte offset into x (a basic slice taken before the indexing).
The kernels read the index tensors' raw data, so a put's index tensors are fed already in the
broadcast shape of index_dims. The fixtures check each op against those attributes on every
dtype the kernels register and on boundary values (bit-exact copies, NaN and -0.0 included).
pd_op.index_elementwise_* are new in Paddle 3.1: 3.0.0's run records their absence."""
import numpy as np

import paddle

from . import boundary, int_boundary, op

C = paddle._C_ops


def _attrs(shape, itemsize, start, k, bshape, view_offset=0):
    """(input_dims, input_strides, index_dims, index_stride, slice_offset) for k index
    tensors of broadcast shape bshape on dims [start, start+k) of a C-contiguous `shape`."""
    strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    after = list(shape[start + k:])
    dims = list(shape[:start]) + list(bshape) + after
    st = strides[:start] + [0] * len(bshape) + strides[start + k:]
    index_dims = list(shape[start:start + k]) + [-1] + list(bshape) + [1] * len(after)
    index_stride = [strides[d] * itemsize for d in range(start, start + k)]
    return dims, st, index_dims, index_stride, view_offset * itemsize


def _get(x, idx, shape, itemsize, start, bshape, view_offset=0):
    a = _attrs(shape, itemsize, start, len(idx), bshape, view_offset)
    return C.index_elementwise_get(x, idx, *a, False, False)


def _i64(f, name, values, shape=None):
    v = np.array(values, "int64")
    return f(name, list(v.shape) if shape is None else shape, value=v.reshape(shape or v.shape))


@op("index_elementwise_get", note="pd_op.index_elementwise_get is new in Paddle 3.1 (absent "
                                  "from 3.0.0's op definitions and paddle._C_ops)")
def _index_elementwise_get(f):
    x = f("x", [5, 4])
    rows = _i64(f, "rows", [4, -1, 2, 0])
    cols = _i64(f, "cols", [0, 3, -4, 1])
    y = f("y", [2, 5, 3], "float64")
    grid = _i64(f, "grid", [[0, -5], [4, 2]])
    b = f("b", [21], value=boundary())
    perm = _i64(f, "perm", list(range(20, -1, -1)) + [-21, -1])
    ints = f("i", [9], value=int_boundary("int64"))
    i32 = f("j", [9], value=int_boundary())
    small = _i64(f, "small", [8, -9, 0])
    t = f("t", [6], "bool")
    h = f("h", [3, 2], "float16")
    e = f("e", [0, 4])
    two = _i64(f, "two", [3, 0])
    outs = [
        _get(x, [rows], [5, 4], 4, 0, [4]),                    # x[rows]
        _get(x, [rows, cols], [5, 4], 4, 0, [4]),              # x[rows, cols]
        _get(y, [grid], [2, 5, 3], 8, 1, [2, 2]),              # y[:, grid]
        # x[1:, cols]: the basic slice is a view 4 bytes * 4 elements into x
        C.index_elementwise_get(x, [cols], [4, 4], [4, 0], [4, -1, 4], [4], 16, False, False),
        _get(b, [perm], [21], 4, 0, [23]),
        _get(ints, [small], [9], 8, 0, [3]),
        _get(i32, [small], [9], 4, 0, [3]),
        _get(t, [two], [6], 1, 0, [2]),
        _get(h, [_i64(f, "one", [-1])], [3, 2], 2, 0, [1]),
        _get(e, [two], [0, 4], 4, 1, [2]),                     # x numel 0: zero-filled
    ]
    return outs, {}


def _puts(f, put, tensor):
    """The variants of one put form; `tensor` says whether the value is a tensor operand."""
    # every variant writes its own copy of x: the in-place forms mutate their operand
    xs = [f(f"x{n}", [5, 4]) for n in range(4)]
    rows = _i64(f, "rows", [3, -1, 1], [3, 1])                # index fed in broadcast shape
    pr, pc = _i64(f, "pr", [4, -5, 2]), _i64(f, "pc", [0, 3, -1])
    dup = _i64(f, "dup", [1, 3, 1, -4], [4, 1])               # rows 1 and 1 again (last wins)
    b = f("b", [21], value=boundary())
    perm = _i64(f, "perm", [20, 0, 3, -2, 4])
    ints = f("i", [9], value=int_boundary("int64"))
    pi = _i64(f, "pi", [8, 0, -3, 2, -1])
    t = f("t", [6], "bool")
    d = f("d", [2, 3, 2], "float64")
    mid = _i64(f, "mid", [2, 0], [2, 1])
    tt = _i64(f, "tt", [5, 0])
    a_rows = _attrs([5, 4], 4, 0, 1, [3])
    a_pts = _attrs([5, 4], 4, 0, 2, [3])
    a_dup = _attrs([5, 4], 4, 0, 1, [4])
    a_b = _attrs([21], 4, 0, 1, [5])
    a_i = _attrs([9], 8, 0, 1, [5])
    a_t = _attrs([6], 1, 0, 1, [2])
    a_d = _attrs([2, 3, 2], 8, 1, 1, [2])
    if tensor:
        v = lambda name, shape, dtype="float32", value=None: f(name, shape, dtype, value=value)
        special = boundary()[[0, 1, 2, 4, 5]]
        return [put(xs[0], [rows], v("v_rows", [3, 4]), *a_rows),
                put(xs[1], [rows], v("v_row", [4]), *a_rows),             # value broadcast
                put(xs[2], [pr, pc], v("v_pts", [3]), *a_pts),
                put(xs[3], [dup], v("v_dup", [4, 4]), *a_dup),
                put(b, [perm], v("v_b", [5], value=special), *a_b),
                put(ints, [pi], v("v_i", [5], "int64", value=int_boundary("int64")[:5]),
                    *a_i),
                put(t, [tt], v("v_t", [2], "bool"), *a_t),
                put(d, [mid], v("v_d", [2, 2, 2], "float64"), *a_d)]
    # a NaN or Inf Scalar attribute cannot be saved and reloaded by Paddle's JSON
    # serialiser (tools/paddle_oracle/FINDINGS.md, "key 'D' not found"): finite values only
    return [put(xs[0], [rows], 7.5, *a_rows),
            put(xs[1], [pr, pc], -0.0, *a_pts),
            put(xs[2], [dup], 2.5, *a_dup),
            put(xs[3], [rows], 3.4e38, *a_rows),
            put(b, [perm], -1e-45, *a_b),                      # a float32 denormal
            put(ints, [pi], -2.75, *a_i),                    # the Scalar truncates to int64
            put(t, [tt], 1.0, *a_t),
            put(d, [mid], 1e-300, *a_d)]


@op("index_elementwise_put", note="pd_op.index_elementwise_put is new in Paddle 3.1")
def _index_elementwise_put(f):
    return _puts(f, C.index_elementwise_put, tensor=False), {}


@op("index_elementwise_put_", note="pd_op.index_elementwise_put_ is new in Paddle 3.1")
def _index_elementwise_put_(f):
    return _puts(f, C.index_elementwise_put_, tensor=False), {}


@op("index_elementwise_put_with_tensor",
    note="pd_op.index_elementwise_put_with_tensor is new in Paddle 3.1")
def _index_elementwise_put_with_tensor(f):
    return _puts(f, C.index_elementwise_put_with_tensor, tensor=True), {}


@op("index_elementwise_put_with_tensor_",
    note="pd_op.index_elementwise_put_with_tensor_ is new in Paddle 3.1")
def _index_elementwise_put_with_tensor_(f):
    return _puts(f, C.index_elementwise_put_with_tensor_, tensor=True), {}
