"""Real training programs, backward ops included, give Paddle's gradients under pirc.

The fixtures (tests/fixtures/training/VER/) were built, saved and run by Paddle 3.0.0 and 3.3.1
(tools/paddle_oracle/gen_training_fixtures.py): an MLP step with dropout and softmax cross-
entropy, one with mean squared error and the other dropout mode, an MLP over the element-wise
family, and a CNN step with batch norm in training and in use_global_stats mode, each fetching
the loss and the gradient w.r.t. its input and every parameter.  pirc runs each saved program
(3.0.0's as read, at PIR version 1, and after pirc.upgrade to the newest version) and must give
Paddle's numbers: bit for bit, or within atol 1e-5 / rtol 1e-4 (pirc.testing.parity: reductions
sum in torch's order).

Dropout in training draws a random mask, and torch's generator is not Paddle's: the mlp
fixtures fetch the mask Paddle drew, and the test lowers the program with a registry whose
dropout kernel replays it, so every gradient downstream is comparable value for value.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
import pirc.lower.kernels  # noqa: F401 - registers every kernel (the replay copies REGISTRY)
from pirc.lower import lower
from pirc.lower.execute import run_module
from pirc.lower.values import python_value
from pirc.runtime.registry import REGISTRY, OpRegistry
from pirc.testing.parity import compare_output

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "training"
RELEASES = ("3.0.0", "3.3.1")
CASES = ("mlp", "mlp_mse", "mlp_act", "cnn", "cnn_global_stats")
DROPOUT = ("mlp", "mlp_mse")  # fetch 1 is the mask Paddle's dropout drew

# The backward ops each program must hold, so that a fixture regenerated differently (an
# is_test rewrite, a pruned backward) cannot pass without exercising them.
GRAD_OPS = {
    "mlp": {"pd_op.relu_grad", "pd_op.dropout_grad", "pd_op.add_grad", "pd_op.matmul_grad",
            "pd_op.mean_grad", "pd_op.cross_entropy_with_softmax_grad"},
    "mlp_mse": {"pd_op.relu_grad", "pd_op.dropout_grad", "pd_op.add_grad", "pd_op.matmul_grad",
                "pd_op.mean_grad", "pd_op.square_grad", "pd_op.subtract_grad"},
    "mlp_act": {"pd_op.tanh_grad", "pd_op.sigmoid_grad", "pd_op.exp_grad", "pd_op.divide_grad",
                "pd_op.multiply_grad", "pd_op.softmax_grad", "pd_op.transpose_grad",
                "pd_op.reshape_grad", "pd_op.sum_grad", "pd_op.mean_grad", "pd_op.add_grad"},
    "cnn": {"pd_op.batch_norm_grad", "pd_op.relu_grad", "pd_op.pool2d_grad",
            "pd_op.flatten_grad", "pd_op.reshape_grad", "pd_op.conv2d_grad", "pd_op.add_grad",
            "pd_op.mean_grad"},
}
GRAD_OPS["cnn_global_stats"] = GRAD_OPS["cnn"]


def _paths(release, case):
    stem = f"{FIX / release / case}.{release}"
    return Path(f"{stem}.json"), Path(f"{stem}.pdiparams"), Path(f"{stem}.io.npz")


def _fixture(release, case):
    js, params, io = _paths(release, case)
    data = np.load(io)
    inputs = {k[len("in__"):]: data[k] for k in data.files if k.startswith("in__")}
    want = [data[f"out__{i}"] for i in range(sum(k.startswith("out__") for k in data.files))]
    return js, str(params), inputs, want


def _op_attrs(program, name):
    return [{k: python_value(v) for k, v in op.attributes.items()}
            for op in program.block.ops if op.name == name]


def _replaying_registry(mask: np.ndarray) -> OpRegistry:
    """REGISTRY with pd_op.dropout drawing Paddle's mask instead of torch's random one; the
    output is computed as the real kernel computes it (x * mask, / (1 - p) when upscaling)."""
    recorded = torch.from_numpy(mask)

    def dropout_replay(x, seed_tensor=None, p=0.5, *, is_test=False, mode="upscale_in_train",
                       seed=0, fix_seed=False):
        assert not is_test and recorded.shape == x.shape
        p = float(p.reshape(-1)[0]) if isinstance(p, torch.Tensor) else float(p)
        out = x * recorded.to(x.dtype)
        return (out / (1.0 - p) if mode == "upscale_in_train" else out), recorded.clone()

    registry = OpRegistry()
    for name in REGISTRY.names():
        for e in REGISTRY.entries(name):
            fn = dropout_replay if name == "pd_op.dropout" else e.fn
            registry.register(name, e.since, e.until, flags=e.flags, deprecated=e.deprecated)(fn)
    return registry


def _run(program, case, params, inputs, want):
    if case in DROPOUT:
        gm = lower(program, params, registry=_replaying_registry(want[1]))
        return list(run_module(gm, inputs).values())
    return list(pirc.run(program, inputs, params=params).values())


def _programs(release, case):
    js = _paths(release, case)[0]
    yield "as saved", pirc.load(str(js))
    if release == "3.0.0":
        yield "upgraded", pirc.upgrade(pirc.load(str(js)))


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("case", CASES)
def test_pirc_gives_paddles_gradients(release, case):
    js, params, inputs, want = _fixture(release, case)
    for how, program in _programs(release, case):
        assert GRAD_OPS[case] <= {op.name for op in program.block.ops}, how
        if how == "upgraded":
            assert program.version > 1
        got = _run(program, case, params, inputs, want)
        assert len(got) == len(want), how
        bad = [str(r) for r in (compare_output(i, f"out{i}", g, w)
                                for i, (g, w) in enumerate(zip(got, want)))
               if not r.ok]
        assert not bad, f"{release} {case} ({how}):\n" + "\n".join(bad)


@pytest.mark.parametrize("release", RELEASES)
def test_the_programs_are_training_programs(release):
    # save_inference_model would have set is_test on every op; the generator keeps training
    # mode, and use_global_stats is what the second CNN varies
    for case, global_stats in (("cnn", False), ("cnn_global_stats", True)):
        program = pirc.load(str(_paths(release, case)[0]))
        for name in ("pd_op.batch_norm_", "pd_op.batch_norm_grad"):
            (attrs,) = _op_attrs(program, name)
            assert attrs["is_test"] is False and attrs["use_global_stats"] is global_stats
    for case, mode in (("mlp", "upscale_in_train"), ("mlp_mse", "downgrade_in_infer")):
        program = pirc.load(str(_paths(release, case)[0]))
        (attrs,) = _op_attrs(program, "pd_op.dropout_grad")
        assert attrs["is_test"] is False and attrs["mode"] == mode


def test_dropout_mask_pirc_draws_keeps_about_one_minus_p():
    # Without the replay pirc draws its own mask: comparable with Paddle's by distribution
    # only.  p = 0.3 over 32 cells: keep counts outside [12, 32] have probability < 1e-6.
    js, params, inputs, want = _fixture("3.3.1", "mlp")
    got = list(pirc.run(pirc.load(str(js)), inputs, params=params).values())
    mask = got[1]
    assert mask.dtype == np.uint8 and mask.shape == want[1].shape
    assert set(np.unique(mask)) <= {0, 1} and 12 <= int(mask.sum()) <= 32
    assert all(np.isfinite(g).all() for g in got[2:])


def test_the_generator_log_matches_the_fixtures():
    for release in RELEASES:
        log = json.loads((FIX / release / f"gen_log.{release}.json").read_text())
        assert log["paddle_version"] == release and set(log["cases"]) == set(CASES)
        for case in CASES:
            _, _, _, want = _fixture(release, case)
            assert [list(w.shape) for w in want] == [o[0] for o in log["cases"][case]["outputs"]]
