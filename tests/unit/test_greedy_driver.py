"""The greedy pattern driver (pirc.passes.infra.greedy): patterns that undo each other are a
NonConvergenceError naming the pattern and how often it fired, never a silent stop; a
program that converges takes as few rounds as its rewrites need; every rewrite goes through
the gate (a version-gated op is skipped, not rewritten)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pirc.errors import PircError
from pirc.ir import attrs as A
from pirc.passes import PircPass, register_pass, run_pipeline
from pirc.passes.infra.greedy import NonConvergenceError, Pattern, apply_patterns
from pirc.passes.infra.pass_base import PassContext
from pirc.passes.infra.rewrites import OpUse
from pirc.text.parser import parse_text

TRANSPOSE = """{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,2],stop_gradient:[true]} : () -> tensor<2x2xf32>
    (%1) = "pd_op.transpose" (%0) {perm:[1,0],stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    (%2) = "pd_op.fetch" (%1) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
}
"""


def _perm(op):
    return [A.scalar_value(p) for p in op.attributes["perm"].data]


class _SetPerm(Pattern):
    """Sets a square transpose's perm to `to` when it is `frm`: two of them ping-pong."""

    root = "pd_op.transpose"
    frm: list
    to: list

    def match_and_rewrite(self, op, pc):
        if _perm(op) != self.frm:
            return None
        pc.matched()
        rewrite = pc.begin([op])
        if rewrite is None:
            return None
        op.attributes["perm"] = A.array_attr([A.int32_attr(p) for p in self.to])
        rewrite.done([op])
        return [op]


class Swap(_SetPerm):
    frm, to = [1, 0], [0, 1]


class SwapBack(_SetPerm):
    frm, to = [0, 1], [1, 0]


@register_pass
@dataclass(frozen=True)
class _PingPong(PircPass):
    """Two patterns that undo each other."""

    name = "test-ping-pong"
    rewrites = {"pd_op.transpose": OpUse((1,))}
    max_iterations: int = 10

    def run(self, pc):
        apply_patterns(pc, [Swap(), SwapBack()], self.max_iterations)


def program(text=TRANSPOSE, version=4):
    return parse_text(text, "p.pir", version)


@pytest.mark.parametrize("cap", [1, 3, 10])
def test_patterns_that_undo_each_other_do_not_converge(cap):
    with pytest.raises(NonConvergenceError) as e:
        run_pipeline(program(), f"test-ping-pong{{max-iterations={cap}}}")
    # Round 1 swaps, round 2 swaps back, ...: the last round's pattern is named.
    last = "Swap" if cap % 2 else "SwapBack"
    assert (e.value.pattern, e.value.fired, e.value.iterations) == (last, (cap + 1) // 2 if last == "Swap" else cap // 2, cap)
    assert isinstance(e.value, PircError)
    assert str(e.value).startswith(f"test-ping-pong did not converge in {cap} iterations: "
                                   f"pattern {last} still fired 1 times in the last one")


def test_a_cap_below_one_is_refused():
    with pytest.raises(PircError, match="max-iterations must be at least 1, got 0"):
        run_pipeline(program(), "test-ping-pong{max-iterations=0}")


class _Counting(Pattern):
    root = "pd_op.assign"

    def __init__(self):
        self.calls = 0

    def match_and_rewrite(self, op, pc):
        self.calls += 1
        pc.matched()
        rewrite = pc.begin([op])
        if rewrite is None:
            return None
        users = [u.operation for u in op.results[0].uses]
        op.results[0].replace_all_uses_with(op.operands[0])
        op.parent.erase_op(op, safe_erase=False)
        rewrite.done()
        return users


def _assign_chain(n):
    lines = ['    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>',
             '    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>']
    for i in range(2, n + 2):
        lines.append(f'    (%{i}) = "pd_op.assign" (%{i - 1}) {{stop_gradient:[true]}} : (tensor<2xf32>) -> tensor<2xf32>')
    lines.append(f'    (%{n + 2}) = "pd_op.fetch" (%{n + 1}) {{col:0,name:"out",persistable:[true],stop_gradient:[true]}} : (tensor<2xf32>) -> tensor<2xf32>')
    return "{\n" + "\n".join(lines) + "\n}\n"


class _Forwarding(PircPass):
    name = "test-forward"
    rewrites = {"pd_op.assign": OpUse("*")}

    def run(self, pc):  # pragma: no cover - driven by hand below
        raise NotImplementedError


def test_a_chain_converges_in_one_round_visiting_each_op_once():
    p = program(_assign_chain(50))
    pattern = _Counting()
    pc = PassContext(p, pass_obj=_Forwarding())
    assert apply_patterns(pc, [pattern], max_iterations=1) == 1
    assert pattern.calls == 50 and pc.rewrites == 50
    assert [op.name for op in p.block.ops] == ["pd_op.data", "pd_op.relu", "pd_op.fetch"]


def test_ops_in_regions_are_visited():
    text = """{
    (%0) = "pd_op.data" () {dtype:bool,name:"c",place:Place(undefined:0),shape:[1],stop_gradient:[true]} : () -> tensor<1xb>
    (%1) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>
    (%2) = "pd_op.if" (%0) {stop_gradient:[true]} -> tensor<2xf32> {
        (%3) = "pd_op.relu" (%1) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
        (%4) = "pd_op.assign" (%3) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
        () = "cf.yield" (%4) {} : (tensor<2xf32>) -> 
    } else {
        (%5) = "pd_op.tanh" (%1) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
        () = "cf.yield" (%5) {} : (tensor<2xf32>) -> 
    }
    (%6) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
}
"""
    p = program(text)
    pattern = _Counting()
    pc = PassContext(p, pass_obj=_Forwarding())
    apply_patterns(pc, [pattern])
    assert pattern.calls == 1
    assert "pd_op.assign" not in [op.name for op in p.walk()]


def test_the_gate_is_asked_for_every_rewrite():
    # The ping-pong pass declares transpose at semantic version 1; a pass that declares
    # another version sees every transpose skipped by the gate, so nothing fires at all.
    @dataclass(frozen=True)
    class Elsewhere(_PingPong):
        rewrites = {"pd_op.transpose": OpUse((7,))}

    p = program()
    pc = PassContext(p, pass_obj=Elsewhere())
    apply_patterns(pc, [Swap(), SwapBack()])
    assert pc.rewrites == 0 and pc.matches == 1
    assert pc.skips[0].reason == ("version: pd_op.transpose at PIR version 4 has semantic version 1; "
                                  "test-ping-pong was written for 7")
