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


def _first_evidence(row):
    """The first attempt's exception: a failed fixture's, else the survey's attempt."""
    failed = [f.error for f in row.fixtures if not f.ok and f.error]
    if failed:
        return failed[0]
    attempts = [e.get("attempt", "") for e in row.survey.values()]
    return next((a for a in attempts if a and a != "ok"), "")


def test_every_not_buildable_record_has_both_attempts_exceptions():
    # an op stays "not buildable" only when Paddle failed it twice: its fixture builder or the
    # survey's generic call, then reexamine_unbuildable.py's public API / LoD-feed attempt
    defs = gen_coverage.load_defs()
    newest = gen_coverage.releases()[-1][0]
    rows = [r for r in gen_coverage.rows(defs) if not gen_coverage.is_backward(r.name)]
    kept = 0
    for r in rows:
        if all(r.lowered[v] or not r.in_version[v] for v in r.in_version):
            continue
        v = max(v for v in r.in_version if r.in_version[v])
        reason, evidence = gen_coverage.why_not(r, defs[v][r.name], newest)
        if not reason.startswith("not buildable"):
            continue
        kept += 1
        assert _first_evidence(r), f"{r.name}: no first attempt exception"
        assert r.second, f"{r.name}: no second attempt (reexamine_unbuildable.py)"
        for rel, rec in r.second.items():
            assert rec["status"] != "builds and runs", (r.name, rel)
            exc = rec.get("error") or rec.get("fallback", {}).get("error")
            assert exc and rec["api"], f"{r.name} ({rel}): second attempt without an exception"
        assert "second attempt (" in evidence and evidence.count(":") >= 3, evidence
    assert kept > 250


def test_every_first_record_was_tried_again_in_each_release_that_defines_it():
    first = gen_coverage.load_first_records()
    second = gen_coverage.load_reexamined()
    assert set(second) == {"3.0.0", "3.3.1"}
    defs = {p: gen_coverage.load_defs()[v] for p, v in gen_coverage.releases()}
    for op in first:
        for rel, ops in second.items():
            if op in defs[rel]:
                assert op in ops, f"{op}: no second attempt in Paddle {rel}"


def test_the_reexamined_section_counts_the_changed_records():
    text = gen_coverage.render_coverage()
    section = text.split('## Re-examined "not buildable" records', 1)[1].split("\n## ", 1)[0]
    assert "| not buildable by the first attempt | 296 | 307 | 312 | 317 |" in section
    changed = section.split("Changed at PIR 4: ", 1)[1].split(" of 317", 1)[0]
    now_lowered = next(ln for ln in section.splitlines() if ln.startswith("| now lowered |"))
    now_yet = next(ln for ln in section.splitlines() if ln.startswith("| now not yet |"))
    assert int(changed) == int(now_lowered.split("|")[-2]) + int(now_yet.split("|")[-2])
    # the ops Paddle's CPU executor ran on the second attempt and pirc now lowers, evidence shown
    row = next(ln for ln in section.splitlines() if ln.startswith("| `pd_op.send_u_recv` |"))
    assert "paddle.geometric.send_u_recv" in row
    assert row.endswith("lowered, lowered, lowered, lowered |")
    # a kernel that reads the LoD of a fed tensor: lowered since LoDs are runtime values
    row = next(ln for ln in section.splitlines() if ln.startswith("| `pd_op.sequence_pool` |"))
    assert "LoD" in row and row.endswith("lowered, lowered, lowered, lowered |")
    row = next(ln for ln in section.splitlines() if ln.startswith("| `pd_op.gru` |"))
    assert "LoD" in row and row.endswith("lowered, lowered, lowered, lowered |")
    row = next(ln for ln in section.splitlines() if ln.startswith("| `pd_op.pyramid_hash` |"))
    assert "LoD" in row and row.endswith("lowered, lowered, lowered, lowered |")
