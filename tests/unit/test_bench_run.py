"""tools/bench_run.py --mode zoo, the parts that do not time anything and need no Paddle: model
discovery, tiling the recorded inputs to a batch size, the output check, the table and its
'## Zoo' entry, and a model missing kernels listed instead of run."""

import os
from pathlib import Path

import numpy as np
import pytest

import pirc
from tools import bench_run
from tools.bench_run import (ZOO, batch_inputs, check_outputs, recorded_batch, tiled_outputs,
                             zoo_models, zoo_table)


def _tiny_model():
    """The smallest zoo program pirc lowers completely (the test does not name one: the zoo grows)."""
    for model in sorted(zoo_models(), key=lambda m: os.path.getsize(m.program)):
        if not pirc.lowering_coverage(pirc.load(model.program)):
            return model
    pytest.fail("no zoo model lowers")


def test_discovery_finds_each_program_with_its_io_file_and_nothing_else():
    models = zoo_models()
    assert models, "tests/fixtures/zoo/3.3.1 holds no model"
    names = [m.name for m in models]
    assert names == sorted(names) and not any(n.startswith("gen_log") for n in names)
    for m in models:
        assert m.program == os.path.join(ZOO, "3.3.1", f"{m.name}.3.3.1.json")
        assert os.path.exists(m.io) and m.io.endswith(f"{m.name}.3.3.1.io.npz")
    assert [m.name for m in zoo_models(names=[names[-1]])] == [names[-1]]


def test_batch_inputs_tile_the_dynamic_batch_dim_and_keep_the_rest():
    ids = np.arange(14, dtype=np.int64).reshape(2, 7)
    feeds = {"ids": ids, "mask": np.ones((2, 7), np.float32), "scale": np.arange(3.0)}
    shapes = {"ids": (-1, -1), "mask": (-1, 7), "scale": (3,)}
    assert recorded_batch(feeds, shapes) == 2
    big = batch_inputs(feeds, shapes, 5)
    assert big["ids"].shape == (5, 7) and big["mask"].shape == (5, 7)   # sequence kept
    np.testing.assert_array_equal(big["ids"], ids[[0, 1, 0, 1, 0]])
    assert big["scale"] is feeds["scale"]                                 # no batch dim: as is
    np.testing.assert_array_equal(batch_inputs(feeds, shapes, 1)["ids"], ids[:1])
    fixed = {"ids": (2, 7), "mask": (2, 7), "scale": (3,)}
    assert batch_inputs(feeds, fixed, 2) is feeds                         # its own size only
    assert batch_inputs(feeds, fixed, 16) is None


def test_recorded_outputs_are_tiled_like_the_inputs():
    logits, count = np.arange(6.0).reshape(2, 3), np.array([7])
    out = tiled_outputs([logits, count], 2, 3)
    np.testing.assert_array_equal(out[0], logits[[0, 1, 0]])
    assert out[1] is count


def test_output_check():
    ref = [np.array([[1.0, -2.0]], np.float32)]
    err, ok, why = check_outputs([ref[0] + 1e-4], ref, atol=1e-5, rtol=1e-3)
    assert ok and not why and err == pytest.approx(1e-4, rel=1e-3)
    err, ok, why = check_outputs([ref[0] + 1e-2], ref, atol=1e-5, rtol=1e-3)
    assert not ok and "output 0: max abs diff" in why
    assert not check_outputs([np.full((1, 2), np.nan, np.float32)], ref, 1e-5, 1e-3)[1]
    assert "reference (1, 2) float32" in check_outputs([ref[0].astype(np.float64)], ref, 1, 1)[2]
    assert "2 outputs" in check_outputs([ref[0], ref[0]], ref, 1, 1)[2]


def test_zoo_mode_without_paddle_checks_a_model_at_two_batch_sizes(tmp_path: Path, capsys):
    """The lowered module at batch 1 and 3 against the recorded outputs tiled (no timing), and
    the '## Zoo' entry goes first in that section, keeping what was there."""
    model = _tiny_model()
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("# Performance\n\n## Zoo\n\n### an earlier entry\n\ntable\n\n## Later\n\nx\n")
    bench_run.main(["--mode", "zoo", "--no-paddle", "--check-only", "--models", model.name,
                    "--batches", "1", "3", "--write", str(doc)])
    table = capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith(f"| {model.name} |")]
    assert [r.split(" | ")[1] for r in rows] == ["1", "3"]
    assert "mismatch" not in table and "not run" not in table
    for row in rows:
        assert float(row.rstrip(" |").split(" | ")[-1]) < 1e-4            # max abs diff
    text = doc.read_text()
    assert text.index("## Zoo") < text.index("### 20") < text.index("### an earlier entry") \
        < text.index("## Later")
    entry = text[text.index("### 20"):text.index("### an earlier entry")]
    assert "--mode zoo" in entry and "CPU " in entry and "commit " in entry
    assert "Paddle not run" in entry and "torch " in entry and "| pirc / Paddle |" in entry


def test_a_model_missing_kernels_is_listed_with_its_ops(monkeypatch, capsys):
    model = _tiny_model()
    monkeypatch.setattr(pirc, "lowering_coverage",
                        lambda program: ["pd_op.fancy (2 ops): no kernel is registered for it"])
    bench_run.main(["--mode", "zoo", "--no-paddle", "--check-only", "--models", model.name])
    out = capsys.readouterr().out
    assert f"- {model.name}: not run, missing kernels: pd_op.fancy (2 ops)" in out
    assert f"| {model.name} |" not in out


def test_table_marks_pirc_faster_and_a_mismatch_untimed():
    rows = [{"model": "m", "batch": "1", "paddle_us": 200.0, "lowered_us": 100.0,
             "lowered_err": 1e-7},
            {"model": "m", "batch": "16", "paddle_us": 200.0, "lowered_err": 0.5,
             "lowered_mismatch": "output 0: max abs diff 0.5 > 0.001"}]
    table = zoo_table(rows, compiled=False)
    assert "| m | 1 | 100 | 200 | 2.00 | yes | 1e-07 |" in table
    assert "| m | 16 | mismatch | 200 | - | - | 0.5 |" in table
    assert "- m batch 16: lowered not timed, output 0: max abs diff 0.5" in table


def test_a_program_without_a_dynamic_batch_dim_runs_once_at_its_own_size(monkeypatch, capsys):
    model = _tiny_model()
    real = bench_run.feed_shapes
    monkeypatch.setattr(bench_run, "feed_shapes", lambda program: {
        name: tuple(2 if i == 0 else d for i, d in enumerate(shape))
        for name, shape in real(program).items()})
    bench_run.main(["--mode", "zoo", "--no-paddle", "--check-only", "--models", model.name,
                    "--batches", "16"])
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith(f"| {model.name} |")]
    assert [r.split(" | ")[1] for r in rows] == ["1 (fixed)"]


def test_export_options_are_zoo_mode_and_a_run_of_their_own():
    assert bench_run.parse_args(["--mode", "zoo", "--export"]).export
    for argv in (["--export"], ["--mode", "zoo", "--export", "--compile"]):
        with pytest.raises(SystemExit):
            bench_run.parse_args(argv)


def test_second_size_moves_each_dynamic_dim_and_keeps_the_rest():
    from tools.bench_run import describe_dims, second_size

    ids = np.arange(16, dtype=np.int64).reshape(2, 8)
    img = np.zeros((1, 3, 4, 4), np.float32)
    short = np.arange(6).reshape(2, 3)
    out = second_size({"ids": ids, "img": img, "short": short, "fixed": ids},
                      {"ids": (-1, -1), "img": (-1, 3, 4, 4), "short": (-1, -1), "fixed": (2, 8)})
    np.testing.assert_array_equal(out["ids"], ids[[0, 1, 0], :5])   # batch + 1, sequence - 3
    assert out["img"].shape == (2, 3, 4, 4)
    np.testing.assert_array_equal(out["short"], short[[0, 1, 0]][:, [0, 1, 2, 0]])   # 3 -> 4
    assert out["fixed"] is ids
    assert describe_dims({"ids": (-1, -1), "mask": (2, 8)}) == "ids: 0, 1"
    assert describe_dims({"x": (2, 8)}) == "static"


def test_export_table_lists_each_failure_under_it():
    from tools.bench_run import export_table

    rows = [{"model": "a", "dims": "x: 0", "sizes": "1x3, 2x3", "export_s": 0.52,
             "exported_err": 0.0, "fullgraph_err": 0.0, "lowered_us": 100.0,
             "exported_us": 150.0},
            {"model": "b", "dims": "static", "sizes": "2x8",
             "exported_failed": "UserError: Constraints violated (s0)",
             "fullgraph_failed": "Unsupported: graph break"},
            {"model": "c", "skipped": "missing kernels: pd_op.x (1 ops)"}]
    table = export_table(rows)
    assert "| a | x: 0 | 1x3, 2x3 | ok | 0.5 | 0 | ok | 100 | 150 | 1.50 |" in table
    assert "| b | static | 2x8 | failed | - | - | failed | - | - | - |" in table
    assert "- b: torch.export failed, UserError: Constraints violated (s0)" in table
    assert "- b: eager fullgraph failed, Unsupported: graph break" in table
    assert "- c: not run, missing kernels" in table and "| c |" not in table


def test_a_compile_failure_is_its_column_not_the_model(monkeypatch, capsys):
    """--compile: torch.compile raising leaves the eager row and lists the reason."""
    model = _tiny_model()

    def broken(gm, **kw):
        assert kw["fullgraph"] is True
        def call(*a):
            raise RuntimeError("graph break in a kernel\nmore")
        return call
    monkeypatch.setattr(bench_run.torch, "compile", broken)
    bench_run.main(["--mode", "zoo", "--no-paddle", "--check-only", "--compile", "--models",
                    model.name, "--batches", "2"])
    out = capsys.readouterr().out
    assert f"| {model.name} | 2 | - | failed |" in out
    assert f"- {model.name} batch 2: compiled failed: RuntimeError: graph break in a kernel" in out


def test_zoo_export_run_of_a_model(capsys, tmp_path):
    """--export on the smallest model: exported and fullgraph ok at two sizes, written into
    its own section."""
    model = _tiny_model()
    doc = tmp_path / "P.md"
    doc.write_text("# P\n")
    bench_run.main(["--mode", "zoo", "--export", "--check-only", "--models", model.name,
                    "--write", str(doc)])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(f"| {model.name} |"))
    cells = row.strip("| ").split(" | ")
    assert cells[3] == "ok" and cells[6] == "ok" and ", " in cells[2], row
    assert "## Zoo export and compile" in doc.read_text() and "Paddle not run" in doc.read_text()


def test_the_second_zoo_runs_at_its_recorded_inputs_and_threads_are_an_option():
    """--zoo zoo2 picks tests/fixtures/zoo2 and, without --batches, only the recorded inputs
    (its loops and NMS outputs depend on the data, so tiled outputs are no reference);
    --threads 0 leaves torch's and Paddle's thread counts at their defaults."""
    args = bench_run.parse_args(["--mode", "zoo", "--zoo", "zoo2"])
    assert args.batches == [] and args.threads == 1
    assert bench_run.ZOOS[args.zoo].endswith(os.path.join("tests", "fixtures", "zoo2"))
    assert bench_run.parse_args(["--mode", "zoo"]).batches == [1, 16]
    assert bench_run.parse_args(["--mode", "zoo", "--threads", "0"]).threads == 0
