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
