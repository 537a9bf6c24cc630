"""What a newcomer trips on first (issue 20, item 9), each pinned as the newcomer meets it:

- a pass in another package registers through the entry point group `pirc.passes`: a real
  distribution (a `*.dist-info` with `entry_points.txt` on the path of a fresh process) shows
  in `pirc-opt --list-passes` and runs in `-p`; a broken one is a one-line error naming it,
  and only where passes are looked up;
- mlir-opt's habits: no input argument reads stdin; `--pass-pipeline='builtin.module(a,b)'`
  is the pipeline `-p a,b`, anything else in that form a one-line error;
- one error prefix per kind of location, and quoted values never cut inside a word;
  `--list-passes` shows a pass's whole summary sentence;
- NpuFallbackWarning once per process;
- `pirc.export(program, params)`: torch.export with every -1 dim dynamic, run at two sizes
  with Paddle's numbers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import pirc
from pirc.errors import excerpt

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

# relu then assign: the assign is what the plugin pass below forwards
PROGRAM = textwrap.dedent("""\
    {
        (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2],stop_gradient:[true]} : () -> tensor<2xf32>
        (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
        (%2) = "pd_op.assign" (%1) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
        (%3) = "pd_op.fetch" (%2) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>
    }
    """)

PLUGIN_MODULE = textwrap.dedent('''\
    from dataclasses import dataclass

    from pirc.passes import OpUse, PassContext, PircPass, register_pass


    @register_pass
    @dataclass(frozen=True)
    class ForwardAssigns(PircPass):
        """Replaces the result of each pd_op.assign by its operand and removes the
        assign (a pass from another package)."""

        name = "forward-assigns"
        rewrites = {"pd_op.assign": OpUse((1,), conservative=True)}

        def run(self, pc: PassContext) -> None:
            for op in list(pc.program.block.ops):
                if op.name == "pd_op.assign":
                    pc.matched()
                    rewrite = pc.begin([op])
                    if rewrite is None:
                        continue
                    op.results[0].replace_all_uses_with(op.operands[0])
                    pc.program.block.erase_op(op, safe_erase=False)
                    rewrite.done()


    @dataclass(frozen=True)
    class CountOps(PircPass):
        """Changes nothing (registered by its entry point, not a decorator)."""

        name = "count-ops"

        def run(self, pc: PassContext) -> None:
            pass
    ''')


def _distribution(site: Path, name: str, entry_points: str, modules: dict[str, str]) -> None:
    """An installed distribution as pip leaves it: modules and a `NAME-0.1.dist-info` with
    METADATA and entry_points.txt, in `site` (a folder put on the path)."""
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source)
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)


def _pirc_opt(*args, cwd: Path, site: Path | None = None, stdin: str | None = None,
              env: dict | None = None):
    env = {**os.environ, **(env or {})}
    env["PYTHONPATH"] = os.pathsep.join([*([str(site)] if site else []), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pirc", *map(str, args)], cwd=cwd, env=env,
                          input=stdin, capture_output=True, text=True, timeout=300)


# --- a pass from another package -------------------------------------------------------------


@pytest.fixture
def plugin_site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _distribution(site, "pirc-forward-assigns",
                  "[pirc.passes]\nforward-assigns = fwd_assigns\ncount-ops = fwd_assigns:CountOps\n",
                  {"fwd_assigns": PLUGIN_MODULE})
    (tmp_path / "p.pir").write_text(PROGRAM)
    return site


def test_a_plugin_pass_is_listed_and_runs(plugin_site, tmp_path):
    listed = _pirc_opt("--list-passes", cwd=tmp_path, site=plugin_site)
    assert listed.returncode == 0, listed.stderr
    assert ("  forward-assigns (version 1): Replaces the result of each pd_op.assign by its "
            "operand and removes the assign (a pass from another package).") in listed.stdout
    assert "  count-ops (version 1): Changes nothing" in listed.stdout  # module:Class form
    assert "  dce (version 1):" in listed.stdout  # pirc's own are still there

    ran = _pirc_opt("p.pir", "--from-version=4", "-p", "forward-assigns,count-ops,dce",
                    cwd=tmp_path, site=plugin_site)
    assert ran.returncode == 0, ran.stderr
    assert "pd_op.assign" not in ran.stdout and '"pd_op.fetch" (%1)' in ran.stdout
    assert '"forward-assigns"' in ran.stdout.split("\n{")[0]  # its graph tag

    without = _pirc_opt("p.pir", "--from-version=4", "-p", "forward-assigns", cwd=tmp_path)
    assert without.returncode == 1
    assert without.stderr.startswith("error: unknown pass 'forward-assigns'")


@pytest.mark.parametrize("entry, problem", [
    ("broken = fwd_missing", "failed to load: ModuleNotFoundError: No module named 'fwd_missing'"),
    ("broken = fwd_raises", "failed to load: RuntimeError: needs a GPU"),
    ("broken = fwd_raises_not:VALUE", "names 3 (of type int), which is neither a module nor a PircPass class"),
    ("broken = fwd_raises_not:Thing", "names Thing, which is neither a module nor a PircPass class"),
])
def test_a_broken_plugin_is_one_error_naming_it(tmp_path, entry, problem):
    site = tmp_path / "site"
    site.mkdir()
    _distribution(site, "pirc-broken", f"[pirc.passes]\n{entry}\n",
                  {"fwd_raises": "raise RuntimeError('needs a GPU')\n",
                   "fwd_raises_not": "VALUE = 3\nclass Thing:\n    pass\n"})
    (tmp_path / "p.pir").write_text(PROGRAM)
    for args in (["--list-passes"], ["p.pir", "--from-version=4", "-p", "dce"]):
        r = _pirc_opt(*args, cwd=tmp_path, site=site)
        assert r.returncode == 1
        assert r.stderr.splitlines() == [
            f"error: pass plugin 'broken' (entry point `{entry}` in group "
            f"pirc.passes, from the distribution pirc-broken 0.1) {problem}; fix the plugin or "
            "uninstall pirc-broken"]
    # looked up lazily: a command that runs no pass never imports it
    plain = _pirc_opt("p.pir", "--from-version=4", cwd=tmp_path, site=site)
    assert plain.returncode == 0 and plain.stderr == ""


def test_plugins_are_looked_for_without_importing_importlib_metadata(tmp_path, monkeypatch):
    """The cheap look at sys.path says no only when no entry_points.txt names the group."""
    from pirc.passes.infra.registry import _may_have_plugins

    site = tmp_path / "site"
    site.mkdir()
    _distribution(site, "other-tool", "[console_scripts]\nother = other:main\n", {})
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "missing")])
    assert not _may_have_plugins()
    (site / "other_tool-0.1.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\nother = other:main\n\n[pirc.passes]\nmine = other\n")
    assert _may_have_plugins()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(_zip(tmp_path))])
    assert _may_have_plugins()  # a zip on the path: importlib.metadata decides


def _zip(tmp_path: Path) -> Path:
    import zipfile

    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("m.py", "")
    return tmp_path / "lib.zip"


def test_docs_say_how_a_pass_registers():
    doc = (ROOT / "docs" / "PASSES.md").read_text()
    assert "pip install -e ." in doc
    assert '[project.entry-points."pirc.passes"]' in doc


# --- mlir-opt habits -----------------------------------------------------------------------


def test_no_input_argument_reads_stdin(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    from_file = _pirc_opt("p.pir", "--from-version=4", "-p", "dce", cwd=tmp_path)
    from_stdin = _pirc_opt("--from-version=4", "-p", "dce", cwd=tmp_path, stdin=PROGRAM)
    assert from_file.returncode == from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout
    # JSON on stdin is recognised by its content, and errors name <stdin>
    as_json = _pirc_opt("p.pir", "--from-version=4", "--emit=json", cwd=tmp_path).stdout
    assert _pirc_opt("--emit=pir", cwd=tmp_path, stdin=as_json).stdout.count("pd_op.relu") == 1
    bad = _pirc_opt("--from-version=4", cwd=tmp_path, stdin="garbage\n")
    assert bad.returncode == 1 and bad.stderr.startswith("<stdin>:1:1: error: unexpected 'garbage'")


@pytest.mark.parametrize("anchored, listed", [
    ("builtin.module(canonicalize,cse,dce)", "canonicalize,cse,dce"),
    ("  builtin.module( const-fold{max-iterations=2 max-elements=8},dce ) ",
     "const-fold{max-iterations=2 max-elements=8},dce"),
    ("builtin.module(default)", "default"),
    ("builtin.module(canonicalize, cse , dce)", "canonicalize,cse,dce"),  # mlir-opt trims blanks
    ("builtin.module(const-fold {max-iterations=3}, dce)", "const-fold{max-iterations=3},dce"),
])
def test_pass_pipeline_is_the_same_pipeline_as_p(tmp_path, anchored, listed):
    (tmp_path / "p.pir").write_text(PROGRAM)
    a = _pirc_opt("p.pir", "--from-version=4", f"--pass-pipeline={anchored}", cwd=tmp_path)
    b = _pirc_opt("p.pir", "--from-version=4", "-p", listed, cwd=tmp_path)
    assert a.returncode == b.returncode == 0, a.stderr
    assert a.stdout == b.stdout  # the manifest names the pipeline: the same one


def test_an_empty_anchored_pipeline_runs_no_pass(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    a = _pirc_opt("p.pir", "--from-version=4", "--pass-pipeline=builtin.module()", cwd=tmp_path)
    assert a.returncode == 0 and a.stdout == _pirc_opt("p.pir", "--from-version=4", cwd=tmp_path).stdout


@pytest.mark.parametrize("anchored, problem", [
    ("cse,dce", "at column 1: expected `builtin.module(` (mlir-opt's anchored form, as in "
                "`builtin.module(cse,dce)`); a plain list of passes goes to -p: -p cse,dce"),
    ("func.func(cse)", "at column 1: pirc's passes run on the whole program, anchored on "
                       "`builtin.module` only, not `func.func`"),
    ("builtin.module(func.func(cse))", "at column 16: pirc's passes run on the whole program: "
                                       "`builtin.module(...)` holds a list of passes, not `func.func(...)`"),
    ("builtin.module(cse", "at column 15: `builtin.module(` is never closed"),
    ("builtin.module(cse) dce", "at column 21: unexpected text after `builtin.module(...)`"),
    ("builtin.module", "at column 15: expected `(` after `builtin.module`"),
])
def test_anything_else_in_the_anchored_form_is_one_error(tmp_path, anchored, problem):
    (tmp_path / "p.pir").write_text(PROGRAM)
    r = _pirc_opt("p.pir", "--from-version=4", f"--pass-pipeline={anchored}", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"error: --pass-pipeline {anchored!r}: {problem}")


def test_an_option_value_may_hold_a_parenthesis():
    from pirc.passes.infra.anchored_pipeline import pipeline_from_anchored

    assert pipeline_from_anchored('builtin.module(upgrade{patch-dir="a(b)"},dce)') == \
        'upgrade{patch-dir="a(b)"},dce'


def test_pass_pipeline_and_p_together_are_refused(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    r = _pirc_opt("p.pir", "-p", "cse", "--pass-pipeline=builtin.module(dce)", cwd=tmp_path)
    assert r.returncode == 2 and "--pass-pipeline and --pipeline (-p) both give the pipeline" in r.stderr


# --- one error prefix per kind of location -----------------------------------------------


def _json_program(tmp_path: Path) -> dict:
    (tmp_path / "p.pir").write_text(PROGRAM)
    return json.loads(_pirc_opt("p.pir", "--from-version=4", "--emit=json", cwd=tmp_path).stdout)


def _ops(doc: dict) -> list:
    return doc["program"]["regions"][0]["blocks"][0]["ops"]


def _case_text(tmp_path):
    (tmp_path / "bad.pir").write_text("garbage\n")
    return ["bad.pir"], "bad.pir:1:1: error: unexpected 'garbage'; expected '{'"


def _case_text_verify(tmp_path):
    relu = '(%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xf32>'
    assert relu in PROGRAM
    no_operand = '(%1) = "pd_op.relu" () {stop_gradient:[true]} : () -> tensor<2xf32>'
    (tmp_path / "bad.pir").write_text(PROGRAM.replace(relu, no_operand))
    return ["bad.pir", "--from-version=4"], "bad.pir:3:5: error: pd_op.relu: expects 1 operand (x), got 0"


def _case_json_schema(tmp_path):
    doc = _json_program(tmp_path)
    _ops(doc)[1]["O"][0]["%"] = "x"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    return ["bad.json"], ('bad.json: program.regions[0].blocks[0].ops[1].O[0].%: error: a result id '
                          'is a positive integer, got "x"')


def _case_json_verify(tmp_path):
    doc = _json_program(tmp_path)
    _ops(doc)[1]["I"] = []
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    return ["bad.json"], ("bad.json: program.regions[0].blocks[0].ops[1]: error: pd_op.relu: "
                          "expects 1 operand (x), got 0")


def _case_json_flag(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(_json_program(tmp_path)))
    return (["p.json", "--from-version=3"],
            "p.json: base_code.version: error: --from-version=3 contradicts the version this file carries (4)")


def _case_missing(tmp_path):
    return ["missing.pir"], "missing.pir: error: no such file"


def _case_directory(tmp_path):
    (tmp_path / "folder").mkdir()
    return ["folder"], "folder: error: is a directory, expected a PIR text or JSON file"


def _case_not_utf8(tmp_path):
    (tmp_path / "latin1.pir").write_bytes(b"{\xff}\n")
    return ["latin1.pir"], "latin1.pir: error: not UTF-8 text (byte 1); expected PIR text or Paddle JSON"


def _case_params(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    (tmp_path / "w.pdiparams").write_bytes(b"\0\0")
    return (["p.pir", "--from-version=4", "-p", "dce", "--params", "w.pdiparams"],
            "w.pdiparams: error: tensor #0 at byte 0: file ends inside the stream version (needs 4 "
            "bytes, 2 left); the file is truncated or not a .pdiparams file")


def _case_params_count(tmp_path):
    return ([FIXTURES / "corpus" / "3.3.1" / "cnn.3.3.1.json", "-p", "dce",
             "--params", FIXTURES / "corpus" / "3.3.1" / "mlp.3.3.1.pdiparams"],
            f"{FIXTURES / 'corpus' / '3.3.1' / 'mlp.3.3.1.pdiparams'}: error: the file holds 4 tensors "
            "but the program expects 10 persisted parameters")


def _case_reproducer(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    return (["--run-reproducer", "p.pir"],
            "p.pir: error: not a pirc reproducer (no `// pipeline: ...` line)")


def _case_flag(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    return ["p.pir", "--from-version=4", "-p", "dec"], "error: unknown pass 'dec' (did you mean 'dce'?)"


def _case_env(tmp_path):
    (tmp_path / "p.pir").write_text(PROGRAM)
    return (["p.pir", "--from-version=4", "-p", "dce"], "error: PIRC_DISABLE_PASSES: unknown pass 'nope'",
            {"PIRC_DISABLE_PASSES": "nope"})


PREFIX_CASES = {
    "text syntax": _case_text, "text verifier": _case_text_verify,
    "JSON schema": _case_json_schema, "JSON verifier": _case_json_verify, "JSON flag": _case_json_flag,
    "missing file": _case_missing, "directory": _case_directory, "not UTF-8": _case_not_utf8,
    "pdiparams": _case_params, "pdiparams count": _case_params_count, "reproducer": _case_reproducer,
    "command line": _case_flag, "environment": _case_env,
}


@pytest.mark.parametrize("case", PREFIX_CASES)
def test_one_error_prefix_per_kind_of_location(tmp_path, case):
    args, want, *env = PREFIX_CASES[case](tmp_path)
    r = _pirc_opt(*args, cwd=tmp_path, env={"PIRC_DISABLE_PASSES": "", **(env[0] if env else {})})
    assert r.returncode == 1, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith(want), first
    # the location is said once, before `error:`, never again inside the message
    where, message = first.split("error: ", 1)
    file = where.split(":")[0]
    assert not file or file not in message
    assert "Traceback" not in r.stderr


def _run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pirc.cli.run", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_pirc_run_names_the_file_an_error_is_about(tmp_path):
    corpus = FIXTURES / "corpus" / "3.0.0"
    np.savez(tmp_path / "in.npz", y=np.zeros(3, np.float32))
    feeds = _run_cli(corpus / "mlp.3.0.0.json", "--params", corpus / "mlp.3.0.0.pdiparams",
                     "--inputs", "in.npz", "--outputs", "o.npz", cwd=tmp_path)
    assert feeds.returncode == 1
    assert feeds.stderr.startswith("in.npz: error: no input for feed x (inputs given: y)")
    no_params = _run_cli(corpus / "mlp.3.0.0.json", "--inputs", "in.npz", "--outputs", "o.npz", cwd=tmp_path)
    assert no_params.returncode == 1
    assert no_params.stderr.startswith(f"{corpus / 'mlp.3.0.0.json'}: error: the parameters do not fit the program")


def test_pirc_opt_pass_failure_names_the_input(tmp_path, capsys):
    import broken_passes  # noqa: F401 - registers test-breaks-verifier
    from pirc.cli.opt import run

    small = ROOT / "tests" / "lit" / "passes" / "Inputs" / "small.pir"
    status = run([str(small), "--from-version=4", "-p", "test-breaks-verifier",
                  "--crash-reproducer", str(tmp_path / "c.pir")])
    assert status == 1
    assert capsys.readouterr().err.startswith(
        f"{small}: error: pass 'test-breaks-verifier' (#1 of the pipeline) broke the invariant")


# --- messages never cut inside a word ---------------------------------------------------------


@pytest.mark.parametrize("text, limit, want", [
    ("short", 10, "short"),
    ("exactly ten", 11, "exactly ten"),
    ("a sentence that goes on", 14, "a sentence..."),
    ('{"name": "abcdefghijklmnop"}', 20, '{"name": "...'),
    ("x" * 50, 10, "xxxxxxx..."),        # one word longer than the limit: cut, and marked
])
def test_excerpt(text, limit, want):
    assert excerpt(text, limit) == want


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


@given(st.text(alphabet="ab_ ,.{}\"é", max_size=80), st.integers(4, 60))
def test_excerpt_never_cuts_a_word(text, limit):
    got = excerpt(text, limit)
    assert len(got) <= limit
    if len(text) <= limit:
        assert got == text
        return
    assert got.endswith("...") and text.startswith(got[:-3])
    room = limit - 3
    # where a cut splits no word and keeps some text: the last one that fits is taken
    fits = [i for i in range(1, room + 1)
            if not (_word(text[i - 1]) and _word(text[i])) and text[:i].strip()]
    if fits:
        assert got[:-3] == text[:fits[-1]].rstrip(), (text, got)
    else:  # the first word alone is longer than the limit: cut at the limit
        assert got[:-3] == text[:room].rstrip()


def test_a_long_value_in_a_message_ends_at_a_word(tmp_path):
    doc = _json_program(tmp_path)
    _ops(doc)[1]["O"][0]["%"] = "the value of this result id is a long sentence of words, not a number"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    r = _pirc_opt("bad.json", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.rstrip().endswith('got "the value of this result id is a long sentence of words,...'), r.stderr


def test_list_passes_shows_each_summary_whole():
    r = _pirc_opt("--list-passes", cwd=ROOT)
    passes = r.stdout.split("Pipelines:")[0]
    lines = [line for line in passes.splitlines() if re.match(r"  \S+ \(version \d+\): ", line)]
    assert len(lines) >= 7
    assert ("  param-fold (version 1): Folds ops that depend on parameters only into new parameters "
            "(needs the parameter values).") in lines
    assert ("  conv-bn-fold (version 1): Folds an inference batch_norm into the preceding conv2d's "
            "weight and an added bias (needs the parameter values).") in lines
    assert all(line.endswith(".") for line in lines), lines


# --- NpuFallbackWarning once per process --------------------------------------------------------


def test_npu_fallback_warning_once_per_process():
    from pirc.lower.npu.detect import npu_status

    if npu_status().available:
        pytest.skip("an NPU is here: no fallback to warn about")
    code = textwrap.dedent(f"""\
        import warnings
        import pirc
        from pirc.lower.lower import NpuFallbackWarning
        program = pirc.parse({PROGRAM!r}, from_version=4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                pirc.lower(program, device="npu")
        print(sum(isinstance(w.message, NpuFallbackWarning) for w in caught))
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1"


# --- pirc.export: -1 dims dynamic ----------------------------------------------------------------

MODELS = [(ver, name) for ver in ("3.0.0", "3.3.1") for name in ("mlp", "attention")]
MODEL_TOL = dict(atol=1e-5, rtol=1e-5)  # as test_dynamic_shapes: GEMMs and sums in float32


def _io(stem: Path, size: str):
    io = np.load(f"{stem}.io.npz")
    feeds = {k.split("__", 1)[1]: io[k] for k in io.files if k.startswith(f"in{size}__")}
    outs = [io[f"out{size}__{i}"] for i in range(sum(k.startswith(f"out{size}__") for k in io.files))]
    return feeds, outs


@pytest.mark.parametrize("ver, name", MODELS)
def test_export_runs_at_two_sizes_with_paddles_numbers(ver, name):
    stem = FIXTURES / "dynamic" / ver / name
    program = pirc.load(f"{stem}.json")
    exported = pirc.export(program, f"{stem}.pdiparams")
    assert isinstance(exported, torch.export.ExportedProgram)
    feeds = [n for n in exported.graph.nodes if n.op == "placeholder"][-1]
    spec = pirc.lower(program, f"{stem}.pdiparams").pirc_feed_specs[0]
    # each -1 dim a symbol, each fixed dim its int
    assert [not isinstance(d, int) for d in feeds.meta["val"].shape] == [d == -1 for d in spec.shape]
    module = exported.module()
    sizes = set()
    for size in ("", "2"):
        inputs, want = _io(stem, size)
        sizes.add(inputs["x"].shape)
        got = module(torch.from_numpy(inputs["x"]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.detach().numpy(), w, **MODEL_TOL)
    assert len(sizes) == 2


def test_export_with_given_inputs_and_the_dynamic_shapes_helper():
    from pirc.lower.export import dynamic_shapes, example_inputs

    stem = FIXTURES / "dynamic" / "3.3.1" / "attention"
    program = pirc.load(f"{stem}.json")
    specs = pirc.lower(program, f"{stem}.pdiparams").pirc_feed_specs
    assert dynamic_shapes(specs) == {"x": {0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC}}
    assert example_inputs(specs)["x"].shape == (2, 2, 8)
    inputs, _ = _io(stem, "")
    exported = pirc.export(program, f"{stem}.pdiparams", inputs)
    inputs2, want2 = _io(stem, "2")
    got = exported.module()(torch.from_numpy(inputs2["x"]))
    np.testing.assert_allclose(got[0].detach().numpy(), want2[0], **MODEL_TOL)
    # the feeds are checked as pirc-run checks them
    with pytest.raises(pirc.PircError, match=r"feed x: given float32\[2, 5\], the program expects "
                                             r"float32\[-1, -1, 8\] \(rank differs\)"):
        pirc.export(program, f"{stem}.pdiparams", {"x": np.zeros((2, 5), np.float32)})
