"""Each invariant and the verifier checked in the region a pass touched
(`--verify-each=incremental`, pirc.passes.infra.invariants): a pass that breaks one in the
region it touched is caught by the incremental form as by the whole one, each in its own
way (an op produced, an operand edited, an op removed, an in-place write dropped or added);
the incremental form walks no program; and on every corpus program, after every pass of
the upgrade and default pipelines, it finds nothing the whole form does not (no false
alarm), and nothing at all for what each pass declares."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

import pirc
from pirc.ir import block_order, verifier
from pirc.ir.aliasing import AliasAnalysis
from pirc.ir.builder import append_op
from pirc.ir.ops import null_value
from pirc.ir.registry import op_class
from pirc.passes import PassFailure, PircPass, register_pass, run_pipeline
from pirc.passes.infra import manager
from pirc.passes.infra.invariants import check, known_invariants
from pirc.passes.infra.op_keys import OpKeys, common_subexpressions
from pirc.passes.infra.rewrites import ANY_OP, OpUse
from pirc.text.parser import parse_text

import broken_passes  # noqa: F401 - registers test-uses-later-value, test-erases-used-op
from corpus_files import all_jsons
from tools.bench_frontend import generate

# A duplicate tanh, an unused relu (the program of tests/lit/passes).
SMALL = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "Inputs"
         / "small.pir").read_text()
T = "tensor<2x3xf32>"
SG = "{stop_gradient:[true]}"
DATA = ('(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],'
        f'stop_gradient:[true]}} : () -> {T}')




def program_text(*ops: str) -> str:
    """x (a 2x3 data op), then `ops` (each "name operand...", one 2x3 result each, numbered
    from %1), the last one fetched."""
    lines = ["{", "    " + DATA]
    for n, op in enumerate(ops, 1):
        name, *operands = op.split()
        ins = ", ".join(f"%{o}" for o in operands)
        types = ", ".join([T] * len(operands))
        lines.append(f'    (%{n}) = "pd_op.{name}" ({ins}) {SG} : ({types}) -> {T}')
    lines.append(f'    (%{len(ops) + 1}) = "pd_op.fetch" (%{len(ops)}) {{col:0,name:"out",'
                 f'persistable:[true],stop_gradient:[true]}} : ({T}) -> {T}')
    return "\n".join(lines + ["}", ""])


# Two tanh of one buffer, an in-place relu_ writing it between them: not one computation.
WRITE_BETWEEN = program_text("assign 0", "tanh 1", "relu_ 1", "tanh 1", "add 2 4")
# tanh of x and tanh of relu(x): different until the second reads x too.
TWO_TANH = program_text("relu 0", "tanh 0", "tanh 1", "add 2 3")
# exp of two equal tanh: one computation once the tanh are merged.
TWO_ROUNDS = program_text("tanh 0", "tanh 0", "exp 1", "exp 2", "add 3 4")
# Where the in-place transpose_ the test pass inserts comes from.
TRANSPOSE = f"""{{
    {DATA}
    (%1) = "pd_op.transpose_" (%0) {{perm:[1,0],stop_gradient:[true]}} : ({T}) -> tensor<3x2xf32>
}}
"""


def parse(text: str = SMALL):
    return parse_text(text, "p.pir", 4)


def named(program, name: str, nth: int = 0):
    return [op for op in program.block.ops if op.name == name][nth]


def copy_of(op, operands):
    """A new op like `op` (class, attributes, result types) reading `operands`."""
    return append_op(type(op), list(operands), [r.type for r in op.results], dict(op.attributes),
                     None)


# ---------------------------------------------------------------- passes that break one invariant


@register_pass
@dataclass(frozen=True)
class _DuplicatesATanh(PircPass):
    """Puts a second tanh of x after the first and has the add read it: a common
    subexpression the pass produced."""

    name = "test-incr-duplicates-tanh"
    invariants = ("no-common-subexpressions",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}
    misbuilt = False   # the twin has an attribute its spec does not have, and is not named

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh"), named(pc.program, "pd_op.add")
        rewrite = pc.begin([add])
        twin = copy_of(tanh, tanh.operands)
        if self.misbuilt:
            twin.attributes["bogus"] = tanh.attributes["stop_gradient"]
        pc.program.block.insert_op_after(twin, tanh)
        add.operands = [add.operands[0], twin.results[0]]
        rewrite.done([] if self.misbuilt else [twin])


@register_pass
@dataclass(frozen=True)
class _RedirectsATanh(PircPass):
    """Makes the second tanh read x, as the first does: a common subexpression made by an
    operand edit."""

    name = "test-incr-redirects-tanh"
    invariants = ("no-common-subexpressions",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        first, second = named(pc.program, "pd_op.tanh"), named(pc.program, "pd_op.tanh", 1)
        rewrite = pc.begin([second])
        second.operands = [first.operands[0]]
        rewrite.done([second])


@register_pass
@dataclass(frozen=True)
class _DropsAWrite(PircPass):
    """Erases the in-place relu_ that kept two tanh apart: they now compute the same, and
    neither was touched."""

    name = "test-incr-drops-write"
    invariants = ("no-common-subexpressions",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        write = named(pc.program, "pd_op.relu_")
        rewrite = pc.begin([write])
        pc.program.block.erase_op(write)
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _OneRoundCse(PircPass):
    """A broken cse: finds every pair first, then merges them, so an op whose operands a
    merge made equal to an earlier op's is left (the second exp of TWO_ROUNDS)."""

    name = "test-incr-one-round-cse"
    invariants = ("no-common-subexpressions",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        aliases = AliasAnalysis(pc.program)
        for op, earlier in list(common_subexpressions(pc.program.block, OpKeys(), aliases)):
            rewrite = pc.begin([op])
            for new, old in zip(op.results, earlier.results):
                new.replace_all_uses_with(old)
            op.parent.erase_op(op, safe_erase=False)
            rewrite.done()


@register_pass
@dataclass(frozen=True)
class _StrandsAProducer(PircPass):
    """Has the fetch read x and erases the add: the tanh the add read is left unused, and
    the pass never touched it."""

    name = "test-incr-strands-producer"
    invariants = ("no-dead-ops",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        data, add, fetch = (named(pc.program, f"pd_op.{n}") for n in ("data", "add", "fetch"))
        rewrite = pc.begin([add, fetch])
        fetch.operands = [data.results[0]]
        pc.program.block.erase_op(add)
        rewrite.done([fetch])


@register_pass
@dataclass(frozen=True)
class _AddsAnUnusedOp(PircPass):
    """Puts an unused exp of x after the tanh: a dead op the pass produced."""

    name = "test-incr-adds-unused"
    invariants = ("no-dead-ops",)
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh = named(pc.program, "pd_op.tanh")
        rewrite = pc.begin([tanh])
        unused = append_op(op_class("pd_op.exp", 4), list(tanh.operands), [tanh.results[0].type],
                           dict(tanh.attributes), None)
        pc.program.block.insert_op_after(unused, tanh)
        rewrite.done([unused])


@register_pass
@dataclass(frozen=True)
class _RetypesARead(PircPass):
    """Inserts an in-place transpose_ of the first tanh's result before the add reads it:
    the add, untouched, reads the buffer with its old shape."""

    name = "test-incr-retypes-read"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh = named(pc.program, "pd_op.tanh")
        template = named(parse(TRANSPOSE), "pd_op.transpose_")
        rewrite = pc.begin([tanh])
        transpose = copy_of(template, [tanh.results[0]])
        pc.program.block.insert_op_after(transpose, tanh)
        rewrite.done([transpose])


@register_pass
@dataclass(frozen=True)
class _MovesADefinitionAfterItsReader(PircPass):
    """Moves the tanh after the add that reads it: the add, untouched, reads a value
    defined after it.  After passes that numbered the block for their checks, the tanh's
    number is old news (the watch tells the order it left)."""

    name = "test-incr-moves-def"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh"), named(pc.program, "pd_op.add")
        rewrite = pc.begin([tanh])
        pc.program.block.insert_op_after(pc.program.block.detach_op(tanh), add)
        rewrite.done([tanh])


@register_pass
@dataclass(frozen=True)
class _DropsAnOperandOfAReader(PircPass):
    """In a rewrite of the second tanh, has the add read only the first: the add, neither
    matched nor produced, kept its place and spec, but not its operand count."""

    name = "test-incr-drops-operand"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh", 1), named(pc.program, "pd_op.add")
        rewrite = pc.begin([tanh])
        add.operands = [add.operands[0]]
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _NullsAnOperandOfAReader(PircPass):
    """In a rewrite of the second tanh, has the add read <<NULL VALUE>> in its place."""

    name = "test-incr-nulls-operand"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh", 1), named(pc.program, "pd_op.add")
        rewrite = pc.begin([tanh])
        add.operands = [add.operands[0], null_value()]
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _InsertsUndeclared(_DuplicatesATanh):
    """test-incr-duplicates-tanh's twin with an attribute its spec does not have, which the
    rewrite does not name produced: a new op, all of it checked."""

    name = "test-incr-inserts-undeclared"
    invariants = ()
    misbuilt = True


@register_pass
@dataclass(frozen=True)
class _MisattributesAMatch(PircPass):
    """Gives the add it matched an attribute its spec does not have (the gate lets a
    rewrite change what it matched): an op that kept its place, its spec checked."""

    name = "test-incr-misattributes"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        add = named(pc.program, "pd_op.add")
        rewrite = pc.begin([add])
        add.attributes["bogus"] = add.attributes["stop_gradient"]
        rewrite.done([add])


@register_pass
@dataclass(frozen=True)
class _DeclaresWithoutTouching(PircPass):
    """Declares no-dead-ops and no-common-subexpressions, changes nothing."""

    name = "test-incr-touches-nothing"
    invariants = ("no-dead-ops", "no-common-subexpressions")

    def run(self, pc):
        pass


# Two tanh of x, their sum, its exp: an add that reads two ops before it and is read by one after.
SUM_THEN_EXP = program_text("tanh 0", "tanh 0", "add 1 2", "exp 3")


@register_pass
@dataclass(frozen=True)
class _SetsASlotToALaterValue(PircPass):
    """In a rewrite of the second tanh, sets the add's second operand in its slot
    (OpOperands.__setitem__, the edit the IR watch settles as it happens when the value is
    defined before the reader) to the exp's result, defined after the add."""

    name = "test-incr-sets-later-slot"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh", 1), named(pc.program, "pd_op.add")
        rewrite = pc.begin([tanh])
        add.operands[1] = named(pc.program, "pd_op.exp").results[0]
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _SetsASlotThenMovesTheDefinition(PircPass):
    """In a rewrite of the second tanh, has the add read the first tanh in both slots (an
    edit the watch settles: the first tanh is before the add), then moves the first tanh,
    which no rewrite matched, after the add."""

    name = "test-incr-sets-slot-moves-def"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        first, second = named(pc.program, "pd_op.tanh"), named(pc.program, "pd_op.tanh", 1)
        add, block = named(pc.program, "pd_op.add"), pc.program.block
        rewrite = pc.begin([second])
        add.operands[1] = first.results[0]
        block.insert_op_after(block.detach_op(first), add)
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _SetsASlotThenMovesTheReader(PircPass):
    """In a rewrite of the second tanh, has the add read the first tanh in both slots (an
    edit the watch settles), then moves the add, which no rewrite matched, before the
    first tanh."""

    name = "test-incr-sets-slot-moves-reader"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        first, second = named(pc.program, "pd_op.tanh"), named(pc.program, "pd_op.tanh", 1)
        add, block = named(pc.program, "pd_op.add"), pc.program.block
        rewrite = pc.begin([second])
        add.operands[1] = first.results[0]
        block.insert_op_before(block.detach_op(add), first)
        rewrite.done()


def _with_transpose(*ops: str) -> str:
    """program_text(*ops) with, as op %3, an in-place transpose_ of %2 to 3x2 (its result
    unread)."""
    lines = program_text(*ops).split("\n")
    lines[4] = (f'    (%3) = "pd_op.transpose_" (%2) {{perm:[1,0],stop_gradient:[true]}} : '
                f'({T}) -> tensor<3x2xf32>')
    return "\n".join(lines)


# tanh, tanh, a transpose_ of the second, tanh, the sum of the last: an add after a retype.
RETYPED = _with_transpose("tanh 0", "tanh 0", "tanh 0", "tanh 0", "add 4 4")


@register_pass
@dataclass(frozen=True)
class _SetsASlotToARetypedValue(PircPass):
    """In a rewrite of the last tanh, sets the add's second operand in its slot to the
    second tanh's result, whose buffer the transpose_ before the add changed to 3x2."""

    name = "test-incr-sets-retyped-slot"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh", 2), named(pc.program, "pd_op.add")
        rewrite = pc.begin([tanh])
        add.operands[1] = named(pc.program, "pd_op.tanh", 1).results[0]
        rewrite.done()


@register_pass
@dataclass(frozen=True)
class _SetsASlotThenRetypesIt(PircPass):
    """In a rewrite of the last tanh, sets the add's second operand in its slot to the first
    tanh's result (no op writes it in place: the watch settles the edit), then has the
    transpose_ before the add change that buffer instead."""

    name = "test-incr-sets-slot-then-retypes"
    rewrites = {ANY_OP: OpUse(ANY_OP)}

    def run(self, pc):
        tanh, add = named(pc.program, "pd_op.tanh", 2), named(pc.program, "pd_op.add")
        first = named(pc.program, "pd_op.tanh").results[0]
        rewrite = pc.begin([tanh])
        add.operands[1] = first
        named(pc.program, "pd_op.transpose_").operands[0] = first
        rewrite.done()


# cse and dce first make small.pir data, tanh, add, fetch: the breakage is then the pass's.
CASES = [
    # (program, pipeline, the broken pass, the invariant, what the message says)
    (SMALL, "cse,dce", "test-incr-duplicates-tanh", "no-common-subexpressions",
     "pd_op.tanh computes what an earlier pd_op.tanh computes"),
    (TWO_TANH, "", "test-incr-redirects-tanh", "no-common-subexpressions",
     "pd_op.tanh computes what an earlier pd_op.tanh computes"),
    (WRITE_BETWEEN, "", "test-incr-drops-write", "no-common-subexpressions",
     "pd_op.tanh computes what an earlier pd_op.tanh computes"),
    (TWO_ROUNDS, "", "test-incr-one-round-cse", "no-common-subexpressions",
     "pd_op.exp computes what an earlier pd_op.exp computes"),
    (SMALL, "cse,dce", "test-incr-strands-producer", "no-dead-ops",
     "pd_op.tanh is pure and its results are unused"),
    (SMALL, "cse,dce", "test-incr-adds-unused", "no-dead-ops",
     "pd_op.exp is pure and its results are unused"),
    (SMALL, "cse", "test-uses-later-value", "verified",
     "pd_op.tanh: operand 0 is used before its definition"),
    (SMALL, "cse", "test-erases-used-op", "verified",
     "pd_op.relu: operand 0 is used before its definition"),
    (SMALL, "cse,dce", "test-incr-retypes-read", "verified",
     "op #3 pd_op.add: operand 0 is read after op #2 (pd_op.transpose_) changed its buffer in "
     "place to tensor<3x2xf32>"),
    (SMALL, "cse,dce", "test-incr-moves-def", "verified",
     "op #1 pd_op.add: operand 0 is used before its definition or outside its scope; "
     "op #1 pd_op.add: operand 1 is used before its definition"),
    (SMALL, "", "test-incr-drops-operand", "verified",
     "op #4 pd_op.add: expects 2 operands (x, y), got 1"),
    (SMALL, "dce", "test-incr-nulls-operand", "verified",
     "op #3 pd_op.add: operand 1 (y) is <<NULL VALUE>> but not optional"),
    (SMALL, "", "test-incr-inserts-undeclared", "verified",
     "op #3 pd_op.tanh: unknown attribute bogus"),
    (SMALL, "cse", "test-incr-misattributes", "verified",
     "op #3 pd_op.add: unknown attribute bogus"),
    (RETYPED, "", "test-incr-sets-retyped-slot", "verified",
     "op #5 pd_op.add: operand 1 is read after op #3 (pd_op.transpose_) changed its buffer in "
     "place to tensor<3x2xf32>"),
    (RETYPED, "", "test-incr-sets-slot-then-retypes", "verified",
     "op #5 pd_op.add: operand 1 is read after op #3 (pd_op.transpose_) changed its buffer in "
     "place to tensor<3x2xf32>"),
    (SUM_THEN_EXP, "", "test-incr-sets-later-slot", "verified",
     "op #3 pd_op.add: operand 1 is used before its definition"),
    (SUM_THEN_EXP, "", "test-incr-sets-slot-moves-def", "verified",
     "op #2 pd_op.add: operand 0 is used before its definition or outside its scope; "
     "op #2 pd_op.add: operand 1 is used before its definition"),
    (SUM_THEN_EXP, "", "test-incr-sets-slot-moves-reader", "verified",
     "op #1 pd_op.add: operand 0 is used before its definition or outside its scope; "
     "op #1 pd_op.add: operand 1 is used before its definition"),
]


def _pipeline(before: str, broken: str | None) -> tuple[str, int]:
    passes = [p for p in before.split(",") if p] + ([broken] if broken else [])
    return ",".join(passes), len(passes) - 1


@pytest.mark.parametrize("mode", ["incremental", "full", False])
@pytest.mark.parametrize("text, before, broken, invariant, message", CASES,
                         ids=[c[2] or c[1] for c in CASES])
def test_a_pass_breaking_an_invariant_where_it_touched_is_caught(text, before, broken, invariant,
                                                                  message, mode):
    if mode is False and invariant == "verified":
        pytest.skip("--no-verify-each drops the verifier")
    spec, index = _pipeline(before, broken)
    with pytest.raises(PassFailure) as e:
        run_pipeline(parse(text), spec, verify_each=mode)
    assert (e.value.invariant, e.value.index) == (invariant, index)
    assert message in str(e.value)


@pytest.mark.parametrize("text, before, broken, invariant, message",
                         [c for c in CASES if c[3] == "verified"],
                         ids=[c[2] for c in CASES if c[3] == "verified"])
def test_the_incremental_verifier_with_no_room_between_numbers(text, before, broken, invariant,
                                                                message, monkeypatch):
    # every op a pass inserts numbers the whole block again (pirc.ir.block_order), in the
    # middle of the verifier's look at the ops the pass touched: it looks again
    monkeypatch.setattr(block_order, "STRIDE", 1)
    spec, index = _pipeline(before, broken)
    with pytest.raises(PassFailure) as e:
        run_pipeline(parse(text), spec, verify_each="incremental")
    assert (e.value.invariant, e.value.index) == (invariant, index)
    assert message in str(e.value)


def test_the_incremental_form_checks_what_the_pass_touched_not_what_it_found():
    # small.pir's duplicate tanh and unused relu were there before: a pass that touches
    # nothing broke nothing; the whole form says they are there
    run_pipeline(parse(), "test-incr-touches-nothing", verify_each="incremental")
    with pytest.raises(PassFailure) as e:
        run_pipeline(parse(), "test-incr-touches-nothing", verify_each="full")
    assert e.value.invariant == "no-dead-ops"


def test_the_incremental_checks_walk_no_program(monkeypatch):
    # cse merges the duplicate tanh: what it touched is the add that read it (and x, which
    # lost a reader); no check needs more than that, nor the alias model
    original, kept = manager._check_after, {}

    def keep(p, index, program, level, changed=True, touched=None, complete=True):
        kept[p.name] = touched
        return original(p, index, program, level, changed, touched, complete)

    monkeypatch.setattr(manager, "_check_after", keep)
    program = parse()
    run_pipeline(program, "cse", verify_each="incremental")
    touched = kept["cse"]
    assert [op.name for op in touched.touched_ops()] == ["pd_op.add"]
    calls = []
    monkeypatch.setattr(type(program), "walk", lambda self: calls.append("walk") or iter(()))
    monkeypatch.setattr(AliasAnalysis, "__init__", lambda self, *a, **k: calls.append("aliases"))
    for name in known_invariants():
        assert check(name, program, touched) == []
    assert calls == []


def test_the_verifier_looks_again_only_at_what_an_edit_can_have_changed(monkeypatch):
    # cse merges the second tanh into the first: the add, which reads the first now, kept
    # its place and its spec, and only its operands are looked at (a matched, produced,
    # new or moved op is checked whole: CASES); small.pir has no op that writes a buffer in
    # place, so no value's readers are looked at for one
    specs, retypes = [], []
    op, of = verifier._Checker.op, verifier._Retypes.of
    monkeypatch.setattr(verifier._Checker, "op",
                        lambda self, o, *a, **k: specs.append(o.name) or op(self, o, *a, **k))
    monkeypatch.setattr(verifier._Retypes, "of",
                        lambda self, value: retypes.append(value) or of(self, value))
    run_pipeline(parse(), "cse", verify_each="incremental")
    assert (specs, retypes) == ([], [])
    run_pipeline(parse(), "cse", verify_each="full")
    assert specs == ["pd_op.data", "pd_op.relu", "pd_op.tanh", "pd_op.add", "pd_op.fetch"]


def test_the_block_is_numbered_once_from_the_first_fingerprint_walk(monkeypatch):
    # as the first pass begins, with the walk the program's first fingerprint made (the ops
    # and their ids): no walk of its own, and none at all where no check is incremental
    walks = []
    number = block_order.BlockOrder.number
    monkeypatch.setattr(block_order.BlockOrder, "number", lambda self, ops=None, ids=None: walks.append(
        (ops is not None, ids is not None)) or number(self, ops, ids))
    run_pipeline(parse(), "cse,dce", verify_each="incremental")
    assert walks == [(True, True)]
    walks.clear()
    for level in (False, "full"):
        run_pipeline(parse(), "cse,dce", verify_each=level)
    assert walks == []


def _programs():
    """Every corpus program, and the benchmark's generated one (copies of real programs:
    cse and dce have much to do there)."""
    out = [pytest.param(lambda p=p: pirc.load(str(p)), id=f"{p.parent.name}/{p.stem}")
           for p in all_jsons()]
    out.append(pytest.param(lambda: parse_text(generate(3000), "bench.pir", 4),
                            id="generated-3000"))
    return out


@pytest.mark.parametrize("load", _programs())
def test_incremental_and_whole_agree_after_every_pass_of_default(load, monkeypatch):
    original = manager._check_after
    seen = Counter()

    def both(p, index, program, level, changed=True, touched=None, complete=True):
        assert touched is not None
        whole_only = touched.whole_program(type(p).correctness)
        for name in known_invariants():
            if name == "verified" and not changed:
                continue
            whole = check(name, program)
            part = whole if whole_only else check(name, program, touched)
            extra = Counter(part) - Counter(whole)
            assert not extra, f"after {p.name}, {name} incremental only: {list(extra)}"
            if name in type(p).invariants:
                assert whole == [], f"after {p.name}: {whole[:3]}"
            seen[name] += 1
        return original(p, index, program, level, changed, touched, complete)

    monkeypatch.setattr(manager, "_check_after", both)
    program = load()
    ran = 0
    if program.version != 4:
        upgrade = run_pipeline(program, "upgrade", verify_each="incremental")
        ran += sum(r.ran for r in upgrade.passes)
    ran += sum(r.ran for r in run_pipeline(program, "default", verify_each="incremental").passes)
    assert seen["no-dead-ops"] == ran > 0   # every pass that ran was compared


@pytest.mark.parametrize("load", _programs())
def test_what_the_watch_settles_holds_after_every_pass_of_default(load, monkeypatch):
    # every op the IR watch settled an operand set of, left out of the incremental
    # verifier, reads each operand from an op before it in the block (or, where the program
    # may change a buffer's type in place, reads no value an op writes in place) after
    # the pass, as the ops it looks at do; and the verifier finds over all the touched ops
    # what it finds over those it looks at
    original, settled = manager._check_after, Counter()

    def hold(p, index, program, level, changed=True, touched=None, complete=True):
        if touched is not None and not touched.whole_program(type(p).correctness):
            block = program.block
            at = {id(op): i for i, op in enumerate(block.ops)}
            for op in touched.present(touched.ops.values()):
                if id(op) in touched.unsettled:
                    continue
                settled[p.name] += 1
                assert op.parent is block and id(op) not in touched.rewritten, op.name
                for value in op.operands:
                    owner = getattr(value, "op", None)
                    assert at.get(id(owner), len(at)) < at[id(op)], op.name
                    if touched.writers is not None:
                        assert not any(verifier.writes_in_place(u.operation.name, program.version)
                                       for u in value.uses), op.name
            every = verifier.collect_problems_in(
                program, list(touched.ops.values()) + list(touched.readers.values()))
            assert [str(p) for p in every] == check("verified", program, touched)
        return original(p, index, program, level, changed, touched, complete)

    monkeypatch.setattr(manager, "_check_after", hold)
    program = load()
    if program.version != 4:
        run_pipeline(program, "upgrade", verify_each="incremental")
    run_pipeline(program, "default", verify_each="incremental")


def test_the_watch_settles_cse_and_canonicalize_edits_of_the_generated_program(monkeypatch):
    # the test above is not empty: the benchmark's program has thousands of them
    original, settled = manager._check_after, Counter()

    def count(p, index, program, level, changed=True, touched=None, complete=True):
        settled[p.name] += len(touched.ops.keys() - touched.unsettled.keys())
        return original(p, index, program, level, changed, touched, complete)

    monkeypatch.setattr(manager, "_check_after", count)
    run_pipeline(parse_text(generate(3000), "bench.pir", 4), "default", verify_each="incremental")
    assert settled["cse"] > 50 and settled["canonicalize"] > 50, settled
