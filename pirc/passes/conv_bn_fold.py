"""conv-bn-fold: fold an inference batch_norm into the convolution before it.

Matches `pd_op.conv2d` / `pd_op.depthwise_conv2d` (NCHW), optionally followed by the bias
add Paddle's `nn.Conv2D` emits (`pd_op.add` of the conv and a parameter, or of a
`pd_op.reshape` of one, to [1, C, 1, 1]), then `pd_op.batch_norm_` / `pd_op.batch_norm`
using the running statistics (`use_global_stats`, or `is_test` without
`trainable_statistics`: what the kernel calls global stats), every op's result used once and
the norm's statistics outputs unused.  As Paddle's conv2d_bn_fuse_pass
(paddle/fluid/pir/transforms/gpu/conv2d_bn_fuse_pass.cc), with epsilon inside the square
root:

    s  = scale / sqrt(variance + epsilon)              per output channel
    W' = W * s[:, None, None, None]
    b' = (b - mean) * s + bias                         (b = 0 without a conv bias)

and the norm becomes `pd_op.add(conv(x, W'), b')`, with W' and b' (stored [1, C, 1, 1]) new
parameters: one convolution and one add instead of a convolution, an add and a
normalisation.  The values are computed in float64 and rounded once to the weight's dtype;
the folded program reassociates the arithmetic, so it agrees with the original within
float32 rounding, not bit for bit (tests/unit/test_conv_bn_fold.py states the tolerance).

It reads parameter values (`pc.params`): without them the manager skips it whole, with the
reason (`reads_weights`); a program without a batch norm gives it nothing to do
(`interest`).  It reads them as stored, so a parameter whose buffer an op changes in place (the
alias model, pirc.ir.aliasing: `relu_(w)` before the conv) is skipped too, with the reason;
the inference norm's own write of its running statistics keeps their values and is no
obstacle.  The parameters the fold leaves unused go, with their values, so the parameters
written after the pipeline are the program's.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import StringAttr

from ..ir import attrs as A
from ..ir.ops import is_null_value
from ..ir.registry import op_class
from ..ir.types import DenseTensorType
from .infra.parameters import (add_parameter, erase_unused, fresh_name,
                               not_persisted_reason, parameter_name, parameter_op,
                               program_parameter_names, weights_digest)
from .infra.pass_base import PassContext, PircPass
from .infra.registry import register_pass
from .infra.rewrites import OpUse

CONVS = ("pd_op.conv2d", "pd_op.depthwise_conv2d")
NORMS = ("pd_op.batch_norm_", "pd_op.batch_norm")


@dataclass
class Match:
    conv: object
    norm: object
    add: object = None        # the conv's bias add, if any
    reshape: object = None    # the reshape of the bias parameter, if any
    bias_param: object = None  # the conv bias's builtin.parameter op, if any

    @property
    def ops(self) -> list:
        return [op for op in (self.conv, self.reshape, self.add, self.norm) if op is not None]


@register_pass
@dataclass(frozen=True)
class ConvBatchNormFold(PircPass):
    """Folds an inference batch_norm into the preceding conv2d's weight and an added bias
    (needs the parameter values)."""

    name = "conv-bn-fold"
    version = 1
    invariants = ("verified",)
    # The numerics it was written for: batch_norm_ v1 (epsilon inside the square root), the
    # v1 convolutions, add and reshape.  pd_op.batch_norm has no registered kernel, so the
    # gate skips it with the reason until one says what its numbers are.
    rewrites = {
        "pd_op.conv2d": OpUse((1,)), "pd_op.depthwise_conv2d": OpUse((1,)),
        "pd_op.batch_norm_": OpUse((1,)), "pd_op.batch_norm": OpUse((1,)),
        "pd_op.add": OpUse((1,)), "pd_op.reshape": OpUse((1,)),
    }
    reads_weights = True
    interest = frozenset(NORMS)   # a match ends at a batch norm

    def run(self, pc: PassContext) -> None:
        taken = None
        for norm in [op for op in pc.program.walk() if op.name in NORMS]:
            m = match(norm)
            if m is None:
                continue
            pc.matched()
            written = written_parameters(m, pc.aliases)
            if written:
                pc.skip(f"aliasing: parameter {', '.join(written)} is written in place",
                        norm, pc.state.fingerprint(m.ops))
                continue
            values = operand_values(pc, m)
            if isinstance(values, str):
                pc.skip(values, norm, pc.state.fingerprint(m.ops))
                continue
            rewrite = pc.begin(m.ops)
            if rewrite is None:
                continue
            if taken is None:
                taken = program_parameter_names(pc.program) | set(pc.params)
            plan = pc.cached(rewrite.fingerprint, lambda: fold_values(values, epsilon_of(norm)),
                             extra=weights_digest(values))
            rewrite.done(apply(pc, m, plan, taken))


def match(norm) -> Match | None:
    """The conv (+ bias add) + inference norm chain ending at `norm`, or None."""
    if not global_stats(norm) or _attr(norm, "data_format", "NCHW") != "NCHW":
        return None
    if any(r.first_use is not None for r in norm.results[1:]):
        return None  # the running statistics are read: the norm cannot go
    if not all(parameter_op(v) is not None for v in norm.operands[1:] if not is_null_value(v)):
        return None
    producer = norm.operands[0].owner
    add = reshape = bias_param = None
    if getattr(producer, "name", None) == "pd_op.add":
        add, producer = producer, producer.operands[0].owner
        bias_param, reshape = bias_source(add.operands[1])
        if bias_param is None or not _single_use(add):
            return None
    if getattr(producer, "name", None) not in CONVS or not _single_use(producer):
        return None
    conv = producer
    if _attr(conv, "data_format", "NCHW") != "NCHW" or parameter_op(conv.operands[1]) is None:
        return None
    channels = conv.operands[1].type.shape[0]
    # [1, C, 1, 1] only: a [C] bias would broadcast along the width, not the channels
    if add is not None and _shape(add.operands[1]) != (1, channels, 1, 1):
        return None
    if any(_shape(v) != (channels,) for v in norm.operands[1:] if not is_null_value(v)):
        return None
    return Match(conv, norm, add, reshape, bias_param)


def written_parameters(m: Match, aliases) -> list[str]:
    """The names of the parameters the fold would read whose buffer an op changes in place."""
    values = [m.conv.operands[1], *(v for v in m.norm.operands[1:] if not is_null_value(v))]
    if m.bias_param is not None:
        values.append(m.bias_param.results[0])
    return sorted({parameter_name(parameter_op(v)) for v in values if aliases.is_written(v)})


def global_stats(norm) -> bool:
    """Whether the norm normalises with its running statistics (the kernel's rule)."""
    is_test = _attr(norm, "is_test", False)
    return _attr(norm, "use_global_stats", False) or (is_test and not _attr(norm, "trainable_statistics", False))


def bias_source(value):
    """(bias parameter op, reshape op or None) when `value` is a parameter or a reshape of one."""
    param = parameter_op(value)
    if param is not None:
        return param, None
    owner = value.owner
    if getattr(owner, "name", None) == "pd_op.reshape" and _single_use(owner):
        param = parameter_op(owner.operands[0])
        if param is not None:
            return param, owner
    return None, None


def operand_values(pc: PassContext, m: Match):
    """[W, b or None, mean, variance, scale or None, bias or None] from `pc.params`, or the
    skip reason when one is missing."""
    def value(v):
        if v is None or is_null_value(v):
            return None
        name = parameter_name(parameter_op(v))
        return pc.params.get(name, name)

    norm = m.norm
    bias = m.bias_param.results[0] if m.bias_param is not None else None
    wanted = [m.conv.operands[1], bias, norm.operands[1], norm.operands[2],
              norm.operands[3], norm.operands[4]]
    unknown = not_persisted_reason(parameter_op(v) for v in wanted
                                   if v is not None and not is_null_value(v))
    if unknown:
        return unknown
    values = [value(v) for v in wanted]
    missing = [v for v in values if isinstance(v, str)]
    if missing:
        return f"params: no value for {', '.join(missing)} in the parameters given"
    return values


def fold_values(values, epsilon: float):
    """(W', b' as [1, C, 1, 1]) by the module docstring's formula, in the weight's dtype."""
    import numpy as np

    weight, conv_bias, mean, variance, scale, bias = values
    channels = weight.shape[0]
    f64 = lambda a, default: np.full(channels, default) if a is None else np.asarray(a, np.float64).reshape(channels)  # noqa: E731
    s = f64(scale, 1.0) / np.sqrt(f64(variance, 0.0) + epsilon)
    new_weight = (np.asarray(weight, np.float64) * s.reshape(-1, *([1] * (weight.ndim - 1))))
    new_bias = (f64(conv_bias, 0.0) - f64(mean, 0.0)) * s + f64(bias, 0.0)
    dtype = weight.dtype
    return new_weight.astype(dtype), new_bias.reshape(1, channels, 1, 1).astype(dtype)


def apply(pc: PassContext, m: Match, plan, taken: set) -> list:
    """Rewrite the IR for match `m` with the folded values; the new ops."""
    new_weight, new_bias = plan
    conv, norm = m.conv, m.norm
    old_weight = parameter_op(conv.operands[1])
    base = parameter_name(old_weight)
    w_name = fresh_name(f"{base}.bn_folded", taken)
    b_name = fresh_name(f"{base}.bn_folded_bias", taken | {w_name})
    taken.update((w_name, b_name))
    out_type = norm.results[0].type
    w_op = add_parameter(pc, old_weight, w_name, new_weight, old_weight.results[0].type, old_weight)
    like = parameter_op(norm.operands[4]) if not is_null_value(norm.operands[4]) else old_weight
    bias_type = DenseTensorType.make(out_type.dtype, (1, new_bias.shape[1], 1, 1))
    b_op = add_parameter(pc, like, b_name, new_bias, bias_type, old_weight)
    conv.operands = [conv.operands[0], w_op.results[0]]
    stop_gradient = norm.attributes.get("stop_gradient")
    attributes = {} if stop_gradient is None else {"stop_gradient": A.array_attr(stop_gradient.data[:1])}
    add = op_class("pd_op.add", pc.program.version).create(
        operands=[conv.results[0], b_op.results[0]], result_types=[out_type], attributes=attributes)
    norm.parent.insert_op_before(add, norm)
    norm.results[0].replace_all_uses_with(add.results[0])
    olds = [norm, m.add, m.reshape, m.reshape.operands[1].owner if m.reshape is not None else None,
            m.bias_param, old_weight] + [parameter_op(v) for v in norm.operands[1:] if not is_null_value(v)]
    norm.parent.erase_op(norm, safe_erase=False)
    erase_unused(pc, olds[1:])
    return [w_op, b_op, add]


def epsilon_of(norm) -> float:
    return float(_attr(norm, "epsilon", 1e-5))


def _attr(op, name: str, default):
    attr = op.attributes.get(name)
    if attr is None:
        return default
    return attr.data if isinstance(attr, StringAttr) else A.scalar_value(attr)


def _single_use(op) -> bool:
    use = op.results[0].first_use
    return use is not None and use._next_use is None


def _shape(value) -> tuple:
    return tuple(getattr(value.type, "shape", ()))
