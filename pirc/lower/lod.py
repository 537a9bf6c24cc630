"""LoD (level of detail): the sequence offsets a fluid LoDTensor carries beside its numbers.

Some CPU kernels (sequence_pool, sequence_softmax, sequence_expand, sequence_conv, box_clip
...) read the LoD of a tensor: `lod[level][i]` is where sequence i starts (in rows of the
tensor for the last level, in entries of the next level for the others). A PIR program does
not hold a LoD: Paddle's executor takes it from the LoDTensor fed (`paddle.static.data(...,
lod_level=1)` and a feed whose recursive sequence lengths are set) and passes it from op to
op (ShareLoD in InferMeta), and a fetch with `return_numpy=False` hands it back (`.lod()`).

Here a LoD is a runtime value too, a list of levels, each an int64 offsets tensor (or None):
- in: the input `lod__<feed>` is level 0 of feed <feed>'s LoD, `lod1__<feed>` level 1
  (pirc.run's inputs, pirc-run's `--inputs` npz); a program that reads a LoD has them as
  optional forward arguments (`gm.pirc_lod_feeds`), None when not given;
- through the graph: the builder keeps each value's LoD (`GraphBuilder.lods`); an op of
  LOD_KERNELS gets its operands' LoDs (keyword `lods`, one per operand) and returns its
  results with theirs; every other op gives its results the LoD of its first operand that
  has one (phi's ShareLoD of unary, elementwise, scale, cast, matmul, fc ... : what the ops
  reading a LoD meet between a feed and them);
- out: a fetched value with a LoD adds the outputs `lod__<fetch>` (and `lod1__<fetch>` for a
  second level), as Paddle's `.lod()` of the fetched LoDTensor; absent when it has none.
Only the top block carries LoDs (no LoD op reads one inside a `while` or `if` here).
"""

from __future__ import annotations

import operator

import numpy as np
import torch

from ..runtime.registry import REGISTRY
from .feeds import FeedError

LEVELS = 2  # two levels: beam_search's (sentences, beams); fluid models use no more
PREFIXES = ("lod__", "lod1__")  # input / output key of level 0, level 1
LOD_KERNELS: set[str] = set()  # the ops whose kernel reads its operands' LoDs


def lod_kernel(name: str, since: int = 1, until: int | None = None):
    """Register a kernel that reads LoDs: `fn(*operands, lods, **attributes)` returns
    `(results, result_lods)`, results as any kernel returns them, result_lods one per result,
    each a list of LEVELS offsets tensors or None (level 0 first)."""
    def deco(fn):
        LOD_KERNELS.add(name)
        return REGISTRY.register(name, since, until)(fn)
    return deco


def lod_key(level: int, name: str) -> str:
    return f"{PREFIXES[level]}{name}"


def split_lod_inputs(inputs: dict) -> tuple[dict, dict]:
    """(the inputs that are not LoDs, {feed: {level: array}}) — keys `lod__F`, `lod1__F`,
    also spelt `in__lod__F` in the corpus convention."""
    rest, lods = {}, {}
    for key, value in inputs.items():
        k = key[len("in__"):] if key.startswith("in__lod") else key
        for level, prefix in enumerate(PREFIXES):
            if k.startswith(prefix):
                lods.setdefault(k[len(prefix):], {})[level] = value
                break
        else:
            rest[key] = value
    return rest, lods


def _offsets(feed: str, level: int, value) -> torch.Tensor:
    a = np.asarray(value)
    key = lod_key(level, feed)
    if a.dtype.kind not in "iu" or a.ndim != 1 or a.size < 1:
        raise FeedError(f"input {key}: expected the LoD offsets of feed {feed} as a 1-D integer "
                        f"array (0, end of sequence 1, ...), got {a.dtype}{list(a.shape)}")
    if a[0] != 0 or (np.diff(a) < 0).any():
        raise FeedError(f"input {key}: LoD offsets must start at 0 and never decrease, got "
                        f"{a.tolist()}")
    return torch.from_numpy(a.astype(np.int64))


def lod_feed_arguments(gm, lods: dict, feeds: dict) -> dict:
    """The forward's LoD arguments for `lods` ({feed: {level: array}}), checked: offsets
    (1-D, from 0, non-decreasing) whose last one is the feed's rows (level 0 without level 1)
    or level 1's sequence count. A LoD of a feed the program has but reads no LoD of is
    ignored, as Paddle's executor ignores it there; a LoD of no feed is refused."""
    specs = {s.name: s for s in getattr(gm, "pirc_feed_specs", [])}
    lod_args = getattr(gm, "pirc_lod_feeds", {})
    out = {}
    for feed, levels in sorted(lods.items()):
        if feed not in specs:
            raise FeedError(f"input {lod_key(min(levels), feed)} is the LoD of no feed of the "
                            f"program (its feeds: {', '.join(specs) or 'none'})")
        if 0 not in levels:
            raise FeedError(f"input {lod_key(1, feed)} without {lod_key(0, feed)}: level 1 of a "
                            "LoD needs level 0")
        ts = {lv: _offsets(feed, lv, v) for lv, v in levels.items()}
        rows = feeds.get(specs[feed].arg)
        last = ts[1] if 1 in ts else ts[0]
        if rows is not None and rows.dim() > 0 and int(last[-1]) != rows.shape[0]:
            raise FeedError(f"input {lod_key(max(ts), feed)}: the last offset is {int(last[-1])}, "
                            f"but feed {feed} has {rows.shape[0]} rows")
        if 1 in ts and int(ts[0][-1]) != ts[1].numel() - 1:
            raise FeedError(f"input {lod_key(0, feed)}: the last offset is {int(ts[0][-1])}, but "
                            f"{lod_key(1, feed)} holds {ts[1].numel() - 1} sequences")
        for lv, t in ts.items():
            if feed in lod_args:
                out[lod_args[feed][lv]] = t
    return out


def reads_lod(program) -> bool:
    return any(op.name in LOD_KERNELS for op in program.walk())


def add_feed_placeholders(builder, feed: str) -> None:
    """Optional forward arguments `lod__<feed>`, `lod1__<feed>` (None when not given)."""
    nodes = [builder.graph.placeholder(_name(builder, lod_key(lv, feed)), default_value=None)
             for lv in range(LEVELS)]
    builder.lod_feeds[feed] = [n.target for n in nodes]
    return nodes


def placeholders_last(graph, lod_feeds: dict) -> None:
    """Put the LoD arguments after every feed (Python wants defaulted arguments last): each
    placeholder moves to the front, feeds in their order, then the LoDs (a placeholder has no
    inputs, so moving it earlier never puts it after a user)."""
    lod_args = {a for args in lod_feeds.values() for a in args}
    phs = [n for n in graph.nodes if n.op == "placeholder"]
    order = [n for n in phs if n.target not in lod_args] + [n for n in phs if n.target in lod_args]
    for n in reversed(order):
        first = next(iter(graph.nodes))
        if first is not n:
            first.prepend(n)


def _name(builder, text):
    from .graph_builder import python_name
    return python_name(text, builder.placeholder_names, "lod")


def call_lod_kernel(builder, op) -> None:
    """op's kernel with its operands' LoDs; its results and theirs bound."""
    node = builder.call_kernel(op)
    node.kwargs = {**node.kwargs, "lods": [_operand_lod(builder, v) for v in op.operands]}
    results = builder.graph.call_function(operator.getitem, (node, 0))
    result_lods = builder.graph.call_function(operator.getitem, (node, 1))
    builder._last_call = results
    if op.results:
        builder.bind_results(op, results)
    for i, r in enumerate(op.results):
        per = builder.graph.call_function(operator.getitem, (result_lods, i))
        builder.lods[r] = [builder.graph.call_function(_level, (per, lv)) for lv in range(LEVELS)]


def _operand_lod(builder, v):
    """An operand's LoD; for a vector operand (builtin.combine) its members' LoDs."""
    owner = getattr(v, "owner", None)
    if getattr(owner, "name", None) == "builtin.combine":
        return [builder.lods.get(m) for m in owner.operands]
    return builder.lods.get(v)


def _level(levels, i):
    """Level i of a result's LoD (None when it has fewer levels, or none)."""
    if levels is None or i >= len(levels):
        return None
    return levels[i]


def share_lod(builder, op) -> None:
    """phi's ShareLoD: each result has the LoD of the first operand that has one."""
    for v in op.operands:
        got = builder.lods.get(v)
        if got is not None:
            for r in op.results:
                builder.lods[r] = got
            return


# -- what LoD kernels share ----------------------------------------------------------------------

def levels_of(lod) -> list[list[int]]:
    """A LoD argument (levels, some None) as Python lists of offsets, level 0 first."""
    if lod is None:
        return []
    return [[int(x) for x in t.tolist()] for t in lod if t is not None]


def as_lod(levels) -> list:
    """Python lists of offsets as a result LoD (LEVELS entries, None past the last)."""
    out = [torch.tensor(lv, dtype=torch.int64) for lv in levels][:LEVELS]
    return out + [None] * (LEVELS - len(out))


def need_lod(op: str, operand: str, lod) -> list[list[int]]:
    levels = levels_of(lod)
    if not levels:
        raise FeedError(f"{op}: operand {operand} has no LoD: give the sequence offsets of the "
                        f"feed it comes from as input lod__<feed> (docs/LOWERING.md, 'LoD')")
    return levels
