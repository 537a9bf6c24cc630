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
