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

Speed: types and attributes are decoded through memos (value_decoder.py);
the top-level ops of a Paddle-written file are decoded one at a time
(stream.py), so the whole document is never held as Python objects.
"""

from __future__ import annotations

import json
import re
import sys

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Block, Region

from .. import limits
from ..errors import JsonError, SourceError, VersionError
from .bounds import (LEAF_STEP, REGION_STEP, TOP_OP_DEPTH, JsonLimitError, TooDeep, check_value,
                     limit_error, string_over)
from .stream import NotStreamable, OpStream, StreamSyntaxError, scanner_failure, skeleton
from ..ir import attrs as A
from ..ir.builder import append_op, gc_paused
from ..ir.ops import BLOCK_ARG_ATTRS, new_module, null_value
from ..ir.program import LATEST_VERSION, GraphTag, Manifest, Program, is_fingerprint
from ..ir.op_names import OpNameError
from ..ir.registry import op_class
from . import codes as C
from .schema_checks import SchemaLimit, SchemaViolation, is_flag, is_int, show
from .unknown_keys import (OP_KEYS, PARAMETER_KEYS, UNKNOWN_KEYS_PROPERTY, UNKNOWN_KEYS_SEEN,
                           keep_unknown, unknown_key_warnings)
from .value_decoder import KEY_ERRORS, ValueDecoder, attr_key, type_key

__all__ = ["read_program"]


class _NonStandard(Exception):
    pass


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

# A UTF-16 surrogate: as a \u escape in the text, or (a str handed to read_program) itself.
# Paired escapes decode to one character; what is left after decoding is a lone one.
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(obj) -> str | None:
    """The JSON path of the first string (key or value) holding a lone surrogate, or None.
    Iterative; run only when the text holds a surrogate escape at all."""
    stack = [(obj, "")]
    while stack:
        v, path = stack.pop()
        if type(v) is str:
            if _SURROGATE.search(v):
                return path
        elif type(v) is dict:
            for k, x in v.items():
                if _SURROGATE.search(k):
                    return f"{path}.{k.encode('utf-8', 'backslashreplace').decode()}"
                stack.append((x, f"{path}.{k}"))
        elif type(v) is list:
            stack.extend((x, f"{path}[{i}]") for i, x in reversed(list(enumerate(v))))
    return None


def _reject_constant(name: str):
    # Python's json accepts NaN / Infinity literals; Paddle's parser does not.
    raise _NonStandard(name)


def read_program(text_or_obj, filename: str = "<input>", warn=None) -> Program:
    """Read a Paddle saved program (JSON text, bytes, or the parsed object).

    `warn(message)` receives each warning (a key pirc does not know, kept); by default
    they go to stderr as `FILE: PATH: warning: ...`.
    """
    # One GC pause around parsing and building: both allocate millions of
    # containers, and with the cyclic GC running every generation-2 pass
    # rescans all of them (5x slower at 100k ops).  The parsed JSON is freed
    # before the pause ends so the collector never scans it.
    with gc_paused():
        program = _read(text_or_obj, filename)
    if program.extra.get(UNKNOWN_KEYS_SEEN):
        del program.extra[UNKNOWN_KEYS_SEEN]
        for message in unknown_key_warnings(program, filename):
            if warn is None:
                print(message, file=sys.stderr)
            else:
                warn(message)
    return program


def _read(text_or_obj, filename: str) -> Program:
    try:
        return _read_checked(text_or_obj, filename)
    except TooDeep as e:
        raise limit_error(e, "", filename) from None


def _read_checked(text_or_obj, filename: str) -> Program:
    if isinstance(text_or_obj, (bytes, bytearray)):
        _check_size(len(text_or_obj), filename)
        try:
            text_or_obj = text_or_obj.decode("utf-8")
        except UnicodeDecodeError as e:
            raise JsonError(f"the file is not UTF-8 text (byte {e.start}): {e.reason}",
                            filename=filename) from None
    if isinstance(text_or_obj, str):
        size = len(text_or_obj)
        if 4 * size > limits.MAX_INPUT_BYTES.value():  # only then can its UTF-8 be too big
            size = len(text_or_obj.encode("utf-8", "surrogatepass"))
        _check_size(size, filename)
        suspect = _SURROGATE_HINT.search(text_or_obj) is not None
        program = None if suspect else _read_streamed(text_or_obj, filename)
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
        except (RecursionError, ValueError):
            # nesting at Python's recursion limit, or an integer over its 4,300 digits
            raise scanner_failure(text_or_obj, 0, 1, "") from None
        if suspect:
            _check_surrogates(obj, filename)
    else:
        obj = text_or_obj
    return _build(obj, filename)


def _check_surrogates(obj, filename: str) -> None:
    path = _lone_surrogate(obj)
    if path is not None:
        raise JsonError("a string holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff "
                        "escape), which is no Unicode character: Paddle's JSON reader refuses it "
                        "too; escape a character outside the BMP as a surrogate pair",
                        path=path.lstrip("."), filename=filename)


def _check_size(size: int, filename: str) -> None:
    if size > limits.MAX_INPUT_BYTES.value():
        raise JsonLimitError(limits.MAX_INPUT_BYTES.message(size), filename=filename)


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
    except SchemaLimit as e:
        raise limit_error(TooDeep(e.message, e.path), "", filename) from None
    except SchemaViolation as e:
        raise JsonError(e.message, path=e.path.lstrip("."), filename=filename) from None
    except RecursionError:
        raise JsonError("the program nests deeper than this Python can read (its recursion "
                        "limit is below pirc's nesting limit, PIRC_MAX_NESTING)",
                        filename=filename) from None


class _Reader(ValueDecoder):
    def __init__(self):
        super().__init__()
        self.version = LATEST_VERSION
        # id 0 is Paddle's null value: operands that name it get a fresh null value.
        self.values: dict = {0: None}
        self.names: dict[str, tuple[str, type]] = {}  # JSON op code -> (name, class)
        # JSON depth of the ops being read, and the memos for that depth: a memo hit stands
        # for a value whose depth was checked when it was decoded, at the same depth.
        self.depth = TOP_OP_DEPTH
        self.max_string = self.bounds[2]
        self.leaf_depth = TOP_OP_DEPTH + LEAF_STEP + 1
        self.memos_by_depth = {TOP_OP_DEPTH: (self.attrs, self.types)}
        # Block -> its arguments' attributes (pirc's "A" on a block argument), until the op
        # that owns the block is made.
        self.arg_attrs: dict = {}
        # Keys pirc does not know, kept to be written back: block -> {arg index: {key: value}}
        self.arg_unknown: dict = {}
        self.unknown_seen = False

    # -- top level -----------------------------------------------------------

    def program(self, obj) -> Program:
        if type(obj) is not dict:
            raise SchemaViolation(f"a Paddle program is a JSON object with keys \"base_code\" and "
                       f"\"program\"; got {show(obj)}")
        extra: dict = {}
        top_extra = {k: v for k, v in obj.items() if k not in (C.BASE_CODE, C.PROGRAM)}
        if top_extra:
            _check_kept(top_extra, 1, "")
            extra["top"] = top_extra
        if C.BASE_CODE not in obj:
            raise SchemaViolation("missing \"base_code\" (magic, version, trainable): is this a Paddle "
                       "saved program (*.json from save_inference_model / jit.save)?")
        version, trainable, tags, manifest = self.base_code(obj[C.BASE_CODE], extra)
        self.version = version
        if C.PROGRAM not in obj:
            raise SchemaViolation("missing \"program\"")
        module = new_module()
        self.top(obj[C.PROGRAM], module.body.block, extra)
        if self.unknown_seen:
            extra[UNKNOWN_KEYS_SEEN] = True
        return Program(module=module, version=version, graph_tags=tags, manifest=manifest, trainable=trainable,
                       extra=extra)

    def base_code(self, bc, extra: dict):
        if type(bc) is not dict:
            raise SchemaViolation(f"expected an object, got {show(bc)}", C.BASE_CODE)
        magic = bc.get(C.MAGIC)
        if magic != C.MAGIC_VALUE:
            raise SchemaViolation(f"expected \"pir\", got {show(magic)}: this is not a Paddle PIR "
                       "program", f"{C.BASE_CODE}.{C.MAGIC}")
        if C.VERSION not in bc:
            raise SchemaViolation("missing: a PIR program states its PIR version", C.BASE_CODE)
        version = bc[C.VERSION]
        if not is_int(version) or version < 0:
            raise SchemaViolation(f"a PIR version is a non-negative integer, got {show(version)}",
                       f"{C.BASE_CODE}.{C.VERSION}")
        if version > LATEST_VERSION:
            raise VersionError(
                f"program is PIR version {show(version)}; this pirc reads versions up to "
                f"{LATEST_VERSION} (Paddle 3.3); upgrade pirc")
        trainable = bc.get(C.TRAINABLE, True)
        if type(trainable) is not bool:
            raise SchemaViolation(f"expected true or false, got {show(trainable)}",
                       f"{C.BASE_CODE}.{C.TRAINABLE}")
        tags: list[GraphTag] = []
        manifest = None
        if C.PIRC_KEY in bc:
            _check_kept(bc[C.PIRC_KEY], 3, f"{C.BASE_CODE}.{C.PIRC_KEY}")
            tags, manifest = self.pirc_meta(bc[C.PIRC_KEY], extra)
        rest = {k: v for k, v in bc.items()
                if k not in (C.MAGIC, C.VERSION, C.TRAINABLE, C.PIRC_KEY)}
        if rest:
            _check_kept(rest, 2, C.BASE_CODE)
            extra["base_code"] = rest
        return version, trainable, tags, manifest

    def pirc_meta(self, meta, extra: dict) -> tuple[list[GraphTag], Manifest | None]:
        where = f"{C.BASE_CODE}.{C.PIRC_KEY}"
        if type(meta) is not dict:
            raise SchemaViolation(f"pirc's metadata is an object, got {show(meta)}", where)
        tags = []
        raw = meta.get(C.GRAPH_TAGS, [])
        if type(raw) is not list:
            raise SchemaViolation(f"expected a list of [pass name, pass version, rollout], got {show(raw)}",
                       f"{where}.{C.GRAPH_TAGS}")
        for i, t in enumerate(raw):
            if (type(t) is not list or len(t) not in (3, 5) or type(t[0]) is not str
                    or not is_int(t[1]) or type(t[2]) is not str
                    or not all(is_fingerprint(f) for f in t[3:])):
                raise SchemaViolation("a graph tag is [pass name, pass version, rollout] or [pass name, "
                                      "pass version, rollout, fingerprint before, fingerprint after] "
                                      f"(fingerprints pfp1: + 64 hex digits), got {show(t)}",
                           f"{where}.{C.GRAPH_TAGS}[{i}]")
            if not _INT64_MIN <= t[1] <= _INT64_MAX:
                # the text front end's rule too: a pass version is an int64 (what the
                # canonical text prints must read back)
                raise SchemaViolation(f"a pass version is an int64, got {show(t[1])}",
                                      f"{where}.{C.GRAPH_TAGS}[{i}][1]")
            tags.append(GraphTag(*t))
        manifest = None
        if C.MANIFEST in meta:
            manifest = self.manifest(meta[C.MANIFEST], f"{where}.{C.MANIFEST}")
        rest = {k: v for k, v in meta.items() if k not in (C.GRAPH_TAGS, C.MANIFEST)}
        if rest:
            extra["pirc"] = rest
        return tags, manifest

    @staticmethod
    def manifest(raw, where: str) -> Manifest:
        names = C.MANIFEST_FIELDS
        if type(raw) is not dict:
            raise SchemaViolation(f"the manifest is an object with {', '.join(names)}, got {show(raw)}", where)
        for key in raw:
            if key not in names:
                raise SchemaViolation(f"unknown manifest field {key!r} (fields: {', '.join(names)})", f"{where}.{key}")
        for key in names[:4]:
            if key not in raw:
                raise SchemaViolation(f"the manifest lacks {key!r}", where)
        for key in names:
            if key in raw:
                want_int = key in ("pir_version", "pipeline_version")
                ok = is_int(raw[key]) if want_int else type(raw[key]) is str
                if not ok:
                    raise SchemaViolation(f"expected {'an integer' if want_int else 'a string'}, got {show(raw[key])}",
                                          f"{where}.{key}")
                if want_int and not _INT64_MIN <= raw[key] <= _INT64_MAX:
                    raise SchemaViolation(f"expected an int64, got {show(raw[key])}", f"{where}.{key}")
        return Manifest(*(raw.get(k) for k in names))

    def top(self, prog, block: Block, extra: dict) -> None:
        if TOP_OP_DEPTH + LEAF_STEP > limits.MAX_NESTING.value():
            # a top-level op's lists of operands, results, attributes (the writer's rule too)
            raise SchemaLimit(limits.MAX_NESTING.message(TOP_OP_DEPTH + LEAF_STEP),
                              f"{C.PROGRAM}.{C.REGIONS}[0].{C.BLOCKS}[0].{C.OPS}")
        if type(prog) is not dict:
            raise SchemaViolation(f"expected an object with \"regions\", got {show(prog)}", C.PROGRAM)
        rest = {k: v for k, v in prog.items() if k != C.REGIONS}
        if rest:
            _check_kept(rest, 2, C.PROGRAM)
            extra["program"] = rest
        regions = prog.get(C.REGIONS)
        # Paddle's reader takes exactly one region and reads only its first
        # block; pirc refuses what Paddle would drop.
        if type(regions) is not list or len(regions) != 1:
            raise SchemaViolation(f"a program has exactly one region, got {show(regions)}",
                       f"{C.PROGRAM}.{C.REGIONS}")
        region = regions[0]
        where = f"{C.PROGRAM}.{C.REGIONS}[0]"
        if type(region) is not dict or type(region.get(C.BLOCKS)) is not list \
                or len(region[C.BLOCKS]) != 1:
            raise SchemaViolation("the program region has exactly one block "
                       "({\"#\": \"region_0\", \"blocks\": [...]})", where)
        try:
            self.block(region[C.BLOCKS][0], block)
        except SchemaViolation as e:
            raise e.under(f"{where}.{C.BLOCKS}[0]") from None

    # -- structure -------------------------------------------------------------

    def region(self, rj) -> Region:
        if type(rj) is not dict or type(rj.get(C.BLOCKS)) is not list:
            raise SchemaViolation(f"a region is {{\"#\": name, \"blocks\": [...]}}, got {show(rj)}")
        blocks = []
        for i, bj in enumerate(rj[C.BLOCKS]):
            try:
                blocks.append(self.block(bj, None))
            except SchemaViolation as e:
                raise e.under(f".{C.BLOCKS}[{i}]") from None
        return Region(blocks)

    def block(self, bj, block: Block | None) -> Block:
        if type(bj) is not dict:
            raise SchemaViolation(f"a block is {{\"#\": name, \"args\": [...], \"ops\": [...]}}, "
                       f"got {show(bj)}")
        args = bj.get(C.BLOCK_ARGS, [])
        if type(args) is not list:
            raise SchemaViolation(f"expected a list, got {show(args)}", "." + C.BLOCK_ARGS)
        if bj.get(C.KEYWORD_BLOCK_ARGS):
            raise SchemaViolation("keyword block arguments are not supported by pirc",
                       "." + C.KEYWORD_BLOCK_ARGS)
        ids, types, arg_attrs = [], [], None
        for i, aj in enumerate(args):
            try:
                if type(aj) is not dict:
                    raise SchemaViolation(f"a block argument is {{\"#\": -N, \"TT\": type}}, got {show(aj)}")
                aid = aj.get(C.ID)
                if not is_int(aid) or aid >= 0:
                    raise SchemaViolation(f"a block argument id is a negative integer, got {show(aid)}",
                               "." + C.ID)
                if aid in self.values or aid in ids:
                    raise SchemaViolation(f"value id {aid} is defined twice", "." + C.ID)
                if C.TYPE not in aj:
                    raise SchemaViolation("missing \"TT\" (the argument's type)")
                types.append(self.type(aj[C.TYPE], "." + C.TYPE))
                ids.append(aid)
                if len(aj) > 2 + (C.ATTRS in aj):
                    self.arg_unknown.setdefault(block, {})[i] = {
                        k: v for k, v in aj.items() if k not in (C.ID, C.TYPE, C.ATTRS)}
                if C.ATTRS in aj:
                    if block is not None:
                        raise SchemaViolation("the program block's arguments take no attributes",
                                              "." + C.ATTRS)
                    if arg_attrs is None:
                        arg_attrs = [None] * len(args)
                    arg_attrs[i] = self.attr_list(aj[C.ATTRS], C.ATTRS)
            except SchemaViolation as e:
                raise e.under(f".{C.BLOCK_ARGS}[{i}]") from None
        if block is None:
            block = Block(arg_types=types)
        else:
            for t in types:
                block.insert_arg(t, len(block.args))
        for aid, arg in zip(ids, block.args):
            self.values[aid] = arg
        if None in self.arg_unknown:  # arguments of the program's own block
            self.arg_unknown[block] = self.arg_unknown.pop(None)
        if arg_attrs is not None:
            self.arg_attrs[block] = arg_attrs
        ops = bj.get(C.OPS)
        if type(ops) is not list and type(ops) is not OpStream:
            raise SchemaViolation(f"expected a list of ops, got {show(ops)}", "." + C.OPS)
        op = self.op
        for i, oj in enumerate(ops):
            try:
                op(oj, block)
            except SchemaViolation as e:
                raise e.under(f".{C.OPS}[{i}]") from None
            except RecursionError:
                # Python's own limit, met before pirc's (values are measured as they are
                # decoded, but keys are built first): say where the op goes past pirc's.
                raise self.too_deep(oj).under(f".{C.OPS}[{i}]") from None
            except (KeyError, TypeError, IndexError, ValueError, AttributeError) as e:
                # A shape the checks below did not anticipate: still a located
                # message, never a traceback.
                raise SchemaViolation(f"malformed op ({type(e).__name__}: {e})", f".{C.OPS}[{i}]") from None
        return block

    # -- ops ---------------------------------------------------------------------

    def op_name(self, code) -> tuple[str, type]:
        if type(code) is not str:
            raise SchemaViolation(f"an op name is a string \"<dialect id>.<name>\", got {show(code)}",
                       "." + C.ID)
        if string_over(code, self.max_string):
            raise SchemaLimit(limits.MAX_STRING_ATTR.message(len(code)), "." + C.ID)
        prefix, dot, short = code.partition(".")
        if not dot or not prefix or not short:
            raise SchemaViolation(f"an op name is \"<dialect id>.<name>\" (\"1.matmul\"), got {show(code)}",
                       "." + C.ID)
        dialect = C.DIALECT_BY_ID.get(prefix)
        if dialect is not None:
            name = f"{dialect}.{short}"
        elif prefix.lstrip("-").isdigit():
            known = ", ".join(f"{i} = {n}" for n, i in C.DIALECT_IDS.items())
            raise SchemaViolation(f"unknown dialect id {prefix} in op {show(code)}; known ids: {known}",
                       "." + C.ID)
        else:
            # Paddle's writer keeps the name of a dialect it has no id for.
            name = code
        try:
            entry = (name, op_class(name, self.version))
        except OpNameError as e:  # the one op-name rule, pirc.ir.op_names
            raise SchemaViolation(str(e), "." + C.ID) from None
        self.names[code] = entry
        return entry

    def op(self, oj, block: Block) -> None:
        # The hot path of the reader: literal keys (codes.py names them), no
        # per-entry validation beyond what a memo hit implies; anything
        # unexpected drops to the careful helpers, which say what is wrong.
        if type(oj) is not dict:
            raise SchemaViolation(f"an op is a JSON object, got {show(oj)}")
        code = oj.get("#")
        if code == "p":
            return self.parameter(oj, block)
        entry = self.names.get(code)
        if entry is None:
            entry = self.op_name(code)
        values = self.values

        # operands
        # (an entry with a key pirc does not know is left out, and read carefully: `odd`)
        odd = not OP_KEYS.issuperset(oj)
        refs = oj.get("I")
        try:
            operands = [values[r["%"]] for r in refs if len(r) == 1]
            if len(operands) != len(refs):
                raise KeyError
        except KEY_ERRORS:
            operands = self.operands_slowly(refs)
            odd = True
        else:
            if None in operands:  # id 0
                operands = [null_value() if v is None else v for v in operands]

        # results
        outs = oj.get("O")
        try:
            result_ids = [r["%"] for r in outs if len(r) == 2]
            if len(result_ids) != len(outs):
                raise KeyError
            types_cache = self.types
            result_types = [types_cache[type_key(r["TT"])] for r in outs]
        except KEY_ERRORS:
            result_ids, result_types = self.results_carefully(outs)
            odd = True
        for rid in result_ids:
            if type(rid) is not int or rid <= 0 or rid in values:
                i = result_ids.index(rid)
                raise SchemaViolation(self.bad_result_id(rid), f".{C.RESULTS}[{i}].%")

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
                # attr_key inlined for scalars (the key it would return)
                attributes[name] = cache[(at["#"], d, td) if td is bool or td is int or td is str
                                         else attr_key(at)]
            if oa:
                for e in oa:
                    at = e["AT"]
                    name = e["N"]
                    if type(name) is not str:
                        raise TypeError
                    attributes[name] = cache[attr_key(at)]
            if len(attributes) != len(a) + (len(oa) if oa else 0):
                raise KeyError
        except KEY_ERRORS:
            attributes = self.attributes_carefully(a, oa)

        properties = None
        if "DA" in oj or "QA" in oj:
            properties = self.side_attrs(oj, default_present=False)
        if regions and self.arg_attrs:
            bas = self.block_arg_attrs(regions)
            if bas is not None:
                properties = {**(properties or {}), BLOCK_ARG_ATTRS: bas}
        if odd or (regions and self.arg_unknown):
            properties = self.unknown_keys(oj, regions, properties)

        op = append_op(entry[1], operands, result_types, attributes, block, regions, properties)
        for rid, r in zip(result_ids, op.results):
            values[rid] = r

    def regions(self, rjs) -> list:
        if type(rjs) is not list:
            raise SchemaViolation(f"expected a list of regions, got {show(rjs)}", "." + C.REGIONS)
        outer = self.depth
        inner = outer + REGION_STEP
        if inner + LEAF_STEP > limits.MAX_NESTING.value():
            raise SchemaLimit(limits.MAX_NESTING.message(inner + LEAF_STEP), "." + C.REGIONS)
        memos = self.memos_by_depth.get(inner)
        if memos is None:
            memos = self.memos_by_depth[inner] = ({}, {})
        saved = self.attrs, self.types
        self.attrs, self.types = memos
        self.depth, self.leaf_depth = inner, inner + LEAF_STEP + 1
        try:
            regions = []
            for i, rj in enumerate(rjs):
                try:
                    regions.append(self.region(rj))
                except SchemaViolation as e:
                    raise e.under(f".{C.REGIONS}[{i}]") from None
            return regions
        finally:
            self.attrs, self.types = saved
            self.depth, self.leaf_depth = outer, outer + LEAF_STEP + 1

    def unknown_keys(self, oj, regions, properties):
        """Keep the keys of an op, its operands, results and its blocks' arguments that pirc
        does not know (Paddle ignores them): they are written back, and reported."""
        found = {}
        for r, region in enumerate(regions):
            for b, blk in enumerate(region.blocks):
                for i, keys in self.arg_unknown.pop(blk, {}).items():
                    found[f"regions[{r}].blocks[{b}].args[{i}]"] = keys
        found.update(keep_unknown(oj, OP_KEYS if oj.get(C.ID) != C.PARAMETER_CODE else PARAMETER_KEYS))
        if not found:
            return properties
        try:
            check_value(found, self.depth, self.bounds)
        except TooDeep as e:
            raise SchemaLimit(e.message, e.path) from None
        self.unknown_seen = True
        return {**(properties or {}), UNKNOWN_KEYS_PROPERTY: StringAttr(json.dumps(
            found, ensure_ascii=False, separators=(",", ":"), sort_keys=True))}

    def block_arg_attrs(self, regions):
        """The BLOCK_ARG_ATTRS property for an op's regions (as the text parser builds it),
        or None when none of their blocks' arguments has attributes."""
        pending = self.arg_attrs
        if not any(b in pending for r in regions for b in r.blocks):
            return None
        per_region = []
        for r in regions:
            blocks = []
            for b in r.blocks:
                attrs = pending.pop(b, None) or [None] * len(b.args)
                blocks.append(A.array_attr(DictionaryAttr(a or {}) for a in attrs))
            per_region.append(A.array_attr(blocks))
        return A.array_attr(per_region)

    def too_deep(self, oj) -> SchemaViolation:
        try:
            check_value(oj, self.depth)
        except TooDeep as e:
            return SchemaLimit(e.message, e.path)
        return SchemaLimit("the op nests deeper than this Python can read (its recursion "
                           "limit is below pirc's nesting limit, PIRC_MAX_NESTING)")

    def attributes_carefully(self, a, oa) -> dict:
        attributes = self.attr_list(a, C.ATTRS)
        if oa is not None:
            oa_attrs = self.attr_list(oa, C.RESULT_ATTRS)
            for k in oa_attrs:
                if k in attributes:
                    raise SchemaViolation(f"attribute \"{k}\" appears in both \"A\" and \"OA\"",
                               "." + C.RESULT_ATTRS)
            attributes.update(oa_attrs)
        return attributes

    def results_carefully(self, outs) -> tuple[list, list]:
        if type(outs) is not list:
            raise SchemaViolation(f"expected a list of results, got {show(outs)}", "." + C.RESULTS)
        ids, types = [], []
        for i, rj in enumerate(outs):
            where = f".{C.RESULTS}[{i}]"
            if type(rj) is not dict or C.VALUE_ID not in rj or C.TYPE not in rj:
                raise SchemaViolation(f"a result is {{\"%\": id, \"TT\": type}}, got {show(rj)}", where)
            ids.append(rj[C.VALUE_ID])
            types.append(self.type(rj[C.TYPE], f"{where}.{C.TYPE}"))
        return ids, types

    def operands_slowly(self, refs) -> list:
        """The operand list again, checking each entry, to say what is wrong."""
        if type(refs) is not list:
            raise SchemaViolation(f"expected a list of operands [{{\"%\": id}}, ...], got {show(refs)}",
                       "." + C.OPERANDS)
        out = []
        for i, r in enumerate(refs):
            where = f".{C.OPERANDS}[{i}]"
            if type(r) is not dict or C.VALUE_ID not in r:
                raise SchemaViolation(f"an operand is {{\"%\": id}}, got {show(r)}", where)
            vid = r[C.VALUE_ID]
            if not is_int(vid):
                raise SchemaViolation(f"a value id is an integer, got {show(vid)}", where)
            v = self.values.get(vid)
            if v is None and vid != 0:
                raise SchemaViolation(f"operand refers to value id {vid}, which no earlier op result or "
                           "block argument in scope defines (Paddle would silently substitute a "
                           "null value; pirc refuses)", where)
            out.append(null_value() if vid == 0 else v)
        return out

    def bad_result_id(self, rid) -> str:
        if not is_int(rid) or rid <= 0:
            return f"a result id is a positive integer, got {show(rid)}"
        return f"value id {rid} is defined twice"

    def parameter(self, oj, block: Block) -> None:
        """The compact `"#":"p"` form of builtin.parameter.

        Flags are 0/1 (Paddle reads any non-zero integer, or a JSON boolean,
        as true).  DA/QA are written by Paddle as [] on every parameter; only
        a departure from that is recorded (see codes.DA_PROPERTY).
        """
        a = oj.get("A")
        if (type(a) is not list or len(a) != 4 or type(a[3]) is not str
                or not (is_flag(a[0]) and is_flag(a[1]) and is_flag(a[2]))):
            raise SchemaViolation("builtin.parameter's compact \"A\" is [is_distributed, is_parameter, "
                       f"need_clip, \"name\"] with 0/1 flags, got {show(a)}", "." + C.ATTRS)
        if oj.get("I") or "regions" in oj:
            raise SchemaViolation("builtin.parameter (\"p\") takes no operands and has no regions")
        rj = oj.get("O")
        if type(rj) is not dict or type(rj.get("%")) is not int or "TT" not in rj:
            raise SchemaViolation("builtin.parameter's \"O\" is one object {\"%\": id, \"TT\": type}, "
                       f"got {show(rj)}", "." + C.RESULTS)
        if string_over(a[3], self.max_string):
            raise SchemaLimit(limits.MAX_STRING_ATTR.message(len(a[3])), f".{C.ATTRS}[3]")
        rid = rj["%"]
        if rid <= 0 or rid in self.values:
            raise SchemaViolation(self.bad_result_id(rid), f".{C.RESULTS}.%")
        try:
            t = self.types[type_key(rj["TT"])]
        except KEY_ERRORS:
            try:
                t = self.type(rj["TT"], "")
            except SchemaViolation as e:
                raise e.under(f".{C.RESULTS}.{C.TYPE}") from None
        flags = _FLAG_ARRAYS
        attributes = {_IS_DISTRIBUTED: flags[a[0] != 0], _IS_PARAMETER: flags[a[1] != 0],
                      _NEED_CLIP: flags[a[2] != 0], C.PARAMETER_NAME: A.str_attr(a[3])}
        oa = oj.get("OA")
        if oa is not None:
            if (type(oa) is not list or len(oa) != 3
                    or not (is_flag(oa[0]) and is_flag(oa[1]) and is_flag(oa[2]))):
                raise SchemaViolation("builtin.parameter's compact \"OA\" is [persistable, stop_gradient, "
                           f"trainable] as 0/1 flags, got {show(oa)}", "." + C.RESULT_ATTRS)
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
        if not PARAMETER_KEYS.issuperset(oj) or len(rj) != 2:
            properties = self.unknown_keys(oj, (), properties)
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
            raise SchemaViolation(f"expected a list of {{\"AT\": attribute, \"N\": name}}, got "
                       f"{show(entries)}", "." + key)
        out: dict = {}
        for i, e in enumerate(entries):
            where = f".{key}[{i}]"
            if type(e) is not dict or type(e.get(C.NAME)) is not str or C.ATTR not in e:
                raise SchemaViolation(f"an attribute entry is {{\"AT\": attribute, \"N\": name}}, got "
                           f"{show(e)}", where)
            name = e[C.NAME]
            if name in out:
                raise SchemaViolation(f"attribute \"{name}\" appears twice", where)
            out[name] = self.attr(e[C.ATTR], f"{where}.{C.ATTR}")
        return out

def _check_kept(value, depth: int, path: str) -> None:
    """A value pirc keeps without reading it (an extra key) is within the limits."""
    try:
        check_value(value, depth)
    except TooDeep as e:
        raise SchemaLimit(e.message, path + e.path) from None


(_IS_DISTRIBUTED, _), (_IS_PARAMETER, _), (_NEED_CLIP, _) = C.PARAMETER_A_FLAGS
(_PERSISTABLE, _), (_STOP_GRADIENT, _), (_TRAINABLE, _) = C.PARAMETER_OA_FLAGS

_FLAG_ARRAYS = {
    False: A.array_attr((A.bool_attr(False),)),
    True: A.array_attr((A.bool_attr(True),)),
}
