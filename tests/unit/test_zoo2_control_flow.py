"""The second zoo's input sets exercise its control flow: over all the input sets a model has
(MODEL.VER.io.npz and every MODEL.VER.io.LABEL.npz), every `pd_op.if` takes both branches and
every `pd_op.while` runs 0, 1 and more than 1 iterations (a nested loop: in some call).

Counted in pirc's eager lowering, where control_flow.cond / while_loop are plain Python (the
functions are wrapped while the program is lowered, so the lowered graph calls the counting
ones). A loop whose trip count cannot depend on the inputs (to_static's `for i in range(3)`)
is named in tests/fixtures/zoo2/parity.yaml `fixed_loops: {MODEL: why}`; its model's loops need
only run.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from zoo_cases import ZOO2, inputs, params, saved_cases, tolerances

import pirc
from pirc.lower import control_flow
from pirc.lower.execute import run_module

MODELS = sorted({c.model for c in saved_cases(ZOO2) if c.release == "3.3.1"})


class _CountingBody:
    """A loop body that counts its calls, for the eager while_loop (which calls .forward)."""

    def __init__(self, body, counts):
        self.body, self.counts = body, counts

    def forward(self, *args):
        self.counts[-1] += 1
        return self.body.forward(*args)


def _coverage(model: str, monkeypatch):
    """({if submodule: {branches taken}}, {while body: {trip counts}}) over the model's input sets."""
    branches, trips = defaultdict(set), defaultdict(set)
    real_cond, real_while = control_flow.cond, control_flow.while_loop

    # the lowered graph also passes the op's place and loop-value facts (for torch's tracing)
    def cond(pred, true_fn, false_fn, operands, *facts):
        branches[true_fn].add(bool(pred))
        return real_cond(pred, true_fn, false_fn, operands, *facts)

    def while_loop(cond_fn, body_fn, carried, additional, *facts):
        counts = [0]
        out = real_while(cond_fn, _CountingBody(body_fn, counts), carried, additional, *facts)
        trips[body_fn].add(counts[0])
        return out

    monkeypatch.setattr(control_flow, "cond", cond)
    monkeypatch.setattr(control_flow, "while_loop", while_loop)
    cases = [c for c in saved_cases(ZOO2, labelled=True) if c.model == model and c.release == "3.3.1"]
    program = pirc.load(str(cases[0].program))
    gm = pirc.lower(program, params(program, cases[0]))
    names = {m: name for name, m in gm.named_modules()}
    ifs = {m for n, m in gm.named_modules() if n.rsplit(".", 1)[-1].startswith("true_graph")}
    loops = {m for n, m in gm.named_modules() if n.rsplit(".", 1)[-1].startswith("body_graph")}
    for case in cases:
        run_module(gm, inputs(case))
    return ({names[m]: branches[m] for m in ifs}, {names[m]: trips[m] for m in loops})


@pytest.mark.parametrize("model", MODELS)
def test_every_branch_and_loop_count_is_taken(model, monkeypatch):
    branches, trips = _coverage(model, monkeypatch)
    one_sided = {name: sorted(taken) for name, taken in branches.items() if taken != {True, False}}
    assert not one_sided, f"{model}: ifs that take one branch only over its input sets: {one_sided}"
    fixed = tolerances(ZOO2).get("fixed_loops", {})
    if model in fixed:
        assert all(trips.values()), f"{model}: a loop never ran"
        return
    short = {name: sorted(n) for name, n in trips.items()
             if not (0 in n and 1 in n and any(k > 1 for k in n))}
    assert not short, f"{model}: loops not run 0, 1 and many times over its input sets: {short}"
