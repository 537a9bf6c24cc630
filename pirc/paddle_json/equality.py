"""Compare two Paddle saved-program documents as PIR programs ("equal documents").

Equal documents (docs/PADDLE-JSON.md, round-trip equality): the same ops in the same order, the same
attribute names (in any order within an op; `A`, `OA` and the dist/quant
lists `DA`/`QA` taken together), the same PIR kinds and values, the same
types and the same version.  What is deliberately ignored:
  * value ids, region and block names (only which value an operand uses
    matters, not its number);
  * the compact `"p"` form versus the generic `0.parameter` form;
  * keys pirc adds (`base_code.pirc`) and the spelling of NaN;
  * whether an empty DA/QA list is present.
Ints and floats compare by kind: `0.a_f64` 1 and 1.0 are the same value,
`0.a_i64` 1 and `0.a_i32` 1 are not.

`documents_equal(expected, got)` returns a list of differences, each
`PATH: WHAT: expected X, got Y`; an empty list means equal.  It is the
oracle of round-trip and upgrade tests, so it never stops at the first
difference inside an op, and never raises on a malformed document (it
reports it).
"""

from __future__ import annotations

import json
import math

from ..errors import excerpt
from . import codes as C

__all__ = ["documents_equal"]

_MAX_DIFFS = 200


def documents_equal(expected, got) -> list[str]:
    """Differences between two documents (JSON text or parsed objects); [] = equal."""
    diffs: list[str] = []
    try:
        a = _load(expected, "expected")
        b = _load(got, "got")
    except ValueError as e:
        return [str(e)]
    _compare_base(a, b, diffs)
    pa, pb = _Program(a, "expected"), _Program(b, "got")
    diffs.extend(pa.problems)
    diffs.extend(pb.problems)
    if not pa.problems and not pb.problems:
        _compare_blocks(pa, pb, pa.top, pb.top, "program.regions[0].blocks[0]", diffs)
    for key in sorted(set(a) | set(b)):
        if key in (C.BASE_CODE, C.PROGRAM):
            continue
        if a.get(key, _ABSENT) != b.get(key, _ABSENT):
            diffs.append(f"{key}: expected {_show(a.get(key, _ABSENT))}, "
                         f"got {_show(b.get(key, _ABSENT))}")
    if len(diffs) > _MAX_DIFFS:
        diffs = diffs[:_MAX_DIFFS] + [f"... and {len(diffs) - _MAX_DIFFS} more differences"]
    return diffs


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


def _show(value, limit: int = 120) -> str:
    if value is _ABSENT:
        return "(absent)"
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    return excerpt(text, limit)


def _load(doc, which: str) -> dict:
    if isinstance(doc, (bytes, bytearray)):
        doc = doc.decode("utf-8")
    if isinstance(doc, str):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError as e:
            raise ValueError(f"{which}: malformed JSON at line {e.lineno}, column {e.colno}: "
                             f"{e.msg}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{which}: a document is a JSON object, got {_show(doc)}")
    return doc


def _compare_base(a: dict, b: dict, diffs: list[str]) -> None:
    ba, bb = a.get(C.BASE_CODE), b.get(C.BASE_CODE)
    if not isinstance(ba, dict) or not isinstance(bb, dict):
        if ba != bb:
            diffs.append(f"base_code: expected {_show(ba)}, got {_show(bb)}")
        return
    for key in sorted(set(ba) | set(bb)):
        if key == C.PIRC_KEY:
            continue  # pirc's own metadata: not part of the program
        va, vb = ba.get(key, _ABSENT), bb.get(key, _ABSENT)
        if va != vb or type(va) is not type(vb):
            diffs.append(f"base_code.{key}: expected {_show(va)}, got {_show(vb)}")


# -- normalised programs -------------------------------------------------------


class _Block:
    __slots__ = ("path", "args", "ops")

    def __init__(self, path: str):
        self.path = path
        self.args: list = []  # normalised types
        self.ops: list[_Op] = []


class _Op:
    __slots__ = ("path", "name", "operands", "results", "attrs", "regions")

    def __init__(self, path: str, name: str):
        self.path = path
        self.name = name
        self.operands: list[str] = []  # where each operand's value is defined
        self.results: list = []  # normalised types
        self.attrs: dict = {}  # name -> normalised attribute
        self.regions: list[list[_Block]] = []


class _Program:
    """A document reduced to what "equal" compares; malformed parts go to `problems`."""

    def __init__(self, doc: dict, which: str):
        self.which = which
        self.problems: list[str] = []
        self.defined: dict[int, str] = {}  # value id -> definition site
        self.top = _Block("program.regions[0].blocks[0]")
        try:
            region = doc[C.PROGRAM][C.REGIONS][0]
            self.read_block(region[C.BLOCKS][0], self.top)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as e:
            self.problems.append(f"{which}: malformed document ({type(e).__name__}: {e})")

    def read_block(self, bj: dict, block: _Block) -> None:
        for i, arg in enumerate(bj.get(C.BLOCK_ARGS, [])):
            self.defined[arg[C.ID]] = f"{block.path}.args[{i}]"
            block.args.append(_norm_type(arg[C.TYPE]))
        for i, oj in enumerate(bj[C.OPS]):
            block.ops.append(self.read_op(oj, f"{block.path}.ops[{i}]"))

    def read_op(self, oj: dict, path: str) -> _Op:
        code = oj[C.ID]
        if code == C.PARAMETER_CODE:
            return self.read_parameter(oj, path)
        op = _Op(path, _op_name(code))
        for ref in oj.get(C.OPERANDS, []):
            op.operands.append(self.use(ref[C.VALUE_ID]))
        for i, rj in enumerate(oj.get(C.RESULTS, [])):
            self.defined[rj[C.VALUE_ID]] = f"{path}.O[{i}]"
            op.results.append(_norm_type(rj[C.TYPE]))
        for key in (C.ATTRS, C.RESULT_ATTRS, C.DIST_ATTRS, C.QUANT_ATTRS):
            for e in oj.get(key) or []:
                op.attrs[e[C.NAME]] = _norm_attr(e[C.ATTR])
        for ri, rj in enumerate(oj.get(C.REGIONS, [])):
            blocks = []
            for bi, bj in enumerate(rj[C.BLOCKS]):
                block = _Block(f"{path}.regions[{ri}].blocks[{bi}]")
                self.read_block(bj, block)
                blocks.append(block)
            op.regions.append(blocks)
        return op

    def read_parameter(self, oj: dict, path: str) -> _Op:
        # Normalised exactly as the generic form would be: array<bool> flags.
        op = _Op(path, C.PARAMETER_OP)
        rj = oj[C.RESULTS]
        self.defined[rj[C.VALUE_ID]] = f"{path}.O[0]"
        op.results.append(_norm_type(rj[C.TYPE]))
        flags = oj[C.ATTRS]
        for (name, _), flag in zip(C.PARAMETER_A_FLAGS, flags):
            op.attrs[name] = _bool_array(flag)
        op.attrs[C.PARAMETER_NAME] = ("0.a_str", flags[3])
        for (name, _), flag in zip(C.PARAMETER_OA_FLAGS, oj.get(C.RESULT_ATTRS) or []):
            op.attrs[name] = _bool_array(flag)
        for key in (C.DIST_ATTRS, C.QUANT_ATTRS):
            for e in oj.get(key) or []:
                op.attrs[e[C.NAME]] = _norm_attr(e[C.ATTR])
        return op

    def use(self, vid) -> str:
        if vid == 0:
            return "null value"
        site = self.defined.get(vid)
        return site if site is not None else f"undefined value id {vid}"


def _bool_array(flag):
    return ("0.a_array", (("0.a_bool", bool(flag)),))


def _op_name(code: str) -> str:
    prefix, dot, short = code.partition(".")
    dialect = C.DIALECT_BY_ID.get(prefix) if dot else None
    return f"{dialect}.{short}" if dialect is not None else code


_FLOAT_CODES = ("0.a_f32", "0.a_f64")


def _norm_float(value):
    if isinstance(value, str):  # a VD spelling
        if value in C.NAN_SPELLINGS_READ:
            return "nan"
        return {C.INF_SPELLING: math.inf, C.NEG_INF_SPELLING: -math.inf}.get(value, value)
    value = float(value)
    if math.isnan(value):
        return "nan"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else 0.0
    return value


def _norm_attr(at):
    """A hashable, comparable form of an attribute's JSON, by kind."""
    if not isinstance(at, dict):
        return ("malformed", _show(at))
    code = at.get(C.ID)
    if code in _FLOAT_CODES:
        return (code, _norm_float(at[C.DATA] if C.DATA in at else at.get(C.VOID_DATA)))
    d = at.get(C.DATA)
    if code == "0.a_array":
        return (code, tuple(_norm_attr(x) for x in d))
    if code == "0.a_type":
        return (code, _norm_type(d))
    if code in ("0.a_c64", "0.a_c128"):
        return (code, tuple(_norm_float(x) for x in d))
    if code == "0.a_bool":
        # tuples compare True == 1: tag anything that is not a JSON boolean
        return (code, d if isinstance(d, bool) else ("not a boolean", _freeze(d)))
    if isinstance(d, list):
        return (code, _freeze(d))
    if isinstance(d, float):
        return (code, ("float", _norm_float(d)))
    return (code, d)


def _norm_type(tt):
    if not isinstance(tt, dict):
        return ("malformed", _show(tt))
    code = tt.get(C.ID)
    d = tt.get(C.DATA)
    if d is None:
        return (code,)
    if code == C.T_VECTOR:
        return (code, tuple(_norm_type(x) for x in d))
    if isinstance(d, list) and d and isinstance(d[0], dict):
        return (code, _norm_type(d[0]), _freeze(d[1:]))
    return (code, _freeze(d))


def _freeze(x):
    if isinstance(x, list):
        return tuple(_freeze(i) for i in x)
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    return x


def _show_attr(norm) -> str:
    """An attribute's normalised form, spelled like its JSON kind and value."""
    if norm is _ABSENT:
        return "(absent)"
    code, *rest = norm
    if code == "0.a_array":
        return "[" + ", ".join(_show_attr(x) for x in rest[0]) + "]"
    value = rest[0] if rest else None
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "float":
        value = value[1]
    return f"{code} {_show_value(value)}"


def _show_value(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show_value(v) for v in value) + "]"
    if isinstance(value, str) and value not in ("nan", "-0.0"):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _show_type(norm) -> str:
    code = norm[0]
    if len(norm) == 1:
        return code
    if code == C.T_VECTOR:
        return f"{code}[" + ", ".join(_show_type(t) for t in norm[1]) + "]"
    if len(norm) == 3:
        return f"{code}<{_show_type(norm[1])}, {_show_value(norm[2])}>"
    return f"{code} {_show_value(norm[1])}"


# -- comparison ------------------------------------------------------------------------


def _compare_blocks(pa: _Program, pb: _Program, a: _Block, b: _Block, path: str,
                    diffs: list[str]) -> None:
    if a.args != b.args:
        diffs.append(f"{path}.args: expected [{', '.join(map(_show_type, a.args))}], "
                     f"got [{', '.join(map(_show_type, b.args))}]")
    if len(a.ops) != len(b.ops):
        diffs.append(f"{path}.ops: expected {len(a.ops)} ops, got {len(b.ops)}")
    for i, (oa, ob) in enumerate(zip(a.ops, b.ops)):
        _compare_ops(pa, pb, oa, ob, f"{path}.ops[{i}]", diffs)
        if len(diffs) > _MAX_DIFFS:
            return


def _compare_ops(pa: _Program, pb: _Program, a: _Op, b: _Op, path: str,
                 diffs: list[str]) -> None:
    if a.name != b.name:
        diffs.append(f"{path}: expected op {a.name}, got {b.name}")
        return  # everything else would differ too
    here = f"{path} ({a.name})"
    if len(a.operands) != len(b.operands):
        diffs.append(f"{here}: expected {len(a.operands)} operands, got {len(b.operands)}")
    else:
        for i, (ua, ub) in enumerate(zip(a.operands, b.operands)):
            if ua != ub:
                diffs.append(f"{here}.I[{i}]: expected the value defined at {ua}, "
                             f"got the value defined at {ub}")
    if len(a.results) != len(b.results):
        diffs.append(f"{here}: expected {len(a.results)} results, got {len(b.results)}")
    else:
        for i, (ta, tb) in enumerate(zip(a.results, b.results)):
            if ta != tb:
                diffs.append(f"{here}.O[{i}]: type: expected {_show_type(ta)}, "
                             f"got {_show_type(tb)}")
    for name in list(a.attrs) + [n for n in b.attrs if n not in a.attrs]:
        va, vb = a.attrs.get(name, _ABSENT), b.attrs.get(name, _ABSENT)
        if va != vb:
            diffs.append(f"{here}: attribute \"{name}\": expected {_show_attr(va)}, "
                         f"got {_show_attr(vb)}")
    if len(a.regions) != len(b.regions):
        diffs.append(f"{here}: expected {len(a.regions)} regions, got {len(b.regions)}")
        return
    for ri, (ra, rb) in enumerate(zip(a.regions, b.regions)):
        if len(ra) != len(rb):
            diffs.append(f"{here}.regions[{ri}]: expected {len(ra)} blocks, got {len(rb)}")
            continue
        for bi, (ba, bb) in enumerate(zip(ra, rb)):
            _compare_blocks(pa, pb, ba, bb, f"{path}.regions[{ri}].blocks[{bi}]", diffs)
