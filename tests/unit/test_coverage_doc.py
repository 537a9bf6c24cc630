"""docs/COVERAGE.md and the per-op block of docs/PARITY.md are generated from the repository's
data (op definitions, kernel table, fixture logs, survey, tolerances) by tools/gen_coverage.py;
a kernel, fixture or tolerance added without regenerating them fails here."""

from tools import gen_coverage


def test_coverage_and_parity_docs_are_current():
    assert gen_coverage.main(["--check"]) == 0, "run: python -m tools.gen_coverage"


def test_coverage_counts_every_forward_op_of_every_release():
    text = gen_coverage.render_coverage()
    defs = gen_coverage.load_defs()
    for v, d in defs.items():
        n = sum(1 for k, e in d.items() if k.startswith("pd_op.") and e["dialect"] == "pd_op"
                and not gen_coverage.is_backward(k))
        assert f"| forward pd_op ops defined |" in text
        assert n > 900
    section = text.split("## Forward ops", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| `pd_op.")]
    forward = {ln.split("`")[1] for ln in rows}
    backward_section = text.split("## Backward ops", 1)[1]
    backward = {ln.split("`")[1] for ln in backward_section.splitlines() if ln.startswith("| `pd_op.")}
    every = {k for d in defs.values() for k, e in d.items() if k.startswith("pd_op.")
             and e["dialect"] == "pd_op"}
    assert {k for k in every if not gen_coverage.is_backward(k)} == forward
    assert {k for k in every if gen_coverage.is_backward(k)} == backward
    # every op is lowered, not buildable with evidence, or not yet -- never blank
    for ln in rows:
        cells = [c.strip() for c in ln.split("|")[1:-1]]
        statuses = cells[1:1 + len(defs)]
        assert all(s in {"lowered", "not buildable", "not yet", "-"} for s in statuses), ln
        if any(s in {"not buildable", "not yet"} for s in statuses):
            assert cells[-1], f"no reason given: {ln}"


def test_an_unlowered_op_names_its_evidence():
    text = gen_coverage.render_coverage()
    row = next(ln for ln in text.splitlines() if ln.startswith("| `pd_op.conv2d_xpu` |"))
    assert "not buildable" in row and "XPU-only" in row


def test_a_kernel_split_by_version_is_listed_with_its_ranges():
    text = gen_coverage.render_coverage()
    section = text.split("## Definition changes between releases", 1)[1]
    # round: halves away from zero before PIR 2, to even from 2 on (the 3.1.1 wheel)
    assert "| `pd_op.round` | [1, 2), [2, ...) | 3.0.0, 3.1.1, 3.2.2, 3.3.1 |" in section
