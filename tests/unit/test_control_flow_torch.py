"""Programs with pd_op.if / pd_op.while under pirc.run, torch.export and torch.compile
(docs/LOWERING.md, "Control flow under torch.export and torch.compile"; issue 21, item 4).

The programs are real: `paddle.jit.to_static` functions saved by Paddle 3.3.1 and 3.0.0
(tools/paddle_oracle/gen_control_flow_fixtures.py, tests/fixtures/control_flow/VER/), each with
cases that take every branch of every `if` and run every loop 0, 1 and many times, and Paddle's
outputs for them.  The eager run must give Paddle's numbers bit for bit (all the arithmetic
is exact); the exported program (pirc.export: the batch dim dynamic) and the compiled module
(fullgraph=True) must give the eager numbers on every case, from one trace.  Where torch
cannot keep a loop (a carried tensor that grows), pirc.export refuses with a LoweringError
naming the pd_op.while.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import pirc
from pirc.errors import LoweringError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "control_flow"
VERSIONS = ["3.3.1", "3.0.0"]
# what torch does with each program (the table in docs/LOWERING.md)
TRACEABLE = ["if_tensor", "if_elif", "if_branch_temp", "if_two_outputs", "if_shapes_differ", "if_masked_select",
             "while_counter", "while_data", "while_nested", "while_nested_temp", "while_break",
             "while_if_body",
             "while_nonzero"]
# a carried tensor that grows each iteration; a variable first assigned in the body and read
# after the loop (dy2static starts it as a 0-d placeholder)
REFUSED = ["while_grow", "while_last_temp"]
# dy2static's placeholder for a variable first assigned in a loop is a 0-d `full` typed
# tensor<1xi64>; traced, it is carried as [1] (torch.while_loop keeps shapes fixed), so a loop of
# 0 iterations returns [1] where Paddle (and pirc's eager run) return [] -- the same number.
RESHAPED = {("while_nested", 0, 2)}


def _log(version):
    return json.loads((FIXTURES / version / "gen_log.json").read_text())["models"]


def _cases(version, name):
    with np.load(FIXTURES / version / f"{name}.io.npz") as io:
        data = {k: io[k] for k in io.files}
    cases = []
    for k in range(len(_log(version)[name]["cases"])):
        feeds = {key.split("__", 1)[1]: a for key, a in data.items() if key.startswith(f"in{k}__")}
        outs = [data[f"out{k}__{i}"] for i in range(sum(key.startswith(f"out{k}__") for key in data))]
        cases.append((feeds, outs))
    return cases


def _program(version, name):
    return pirc.load(str(FIXTURES / version / f"{name}.json"))


def _check(got, want, what, name, case):
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        g = g.detach().numpy() if isinstance(g, torch.Tensor) else g
        if (name, case, i) in RESHAPED and g.shape != w.shape:
            assert g.shape == (1,) and w.shape == (), what
            g = g.reshape(())
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}, case {case}, output {i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        assert np.array_equal(g, w), f"{what}, case {case}, output {i}: max diff {np.abs(g - w).max()}"


def _args(gm, feeds):
    return [torch.from_numpy(feeds[s.name]) for s in gm.pirc_feed_specs]


def test_the_fixtures_take_every_branch_and_trip_count():
    """Every model of the generator is here, from both releases, and holds control flow."""
    for version in VERSIONS:
        log = _log(version)
        assert sorted(log) == sorted(TRACEABLE + REFUSED)
        for name, entry in log.items():
            assert entry["ok"] and (entry["ops"].get("if", 0) + entry["ops"].get("while", 0)) >= 1, name
    counts = [c["what"] for c in _log("3.3.1")["while_counter"]["cases"]]
    assert counts == ["0 iterations", "1 iteration", "7 iterations"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", TRACEABLE + REFUSED)
def test_eager_run_equals_paddle(version, name):
    """pirc.run gives Paddle's outputs on every case, as saved and (3.0.0) after --upgrade."""
    programs = [_program(version, name)]
    if version == "3.0.0":
        upgraded = _program(version, name)
        pirc.upgrade(upgraded)
        programs.append(upgraded)
    for program in programs:
        for k, (feeds, want) in enumerate(_cases(version, name)):
            _check(list(pirc.run(program, feeds).values()), want, f"{name} {version} eager", None, k)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", TRACEABLE)
def test_export_with_dynamic_dims_runs_every_case(version, name):
    """One export (pirc.export, the batch dim dynamic) runs every branch and trip count: the
    control flow is torch.cond / torch.while_loop in the exported graph, not the trace's path."""
    cases = _cases(version, name)
    exported = pirc.export(_program(version, name), inputs=cases[-1][0])
    code = "".join(m.code for m in exported.graph_module.modules() if isinstance(m, torch.fx.GraphModule))
    log = _log(version)[name]["ops"]
    assert ("torch.ops.higher_order.cond" in code) == ("if" in log)
    assert ("torch.ops.higher_order.while_loop" in code) == ("while" in log)
    x = next(n for n in exported.graph.nodes if n.op == "placeholder" and n.name == "x")
    assert not isinstance(x.meta["val"].shape[0], int), "the batch dim was specialised"
    module = exported.module()
    gm = pirc.lower(_program(version, name))
    for k, (feeds, want) in enumerate(cases):
        _check(module(*_args(gm, feeds)), want, f"{name} {version} exported", name, k)


def test_export_refuses_a_loop_value_that_starts_as_a_placeholder():
    program = _program("3.0.0", "while_last_temp")
    with pytest.raises(LoweringError, match=r"^pd_op\.while at program\.regions\[0\]\.blocks\[0\]\.ops\[\d+\]: "
                       r"the loop body changes its loop value 1 \(result 1\) from one iteration to the "
                       r"next \(shape \[\] in, \[s\d+, 4\] out of the body\)"):
        pirc.export(program, inputs=_cases("3.0.0", "while_last_temp")[-1][0])


def test_export_refuses_a_loop_whose_carried_tensor_grows():
    program = _program("3.3.1", "while_grow")
    feeds, _ = _cases("3.3.1", "while_grow")[-1]
    with pytest.raises(LoweringError) as info:
        pirc.export(program, inputs=feeds)
    message = str(info.value)
    assert message.startswith("pd_op.while at program.regions[0].blocks[0].ops[4]: the loop body "
                              "concatenates onto its loop value 1 (result 1; pd_op.concat), so its "
                              "shape grows each iteration; torch.while_loop carries tensors of a "
                              "fixed shape"), message
    assert info.value.__cause__ is None and "\n" not in message  # one line, no torch traceback
    # the eager module still runs it (test_eager_run_equals_paddle)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("name", TRACEABLE)
def test_compile_fullgraph_runs_every_case(name, backend):
    """torch.compile(fullgraph=True): no graph break, the eager numbers on every case."""
    version = "3.3.1"
    gm = pirc.lower(_program(version, name))
    torch._dynamo.reset()
    compiled = torch.compile(gm, backend=backend, fullgraph=True)
    for k, (feeds, want) in enumerate(_cases(version, name)):
        _check(compiled(*_args(gm, feeds)), want, f"{name} compiled ({backend})", name, k)


def test_compile_runs_a_growing_loop_eagerly_behind_a_graph_break():
    """torch.compile without fullgraph: the concat-growing loop runs as a Python while outside
    the graph (eager_regions.untraced_growing_while), Paddle's numbers on every trip count;
    with fullgraph=True that graph break is dynamo's error, which gives the reason."""
    gm = pirc.lower(_program("3.3.1", "while_grow"))
    torch._dynamo.reset()
    compiled = torch.compile(gm, backend="eager")
    for k, (feeds, want) in enumerate(_cases("3.3.1", "while_grow")):
        _check(compiled(*_args(gm, feeds)), want, "while_grow compiled", "while_grow", k)
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.Unsupported,
                       match=r"(?s)torch.compiler.disable.*pd_op.while concatenates onto a loop value"):
        torch.compile(gm, backend="eager", fullgraph=True)(*_args(gm, feeds))


def test_compile_of_a_loop_whose_value_changes_shape_is_torchs_error_naming_the_op():
    """A loop value that changes shape other than by a concat onto itself (while_last_temp: the
    0-d placeholder becomes [-1, 4]) is seen only inside dynamo, where pirc cannot catch it:
    the error is torch's, and its "from user code" line shows the module's call, which names
    the pd_op.while."""
    gm = pirc.lower(_program("3.3.1", "while_last_temp"))
    feeds, _ = _cases("3.3.1", "while_last_temp")[-1]
    torch._dynamo.reset()
    with pytest.raises(torch._dynamo.exc.UncapturedHigherOrderOpError,
                       match=r"(?s)same metadata.*pd_op\.while at program\.regions\[0\]\.blocks\[0\]\.ops\[\d+\]"):
        torch.compile(gm, backend="eager", fullgraph=True)(*_args(gm, feeds))


def test_compile_inductor_on_an_if_inside_a_while():
    """The default backend (inductor) too, on the model with both ops (about 10 s on 2 cores;
    every model compiles with inductor, docs/LOWERING.md)."""
    name, version = "while_if_body", "3.3.1"
    gm = pirc.lower(_program(version, name))
    torch._dynamo.reset()
    compiled = torch.compile(gm, fullgraph=True)
    for k, (feeds, want) in enumerate(_cases(version, name)):
        _check(compiled(*_args(gm, feeds)), want, f"{name} compiled (inductor)", name, k)


def test_eager_run_calls_no_higher_order_operator(monkeypatch):
    """Run eagerly, pd_op.if / pd_op.while are a Python if / while (the operators cost ~0.3 ms
    a call in eager mode): the module never calls torch's cond or while_loop."""
    def refuse(*args, **kwargs):
        raise AssertionError("a higher-order operator was called in eager mode")

    gm = pirc.lower(_program("3.3.1", "while_if_body"))
    monkeypatch.setattr(torch.ops.higher_order, "cond", refuse)
    monkeypatch.setattr(torch.ops.higher_order, "while_loop", refuse)
    for feeds, want in _cases("3.3.1", "while_if_body"):
        _check(gm(*_args(gm, feeds)), want, "eager", None, 0)
    # the patch is seen when traced (the failure inside torch.while_loop, named by the op)
    with pytest.raises(LoweringError, match="pd_op.while at .*higher-order operator was called"):
        torch.export.export(gm, tuple(_args(gm, feeds)))


def test_dead_loop_values_are_not_carried():
    """dy2static carries nonzero's result (assigned in the body, read by neither the next
    iteration nor the code after the loop): the lowering drops it, so the loop exports although
    that temporary's row count changes with the data."""
    gm = pirc.lower(_program("3.3.1", "while_nonzero"))
    (call,) = [n for n in gm.graph.nodes if n.op == "call_function" and "while_loop" in str(n.target)]
    carried = call.args[2]
    assert len(carried) == 1 + 2  # the condition, the counter, the total (not nonzero's result)


def test_a_temporary_yielded_into_a_dead_outer_loop_value_is_dead():
    """while_nested_temp: t, assigned in the inner body, is yielded by the inner loop into the
    outer loop's t, which nothing reads: both loops carry (condition, acc, counter) only.  Carried,
    t would start as dy2static's 0-d placeholder and become [-1, 4]: torch.while_loop refused it."""
    gm = pirc.lower(_program("3.3.1", "while_nested_temp"))
    loops = [n for m in gm.modules() if isinstance(m, torch.fx.GraphModule)
             for n in m.graph.nodes if n.op == "call_function" and "while_loop" in str(n.target)]
    assert sorted(len(n.args[2]) for n in loops) == [3, 3]


def test_pirc_run_cli_equals_paddle(tmp_path):
    """The command a user runs: pirc-run on the saved JSON, each case's inputs from an .npz
    (while_break: a loop that runs out, breaks early or runs 0 times; two ifs in its body)."""
    import subprocess
    import sys

    name = "while_break"
    for k, (feeds, want) in enumerate(_cases("3.0.0", name)):
        np.savez(tmp_path / f"in{k}.npz", **feeds)
        r = subprocess.run([sys.executable, "-m", "pirc.cli.run", str(FIXTURES / "3.0.0" / f"{name}.json"),
                            "--inputs", str(tmp_path / f"in{k}.npz"), "--outputs", str(tmp_path / f"out{k}.npz")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        with np.load(tmp_path / f"out{k}.npz") as out:
            _check([out[f] for f in out.files], want, f"{name} pirc-run", None, k)


# --- the second zoo's control-flow models (tests/fixtures/zoo2, Paddle 3.3.1) ----------------

def _zoo2(model):
    from zoo_cases import ZOO2, inputs, params, saved_cases

    cases = [c for c in saved_cases(ZOO2, labelled=True) if c.model == model and c.release == "3.3.1"]
    program = pirc.load(str(cases[0].program))
    feeds = [{k.removeprefix("in__"): np.asarray(a) for k, a in inputs(c).items()} for c in cases]
    return program, params(program, cases[0]), feeds


@pytest.mark.parametrize("model", ["cond_model", "nested_loops", "switch_for"])
def test_zoo2_models_export_and_compile_as_they_run_eagerly(model):
    """Real models with ifs and (nested) loops over a small paddlenlp GPT: one export and one
    fullgraph compile give the eager module's outputs on every input set (each branch, loops
    of 0, 1 and many iterations).  nested_loops exports because an inner loop's temporary,
    carried up through the outer loop, is dead (`_loop_value_read`)."""
    program, params, feeds = _zoo2(model)
    gm = pirc.lower(program, params)
    exported = pirc.export(program, params, inputs=feeds[0]).module()
    torch._dynamo.reset()
    compiled = torch.compile(gm, backend="eager", fullgraph=True)
    for k, f in enumerate(feeds):
        want = [o.numpy() for o in gm(*_args(gm, f))]
        _check(exported(*_args(gm, f)), want, f"{model} exported", model, k)
        _check(compiled(*_args(gm, f)), want, f"{model} compiled", model, k)


def test_zoo2_kv_cache_loop_runs_compiled_and_is_refused_by_export():
    """gpt_cached's decoding loop concatenates onto its key/value caches and tokens: pirc.export
    refuses it naming the op and the values; torch.compile (no fullgraph) runs the loop eagerly
    behind a graph break and gives the eager numbers on every input set."""
    program, params, feeds = _zoo2("gpt_cached")
    with pytest.raises(LoweringError) as info:
        pirc.export(program, params, inputs=feeds[0])
    message = str(info.value)
    assert message.startswith("pd_op.while at program.regions[0].blocks[0].ops[") and \
        "the loop body concatenates onto its loop values" in message and "\n" not in message, message
    gm = pirc.lower(program, params)
    torch._dynamo.reset()
    compiled = torch.compile(gm, backend="eager")
    for k, f in enumerate(feeds):
        want = [o.numpy() for o in gm(*_args(gm, f))]
        _check(compiled(*_args(gm, f)), want, "gpt_cached compiled", "gpt_cached", k)
