"""Differential testing: run two programs on the same inputs and, when their outputs differ,
bisect to the first op whose output diverges.

Typical use: a program before and after a pass or an upgrade.

    report = numerical_diff(before, after, {"x": x}, atol=1e-5, rtol=1e-4)
    if not report.equal:
        print(report)          # the first diverging op, its errors, fraction out of tolerance

How intermediate values are seen: a copy of the program truncated right after op k, with a
pd_op.fetch appended for each value it wants, returns exactly those values from pirc.run: no
hook into the lowering is needed, and each probe costs one lowering of each program
(bisection needs O(log n) of them).  Ops of the two programs are paired by aligning their
top-block op-name sequences (difflib), so a pass that removes or fuses ops still pairs the
ops around the change.  Ops with regions (pd_op.if / while) are compared as a unit.
Each probe at a cut after op m compares every value live across the cut (not just op m's
results), which makes "something differs" monotone from the op that starts the differing
chain on, so plain bisection finds an op whose inputs agree and whose output differs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from ..errors import PircError

__all__ = ["numerical_diff", "DiffReport", "ArrayDiff", "Divergence", "compare_arrays",
           "DiffError"]

_SKIPPED_OPS = {"pd_op.fetch"}  # the outputs themselves; truncation removes them anyway


class DiffError(PircError):
    """The two programs cannot be compared (different feeds, different output counts)."""


@dataclass
class ArrayDiff:
    """How far `got` is from `want`: allclose's rule, |got - want| <= atol + rtol * |want|."""

    max_abs: float
    max_rel: float
    frac_out: float          # fraction of elements out of tolerance (1.0 on shape mismatch)
    shape_or_dtype: str = ""  # non-empty when shapes or dtypes differ

    @property
    def ok(self) -> bool:
        return self.frac_out == 0.0 and not self.shape_or_dtype

    def __str__(self) -> str:
        if self.shape_or_dtype:
            return self.shape_or_dtype
        return (f"max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g}, "
                f"{self.frac_out:.2%} of elements out of tolerance")


def compare_arrays(got, want, atol: float, rtol: float, scale: str = "element") -> ArrayDiff:
    """Compare two arrays; NaN matches NaN at the same place, inf matches the same inf.

    `scale`: what rtol is relative to: "element" (allclose's rule, |got - want| <= atol +
    rtol * |want| for each element) or "max" (atol + rtol * max|want| over the finite
    elements: a whole model's output, where an element near zero carries the rounding of
    the large values it was computed from)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return ArrayDiff(float("inf"), float("inf"), 1.0,
                         f"{got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}")
    if got.size == 0:
        return ArrayDiff(0.0, 0.0, 0.0)
    if got.dtype == bool or not np.issubdtype(got.dtype, np.number):
        bad = got != want
        n = float(bad.any())
        return ArrayDiff(n, n, float(bad.mean()))
    g = got.astype(np.complex128 if np.iscomplexobj(got) else np.float64)
    w = want.astype(g.dtype)
    same = (g == w) | (np.isnan(g) & np.isnan(w))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(same, 0.0, np.abs(g - w))
        diff = np.where(np.isnan(diff), np.inf, diff)
        rel = np.where(same, 0.0, diff / np.maximum(np.abs(w), np.finfo(np.float64).tiny))
        if scale == "max":
            finite = np.abs(w[np.isfinite(w)])
            reference = finite.max() if finite.size else 0.0
        else:
            reference = np.abs(w)
        # an infinite expected value would make rtol * |w| infinite and accept anything:
        # infinities (and NaN against an infinity) must match exactly
        bad = (diff > atol + rtol * reference) | (~same & (np.isinf(w) | np.isinf(g)))
    return ArrayDiff(float(diff.max()), float(rel.max()), float(bad.mean()))


@dataclass
class Divergence:
    """The first op (paired in both programs) whose results differ."""

    op_name: str
    position_a: int          # index in program a's top block
    position_b: int
    result_index: int
    diff: ArrayDiff
    op_name_b: str = ""

    def __str__(self) -> str:
        b = f" / {self.op_name_b}" if self.op_name_b and self.op_name_b != self.op_name else ""
        return (f"first divergence: {self.op_name}{b} (op #{self.position_a} in a, "
                f"#{self.position_b} in b), result {self.result_index}: {self.diff}")


@dataclass
class DiffReport:
    equal: bool
    outputs: list[tuple[str, ArrayDiff]] = field(default_factory=list)
    divergence: Divergence | None = None
    note: str = ""

    def __str__(self) -> str:
        lines = ["programs agree" if self.equal else "programs differ"]
        lines += [f"  output {name}: {d}" for name, d in self.outputs if not d.ok]
        if self.divergence:
            lines.append("  " + str(self.divergence))
        if self.note:
            lines.append("  " + self.note)
        return "\n".join(lines)


def numerical_diff(a, b, inputs: dict, atol: float = 1e-5, rtol: float = 1e-4, params=None,
                   params_b=None, device: str = "cpu", runner=None, locate: bool = True,
                   scale: str = "element") -> DiffReport:
    """Run programs `a` and `b` on `inputs` (feed name -> array) and compare their outputs.

    `params` binds both programs' parameters (`params_b`, when given, binds b's).  When the
    outputs differ, the report's `divergence` names the first paired op whose results differ
    (`locate=False`: only whether and which outputs differ, without the O(log n) probes).
    `runner(program, inputs, params, device) -> dict` replaces pirc.run (tests, other back ends).
    `scale`: what rtol is relative to, each element or each value's largest (compare_arrays).
    """
    run = runner or _pirc_run
    params_b = params if params_b is None else params_b
    out_a = run(a, inputs, params, device)
    out_b = run(b, inputs, params_b, device)
    if len(out_a) != len(out_b):
        raise DiffError(f"program a has {len(out_a)} outputs and b has {len(out_b)}: compare "
                        "programs with the same fetches")
    outputs = [(na, compare_arrays(vb, va, atol, rtol, scale))
               for (na, va), (_, vb) in zip(out_a.items(), out_b.items())]
    if all(d.ok for _, d in outputs):
        return DiffReport(True, outputs)
    report = DiffReport(False, outputs)
    if locate:
        _bisect(report, a, b, inputs, params, params_b, device, run, atol, rtol, scale)
    return report


# -- bisection -------------------------------------------------------------------------------

def _top_ops(program):
    return list(program.block.ops)


def _pairs(a, b):
    """(index in a, index in b) of ops aligned by name, skipping fetches, in order."""
    ops_a, ops_b = _top_ops(a), _top_ops(b)
    names_a = [op.name for op in ops_a]
    names_b = [op.name for op in ops_b]
    sm = difflib.SequenceMatcher(a=names_a, b=names_b, autojunk=False)
    pairs = []
    for blk in sm.get_matching_blocks():
        for k in range(blk.size):
            i, j = blk.a + k, blk.b + k
            if names_a[i] in _SKIPPED_OPS or not ops_a[i].results:
                continue
            if names_a[i] == "builtin.parameter" and \
                    _parameter_name(ops_a[i]) != _parameter_name(ops_b[j]):
                continue   # a folding pass made new parameters: two names are two values
            if len(ops_a[i].results) != len(ops_b[j].results):
                continue
            pairs.append((i, j))
    return pairs


def _parameter_name(op) -> str | None:
    return getattr(op.attributes.get("parameter_name"), "data", None)


def _top_index(program):
    """op -> index in the top block, for top-level ops and (through their ancestors) nested."""
    return {op: i for i, op in enumerate(program.block.ops)}


def _user_position(op, top):
    while op not in top:
        op = op.parent_op()
    return top[op]


def _frontier(program, k, top):
    """(op index, result index) of values defined at or before op k that an op after k uses
    (nested users count at their top-level op), plus every result of op k itself."""
    out = []
    for i, op in enumerate(program.block.ops):
        if i > k:
            break
        for r in op.results:
            if i == k or any(_user_position(u.operation, top) > k for u in r.uses):
                out.append((i, r.index))
    return out


def _truncated(program, k, wanted):
    """A copy of `program` whose top block ends with op k, then one pd_op.fetch per wanted
    (op index, result index), named `pirc_probe_<op>_<result>`: pirc.run returns exactly
    those values, with no hook into the lowering."""
    from ..ir.attrs import int32_attr, str_attr
    from ..ir.builder import append_op
    from ..ir.registry import op_class
    from ..ir.types import DenseTensorType

    copy = program.clone()
    ops = list(copy.block.ops)
    for op in reversed(ops[k + 1:]):
        op.detach()
        op.erase(safe_erase=False)
    fetch = op_class("pd_op.fetch", program.version)
    for col, (i, ri) in enumerate(wanted):
        r = ops[i].results[ri]
        if isinstance(r.type, DenseTensorType):
            append_op(fetch, [r], [r.type], {"name": str_attr(f"pirc_probe_{i}_{ri}"),
                                             "col": int32_attr(col)}, copy.block)
    return copy


def _probe_values(program, k, wanted, inputs, params, device, run):
    probe = _truncated(program, k, wanted)
    # A cut before a feed (parameters come first in saved programs) leaves that feed out.
    feeds = {op.attributes["name"].data for op in probe.block.ops if op.name == "pd_op.data"}
    inputs = {key: v for key, v in inputs.items() if key in feeds or key.removeprefix("in__") in feeds}
    outs = run(probe, inputs, params, device)
    got = {}
    for name, v in outs.items():
        if name.startswith("pirc_probe_"):
            i, ri = name[len("pirc_probe_"):].split("_")
            got[(int(i), int(ri))] = v
    return got


def _bisect(report, a, b, inputs, params, params_b, device, run, atol, rtol, scale):
    """Find m with P(m-1) false and P(m) true, where P(m) = "some value live across the cut
    after paired op m, or a result of op m, differs".  P is false before the first op whose
    output diverges and true from the op that starts the chain of differing values reaching
    an output up to the end, so the cut found is an op whose inputs agree and whose output
    differs."""
    pairs = _pairs(a, b)
    a_to_b = dict(pairs)
    top_a = _top_index(a)
    ops_a, ops_b = _top_ops(a), _top_ops(b)
    cache = {}

    def probe(m):
        if m in cache:
            return cache[m]
        i, j = pairs[m]
        wa = [(oi, ri) for oi, ri in _frontier(a, i, top_a) if oi in a_to_b]
        wb = [(a_to_b[oi], ri) for oi, ri in wa]
        va = _probe_values(a, i, wa, inputs, params, device, run)
        vb = _probe_values(b, j, wb, inputs, params_b, device, run)
        bad, own = False, None
        for (oi, ri), (oj, _) in zip(wa, wb):
            if (oi, ri) not in va or (oj, ri) not in vb:
                continue
            d = compare_arrays(vb[(oj, ri)], va[(oi, ri)], atol, rtol, scale)
            if not d.ok:
                bad = True
                if oi == i and own is None:
                    own = (ri, d)
        cache[m] = (bad, own)
        return cache[m]

    lo, hi, found = 0, len(pairs) - 1, None
    while lo <= hi:  # the first m with P(m) true
        mid = (lo + hi) // 2
        if probe(mid)[0]:
            found, hi = mid, mid - 1
        else:
            lo = mid + 1
    if found is None or probe(found)[1] is None:
        last = pairs[found][0] if found is not None else (pairs[-1][0] if pairs else -1)
        report.note = ("every op paired between the programs agrees; the difference comes "
                       f"from an op only one program has (up to op #{last} of a)")
        return
    i, j = pairs[found]
    idx, d = probe(found)[1]
    report.divergence = Divergence(ops_a[i].name, i, j, idx, d, ops_b[j].name)


def _pirc_run(program, inputs, params, device):
    import pirc

    return pirc.run(program, inputs, params=params, device=device)
