"""An IRWatch that keeps, as each pass ends, what it recorded, by names and in order (no ids):
what the tests of the watch's and cse's fast paths compare with the general paths'."""

from pirc.passes.infra.ir_watch import IRWatch


def value_key(value) -> tuple:
    """A value, told apart without its id: its kind, its index and its owner's name."""
    owner = getattr(value, "op", None)
    return (type(value).__name__, value.index, None if owner is None else owner.name)


def _record(watch) -> dict:
    touched, index, order = watch.touched, watch.index, watch.order
    return {
        "edits": (watch.inside, watch.outside, watch.whole, watch.first_outside),
        "unfinished": watch.unfinished,
        "tops": [op.name for op in watch.tops.values()],
        "touched": [op.name for op in touched.ops.values()],
        "rewritten": [op.name for op in touched.rewritten.values()],
        "detached": touched.detached,
        "released": [(value_key(v), op.name) for v, op in touched.released],
        "readers": [op.name for op in touched.readers.values()],
        "unsettled": [op.name for op in touched.unsettled.values()],
        "counts": ({k: v for k, v in index.counts.items() if v}, index.total),
        # dce's candidates the watch keeps (pirc.passes.infra.op_index): ops that may be
        # unused, those still in the program (an erased op's own last uses need no record)
        "unused": None if index.unused is None else (
            [op.name for op in index.unused if op.parent is not None],
            [op.name for op in index.new if op.parent is not None]),
        "order": None if order is None else sorted(order.keys.values()),
    }


class RecordedWatch(IRWatch):
    """Appends the record of each pass (the `FIELDS` of `_record`) to `seen`."""

    FIELDS: tuple = ()
    seen: list = []

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        record = _record(self)
        self.seen.append({k: record[k] for k in self.FIELDS})


def run_default(load, monkeypatch, recorded: type, switch=None, **options):
    """Run `default` on the program `load()` makes (upgraded first where older), both
    incrementally verified, with `recorded` (a RecordedWatch) as the pipeline's watch and
    `switch(m)` applied to a monkeypatch context first (the paths under test).  Returns what
    each pass recorded, (its reports less seconds, the gate's seeds as each fingerprint
    update read them, the graph tags), and the program's text."""
    from pirc import to_text
    from pirc.passes import run_pipeline
    from pirc.passes.infra import manager, rewrites

    seeds: list = []
    after = rewrites.RunState.fingerprint_after

    def fingerprint_after(state, edited, detached=None):
        seeds.append([op.name for op in state.seeds.values()])
        return after(state, edited, detached)

    with monkeypatch.context() as m:
        m.setattr(manager, "IRWatch", recorded)
        m.setattr(rewrites.RunState, "fingerprint_after", fingerprint_after)
        if switch is not None:
            switch(m)
        program = load()
        if program.version != 4:
            run_pipeline(program, "upgrade", verify_each="incremental")
        recorded.seen = seen = []   # a list of this run's own
        result = run_pipeline(program, "default", verify_each="incremental", **options)
        recorded.seen = []
    reports = [{k: v for k, v in record.as_json().items() if k != "seconds"}
               for record in result.passes]
    tags = [(t.pass_name, t.before, t.after) for t in program.graph_tags]
    return seen, (reports, seeds, tags), to_text(program, "pir")


def compare_paths(load, monkeypatch, recorded: type, general, fast=None, **options) -> None:
    """`run_default` with the fast paths (`fast(m)`, a mutation, applied when given) and with
    the general ones only (`general(m)`): the same text, reports and records, pass by pass."""
    seen_fast, reports_fast, text_fast = run_default(load, monkeypatch, recorded, fast, **options)
    seen_general, reports_general, text_general = run_default(load, monkeypatch, recorded,
                                                              general, **options)
    assert text_fast == text_general
    assert reports_fast == reports_general
    assert len(seen_fast) == len(seen_general)
    for i, (a, b) in enumerate(zip(seen_fast, seen_general)):
        for what in a:
            assert a[what] == b[what], f"pass #{i + 1}: {what}"
