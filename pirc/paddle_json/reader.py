"""Read Paddle's saved-program JSON into a pirc `Program`.

The reader follows Paddle's ProgramReader (ir_deserialize.cc) with three
deliberate differences, each because Paddle's behaviour loses a program
silently:
  * an operand id that no earlier op or block argument defines is an error
    (Paddle substitutes a null value);
  * a kind pirc has no IR for (sparse and dist types, pointer attributes) is
    an error naming the kind, never skipped;
  * a program newer than pirc knows is refused before anything is built
    (Paddle loads it and crashes later).

Every failure raises `JsonError` with the JSON path of the offending element
(`program.regions[0].blocks[0].ops[17].A[2].AT`).  Paths are assembled only
when something fails: the happy path pays for no bookkeeping.

Speed: types and attributes repeat heavily (a 100k-op program has a few
hundred distinct ones), so each decoded value is memoised on a key built from
its JSON object (`_attr_key`, `_type_key`).  The keys are tuples of the
JSON's scalars, cheaper than `repr` (which runs at ~20 MB/s and cost more
than json.loads itself) while still telling apart what must differ (`true`
from `1`, `-0.0` from `0.0`).  Anything unusual falls back to `repr`.
"""

from __future__ import annotations

import json
import math

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Block, Region

from ..errors import JsonError, SourceError, VersionError
from .stream import NotStreamable, OpStream, StreamSyntaxError, skeleton
from ..ir import attrs as A
from ..ir.builder import append_op, gc_paused
from ..ir.ops import new_module, null_value
from ..ir.program import LATEST_VERSION, GraphTag, Program
from ..ir.registry import op_class
from ..ir.types import (
    ELEMENT_TYPES,
    NULL_TYPE,
    DenseTensorArrayType,
    DenseTensorType,
    SelectedRowsType,
    VectorType,
)
from . import codes as C

__all__ = ["read_program"]

_INT32_RANGE = (-(2**31), 2**31 - 1)
_INT64_RANGE = (-(2**63), 2**63 - 1)


class _Bad(Exception):
    """A schema violation; `path` grows as the exception unwinds."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path

    def under(self, prefix: str) -> "_Bad":
        self.path = prefix + self.path
        return self


def _show(value, limit: int = 60) -> str:
    """A short rendering of a JSON value for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(x) -> bool:
    return type(x) is int


def _is_flag(x) -> bool:
    return type(x) is int or type(x) is bool


def _is_number(x) -> bool:
    return type(x) is int or type(x) is float


class _NonStandard(Exception):
    pass


def _reject_constant(name: str):
    # Python's json accepts NaN / Infinity literals; Paddle's parser does not.
    raise _NonStandard(name)


def read_program(text_or_obj, filename: str = "<input>") -> Program:
    """Read a Paddle saved program (JSON text, bytes, or the parsed object)."""
    # One GC pause around parsing and building: both allocate millions of
    # containers, and with the cyclic GC running every generation-2 pass
    # rescans all of them (5x slower at 100k ops).  The parsed JSON is freed
    # before the pause ends so the collector never scans it.
    with gc_paused():
        return _read(text_or_obj, filename)


def _read(text_or_obj, filename: str) -> Program:
    if isinstance(text_or_obj, (bytes, bytearray)):
        try:
            text_or_obj = text_or_obj.decode("utf-8")
        except UnicodeDecodeError as e:
            raise JsonError(f"the file is not UTF-8 text (byte {e.start}): {e.reason}",
                            filename=filename) from None
    if isinstance(text_or_obj, str):
        program = _read_streamed(text_or_obj, filename)
        if program is not None:
            return program
        try:
            obj = json.loads(text_or_obj, parse_constant=_reject_constant)
        except _NonStandard as e:
            raise JsonError(f"{e.args[0]} is not JSON (Paddle writes a non-finite float as "
                            "{\"#\": \"0.a_f64\", \"VD\": \"INF\"})",
                            filename=filename) from None
        except json.JSONDecodeError as e:
            # Saved programs are one line of many megabytes: no source line is shown.
            raise SourceError(f"malformed JSON: {e.msg}", filename, e.lineno, e.colno) from None
        except RecursionError:
            raise JsonError("malformed JSON: nested too deeply", filename=filename) from None
    else:
        obj = text_or_obj
    return _build(obj, filename)


def _read_streamed(text: str, filename: str) -> Program | None:
    """Read with the top-level ops decoded one at a time (stream.py), or None
    when the document's layout needs the whole-document reader."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    try:
        doc = skeleton(text, decoder)
        if doc is None:
            return None
        return _build(doc, filename)
    except NotStreamable:
        return None
    except StreamSyntaxError as e:
        err = e.error
        raise SourceError(f"malformed JSON: {err.msg}", filename, err.lineno, err.colno) from None
    except _NonStandard as e:
        raise JsonError(f"{e.args[0]} is not JSON (Paddle writes a non-finite float as "
                        "{\"#\": \"0.a_f64\", \"VD\": \"INF\"})", filename=filename) from None


def _build(obj, filename: str) -> Program:
    try:
        return _Reader().program(obj)
    except VersionError as e:
        raise e.in_file(filename) from None
    except _Bad as e:
        raise JsonError(e.message, path=e.path.lstrip("."), filename=filename) from None
    except RecursionError:
        raise JsonError("the program is nested too deeply to read", filename=filename) from None


class _Reader:
    def __init__(self):
        self.version = LATEST_VERSION
        # id 0 is Paddle's null value: operands that name it get a fresh null value.
        self.values: dict = {0: None}
        self.types: dict[str, object] = {}
        self.attrs: dict[str, object] = {}
        self.names: dict[str, tuple[str, type]] = {}  # JSON op code -> (name, class)

    # -- top level -----------------------------------------------------------

    def program(self, obj) -> Program:
        if type(obj) is not dict:
            raise _Bad(f"a Paddle program is a JSON object with keys \"base_code\" and "
                       f"\"program\"; got {_show(obj)}")
        extra: dict = {}
        top_extra = {k: v for k, v in obj.items() if k not in (C.BASE_CODE, C.PROGRAM)}
        if top_extra:
            extra["top"] = top_extra
        if C.BASE_CODE not in obj:
            raise _Bad("missing \"base_code\" (magic, version, trainable): is this a Paddle "
                       "saved program (*.json from save_inference_model / jit.save)?")
        version, trainable, tags = self.base_code(obj[C.BASE_CODE], extra)
        self.version = version
        if C.PROGRAM not in obj:
            raise _Bad("missing \"program\"")
        module = new_module()
        self.top(obj[C.PROGRAM], module.body.block, extra)
        return Program(module=module, version=version, graph_tags=tags, trainable=trainable,
                       extra=extra)

    def base_code(self, bc, extra: dict):
        if type(bc) is not dict:
            raise _Bad(f"expected an object, got {_show(bc)}", C.BASE_CODE)
        magic = bc.get(C.MAGIC)
        if magic != C.MAGIC_VALUE:
            raise _Bad(f"expected \"pir\", got {_show(magic)}: this is not a Paddle PIR "
                       "program", f"{C.BASE_CODE}.{C.MAGIC}")
        if C.VERSION not in bc:
            raise _Bad("missing: a PIR program states its PIR version", C.BASE_CODE)
        version = bc[C.VERSION]
        if not _is_int(version) or version < 0:
            raise _Bad(f"a PIR version is a non-negative integer, got {_show(version)}",
                       f"{C.BASE_CODE}.{C.VERSION}")
        if version > LATEST_VERSION:
            raise VersionError(
                f"program is PIR version {version}; this pirc reads versions up to "
                f"{LATEST_VERSION} (Paddle 3.3); upgrade pirc")
        trainable = bc.get(C.TRAINABLE, True)
        if type(trainable) is not bool:
            raise _Bad(f"expected true or false, got {_show(trainable)}",
                       f"{C.BASE_CODE}.{C.TRAINABLE}")
        tags: list[GraphTag] = []
        if C.PIRC_KEY in bc:
            tags = self.pirc_meta(bc[C.PIRC_KEY], extra)
        rest = {k: v for k, v in bc.items()
                if k not in (C.MAGIC, C.VERSION, C.TRAINABLE, C.PIRC_KEY)}
        if rest:
            extra["base_code"] = rest
        return version, trainable, tags

    def pirc_meta(self, meta, extra: dict) -> list[GraphTag]:
        where = f"{C.BASE_CODE}.{C.PIRC_KEY}"
        if type(meta) is not dict:
            raise _Bad(f"pirc's metadata is an object, got {_show(meta)}", where)
        tags = []
        raw = meta.get(C.GRAPH_TAGS, [])
        if type(raw) is not list:
            raise _Bad(f"expected a list of [pass name, pass version, rollout], got {_show(raw)}",
                       f"{where}.{C.GRAPH_TAGS}")
        for i, t in enumerate(raw):
            if (type(t) is not list or len(t) != 3 or type(t[0]) is not str
                    or not _is_int(t[1]) or type(t[2]) is not str):
                raise _Bad(f"a graph tag is [pass name, pass version, rollout], got {_show(t)}",
                           f"{where}.{C.GRAPH_TAGS}[{i}]")
            tags.append(GraphTag(t[0], t[1], t[2]))
        rest = {k: v for k, v in meta.items() if k != C.GRAPH_TAGS}
        if rest:
            extra["pirc"] = rest
        return tags

    def top(self, prog, block: Block, extra: dict) -> None:
        if type(prog) is not dict:
            raise _Bad(f"expected an object with \"regions\", got {_show(prog)}", C.PROGRAM)
        rest = {k: v for k, v in prog.items() if k != C.REGIONS}
        if rest:
            extra["program"] = rest
        regions = prog.get(C.REGIONS)
        # Paddle's reader takes exactly one region and reads only its first
        # block; pirc refuses what Paddle would drop.
        if type(regions) is not list or len(regions) != 1:
            raise _Bad(f"a program has exactly one region, got {_show(regions)}",
                       f"{C.PROGRAM}.{C.REGIONS}")
        region = regions[0]
        where = f"{C.PROGRAM}.{C.REGIONS}[0]"
        if type(region) is not dict or type(region.get(C.BLOCKS)) is not list \
                or len(region[C.BLOCKS]) != 1:
            raise _Bad("the program region has exactly one block "
                       "({\"#\": \"region_0\", \"blocks\": [...]})", where)
        try:
            self.block(region[C.BLOCKS][0], block)
        except _Bad as e:
            raise e.under(f"{where}.{C.BLOCKS}[0]") from None

    # -- structure -------------------------------------------------------------

    def region(self, rj) -> Region:
        if type(rj) is not dict or type(rj.get(C.BLOCKS)) is not list:
            raise _Bad(f"a region is {{\"#\": name, \"blocks\": [...]}}, got {_show(rj)}")
        blocks = []
        for i, bj in enumerate(rj[C.BLOCKS]):
            try:
                blocks.append(self.block(bj, None))
            except _Bad as e:
                raise e.under(f".{C.BLOCKS}[{i}]") from None
        return Region(blocks)

    def block(self, bj, block: Block | None) -> Block:
        if type(bj) is not dict:
            raise _Bad(f"a block is {{\"#\": name, \"args\": [...], \"ops\": [...]}}, "
                       f"got {_show(bj)}")
        args = bj.get(C.BLOCK_ARGS, [])
        if type(args) is not list:
            raise _Bad(f"expected a list, got {_show(args)}", "." + C.BLOCK_ARGS)
        if bj.get(C.KEYWORD_BLOCK_ARGS):
            raise _Bad("keyword block arguments are not supported by pirc",
                       "." + C.KEYWORD_BLOCK_ARGS)
        ids, types = [], []
        for i, aj in enumerate(args):
            try:
                if type(aj) is not dict:
                    raise _Bad(f"a block argument is {{\"#\": -N, \"TT\": type}}, got {_show(aj)}")
                aid = aj.get(C.ID)
                if not _is_int(aid) or aid >= 0:
                    raise _Bad(f"a block argument id is a negative integer, got {_show(aid)}",
                               "." + C.ID)
                if aid in self.values or aid in ids:
                    raise _Bad(f"value id {aid} is defined twice", "." + C.ID)
                if C.TYPE not in aj:
                    raise _Bad("missing \"TT\" (the argument's type)")
                types.append(self.type(aj[C.TYPE], "." + C.TYPE))
                ids.append(aid)
            except _Bad as e:
                raise e.under(f".{C.BLOCK_ARGS}[{i}]") from None
        if block is None:
            block = Block(arg_types=types)
        else:
            for t in types:
                block.insert_arg(t, len(block.args))
        for aid, arg in zip(ids, block.args):
            self.values[aid] = arg
        ops = bj.get(C.OPS)
        if type(ops) is not list and type(ops) is not OpStream:
            raise _Bad(f"expected a list of ops, got {_show(ops)}", "." + C.OPS)
        op = self.op
        for i, oj in enumerate(ops):
            try:
                op(oj, block)
            except _Bad as e:
                raise e.under(f".{C.OPS}[{i}]") from None
            except (KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
                # A shape the checks below did not anticipate: still a located
                # message, never a traceback.
                raise _Bad(f"malformed op ({type(e).__name__}: {e})", f".{C.OPS}[{i}]") from None
        return block

    # -- ops ---------------------------------------------------------------------

    def op_name(self, code) -> tuple[str, type]:
        if type(code) is not str:
            raise _Bad(f"an op name is a string \"<dialect id>.<name>\", got {_show(code)}",
                       "." + C.ID)
        prefix, dot, short = code.partition(".")
        if not dot or not prefix or not short:
            raise _Bad(f"an op name is \"<dialect id>.<name>\" (\"1.matmul\"), got {_show(code)}",
                       "." + C.ID)
        dialect = C.DIALECT_BY_ID.get(prefix)
        if dialect is not None:
            name = f"{dialect}.{short}"
        elif prefix.lstrip("-").isdigit():
            known = ", ".join(f"{i} = {n}" for n, i in C.DIALECT_IDS.items())
            raise _Bad(f"unknown dialect id {prefix} in op {_show(code)}; known ids: {known}",
                       "." + C.ID)
        else:
            # Paddle's writer keeps the name of a dialect it has no id for.
            name = code
        entry = (name, op_class(name, self.version))
        self.names[code] = entry
        return entry

    def op(self, oj, block: Block) -> None:
        # The hot path of the reader: literal keys (codes.py names them), no
        # per-entry validation beyond what a memo hit implies; anything
        # unexpected drops to the careful helpers, which say what is wrong.
        if type(oj) is not dict:
            raise _Bad(f"an op is a JSON object, got {_show(oj)}")
        code = oj.get("#")
        if code == "p":
            return self.parameter(oj, block)
        entry = self.names.get(code)
        if entry is None:
            entry = self.op_name(code)
        values = self.values

        # operands
        refs = oj.get("I")
        try:
            operands = [values[r["%"]] for r in refs]
        except _KEY_ERRORS:
            operands = self.operands_slowly(refs)
        else:
            if None in operands:  # id 0
                operands = [null_value() if v is None else v for v in operands]

        # results
        outs = oj.get("O")
        try:
            result_ids = [r["%"] for r in outs]
            types_cache = self.types
            result_types = [types_cache[_type_key(r["TT"])] for r in outs]
        except _KEY_ERRORS:
            result_ids, result_types = self.results_carefully(outs)
        for rid in result_ids:
            if type(rid) is not int or rid <= 0 or rid in values:
                i = result_ids.index(rid)
                raise _Bad(self.bad_result_id(rid), f".{C.RESULTS}[{i}].%")

        # regions (read before the op is made: like Paddle, an op's own
        # results are not visible inside its regions)
        regions = ()
        rjs = oj.get("regions")
        if rjs is not None:
            regions = self.regions(rjs)

        # attributes: A then OA, in file order
        a = oj.get("A")
        oa = oj.get("OA")
        attributes = {}
        cache = self.attrs
        try:
            for e in a:
                at = e["AT"]
                d = at["D"]
                td = type(d)
                name = e["N"]
                if type(name) is not str:
                    raise TypeError
                # _attr_key inlined for scalars (the key it would return)
                attributes[name] = cache[(at["#"], d, td) if td is bool or td is int or td is str
                                         else _attr_key(at)]
            if oa:
                for e in oa:
                    at = e["AT"]
                    name = e["N"]
                    if type(name) is not str:
                        raise TypeError
                    attributes[name] = cache[_attr_key(at)]
            if len(attributes) != len(a) + (len(oa) if oa else 0):
                raise KeyError
        except _KEY_ERRORS:
            attributes = self.attributes_carefully(a, oa)

        properties = None
        if "DA" in oj or "QA" in oj:
            properties = self.side_attrs(oj, default_present=False)

        op = append_op(entry[1], operands, result_types, attributes, block, regions, properties)
        for rid, r in zip(result_ids, op.results):
            values[rid] = r

    def regions(self, rjs) -> list:
        if type(rjs) is not list:
            raise _Bad(f"expected a list of regions, got {_show(rjs)}", "." + C.REGIONS)
        regions = []
        for i, rj in enumerate(rjs):
            try:
                regions.append(self.region(rj))
            except _Bad as e:
                raise e.under(f".{C.REGIONS}[{i}]") from None
        return regions

    def attributes_carefully(self, a, oa) -> dict:
        attributes = self.attr_list(a, C.ATTRS)
        if oa is not None:
            oa_attrs = self.attr_list(oa, C.RESULT_ATTRS)
            for k in oa_attrs:
                if k in attributes:
                    raise _Bad(f"attribute \"{k}\" appears in both \"A\" and \"OA\"",
                               "." + C.RESULT_ATTRS)
            attributes.update(oa_attrs)
        return attributes

    def results_carefully(self, outs) -> tuple[list, list]:
        if type(outs) is not list:
            raise _Bad(f"expected a list of results, got {_show(outs)}", "." + C.RESULTS)
        ids, types = [], []
        for i, rj in enumerate(outs):
            where = f".{C.RESULTS}[{i}]"
            if type(rj) is not dict or C.VALUE_ID not in rj or C.TYPE not in rj:
                raise _Bad(f"a result is {{\"%\": id, \"TT\": type}}, got {_show(rj)}", where)
            ids.append(rj[C.VALUE_ID])
            types.append(self.type(rj[C.TYPE], f"{where}.{C.TYPE}"))
        return ids, types

    def operands_slowly(self, refs) -> list:
        """The operand list again, checking each entry, to say what is wrong."""
        if type(refs) is not list:
            raise _Bad(f"expected a list of operands [{{\"%\": id}}, ...], got {_show(refs)}",
                       "." + C.OPERANDS)
        out = []
        for i, r in enumerate(refs):
            where = f".{C.OPERANDS}[{i}]"
            if type(r) is not dict or C.VALUE_ID not in r:
                raise _Bad(f"an operand is {{\"%\": id}}, got {_show(r)}", where)
            vid = r[C.VALUE_ID]
            if not _is_int(vid):
                raise _Bad(f"a value id is an integer, got {_show(vid)}", where)
            v = self.values.get(vid)
            if v is None and vid != 0:
                raise _Bad(f"operand refers to value id {vid}, which no earlier op result or "
                           "block argument in scope defines (Paddle would silently substitute a "
                           "null value; pirc refuses)", where)
            out.append(null_value() if vid == 0 else v)
        return out

    def bad_result_id(self, rid) -> str:
        if not _is_int(rid) or rid <= 0:
            return f"a result id is a positive integer, got {_show(rid)}"
        return f"value id {rid} is defined twice"

    def parameter(self, oj, block: Block) -> None:
        """The compact `"#":"p"` form of builtin.parameter.

        Flags are 0/1 (Paddle reads any non-zero integer, or a JSON boolean,
        as true).  DA/QA are written by Paddle as [] on every parameter; only
        a departure from that is recorded (see codes.DA_PROPERTY).
        """
        a = oj.get("A")
        if (type(a) is not list or len(a) != 4 or type(a[3]) is not str
                or not (_is_flag(a[0]) and _is_flag(a[1]) and _is_flag(a[2]))):
            raise _Bad("builtin.parameter's compact \"A\" is [is_distributed, is_parameter, "
                       f"need_clip, \"name\"] with 0/1 flags, got {_show(a)}", "." + C.ATTRS)
        if oj.get("I") or "regions" in oj:
            raise _Bad("builtin.parameter (\"p\") takes no operands and has no regions")
        rj = oj.get("O")
        if type(rj) is not dict or type(rj.get("%")) is not int or "TT" not in rj:
            raise _Bad("builtin.parameter's \"O\" is one object {\"%\": id, \"TT\": type}, "
                       f"got {_show(rj)}", "." + C.RESULTS)
        rid = rj["%"]
        if rid <= 0 or rid in self.values:
            raise _Bad(self.bad_result_id(rid), f".{C.RESULTS}.%")
        try:
            t = self.types[_type_key(rj["TT"])]
        except _KEY_ERRORS:
            try:
                t = self.type(rj["TT"], "")
            except _Bad as e:
                raise e.under(f".{C.RESULTS}.{C.TYPE}") from None
        flags = _FLAG_ARRAYS
        attributes = {_IS_DISTRIBUTED: flags[a[0] != 0], _IS_PARAMETER: flags[a[1] != 0],
                      _NEED_CLIP: flags[a[2] != 0], C.PARAMETER_NAME: A.str_attr(a[3])}
        oa = oj.get("OA")
        if oa is not None:
            if (type(oa) is not list or len(oa) != 3
                    or not (_is_flag(oa[0]) and _is_flag(oa[1]) and _is_flag(oa[2]))):
                raise _Bad("builtin.parameter's compact \"OA\" is [persistable, stop_gradient, "
                           f"trainable] as 0/1 flags, got {_show(oa)}", "." + C.RESULT_ATTRS)
            attributes[_PERSISTABLE] = flags[oa[0] != 0]
            attributes[_STOP_GRADIENT] = flags[oa[1] != 0]
            attributes[_TRAINABLE] = flags[oa[2] != 0]
        properties = None
        if oj.get("DA") != [] or oj.get("QA") != []:
            properties = self.side_attrs(oj, default_present=True)
        cls = self.names.get("p")
        if cls is None:
            cls = op_class(C.PARAMETER_OP, self.version)
            self.names["p"] = cls
        op = append_op(cls, [], [t], attributes, block, (), properties)
        self.values[rid] = op.results[0]

    def side_attrs(self, oj, default_present: bool) -> dict | None:
        """DA / QA lists, kept as op properties so that they round-trip."""
        props = {}
        for key, prop in ((C.DIST_ATTRS, C.DA_PROPERTY), (C.QUANT_ATTRS, C.QA_PROPERTY)):
            if key not in oj:
                if default_present:
                    props[prop] = A.NULL_ATTR
                continue
            entries = oj[key]
            if default_present and entries == []:
                continue
            pairs = self.attr_list(entries, key)
            props[prop] = ArrayAttr(tuple(ArrayAttr((StringAttr(n), v)) for n, v in pairs.items()))
        return props or None

    # -- attributes --------------------------------------------------------------

    def attr_list(self, entries, key: str) -> dict:
        """An `A`-shaped list [{"AT": attribute, "N": name}, ...] as a new dict, checked."""
        if entries is None:
            return {}
        if type(entries) is not list:
            raise _Bad(f"expected a list of {{\"AT\": attribute, \"N\": name}}, got "
                       f"{_show(entries)}", "." + key)
        out: dict = {}
        for i, e in enumerate(entries):
            where = f".{key}[{i}]"
            if type(e) is not dict or type(e.get(C.NAME)) is not str or C.ATTR not in e:
                raise _Bad(f"an attribute entry is {{\"AT\": attribute, \"N\": name}}, got "
                           f"{_show(e)}", where)
            name = e[C.NAME]
            if name in out:
                raise _Bad(f"attribute \"{name}\" appears twice", where)
            out[name] = self.attr(e[C.ATTR], f"{where}.{C.ATTR}")
        return out

    def attr(self, obj, where: str):
        k = _safe_key(_attr_key, obj)
        got = self.attrs.get(k)
        if got is None:
            try:
                got = self.decode_attr(obj)
            except _Bad as e:
                raise e.under(where) from None
            self.attrs[k] = got
        return got

    def decode_attr(self, obj):
        if type(obj) is not dict:
            raise _Bad(f"an attribute is {{\"#\": kind, \"D\": data}}, got {_show(obj)}")
        code = obj.get(C.ID)
        kind = C.ATTR_KIND_BY_CODE.get(code)
        if kind is None:
            raise _Bad(self.unknown_kind(code, "attribute", C.ATTR_KIND_BY_CODE,
                                         C.UNSUPPORTED_ATTR_CODES))
        if kind == "null":
            return A.NULL_ATTR
        if kind in ("float", "double"):
            return A.float_attr(self.float_data(obj), double=kind == "double")
        if C.DATA not in obj:
            raise _Bad(f"missing \"D\" (the {code} value)")
        d = obj[C.DATA]
        here = "." + C.DATA
        if kind == "bool":
            if type(d) is not bool:
                raise _Bad(f"expected true or false, got {_show(d)}", here)
            return A.bool_attr(d)
        if kind in ("int32", "int64", "index"):
            lo, hi = _INT32_RANGE if kind == "int32" else _INT64_RANGE
            if not _is_int(d) or not lo <= d <= hi:
                raise _Bad(f"expected a {kind} integer, got {_show(d)}", here)
            return A.make_scalar(kind, d)
        if kind in ("str", "tensor_name", "layout"):
            if type(d) is not str:
                raise _Bad(f"expected a string, got {_show(d)}", here)
            if kind == "str":
                return A.str_attr(d)
            return A.TensorNameAttr(d) if kind == "tensor_name" else A.layout_attr(d)
        if kind in ("complex64", "complex128"):
            if type(d) is not list or len(d) != 2 or not all(_is_number(x) for x in d):
                raise _Bad(f"expected [real, imag], got {_show(d)}", here)
            return A.ComplexAttr.make(A.f32 if kind == "complex64" else A.f64,
                                      float(d[0]), float(d[1]))
        if kind == "array":
            if type(d) is not list:
                raise _Bad(f"expected a list of attributes, got {_show(d)}", here)
            return A.array_attr(self.attr(x, f"{here}[{i}]") for i, x in enumerate(d))
        if kind == "type":
            return A.TypeAttr(self.type(d, here))
        if kind == "int_array":
            if type(d) is not list or not all(_is_int(x) for x in d):
                raise _Bad(f"expected a list of integers, got {_show(d)}", here)
            return A.int_array_attr(tuple(d))
        if kind == "dtype":
            printed = C.DTYPE_PRINTED_BY_JSON.get(d)
            if printed is None:
                raise _Bad(f"unknown data type {_show(d)}; expected one of "
                           + ", ".join(C.DTYPE_NAMES_JSON), here)
            return A.dtype_attr(printed)
        if kind == "place":
            if (type(d) is not list or len(d) != 3 or not _is_int(d[0]) or not _is_int(d[1])
                    or type(d[2]) is not str):
                raise _Bad(f"expected [allocation type, device id, device type], got {_show(d)}",
                           here)
            return A.place_attr(d[0], d[1], d[2])
        if kind == "scalar":
            if type(d) is not list or not d or type(d[0]) is not str:
                raise _Bad(f"expected [dtype, value...], got {_show(d)}", here)
            return A.ScalarAttr(tuple(d))
        raise AssertionError(kind)  # pragma: no cover - codes.py and this switch agree

    def float_data(self, obj) -> float:
        if C.DATA in obj:
            d = obj[C.DATA]
            if not _is_number(d):
                raise _Bad(f"expected a number, got {_show(d)}", "." + C.DATA)
            return float(d)
        vd = obj.get(C.VOID_DATA)
        if vd == C.INF_SPELLING:
            return math.inf
        if vd == C.NEG_INF_SPELLING:
            return -math.inf
        if vd in C.NAN_SPELLINGS_READ:
            return math.nan
        if vd is None:
            raise _Bad(f"missing \"D\" (the {obj.get(C.ID)} value)")
        spellings = ", ".join(_show(s) for s in
                              (C.INF_SPELLING, C.NEG_INF_SPELLING) + C.NAN_SPELLINGS_READ)
        raise _Bad(f"unknown non-finite value {_show(vd)}; expected one of {spellings}",
                   "." + C.VOID_DATA)

    # -- types -------------------------------------------------------------------

    def type(self, obj, where: str):
        k = _safe_key(_type_key, obj)
        got = self.types.get(k)
        if got is None:
            try:
                got = self.decode_type(obj)
            except _Bad as e:
                raise e.under(where) from None
            self.types[k] = got
        return got

    def decode_type(self, obj):
        if type(obj) is not dict:
            raise _Bad(f"a type is {{\"#\": kind, \"D\": data}}, got {_show(obj)}")
        code = obj.get(C.ID)
        elem = C.ELEMENT_TYPE_CODES.get(code)
        if elem is not None:
            return ELEMENT_TYPES[elem]
        if code == C.NULL:
            return NULL_TYPE
        if code not in C.CONTAINER_TYPE_CODES:
            kinds = dict.fromkeys(C.TYPE_CODES)
            raise _Bad(self.unknown_kind(code, "type", kinds, C.UNSUPPORTED_TYPE_CODES))
        d = obj.get(C.DATA)
        here = "." + C.DATA
        if code == C.T_VECTOR:
            if type(d) is not list:
                raise _Bad(f"expected a list of types, got {_show(d)}", here)
            return VectorType.make(self.type(x, f"{here}[{i}]") for i, x in enumerate(d))
        n = 3 if code == C.T_DENSE_TENSOR_ARRAY else 5
        if type(d) is not list or len(d) != n:
            shape = ("[element type, dims, layout]" if n == 3
                     else "[element type, dims, layout, lod, offset]")
            raise _Bad(f"{code} data is {shape}, got {_show(d)}", here)
        elt = self.type(d[0], f"{here}[0]")
        dims, layout = d[1], d[2]
        if type(dims) is not list or not all(_is_int(x) for x in dims):
            raise _Bad(f"dims are a list of integers, got {_show(dims)}", f"{here}[1]")
        if type(layout) is not str:
            raise _Bad(f"a layout is a string, got {_show(layout)}", f"{here}[2]")
        if n == 3:
            return DenseTensorArrayType.make(elt, dims, layout)
        lod, offset = d[3], d[4]
        if type(lod) is not list or not all(
                type(lv) is list and all(_is_int(x) for x in lv) for lv in lod):
            raise _Bad(f"a LoD is a list of lists of integers, got {_show(lod)}", f"{here}[3]")
        if not _is_int(offset):
            raise _Bad(f"an offset is an integer, got {_show(offset)}", f"{here}[4]")
        cls = DenseTensorType if code == C.T_DENSE_TENSOR else SelectedRowsType
        return cls.make(elt, dims, layout, lod, offset)

    @staticmethod
    def unknown_kind(code, what: str, known, unsupported: dict) -> str:
        if type(code) is str and code in unsupported:
            return (f"{what} kind \"{code}\" ({unsupported[code]}) is not supported by pirc")
        if type(code) is str and code.startswith(C.DIST_PREFIX):
            return (f"{what} kind \"{code}\" belongs to the dist dialect (distributed "
                    "programs), which pirc does not support")
        if code is None:
            return f"missing \"#\" (the {what} kind)"
        return (f"unknown {what} kind {_show(code)}; expected one of {', '.join(known)} "
                "(a file from a newer Paddle may use kinds this pirc does not know: "
                "upgrade pirc, or report the kind)")


_KEY_ERRORS = (KeyError, TypeError, IndexError, AttributeError)
_LIST_KEYED_ATTRS = frozenset(("1.a_intarray", "1.a_place"))


def _attr_key(at):
    """A memo key for an attribute's JSON: equal keys mean the same attribute.

    Raises on shapes it does not know (the caller then falls back to repr).
    """
    code = at[C.ID]
    if C.DATA not in at:
        return (code, None, at.get(C.VOID_DATA))
    d = at[C.DATA]
    td = type(d)
    if td is list:
        if code == "0.a_array":
            parts = []
            for x in d:
                xd = x.get(C.DATA)
                tx = type(xd)
                # scalars inline (the key _attr_key would give), the rest recursively
                parts.append((x[C.ID], xd, tx) if tx is bool or tx is int or tx is str
                             else _attr_key(x))
            return (code, tuple(parts))
        if code in _LIST_KEYED_ATTRS:
            return (code, tuple(d), tuple(map(type, d)))
        return repr(at)
    if td is float:
        return (code, repr(d))  # -0.0 == 0.0 would share an entry
    if td is dict:
        return (code, _type_key(d))
    return (code, d, td)  # td: true is not 1


def _type_key(tt):
    """A memo key for a type's JSON (see `_attr_key`)."""
    if C.DATA not in tt:
        return tt[C.ID]
    d = tt[C.DATA]
    code = tt[C.ID]
    if code == C.T_DENSE_TENSOR and len(d) == 5:
        lod = d[3]
        elt = d[0]
        return (code, elt[C.ID] if C.DATA not in elt else _type_key(elt), tuple(d[1]), d[2],
                repr(lod) if lod else (), d[4])
    return repr(tt)


def _safe_key(key, obj):
    try:
        k = key(obj)
        hash(k)
        return k
    except _KEY_ERRORS:
        return repr(obj)


(_IS_DISTRIBUTED, _), (_IS_PARAMETER, _), (_NEED_CLIP, _) = C.PARAMETER_A_FLAGS
(_PERSISTABLE, _), (_STOP_GRADIENT, _), (_TRAINABLE, _) = C.PARAMETER_OA_FLAGS

_FLAG_ARRAYS = {
    False: A.array_attr((A.bool_attr(False),)),
    True: A.array_attr((A.bool_attr(True),)),
}
