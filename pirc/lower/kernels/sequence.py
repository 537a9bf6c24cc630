"""Sequence ops of fluid models, which read the LoD of their input (pirc/lower/lod.py):
sequence_pool, sequence_softmax, sequence_expand, sequence_conv, box_clip (one sequence of
boxes per image), fusion_seqpool_concat, fusion_seqpool_cvm_concat (jit SeqPool),
fusion_seqconv_eltadd_relu and match_matrix_tensor, as phi's CPU kernels compute them
(funcs/sequence_pooling.cc, impl/sequence_softmax_kernel_impl.h,
impl/sequence_expand_kernel_impl.h, impl/sequence_conv_kernel_impl.h with
funcs/math/context_project.h, impl/box_clip_kernel_impl.h with funcs/detection/bbox_util.h).

Each kernel takes `lods` (one LoD per operand: a list of offsets tensors or None) and returns
(results, result LoDs). Sequences are walked one by one in Python, as the C++ loops walk them;
the arithmetic inside one sequence keeps the kernel's order (a running sum row after row, the
first row copied rather than added to zero), so results are bit-exact.
"""

from __future__ import annotations

import torch

from ..lod import as_lod, levels_of, lod_kernel, need_lod

NO_LOD = (None,) * 5  # called with no LoDs (as a pass folding constants would): none read


def _rows(x):
    """x as [rows, width] (every dim after the first flattened), as the kernels index it."""
    return x.reshape(x.shape[0], -1) if x.dim() > 1 else x.reshape(-1, 1)


@lod_kernel("pd_op.sequence_pool")
def sequence_pool(x, *, lods=NO_LOD, is_test=False, pooltype="AVERAGE", pad_value=0.0):
    """SequencePoolFunctor<CPU>: one row per sequence of the last LoD level; an empty sequence
    is `pad_value` (max_index -1). SUM: the first row, then each next row added (jit
    SeqPool); AVERAGE / SQRT: Eigen's sum from zero, row after row, over h or sqrt(h); MAX:
    the first row, replaced where a later row is strictly greater (max_index the row);
    LAST / FIRST: a copy. The result's LoD is the input's without its last level."""
    levels = need_lod("sequence_pool", "x", lods[0])
    offs = levels[-1]
    xr = _rows(x)
    w = xr.shape[1]
    pad = torch.tensor(pad_value, dtype=x.dtype)
    outs, idx = [], []
    for s, e in zip(offs[:-1], offs[1:]):
        ix = torch.full((w,), -1, dtype=torch.int32)
        if s == e:
            outs.append(pad.expand(w))
            idx.append(ix)
            continue
        if pooltype == "MAX":
            acc, ix = xr[s].clone(), torch.full((w,), s, dtype=torch.int32)
            for j in range(s + 1, e):
                gt = xr[j] > acc
                acc = torch.where(gt, xr[j], acc)
                ix = torch.where(gt, torch.tensor(j, dtype=torch.int32), ix)
        elif pooltype == "LAST":
            acc = xr[e - 1].clone()
        elif pooltype == "FIRST":
            acc = xr[s].clone()
        elif pooltype == "SUM":
            acc = xr[s].clone()
            for j in range(s + 1, e):
                acc = acc + xr[j]
        elif pooltype in ("AVERAGE", "SQRT"):
            acc = torch.zeros(w, dtype=x.dtype)
            for j in range(s, e):
                acc = acc + xr[j]
            h = e - s
            if pooltype == "AVERAGE":
                acc = acc / torch.tensor(h, dtype=x.dtype)
            else:
                acc = acc / torch.sqrt(torch.tensor(h, dtype=x.dtype))
        else:
            raise ValueError(f"sequence_pool: unsupported pooltype {pooltype!r} (SUM, AVERAGE, "
                             "SQRT, MAX, LAST, FIRST)")
        outs.append(acc)
        idx.append(ix)
    shape = (len(outs),) + tuple(x.shape[1:])
    out = (torch.stack(outs) if outs else xr[:0]).reshape(shape)
    max_index = (torch.stack(idx) if idx else torch.zeros((0, w), dtype=torch.int32)).reshape(shape)
    rest = as_lod(levels[:-1]) if len(levels) > 1 else None
    return (out, max_index), (rest, None)


@lod_kernel("pd_op.sequence_softmax")
def sequence_softmax(x, *, lods=NO_LOD):
    """SequenceSoftmaxFunctor<CPU>: per sequence of the last level (x has one value a row),
    exp(x) / (the sum of exp over the sequence). The functor's unqualified `exp` is the double
    one: each term is exp in double added to the float running sum (rounded to float each
    step), and the quotient is double exp over that sum, rounded. The result keeps x's LoD."""
    levels = need_lod("sequence_softmax", "x", lods[0])
    offs = levels[-1]
    flat = x.reshape(-1)
    ex = torch.exp(flat.double())
    out = torch.empty_like(flat)
    for s, e in zip(offs[:-1], offs[1:]):
        total = torch.zeros((), dtype=x.dtype)
        for j in range(s, e):
            total = (total.double() + ex[j]).to(x.dtype)
        out[s:e] = (ex[s:e] / total.double()).to(x.dtype)
    return out.reshape(x.shape), (lods[0],)


@lod_kernel("pd_op.sequence_expand")
def sequence_expand(x, y, *, lods=NO_LOD, ref_level=-1):
    """SequenceExpandKernel: sequence i of x (row i when x has no LoD) repeated as many times
    as sequence i of y's level `ref_level` (-1: the last) has entries. When x has a LoD the
    result's is one level, the offsets of the repeated sequences."""
    y_levels = need_lod("sequence_expand", "y", lods[1])
    x_levels = levels_of(lods[0])
    if len(x_levels) > 1:
        raise ValueError(f"sequence_expand: x has {len(x_levels)} LoD levels, at most 1 allowed")
    if ref_level == -1:
        ref_level = len(y_levels) - 1
    if not 0 <= ref_level < len(y_levels):
        raise ValueError(f"sequence_expand: ref_level {ref_level} is not a level of y's LoD "
                         f"({len(y_levels)} levels)")
    ref = y_levels[ref_level]
    if len(ref) <= 1:
        return x.clone(), (lods[0],)
    x_offs = x_levels[0] if x_levels else list(range(x.shape[0] + 1))
    if len(x_offs) != len(ref):
        raise ValueError(f"sequence_expand: x has {len(x_offs) - 1} sequences, y's level "
                         f"{ref_level} {len(ref) - 1}")
    pieces, out_lod = [], [0]
    for i in range(1, len(ref)):
        seq = x[x_offs[i - 1]:x_offs[i]]
        for _ in range(ref[i] - ref[i - 1]):
            pieces.append(seq)
            out_lod.append(out_lod[-1] + seq.shape[0])
    out = torch.cat(pieces) if pieces else x[:0]
    return out, (as_lod([out_lod]) if x_levels else None,)


def context_project(x, offs, context_start, context_length, padding=None):
    """ContextProjectFunctor (padding not trainable: zeros; else rows of `padding`): row t of
    a sequence holds the rows t + context_start + k, k < context_length, of that sequence side
    by side; rows outside it are zero, or padding rows (up_pad of them above, then below)."""
    xr = _rows(x)
    w = xr.shape[1]
    up_pad = max(0, -context_start)
    col = torch.zeros((xr.shape[0], context_length * w), dtype=x.dtype)
    for s, e in zip(offs[:-1], offs[1:]):
        for t in range(s, e):
            for k in range(context_length):
                j = t + context_start + k
                if s <= j < e:
                    col[t, k * w:(k + 1) * w] = xr[j]
                elif padding is not None:
                    # above the sequence: padding row (j - s) + up_pad; below: after the up rows
                    r = j - s + up_pad if j < s else up_pad + (j - e)
                    col[t, k * w:(k + 1) * w] = padding[r]
    return col


@lod_kernel("pd_op.sequence_conv")
def sequence_conv(x, padding_data, filter, *, lods=NO_LOD, context_length=3,  # noqa: A002
                  padding_trainable=False, context_start=0, context_stride=1):
    """SequenceConvKernel: the context projection of each sequence (context_project) times
    the filter (one GEMM). The result keeps x's LoD."""
    levels = need_lod("sequence_conv", "x", lods[0])
    if len(levels) != 1:
        raise ValueError(f"sequence_conv: x has {len(levels)} LoD levels, only 1 is supported")
    if context_stride != 1:
        raise ValueError(f"sequence_conv: context_stride {context_stride}: only 1 is supported")
    pad = padding_data if padding_trainable else None
    col = context_project(x, levels[0], context_start, context_length, pad)
    return torch.mm(col, filter), (lods[0],)


@lod_kernel("pd_op.box_clip")
def box_clip(input, im_info, *, lods=NO_LOD):  # noqa: A002 - Paddle's operand name
    """BoxClipKernel / ClipTiledBoxes: the boxes of image i (sequence i of the LoD; without
    one, every box is image 0's) clipped to [0, round(w / scale) - 1] and
    [0, round(h / scale) - 1] of that image's im_info (h, w, scale). Keeps the LoD."""
    levels = levels_of(lods[0])
    offs = levels[-1] if levels else [0, input.shape[0]]
    flat = input.reshape(input.shape[0], -1, 4) if input.dim() > 1 else input.reshape(1, -1, 4)
    out = torch.empty_like(flat)
    one, zero = torch.tensor(1, dtype=input.dtype), torch.tensor(0, dtype=input.dtype)
    for i, (s, e) in enumerate(zip(offs[:-1], offs[1:])):
        im = im_info[i]
        im_w = torch.round(im[1] / im[2])
        im_h = torch.round(im[0] / im[2])
        b = flat[s:e]
        out[s:e, :, 0::2] = torch.maximum(torch.minimum(b[..., 0::2], im_w - one), zero)
        out[s:e, :, 1::2] = torch.maximum(torch.minimum(b[..., 1::2], im_h - one), zero)
    return out.reshape(input.shape), (lods[0],)


def _jit_seqpool_concat(op, x, member_lods, pooltype, cvm=False):
    """jit SeqPool per input and sequence (the first row, then each next row added; AVERAGE
    / SQRT then scaled by 1 / h or 1 / sqrt(h), computed in the dtype), the inputs' pooled
    rows side by side; with `cvm` each input's first two pooled columns become
    log(c0 + 1) and log(c1 + 1) - that (CVM's show / click), log in double."""
    member_lods = member_lods if member_lods is not None else [None] * len(x)
    outs = []
    for i, (xi, li) in enumerate(zip(x, member_lods)):
        offs = need_lod(op, f"x[{i}]", li)[0]
        xr = _rows(xi)
        rows = []
        for s, e in zip(offs[:-1], offs[1:]):
            acc = xr[s].clone()
            for j in range(s + 1, e):
                acc = acc + xr[j]
            h = torch.tensor(e - s, dtype=xi.dtype)
            one = torch.tensor(1, dtype=xi.dtype)
            if pooltype == "AVERAGE":
                acc = acc * (one / h)
            elif pooltype == "SQRT":
                acc = acc * (one / torch.sqrt(h))
            elif pooltype != "SUM":
                raise ValueError(f"{op}: unsupported pooltype {pooltype!r}")
            if cvm:
                # the kernel's unqualified log is the double one: log(c + 1) in double,
                # the difference in double, each rounded to the dtype when stored
                acc = acc.clone()
                show = torch.log((acc[0] + one).double())
                acc[0] = show.to(xi.dtype)
                acc[1] = (torch.log((acc[1] + one).double()) - acc[0].double()).to(xi.dtype)
            rows.append(acc)
        outs.append(torch.stack(rows))
    out = torch.cat(outs, 1)
    return out, (as_lod([list(range(out.shape[0] + 1))]),)


@lod_kernel("pd_op.fusion_seqpool_concat")
def fusion_seqpool_concat(x, *, lods=NO_LOD, pooltype="SUM", axis=1):
    """FusionSeqPoolConcatKernel: each input pooled per sequence by jit SeqPool, the pooled
    rows of the inputs side by side (axis 1). The result's LoD is one row per sequence."""
    if axis != 1:
        raise ValueError(f"fusion_seqpool_concat: axis {axis}: only 1 is supported")
    return _jit_seqpool_concat("fusion_seqpool_concat", x, lods[0], pooltype)


@lod_kernel("pd_op.fusion_seqpool_cvm_concat")
def fusion_seqpool_cvm_concat(x, cvm, *, lods=NO_LOD, pooltype="SUM", use_cvm=True, axis=1):
    """FusionSeqPoolCVMConcatKernel: fusion_seqpool_concat, then per input the first two
    pooled columns log(c0 + 1), log(c1 + 1) - log(c0 + 1) (the kernel does so whatever
    use_cvm says; the CVM input is not read)."""
    if axis != 1:
        raise ValueError(f"fusion_seqpool_cvm_concat: axis {axis}: only 1 is supported")
    return _jit_seqpool_concat("fusion_seqpool_cvm_concat", x, lods[0], pooltype, cvm=True)


@lod_kernel("pd_op.fusion_seqconv_eltadd_relu")
def fusion_seqconv_eltadd_relu(x, filter, bias, *, lods=NO_LOD, context_length=3,  # noqa: A002
                               context_start=0, context_stride=1):
    """FusionSeqConvEltAddReluKernel: the context projection of each sequence (rows outside
    it zero), one GEMM with the filter, then + bias and relu per row (FCFunctor). Returns
    (out, col_mat); out keeps x's LoD."""
    levels = need_lod("fusion_seqconv_eltadd_relu", "x", lods[0])
    if len(levels) != 1:
        raise ValueError(f"fusion_seqconv_eltadd_relu: x has {len(levels)} LoD levels, only 1")
    col = context_project(x, levels[0], context_start, context_length)
    y = torch.mm(col, filter) + bias.reshape(1, -1)
    out = torch.where(y > 0, y, torch.zeros((), dtype=y.dtype))
    return (out, col), (lods[0], None)


@lod_kernel("pd_op.match_matrix_tensor")
def match_matrix_tensor(x, y, w, *, lods=NO_LOD, dim_t=1):
    """CPUMatchMatrixTensorOPKernel: tmp = x @ w (w as [d, dim_t * d], one GEMM); for each
    sequence pair b and channel t, the [len_x, len_y] matrix tmp_t(x_b) @ y_b^T, flattened
    in (b, t, i, j) order into a [n, 1] result whose LoD is the blocks' offsets. Returns
    (out, tmp [rows * dim_t * d, 1])."""
    lx = need_lod("match_matrix_tensor", "x", lods[0])[0]
    ly = need_lod("match_matrix_tensor", "y", lods[1])[0]
    if len(lx) != len(ly):
        raise ValueError(f"match_matrix_tensor: x has {len(lx) - 1} sequences, y {len(ly) - 1}")
    d = x.shape[1]
    tmp = torch.mm(x, w.reshape(d, dim_t * d))
    blocks, top = [], [0]
    for b in range(len(lx) - 1):
        r = y[ly[b]:ly[b + 1]]
        for t in range(dim_t):
            left = tmp[lx[b]:lx[b + 1], t * d:(t + 1) * d]
            blocks.append(torch.mm(left, r.t()).reshape(-1))
        top.append(top[-1] + dim_t * (lx[b + 1] - lx[b]) * (ly[b + 1] - ly[b]))
    out = torch.cat(blocks).reshape(-1, 1) if blocks else x.new_zeros((0, 1))
    return (out, tmp.reshape(-1, 1)), (as_lod([top]), None)
