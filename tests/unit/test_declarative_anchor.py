"""Where a declarative rewrite puts its new ops when it replaces a non-root op's result that
is used outside the match (pirc.passes.infra.declarative._anchor).  Found by the fusion
fuzzer (tools/fuzz, front `fusion`): a residual add fetched before the norm, with the norm's
weight fed after the add, made fuse-residual-layer-norm and fuse-rms-norm build an op that
reads the weight before its definition (the verifier stopped the pipeline); and a weight fed
after the add with no outside use at all made them skip a valid fusion."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pirc
from pirc.passes import register_pass
from pirc.passes.infra.declarative import DeclarativePass, New, Op, Rule

T = "tensor<2x3xf32>"

# multiply(add(a, b), w) -> multiply(w, add(a, b)) (the same numbers; the source is not
# commutative, so the result does not match again); the add's sum replaced too (its other
# uses get the new add's)
ADD_MUL = Rule(
    "add-mul",
    source=Op("pd_op.multiply", (Op("pd_op.add", ("a", "b"), bind="add"), "w")),
    versions={"pd_op.multiply": (1,), "pd_op.add": (1,)},
    result=(New("pd_op.add", {"x": "a", "y": "b"}, bind="sum", types=("a",)),
            New("pd_op.multiply", {"x": "w", "y": "sum.0"}, bind="m")),
    replace={"root": ("m.0",), "add": ("sum.0",)},
)


@register_pass
@dataclass(frozen=True)
class AddMul(DeclarativePass):
    """Test: add then multiply, rebuilt (the add's result may have other uses)."""

    name = "test-decl-add-mul"
    rules = (ADD_MUL,)


def data(n: int, name: str) -> str:
    return (f'    (%{n}) = "pd_op.data" () {{dtype:float32,name:"{name}",place:Place(undefined:0),'
            f'shape:[2,3],stop_gradient:[true]}} : () -> {T}\n')


def fetch(n: int, v: int, col: int) -> str:
    return (f'    (%{n}) = "pd_op.fetch" (%{v}) {{col:{col},name:"out{col}",persistable:[true],'
            f'stop_gradient:[true]}} : ({T}) -> {T}\n')


ADD = f'    (%2) = "pd_op.add" (%0, %1) {{stop_gradient:[true]}} : ({T}, {T}) -> {T}\n'


def mul(n: int, w: int) -> str:
    return f'    (%{n}) = "pd_op.multiply" (%2, %{w}) {{stop_gradient:[true]}} : ({T}, {T}) -> {T}\n'


def run(body: str):
    p = pirc.parse("{\n" + data(0, "a") + data(1, "b") + body + "}\n", from_version=4)
    inputs = {n: np.arange(6, dtype=np.float32).reshape(2, 3) + i for i, n in enumerate("abw")}
    before = pirc.run(p, inputs)
    (record,) = pirc.run_pipeline(p, "test-decl-add-mul").passes
    after = pirc.run(p, inputs)
    assert all(np.array_equal(before[k], after[k]) for k in before)
    return record


def test_weight_fed_after_the_add_still_fuses():
    record = run(ADD + data(3, "w") + mul(4, 3) + fetch(5, 4, 0))
    assert record.rewrites == 1


def test_sum_fetched_before_a_late_weight_is_skipped_not_broken():
    # the new add must come before the fetch, the multiply needs w: no valid place
    record = run(ADD + fetch(3, 2, 0) + data(4, "w") + mul(5, 4) + fetch(6, 5, 1))
    assert record.rewrites == 0
    (skip,) = record.skips
    assert skip.reason.startswith("order:")


def test_sum_fetched_before_with_inputs_ready_goes_before_the_fetch():
    record = run(data(3, "w") + ADD + fetch(4, 2, 0) + mul(5, 3) + fetch(6, 5, 1))
    assert record.rewrites == 1
