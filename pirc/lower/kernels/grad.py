"""Backward ops (`X_grad`, `X_double_grad`, `X_grad_`) lowered through torch.autograd.

Paddle's backward ops follow one naming convention (its backward.yaml): `pd_op.X_grad` takes
some of X's operands and results by their names plus `<r>_grad` for each result r of X (the
incoming gradient), and gives `<i>_grad` for each operand i of X; its attributes are X's.
Where the specs of the two ops at a PIR version say so, X_grad's kernel is the vector-Jacobian
product of X's kernel: run X's kernel on the operands with requires_grad, then
torch.autograd.grad against the incoming gradients.  One rule then covers every op whose
forward kernel torch can differentiate, and its numbers are Paddle's up to rounding
(autograd's formula for a derivative is not always the one Paddle's grad kernel evaluates).

`X_double_grad` is the VJP of X_grad's kernel in the same way, with the names Paddle gives
the second-order variables (X_grad's `out_grad` is `grad_out`, the gradient coming back to
its `x_grad` is `grad_x_grad`).  Paddle leaves out of a double grad op what its kernel does
not read: X's results are recomputed by X's kernel, and an incoming gradient of X_grad that
is missing is zeros, valid only when the op asks nothing but gradients w.r.t. incoming
gradients (X_grad is linear in them, so those do not depend on their values).

Where the mapping cannot be established from the specs (relu_grad takes `out`, not the `x`
relu's kernel needs; an operand or attribute of unknown meaning), this rule registers
nothing: the common such ops have kernels written from Paddle's grad kernels (grad_common.py,
grad_nn.py, losses.py, imported first), and the lowering reports any other as it reports an
op without a kernel.  Some backward ops run
another op's phi kernel (spec `kernel`: pad3d_double_grad runs pad3d, padding with
pad_value, not the zeros a derivative would give): those lower to that op's kernel, which
is what Paddle computes.  A few get kernels of their own (grad_special.py), registered
first, because autograd cannot give Paddle's result.  A null operand whose gradient Paddle computes anyway (instance_norm_grad's
bias, a null value since the PIR version 4 migration) stands in as the neutral value
Paddle's kernel uses (STANDINS).  In-place `X_grad_` ops alias X_grad's kernel (inplace.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ...ir.program import LATEST_VERSION
from ...ir.specs import all_op_names, get_spec
from ...runtime.registry import REGISTRY
from .inplace import _runs, register_inplace_aliases

_OPERAND = "operand"  # the grad op's operand at an index
_NULL = "null"  # an optional operand the grad op does not carry: None
_RESULT = "result"  # a result of the forward op, recomputed (double grad)
_ZEROS = "zeros"  # an incoming gradient the double grad op does not carry: zeros


@dataclass(frozen=True)
class Plan:
    """How a grad op's operands and results map onto the op it differentiates ("base").

    sources: per base operand, (kind, index): _OPERAND i = the grad op's operand i, _NULL,
    _RESULT k = result k of the forward op, _ZEROS k = zeros shaped like its result k.
    wrt: (base operand index, grad op result index) of each gradient asked for.
    cotangents: (base result index, grad op operand index) of each incoming gradient.
    forward: where a source is _RESULT / _ZEROS (double grad), how to run the forward op X:
    per X operand the grad op's operand index (None: null), and X's attribute names.
    """

    sources: tuple
    attrs: frozenset
    wrt: tuple
    cotangents: tuple
    n_results: int
    forward: tuple | None = None


def _double_name(name: str) -> str:
    """A first-order grad op's variable as its double grad op names it (out_grad -> grad_out)."""
    return "grad_" + name[:-len("_grad")] if name.endswith("_grad") else name


def _attrs_ok(grad_spec, base_spec) -> bool:
    """The grad op carries exactly the base op's attributes.

    One it lacks, even one with a default, means its kernel works differently (flatten_grad
    has no start/stop axis: its `x` is Paddle's xshape and it reshapes to it); one the base
    op lacks has a meaning this rule does not know.
    """
    return {a.name for a in grad_spec.attributes} == {a.name for a in base_spec.attributes}


def plan_for(grad_spec, base_spec, rename=lambda n: n, forward_spec=None, first=None):
    """The Plan of `grad_spec` as the VJP of `base_spec`, or None where the specs do not fit.

    `rename` maps a base variable's name to the grad op's name for it (identity for X_grad,
    _double_name for X_double_grad).  For a double grad, `forward_spec` / `first` are X's
    spec and X_grad's own plan, used to recompute X's results the op does not carry.
    """
    if grad_spec is None or base_spec is None or base_spec.regions or grad_spec.regions:
        return None
    if base_spec.variadic_operands or base_spec.variadic_results or grad_spec.variadic_operands:
        return None
    if not _attrs_ok(grad_spec, base_spec):
        return None
    g_ops = {o.name: i for i, o in enumerate(grad_spec.operands)}
    g_res = {r.name: i for i, r in enumerate(grad_spec.results)}
    used = set()
    cotangents = []
    for k, r in enumerate(base_spec.results):
        j = g_ops.get(rename(r.name) + "_grad")
        if j is not None:
            cotangents.append((k, j))
            used.add(j)
    if not cotangents:
        return None
    wrt = []
    for i, o in enumerate(base_spec.operands):
        j = g_res.get(rename(o.name) + "_grad")
        if j is not None:
            if o.type != grad_spec.results[j].type:
                return None
            wrt.append((i, j))
    if len(wrt) != len(grad_spec.results) or not wrt:
        return None  # a result that is no base operand's gradient: unknown meaning
    only_cotangent_grads = first is not None and all(
        any(i == j for _, j in first.cotangents) for i, _ in wrt)
    sources = []
    for i, o in enumerate(base_spec.operands):
        j = g_ops.get(rename(o.name))
        if j is not None:
            if grad_spec.operands[j].type != o.type:
                return None
            sources.append((_OPERAND, j))
            used.add(j)
        elif first is not None and any(i == j for _, j in first.cotangents) and only_cotangent_grads:
            k = next(k for k, j in first.cotangents if j == i)
            sources.append((_ZEROS, k))
        elif first is not None and o.name in {r.name for r in forward_spec.results}:
            k = [r.name for r in forward_spec.results].index(o.name)
            sources.append((_RESULT, k))
        elif o.optional:
            # Paddle's grad kernel has no such operand either: the forward runs without it.
            sources.append((_NULL, 0))
        else:
            return None  # a required operand the grad op does not carry (relu_grad's x)
    # Every other operand of the grad op must be one of the base op's results (recomputed,
    # so not read); anything else has a meaning this rule does not know.
    base_results = {rename(r.name) for r in base_spec.results}
    for j, o in enumerate(grad_spec.operands):
        if j not in used and o.name not in base_results:
            return None
    forward = None
    if any(kind in (_RESULT, _ZEROS) for kind, _ in sources):
        f_sources = []
        for o in forward_spec.operands:
            j = g_ops.get(o.name)
            if j is None and not o.optional:
                return None  # X's results cannot be recomputed without its operands
            f_sources.append(j)
        forward = (tuple(f_sources), frozenset(a.name for a in forward_spec.attributes))
    return Plan(tuple(sources), frozenset(a.name for a in base_spec.attributes), tuple(wrt),
                tuple(cotangents), len(grad_spec.results), forward)


def _differentiable(t) -> bool:
    return isinstance(t, torch.Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _tensors(value):
    """The tensors an operand holds (a vec<tensor> operand is a list)."""
    if isinstance(value, (list, tuple)):
        return [t for t in value if _differentiable(t)]
    return [value] if _differentiable(value) else []


def _leaf(value, outer):
    """`value` as something autograd can differentiate against."""
    if isinstance(value, (list, tuple)):
        return [_leaf(v, outer) for v in value]
    if not _differentiable(value):
        return value
    # An outer VJP (a double grad) differentiates through this call: keep its graph.
    return value if outer and value.requires_grad else value.detach().requires_grad_()


def vjp(fn, args, kwargs, wrt, cotangents):
    """Gradients of fn(*args, **kwargs) w.r.t. args[i] for i in `wrt`, given the incoming
    gradients {result index: tensor}.  A tensor that gets no gradient gets zeros; a null or
    integer operand gets None.  Differentiable itself when an argument requires grad."""
    with torch.enable_grad():  # pirc-run runs the module under no_grad
        outer = any(t.requires_grad for a in args for t in _tensors(a)) or any(
            isinstance(c, torch.Tensor) and c.requires_grad for c in cotangents.values())
        args = [_leaf(a, outer) if i in wrt else a for i, a in enumerate(args)]
        produced = fn(*args, **kwargs)
        outs = produced if isinstance(produced, (tuple, list)) else (produced,)
        targets, grads_in = [], []
        for k, cot in cotangents.items():
            out = outs[k]
            if cot is None or not isinstance(out, torch.Tensor) or not out.requires_grad:
                continue
            targets.append(out)
            grads_in.append(cot.to(out.dtype) if cot.dtype != out.dtype else cot)
        inputs = [t for i in wrt for t in _tensors(args[i])]
        got = iter(torch.autograd.grad(targets, inputs, grads_in, allow_unused=True,
                                       create_graph=outer) if targets and inputs else
                   [None] * len(inputs))
    results = []
    for i in wrt:
        a = args[i]
        if isinstance(a, (list, tuple)):
            results.append([_or_zeros(next(got), t) if _differentiable(t) else None for t in a])
        elif _differentiable(a):
            results.append(_or_zeros(next(got), a))
        else:
            results.append(None)
    return results


def _or_zeros(grad, like):
    return torch.zeros_like(like) if grad is None else grad


def _pick(kwargs, names):
    return {k: v for k, v in kwargs.items() if k in names}


# Null operands whose gradient Paddle's grad kernel computes anyway, as the neutral value the
# kernel uses for them (instance_norm_grad gives bias_grad without a bias operand: the
# operand was inserted at PIR version 4 as a null value).  (op, operand) -> maker(x, attrs).
def _channels(x, attrs):
    return x.shape[-1] if attrs.get("data_format") in ("NHWC", "NDHWC", "NLC") else x.shape[1]


STANDINS = {
    ("pd_op.instance_norm", "scale"): lambda x, a: x.new_ones(_channels(x, a)),
    ("pd_op.instance_norm", "bias"): lambda x, a: x.new_zeros(_channels(x, a)),
}


def make_kernel(base_fn, plan: Plan, standins=(), forward_fn=None, name="grad"):
    """The grad op's kernel: operands positional in its order, attributes as keywords."""
    wrt_positions = [i for i, _ in plan.wrt]

    def kernel(*operands, **attrs):
        forward_outs = None
        if plan.forward is not None:
            f_sources, f_attrs = plan.forward
            f_args = [None if j is None else operands[j] for j in f_sources]
            with torch.no_grad():
                produced = forward_fn(*f_args, **_pick(attrs, f_attrs))
            forward_outs = produced if isinstance(produced, (tuple, list)) else (produced,)
        args = []
        for kind, j in plan.sources:
            if kind == _OPERAND:
                args.append(operands[j])
            elif kind == _RESULT:
                args.append(forward_outs[j])
            elif kind == _ZEROS:
                args.append(torch.zeros_like(forward_outs[j]))
            else:
                args.append(None)
        for i, make in standins:
            if args[i] is None and isinstance(args[0], torch.Tensor):
                args[i] = make(args[0], attrs)
        cots = {k: operands[j] for k, j in plan.cotangents}
        grads = vjp(base_fn, args, _pick(attrs, plan.attrs), wrt_positions, cots)
        results = [None] * plan.n_results
        for (_, r), g in zip(plan.wrt, grads):
            results[r] = g  # None for a null operand without a standin: a null result
        return results[0] if plan.n_results == 1 else tuple(results)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


# -- the generic rule -------------------------------------------------------------------------

def _kernel_alias(name: str, version: int, registry):
    """The entry of the op whose phi kernel a backward op runs (spec `kernel`), where the
    two ops' signatures line up position by position; else None."""
    spec = get_spec(name, version)
    if spec is None or not spec.kernel or "pd_op." + spec.kernel == name:
        return None
    target = "pd_op." + spec.kernel
    other = get_spec(target, version)
    entry = registry.find(target, version)
    if other is None or entry is None or other.regions or spec.regions:
        return None
    if [o.type for o in other.operands] != [o.type for o in spec.operands] \
            or [r.type for r in other.results] != [r.type for r in spec.results] \
            or {a.name for a in other.attributes} != {a.name for a in spec.attributes}:
        return None
    return entry


def _first_order(name: str, version: int, registry):
    """(forward entry, plan) of X_grad at `version`, or None."""
    base = name[:-len("_grad")]
    entry = registry.find(base, version)
    if entry is None:
        return None
    plan = plan_for(get_spec(name, version), get_spec(base, version))
    return None if plan is None else (entry, plan)


def _double(name: str, version: int, registry):
    """(X_grad entry, X entry, plan) of X_double_grad at `version`, or None."""
    grad_name = name[:-len("_double_grad")] + "_grad"
    forward = name[:-len("_double_grad")]
    grad_entry, first = registry.find(grad_name, version), _first_order(grad_name, version, registry)
    f_entry = registry.find(forward, version)
    if grad_entry is None or first is None or f_entry is None:
        return None
    plan = plan_for(get_spec(name, version), get_spec(grad_name, version), _double_name,
                    get_spec(forward, version), first[1])
    return None if plan is None else (grad_entry, f_entry, plan)


def _standins(base: str, version: int, plan: Plan):
    spec = get_spec(base, version)
    return tuple((i, STANDINS[(base, spec.operands[i].name)]) for i, _ in plan.wrt
                 if (base, spec.operands[i].name) in STANDINS)


def _register_runs(name, per_version, registry, build) -> bool:
    """Register `build(key)` for each run of consecutive versions with the same key."""
    keys = {}
    for v, key in per_version.items():
        if key is not None:
            keys.setdefault(key, []).append(v)
    done = False
    for key, versions in keys.items():
        for since, until in _runs(sorted(versions)):
            open_ended = until == LATEST_VERSION + 1
            registry.register(name, since, None if open_ended else until)(build(key))
            done = True
    return done


from ..lod import LOD_KERNELS  # noqa: E402 - every forward kernel is registered by now


def register_grad_kernels(registry=REGISTRY) -> list[str]:
    """Register a kernel for every backward op the specs map onto a lowered forward op."""
    versions = range(1, LATEST_VERSION + 1)
    names = sorted(n for n in all_op_names() if n.startswith("pd_op.") and not n.endswith("_"))
    added = []
    # kernel aliases first (pad3d_double_grad -> pad3d), then X_grad, then X_double_grad,
    # which differentiates X_grad's kernel
    for name in names:
        if name.endswith(("_grad", "_double_grad")) and name not in registry:
            per = {v: (lambda e: None if e is None else e.fn)(_kernel_alias(name, v, registry))
                   for v in versions}
            if _register_runs(name, per, registry, lambda fn: fn):
                added.append(name)
    for name in names:
        if name.endswith("_grad") and not name.endswith("_double_grad") and name not in registry \
                and name[:-len("_grad")] in registry and name[:-len("_grad")] not in LOD_KERNELS:
            # (a LoD kernel's backward needs the LoDs, which a derived kernel is not given)
            per = {}
            for v in versions:
                got = _first_order(name, v, registry)
                if got is not None:
                    entry, plan = got
                    base = name[:-len("_grad")]
                    per[v] = (entry.fn, plan, _standins(base, v, plan))
            if _register_runs(name, per, registry,
                              lambda key, n=name: make_kernel(key[0], key[1], key[2],
                                                              name=n.split(".")[1])):
                added.append(name)
    for name in names:
        if name.endswith("_double_grad") and name not in registry \
                and name[:-len("_double_grad")] + "_grad" in registry:
            per = {}
            for v in versions:
                got = _double(name, v, registry)
                if got is not None:
                    grad_entry, f_entry, plan = got
                    per[v] = (grad_entry.fn, plan, f_entry.fn)
            if _register_runs(name, per, registry,
                              lambda key, n=name: make_kernel(key[0], key[1], (), key[2],
                                                              name=n.split(".")[1])):
                added.append(name)
    return added


GRAD_KERNELS = register_grad_kernels()
GRAD_INPLACE_ALIASES = register_inplace_aliases()  # X_grad_ -> X_grad, now that X_grad exists
