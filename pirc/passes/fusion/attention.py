"""fuse-attention: the BERT- and LLaMA-shaped scaled dot-product attention

    matmul(q, k^T) -> scale by s (scale op or multiply by a constant; or q scaled first)
      -> [+ where(b, 0, -inf)] -> softmax(last axis) -> [inference dropout] -> matmul(., v)

-> `pd_op.self_dp_attention(qkv, alpha=s, head_number=N)` where its constraints hold, else
`npu.fusion_attention(q, k, v, head_num=N, input_layout="BNSD", scale=s[, atten_mask=not b])[0]`
(torch_npu's npu_fusion_attention).

Why it is sound.  Both compute softmax(s * q k^T [masked]) v per batch and head, nothing
dropped.  The rule fires only where that is provably the program's computation:

* q, k, v are 4-D float32 [B, N, S, D] with equal B and N: static and equal, or the three
  slices of one packed tensor, or a dynamic B provably the same dim in all three
  (pirc.passes.infra.same_dim: LLaMA's q, k, v split from projections of one hidden state
  with reshape targets [0, 0, N, D] copy its batch dim; two feeds of [-1, ...] do not); or (attention-bsnd, rooted at the transpose back) [B, S, N, D]
  tensors under transposes to [B, N, S, D] with k^T one transpose [0, 2, 3, 1], passed as
  input_layout BSND (LLaMA's layout) (matmul would broadcast a batch or head dim of 1, the fused ops
  do not); k^T is the matmul's transpose_y or a transpose(k, [0, 1, 3, 2]); transpose_x is
  false; float32 only (both fused kernels compute in float32; a float16 composition rounds
  after each op, and self_dp_attention reads float64 as float32);
* the scale is a one-element constant s applied with bias 0 after q k^T (`scale` or
  `multiply`), or to q before it: (s q) k^T = s (q k^T) up to one rounding of each product
  (exact when s is a power of two, as 1/sqrt(64) = 1/8);
* a mask only when it is provably 0 or -inf: where(b, 0, -inf) or where(b, -inf, 0) of a bool
  b (fulls), added to the scores without broadcasting them; torch_npu's boolean atten_mask
  (True = masked) is then logical_not(b), or b (through an assign: a result op per rule
  form), and masking a score with -inf is adding -inf (a fully masked row is
  NaN in both).  Any other additive mask ((1 - cast(b)) * -1e4, finfo.min, an ALiBi or T5
  bias) stays unfused;
* dropout only in inference form, where it is the identity: is_test with upscale_in_train,
  or p = 0;
* every intermediate (scores, probabilities) has no other use (built into the layer).

`pd_op.self_dp_attention` (Paddle's CPU kernel, phi/kernels/fusion/cpu/
self_dp_attention_kernel.cc) reads q, k, v packed as one [B, S, 3, N, H] tensor, takes alpha
(any scale) and head_number, no mask and no dropout, and returns [B, S, N, H]; it is a
target when q, k, v are slices 0, 1, 2 (axis 0, dropped) of transpose(R, [2, 0, 3, 1, 4]) of
a float32 R = [B, S, 3, N, H] (a fused QKV projection split into heads, Paddle's own
self_dp_attention_fuse_pass pattern).  The attention's transpose back to [B, S, N, H] is
swallowed when it is the only user (attention-self-dp-bsnh), else a transpose to [B, N, S, H]
is added.  Its kernel tiles the keys by 512 with an online softmax and a Cephes AVX-512 exp
(`__m512` intrinsics): it runs only on CPUs with AVX-512, so this is a device (`npu`
pipeline) fusion, not a portable one; on an NPU pirc runs its reference
(pirc/lower/kernels/self_attention_cpu.py).

Tolerance: atol 1e-5, rtol 1e-4 (npu_fusion_attention's reference does Paddle's float32 ops
in Paddle's order; self_dp_attention's kernel subtracts the scaled row max inside its exp;
the scale-on-q form rounds differently unless s is a power of two).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...ir.types import ELEMENT_TYPES, NULL_TYPE, DenseTensorType
from ..folding.constants import int_array_values
from ..infra.declarative import (Capture, Check, Const, Constraint, DeclarativePass, New, Op, Rule,
                                 attr_value, dtype_of)
from ..infra.forwarding import unwritten
from ..infra.registry import register_pass
from ..infra.same_dim import same_dim

NO_TRANSPOSE_X = Check("matmul q k^T has transpose_x false", lambda v: v is False)
LAST = Check("softmax over the last axis", lambda a: a in (-1, 3))
PLAIN = {"transpose_x": False, "transpose_y": False}


def _k(m):
    """k (the [B, N, S, D] key) from the matmul's second operand."""
    if m.attr("qk", "transpose_y", False):
        return m["kt"]
    op = getattr(m["kt"], "op", None)
    if op is not None and op.name == "pd_op.transpose" and attr_value(op, "perm") == (0, 1, 3, 2) \
            and unwritten(m.pc.aliases, op.operands[0]):   # the fused op reads k at the root
        return op.operands[0]
    return None


def _packed(q, k, v, aliases):
    """R when q, k, v are slices 0, 1, 2 (axis 0, dropped) of transpose(R, [2, 0, 3, 1, 4])
    with R a 5-D [B, S, 3, N, H]: a packed QKV projection split into heads."""
    source = None
    for i, value in enumerate((q, k, v)):
        op = getattr(value, "op", None)
        if op is None or op.name != "pd_op.slice" or attr_value(op, "axes") != (0,) \
                or attr_value(op, "decrease_axis") != (0,):
            return None
        if int_array_values(op.operands[1], aliases) != (i,) or int_array_values(op.operands[2], aliases) != (i + 1,):
            return None
        if source is None:
            source = op.operands[0]
        elif op.operands[0] is not source:
            return None
    t = getattr(source, "op", None)
    if t is None or t.name != "pd_op.transpose" or attr_value(t, "perm") != (2, 0, 3, 1, 4):
        return None
    packed = t.operands[0]
    shape = getattr(packed.type, "shape", None)
    if shape is None or len(shape) != 5 or shape[2] != 3 or not unwritten(aliases, packed):
        return None
    return packed


def _layout(m) -> bool:
    k = _k(m)
    if k is None:
        return False
    m.captured["k"] = k
    qs, ks, vs = m.shape("q"), tuple(k.type.shape), m.shape("v")
    if qs is None or vs is None or not len(qs) == len(ks) == len(vs) == 4:
        return False
    m.captured["packed"] = _packed(m["q"], k, m["v"], m.pc.aliases)
    if m.captured["packed"] is not None:   # one tensor's slices: the same B and N, even dynamic
        return qs[1] > 0
    return qs[1] > 0 and qs[0] != 0 and all(
        same_dim(m["q"], i, t, i, m.pc.aliases) for t in (k, m["v"]) for i in (0, 1))


def _f32(m) -> bool:
    k = m.captured.get("k")
    return m.dtype("q") == m.dtype("v") == "f32" and (k is None or dtype_of(k) == "f32")


def _dropout_identity(m) -> bool:
    if "drop" not in m.ops:
        return True
    mode = m.attr("drop", "mode")
    return bool(m.attr("drop", "is_test")) and (mode == "upscale_in_train" or m.captured.get("p") == 0)


def _full_value(value, aliases):
    """The value every element of a pd_op.full holds (any shape), nothing writing it."""
    op = getattr(value, "op", None)
    if op is None or op.name != "pd_op.full" or not unwritten(aliases, value):
        return None
    return attr_value(op, "value")


def _bool_mask(m) -> bool:
    """mask = where(b, 0, -inf) with b bool, adding to the scores without broadcasting them."""
    where = getattr(m["mask"], "op", None)
    if where is None or where.name != "pd_op.where":
        return False
    b, zero, ninf = where.operands
    from ...ir.types import ELEMENT_TYPE_NAMES
    if ELEMENT_TYPE_NAMES.get(getattr(b.type, "dtype", None)) != "b":
        return False
    values = (_full_value(zero, m.pc.aliases), _full_value(ninf, m.pc.aliases))
    if values == (0, float("-inf")):
        m.captured["mask_is_keep"] = True     # b True = attend: atten_mask = not b
    elif values == (float("-inf"), 0):
        m.captured["mask_is_keep"] = False    # b True = masked out: atten_mask = b
    else:
        return False
    scores, total = m.ops["qk"].results[0], m.ops["madd"].results[0]
    if tuple(total.type.shape) != tuple(scores.type.shape) or len(b.type.shape) != 4:
        return False
    m.captured["keep"] = b
    return True


def _one_scale(m) -> bool:
    """At most one scale: on q, or on the scores (s1 (s2 q k^T) would round twice)."""
    return sum(name in m.ops for name in ("scq", "sc", "mul")) <= 1


def _scale(m) -> float:
    for name in ("s", "sq", "sm"):
        if name in m.captured:
            return float(m.captured[name])
    return 1.0


def _source():
    """The pattern; optional ops: the scale of q, the scale or multiply of the scores, the
    mask's add and the dropout (each form is tried, larger first)."""
    q = Op("pd_op.scale", ("q", Const(Capture("sq"))), attrs={"bias": 0.0}, optional=True, bind="scq")
    qk = Op("pd_op.matmul", (q, "kt"), attrs={"transpose_x": NO_TRANSPOSE_X}, bind="qk")
    scaled = Op("pd_op.scale", (qk, Const(Capture("s"))), attrs={"bias": 0.0}, optional=True, bind="sc")
    scores = Op("pd_op.multiply", (scaled, Const(Capture("sm"))), commutative=True, optional=True,
                bind="mul")
    masked = Op("pd_op.add", (scores, "mask"), commutative=True, optional=True, bind="madd")
    soft = Op("pd_op.softmax", (masked,), attrs={"axis": LAST}, bind="soft")
    probs = Op("pd_op.dropout", (soft, "_", Const(Capture("p"))), optional=True, bind="drop")
    return Op("pd_op.matmul", (probs, "v"), attrs=PLAIN)


def _taken_by_bsnh(m) -> bool:
    """The self_dp_attention site whose transpose back to [B, S, N, H] is the root's only
    user: attention-self-dp-bsnh, rooted at that transpose, takes it (the greedy driver
    reaches the matmul first)."""
    if m.captured.get("packed") is None or "madd" in m.ops or dtype_of(m.captured["packed"]) != "f32":
        return False
    uses = list(m.root.results[0].uses)
    if len(uses) != 1:
        return False
    user = uses[0].operation
    return user.name == "pd_op.transpose" and attr_value(user, "perm") == (0, 2, 1, 3)


VERSIONS = {"pd_op.matmul": (1,), "pd_op.softmax": (1,), "pd_op.dropout": (1,),
            "pd_op.scale": (1,), "pd_op.add": (1,), "pd_op.multiply": (1,)}
MASK = (
    Constraint("mask is provably 0/-inf: where(bool, 0, -inf) or where(bool, -inf, 0) not "
               "broadcasting the scores",
               lambda m: "madd" not in m.ops or _bool_mask(m)),
    Constraint("the mask's bool is written in place nowhere (the fused op reads it at "
               "the root; the alias model)",
               lambda m: "madd" not in m.ops or unwritten(m.pc.aliases, m.captured["keep"])),
    Constraint("one scale: on q or on the scores", _one_scale),
)
REST = (
    Constraint("q, k, v are float32 (the fused reference computes in float32)", _f32),
    Constraint("dropout is the inference identity (is_test, upscale_in_train or p = 0)",
               _dropout_identity),
)
ATTEN_MASK = (
    New("pd_op.logical_not", {"x": lambda m: m.captured["keep"]},
        types=(lambda m: m.captured["keep"].type,), bind="masked",
        when=lambda m: "madd" in m.ops and m.captured["mask_is_keep"]),
    New("pd_op.assign", {"x": lambda m: m.captured["keep"]},
        types=(lambda m: m.captured["keep"].type,), bind="masked",
        when=lambda m: "madd" in m.ops and not m.captured["mask_is_keep"]),
)


def _rule() -> Rule:
    constraints = MASK + (
        Constraint("q, k, v are 4-D [B, N, S, D] with static, equal B and N (a dynamic B "
                   "provably the same dim); k^T by transpose_y or transpose(k, [0, 1, 3, 2])",
                   _layout),
    ) + REST + (
        Constraint("not a self_dp_attention site with its transpose back (taken there)",
                   lambda m: not _taken_by_bsnh(m)),
    )
    result = ATTEN_MASK + (
        New("npu.fusion_attention",
            {"query": "q", "key": lambda m: m.captured["k"], "value": "v", "atten_mask": "masked.0"},
            {"head_num": lambda m: int(m.shape("q")[1]), "input_layout": "BNSD", "scale": _scale},
            types=_TYPES, bind="fa"),
    )
    return Rule("attention", source=_source(), versions=VERSIONS, constraints=constraints,
                result=result, replace={"root": ("fa.0",)})


def _under_transpose(value, perm, aliases):
    """x when value = transpose(x, perm) and nothing writes x in place, else None."""
    op = getattr(value, "op", None)
    if op is None or op.name != "pd_op.transpose" or attr_value(op, "perm") != perm:
        return None
    return op.operands[0] if unwritten(aliases, op.operands[0]) else None


def _bsnd_layout(m) -> bool:
    """q, v = transpose([B, S, N, D], [0, 2, 1, 3]); k^T = transpose(K, [0, 2, 3, 1]) (or
    transpose_y of transpose(K, [0, 2, 1, 3])): the fused op reads Q, K, V as BSND."""
    aliases = m.pc.aliases
    q = _under_transpose(m["q"], (0, 2, 1, 3), aliases)
    v = _under_transpose(m["v"], (0, 2, 1, 3), aliases)
    if m.attr("qk", "transpose_y", False):
        k = _under_transpose(m["kt"], (0, 2, 1, 3), aliases)
    else:
        k = _under_transpose(m["kt"], (0, 2, 3, 1), aliases)
    if q is None or k is None or v is None:
        return False
    shapes = [tuple(t.type.shape) for t in (q, k, v)]
    if any(len(sh) != 4 for sh in shapes):
        return False
    (b, _, n, _), ks, vs = shapes
    if not (b != 0 and n > 0 and ks[2] == vs[2] == n
            and same_dim(q, 0, k, 0, aliases) and same_dim(q, 0, v, 0, aliases)):
        return False
    m.captured.update(Q=q, K=k, V=v, k=k)
    return True


def _bsnd_rule() -> Rule:
    """LLaMA's layout: the heads split as [B, S, N, D], transposed to [B, N, S, D] for the
    two matmuls and back after them.  Rooted at the transpose back, which the greedy driver
    reaches after the matmul: the `attention` rule declines there when its k^T is the
    [0, 2, 3, 1] transpose (or takes a transpose_y site as BNSD, which is as good)."""
    versions = dict(VERSIONS, **{"pd_op.transpose": (1,)})
    source = Op("pd_op.transpose", (_source(),), attrs={"perm": (0, 2, 1, 3)})
    constraints = MASK + (
        Constraint("q, k, v are [B, S, N, D] tensors with static, equal B and N (a dynamic "
                   "B provably the same dim), under transposes to [B, N, S, D] (k^T by "
                   "transpose [0, 2, 3, 1])", _bsnd_layout),
    ) + REST
    result = ATTEN_MASK + (
        New("npu.fusion_attention",
            {"query": lambda m: m.captured["Q"], "key": lambda m: m.captured["K"],
             "value": lambda m: m.captured["V"], "atten_mask": "masked.0"},
            {"head_num": lambda m: int(m.shape("q")[1]), "input_layout": "BSND", "scale": _scale},
            types=_TYPES, bind="fa"),
    )
    return Rule("attention-bsnd", source=source, versions=versions, constraints=constraints,
                result=result, replace={"root": ("fa.0",)})


def _type_fns():
    """npu_fusion_attention's results: out, softmax_max and softmax_sum ([B, N, S, 8]
    float32), softmax_out (empty), seed, offset, numels (Python ints: no tensor type)."""
    def stats(m):
        qs = m.shape("q")
        return DenseTensorType.make(ELEMENT_TYPES["f32"], (qs[0], qs[1], qs[2], 8))
    empty = DenseTensorType.make(ELEMENT_TYPES["f32"], (0,))
    return ("root", stats, stats, lambda m: empty,
            lambda m: NULL_TYPE, lambda m: NULL_TYPE, lambda m: NULL_TYPE)


_TYPES = _type_fns()

def _self_dp_rule(back_to_bsnh: bool) -> Rule:
    """self_dp_attention returns [B, S, N, H]: the attention's own transpose back to that
    layout (the BERT block's next op) is swallowed, else one is added to give [B, N, S, H]."""
    base = _rule()
    def is_packed(m):
        k = _k(m)
        return k is not None and _packed(m["q"], k, m["v"], m.pc.aliases) is not None

    # its own checks first: a site that is no self_dp_attention site reports that, and the
    # shared reasons once, under the `attention` rule
    first = (
        Constraint("q, k, v are slices 0, 1, 2 of transpose([B, S, 3, N, H], [2, 0, 3, 1, 4]) "
                   "(self_dp_attention's packed input)", is_packed),
        Constraint("no mask (self_dp_attention takes none)", lambda m: "madd" not in m.ops),
    )
    f32 = Constraint("the packed qkv is float32 (the kernel computes in float32)",
                     lambda m: dtype_of(m.captured["packed"]) == "f32")
    constraints = first + base.constraints + (f32,)

    def out_type(m):
        b, s, _, n, h = m.captured["packed"].type.shape
        return DenseTensorType.make(ELEMENT_TYPES["f32"], (b, s, n, h))

    fused = New("pd_op.self_dp_attention", {"x": lambda m: m.captured["packed"]},
                {"alpha": _scale, "head_number": lambda m: int(m.shape("q")[1])},
                types=(out_type,), bind="sdp")
    versions = dict(base.versions)
    if back_to_bsnh:
        versions["pd_op.transpose"] = (1,)
        source = Op("pd_op.transpose", (base.source,), attrs={"perm": (0, 2, 1, 3)})
        return Rule("attention-self-dp-bsnh", source=source, versions=versions,
                    constraints=constraints, result=(fused,))
    result = (fused, New("pd_op.transpose", {"x": "sdp.0"}, {"perm": (0, 2, 1, 3)}, bind="bnsd"))
    return Rule("attention-self-dp", source=base.source, versions=versions,
                constraints=constraints, result=result,
                replace={"root": ("bnsd.0",)})


RULES = (_self_dp_rule(True), _self_dp_rule(False), _rule(), _bsnd_rule())


@register_pass
@dataclass(frozen=True)
class FuseAttention(DeclarativePass):
    """Fuses scaled dot-product attention into self_dp_attention (packed QKV) or npu.fusion_attention."""

    name = "fuse-attention"
    devices = ("npu",)
    rules = RULES
