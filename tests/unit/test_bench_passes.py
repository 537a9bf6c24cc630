"""tools/bench_passes.py: `--record` keeps docs/PERFORMANCE.md's history, and the corpus
programs it picks are the largest, one per model, the same on every run."""

from pathlib import Path

from tools.bench_passes import PERFORMANCE, largest_corpus, markdown, record

INFO = {"date": "2026-12-02 05:00 UTC", "commit": "abc1234", "cores": 2, "cpu": "AMD EPYC",
        "memory_gib": 23.5, "python": "3.11.7", "xdsl": "0.75.0", "mlir_opt": None,
        "load_start": 0.1, "load_end": 0.2, "runs": 3}


def _row(ops: int, added_nv: float, added_v: float) -> dict:
    return {"program": f"generated {ops // 1000}k", "ops": ops, "ops_after": ops - 10, "plain_s": 1.0,
            "no_verify_each_added_s": added_nv, "no_verify_each_added_cpu_s": added_nv,
            "verify_each_added_s": added_v, "verify_each_added_cpu_s": added_v,
            "verify_each_passes_s": {"cse": 0.5, "dce": 0.1}}


def test_record_appends_to_the_passes_section_and_keeps_what_was_there(tmp_path: Path):
    doc = tmp_path / "PERFORMANCE.md"
    original = PERFORMANCE.read_text()
    doc.write_text(original)
    first = markdown(INFO, [_row(100_000, 0.7, 0.8)], [], 100, "python tools/bench_passes.py")
    second = markdown(dict(INFO, date="2026-12-03 05:00 UTC"), [_row(100_000, 2.5, 3.0)], [], 100,
                      "python tools/bench_passes.py --runs 5")
    record(first, doc)
    record(second, doc)
    text = doc.read_text()
    # Nothing that was there is lost or reordered: removing the two entries gives it back.
    assert text.replace("\n" + first, "", 1).replace("\n" + second, "", 1) == original
    passes = text.index("\n## Passes")
    after = text.index("\n## ", passes + 1)
    assert passes < text.index(first) < text.index(second) < after
    # issue 24's target: what `-p default` (incremental verification) adds at 100k ops
    assert "generated 100k +0.80 s wall, +0.80 s CPU (target <= 1.0 s: met)" in first
    assert "generated 100k +3.00 s wall, +3.00 s CPU (target <= 1.0 s: **not met**)" in second


def test_record_starts_a_passes_section_where_there_is_none(tmp_path: Path):
    doc = tmp_path / "PERFORMANCE.md"
    doc.write_text("# Performance\n\n## Run\n\nfigures\n")
    entry = markdown(INFO, [_row(1000, 0.1, 0.2)], [], 100, "python tools/bench_passes.py")
    record(entry, doc)
    assert doc.read_text() == "# Performance\n\n## Run\n\nfigures\n\n## Passes\n\n" + entry
    assert "target" not in entry  # the targets are stated at 100k ops only


def test_the_corpus_programs_are_the_largest_one_per_model():
    picked = largest_corpus(3)
    assert picked == largest_corpus(3)
    models = [stem.split(".")[0] for stem, _, _ in picked]
    assert len(set(models)) == 3
    counts = [ops for _, _, ops in picked]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 50


def test_a_big_programs_fuse_row_has_no_no_verify_each_jobs(tmp_path: Path, monkeypatch):
    """From BIG ops on, neither pipeline gets its --no-verify-each run, and `--fuse`'s "added"
    figures are taken over the runs that were made (a KeyError on the 1M program before)."""
    import tools.bench_passes as bench
    from pirc.paddle_json.writer import write_program
    from pirc.text.parser import parse_text

    src = tmp_path / "p.json"
    src.write_text(write_program(parse_text(bench.generate(40), "bench", 4)))
    monkeypatch.setattr(bench, "BIG", 10)
    monkeypatch.setattr(bench.shutil, "which", lambda name: None)   # no mlir-opt-19 runs
    calls = []
    real = bench.whole_process
    monkeypatch.setattr(bench, "whole_process", lambda cmd, env: calls.append(cmd) or real(cmd, env))
    row = bench.program_row("p", src, tmp_path, 1, bench.process_env(), fuse=True)
    assert len(calls) == 3 and not any("--no-verify-each" in map(str, cmd) for cmd in calls)
    assert "no_verify_each_s" not in row and "fuse_no_verify_each_s" not in row
    assert row["fuse_verify_each_added_s"] == row["fuse_verify_each_s"] - row["verify_each_s"]


def _fuse_row(ops: int, added: float) -> dict:
    return dict(_row(ops, 0.1, 0.1), fused_ops_after=ops - 20, fusions={"fuse-fc": 3},
                fuse_verify_each_s=1.0 + added, fuse_verify_each_added_s=added,
                fuse_verify_each_added_cpu_s=added, fuse_verify_each_passes_s={"fuse-fc": added},
                in_process={"default": 0.1, "fuse": 0.1 + added, "added": added})


def test_the_fuse_verdict_is_given_at_10k_ops_only():
    """Issue 22's "-p fuse adds at most 0.3 s to -p default" is stated at 10k ops: a 10k row
    gets the verdict, a run of only 1M ops gets none (it read "not met" at 1M before)."""
    at_10k = markdown(INFO, [_fuse_row(10_000, 0.18), _fuse_row(1_000_000, 19.8)], [], 100, "x")
    assert "At 10000 ops, what fuse adds to default (target <= 0.3 s): whole process, wall " \
           "+0.18 s (met)" in at_10k
    assert "At 1000000 ops" not in markdown(INFO, [_fuse_row(1_000_000, 19.8)], [], 100, "x")
