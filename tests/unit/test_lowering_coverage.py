"""pirc.lowering_coverage: what a program needs that pirc cannot lower, read from the
op-version table without torch, one entry per op kind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pirc
from pirc.runtime import lowering_coverage as coverage
from pirc.text.parser import parse_text

ROOT = Path(__file__).resolve().parents[2]
UNLOWERABLE = (ROOT / "tests" / "lit" / "run" / "Inputs" / "unlowerable.pir").read_text()


def test_each_missing_kind_once_with_its_count_and_reason():
    missing = pirc.lowering_coverage(parse_text(UNLOWERABLE, "u.pir", 4))
    assert [str(m) for m in missing] == ["pd_op.frobnicate (2 ops): no kernel is registered for it"]


def test_every_corpus_program_lowers():
    from test_parity_corpus import CASES  # every program with outputs Paddle recorded
    for _, path, _ in CASES:
        if "/corpus/" in str(path):
            assert pirc.lowering_coverage(pirc.load(str(path))) == [], path


def test_a_kernel_registered_for_other_versions_says_which(monkeypatch):
    monkeypatch.setattr(coverage, "semantic_version", lambda name, version: None)
    monkeypatch.setattr(coverage, "ranges", lambda name: [(1, 3)] if name == "pd_op.relu" else [])
    missing = {m.name: m.reason for m in coverage.lowering_coverage(parse_text(UNLOWERABLE, "u.pir", 4))}
    assert missing["pd_op.relu"] == "its kernels cover PIR versions [1, 3), not the program's version 4"


def test_it_needs_no_torch():
    code = ("import sys, pirc; from pirc.text.parser import parse_text; "
            f"pirc.lowering_coverage(parse_text(open({str(ROOT / 'tests/lit/run/Inputs/unlowerable.pir')!r}).read(), 'u', 4)); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_lowering_and_the_table_agree_on_the_structural_ops():
    from pirc.lower.graph_builder import STRUCTURAL_OPS
    assert STRUCTURAL_OPS is coverage.STRUCTURAL_OPS
