"""Write a pirc `Program` as Paddle's saved-program JSON.

The output is what Paddle's ProgramWriter (ir_serialize.cc) produces: one
line of compact JSON whose object keys come out sorted (nlohmann::json keeps
objects in a std::map), or, with `readable=True`, the same document indented
by 4 as `serialize_pir_program(..., readable=True)` writes it.

Numbering follows Paddle's writer exactly (checked against
corpus/*/control_flow.*.json):
  * op results get ids 1, 2, 3, ... from one counter, in write order; an op's
    results are numbered before the ops inside its regions;
  * block arguments get -1, -2, ... from one counter shared by every block
    of the file;
  * regions and blocks are named region_N / block_N, each from its own
    counter over the whole file, in the same pre-order walk.

The document is assembled from string fragments rather than through
json.dumps of a nested structure: a 100k-op program has a few hundred
distinct types and attributes, and each one's fragment is built once per
write (memoised by object identity, which is stable while the program is
alive).
"""

from __future__ import annotations

import json
import math

from xdsl.dialects.builtin import (
    ArrayAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)

import warnings

from .. import limits
from ..errors import JsonError, PircWarning
from ..ir import attrs as A
from ..ir.builder import gc_paused
from ..ir.ops import BLOCK_ARG_ATTRS, RESULT_ATTR_NAMES, NullValueOp
from ..ir.program import Program
from ..ir.types import (
    ELEMENT_TYPE_NAMES,
    DenseTensorArrayType,
    DenseTensorType,
    NullType,
    SelectedRowsType,
    SparseCooTensorType,
    VectorType,
)
from . import codes as C
from .bounds import LEAF_STEP, REGION_STEP, TOP_OP_DEPTH, TooDeep, check_value, short_path
from .unknown_keys import UNKNOWN_KEYS_PROPERTY, restore
from .write_bounds import leaf_depth

__all__ = ["write_program", "json_attribute_names", "PaddleCannotLoadWarning"]

# Dialects that are pirc's own (dialects/npu.yaml): Paddle has no op of theirs, so a file
# holding one loads in pirc only.
PIRC_DIALECTS = frozenset({"npu"})


class PaddleCannotLoadWarning(PircWarning):
    """The JSON written holds ops of pirc's own dialects (npu.*, made by `--pipeline=npu`):
    Paddle cannot load the file; pirc reads it back.  One per file written, naming the op
    kinds (not one per op)."""

_RESULT_ATTRS = frozenset(RESULT_ATTR_NAMES)
_PARAMETER_ATTRS = frozenset(
    [n for n, _ in C.PARAMETER_A_FLAGS] + [C.PARAMETER_NAME] + [n for n, _ in C.PARAMETER_OA_FLAGS])


def json_attribute_names(op) -> list[str]:
    """The names written to an op's `A` list, in order.

    Paddle writes a pd_op's attributes in its op definition's order and every
    other op's in its attribute map's order.  pirc keeps attributes in the
    order they were read, so a JSON file round-trips exactly; an op built by
    other means is written in dict order.

    TODO(specs): the lead wires this to the op spec's attribute order for ops
    whose attributes did not come from JSON (attributes the spec does not
    name keep their dict order, after the spec's).

    The writer calls this once per (op class, attribute names, attribute
    objects): an override must depend on nothing else.
    """
    return [n for n in op.attributes if n not in _RESULT_ATTRS]


def write_program(program: Program, readable: bool = False, attribute_names=None) -> str:
    """`program` as Paddle saved-program JSON text.

    `attribute_names(op) -> list[str]` overrides `json_attribute_names`.
    """
    # The writer allocates a few lists per op; with the cyclic GC running,
    # each collection would rescan the whole program.
    with gc_paused():
        text = "".join(write_program_chunks(program, attribute_names))
    if readable:
        # Same key order and number spelling; only the layout changes.
        return json.dumps(json.loads(text), indent=4, ensure_ascii=False)
    return text


def write_program_chunks(program: Program, attribute_names=None):
    """The compact JSON text of `program` in pieces, one per top-level op.

    Writing a 100k-op program to a file piece by piece never holds the
    whole 30 MB text (and the list of its parts) in memory at once.
    """
    writer = _Writer(program, attribute_names or json_attribute_names)
    try:
        head, tail = writer.document().split(_TOP_OPS, 1)
        yield head
        yield from writer.top_ops()
        yield tail
        if writer.pirc_ops:
            kinds = ", ".join(sorted(writer.pirc_ops))
            warnings.warn(PaddleCannotLoadWarning(
                f"the Paddle JSON written holds ops of pirc's npu dialect ({kinds}): Paddle "
                "cannot load it (pirc reads it back); for a file Paddle loads, write the "
                "program before the npu fusions (--pipeline=fuse)"), stacklevel=2)
    except RecursionError:
        # Only when PIRC_MAX_NESTING is raised past what Python's stack allows.
        raise JsonError("the program nests deeper than this Python can write (its recursion "
                        "limit is below pirc's nesting limit, PIRC_MAX_NESTING)") from None


# Stands for the top-level block's op list in the document skeleton.
_TOP_OPS = "\x00pirc-top-level-ops\x00"


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _float(value: float) -> str:
    # repr is the shortest decimal that reads back as the same double, the
    # spelling nlohmann::json uses too; an f32 attribute holds the double its
    # f32 value widens to, so the same digits come back.
    return repr(float(value))


class _Writer:
    def __init__(self, program: Program, attribute_names):
        self.program = program
        self.attribute_names = attribute_names
        self.trainable = program.trainable
        self.next_value = 1
        self.next_arg = -1
        self.next_region = 0
        self.next_block = 0
        self.values: dict[int, str] = {}  # id(SSAValue) -> '{"%":N}'
        self.type_frags: dict[int, str] = {}
        self.attr_frags: dict[int, str] = {}
        self.entry_frags: dict[tuple, str] = {}
        self.codes: dict[str, str] = {}
        self.pirc_ops: set[str] = set()  # names of pirc-dialect ops written (code() finds them)
        self.attr_sets: dict[tuple, tuple] = {}
        self.top_block = program.module.body.blocks[0] if program.module.body.blocks else None
        self.top_path = "program.regions[0].blocks[0]"
        # The JSON depth of the ops being written (bounds.py counts it as the reader does),
        # and each attribute's and type's own depth, by id.
        self.depth = TOP_OP_DEPTH
        self.max_depth = limits.MAX_NESTING.value()
        self.max_string = limits.MAX_STRING_ATTR.value()
        self.leaf_depths: dict[int, int] = {}

    # -- document ------------------------------------------------------------

    def document(self) -> str:
        p = self.program
        extra = p.extra or {}
        for where, depth in (("top", 1), ("base_code", 2), ("program", 2), ("pirc", 3)):
            try:
                check_value(extra.get(where, {}), depth)
            except TooDeep as e:
                raise JsonError(f"an extra key pirc kept from the input: {e.message}",
                                path=(where if where != "top" else "") + e.path) from None
        base = {C.MAGIC: _dumps(C.MAGIC_VALUE), C.TRAINABLE: _dumps(bool(p.trainable)),
                C.VERSION: _dumps(p.version)}
        meta = dict(extra.get("pirc", {}))
        if p.graph_tags:
            meta[C.GRAPH_TAGS] = [_tag_json(t) for t in p.graph_tags]
        if p.manifest is not None:
            meta[C.MANIFEST] = _manifest_json(p.manifest)
        if meta:
            base[C.PIRC_KEY] = _dumps(meta)
        for k, v in extra.get("base_code", {}).items():
            base.setdefault(k, _dumps(v))
        if TOP_OP_DEPTH + LEAF_STEP > self.max_depth:
            # a top-level op's lists of operands, results, attributes (the reader's rule too)
            raise JsonError("the program's ops would nest the JSON past the reader's limit: "
                            + limits.MAX_NESTING.message(TOP_OP_DEPTH + LEAF_STEP),
                            path="program.regions[0].blocks[0].ops")
        region = self.region(p.module.body, "program.regions[0]")
        prog = {C.REGIONS: "[" + region + "]"}
        for k, v in extra.get("program", {}).items():
            prog.setdefault(k, _dumps(v))
        top = {C.BASE_CODE: self.obj(base), C.PROGRAM: self.obj(prog)}
        for k, v in extra.get("top", {}).items():
            top.setdefault(k, _dumps(v))
        return self.obj(top)

    @staticmethod
    def obj(frags: dict[str, str]) -> str:
        return "{" + ",".join(_dumps(k) + ":" + frags[k] for k in sorted(frags)) + "}"

    # -- structure ---------------------------------------------------------------

    def region(self, region, path: str, arg_attrs=None) -> str:
        name = f"region_{self.next_region}"
        self.next_region += 1
        per_block = arg_attrs.data if type(arg_attrs) is ArrayAttr else ()
        blocks = [self.block(b, f"{path}.blocks[{i}]", per_block[i] if i < len(per_block) else None)
                  for i, b in enumerate(region.blocks)]
        return '{"#":"' + name + '","blocks":[' + ",".join(blocks) + "]}"

    def block(self, block, path: str, arg_attrs=None) -> str:
        name = f"block_{self.next_block}"
        self.next_block += 1
        args = []
        nested = self.depth != TOP_OP_DEPTH
        per_arg = arg_attrs.data if type(arg_attrs) is ArrayAttr else ()
        for i, arg in enumerate(block.args):
            if nested:
                self.check_leaf(arg.type, "a block argument's type")
            n = self.next_arg
            self.next_arg -= 1
            self.values[id(arg)] = '{"%":' + str(n) + "}"
            attrs = per_arg[i].data if i < len(per_arg) else None
            if attrs:
                # Block-argument attributes (`^%arg_0 {stop_gradient:true}`): Paddle's
                # writer drops them; pirc keeps them in an "A" list like an op's, which
                # Paddle's reader ignores (docs/TEXT-FORMATS.md).
                for k, v in attrs.items():
                    self.check_leaf(v, f"block argument attribute \"{k}\"")
                a = ',"A":[' + ",".join(self.entry(k, v) for k, v in attrs.items()) + "]"
            else:
                a = ""
            args.append('{"#":' + str(n) + a + ',"TT":' + self.type(arg.type) + "}")
        if block is self.top_block:
            ops_text = _TOP_OPS  # streamed by top_ops()
        else:
            ops_text = ",".join(self.ops(block, path))
        return ('{"#":"' + name + '","args":[' + ",".join(args) + '],"ops":['
                + ops_text + "]}")

    def ops(self, block, path: str):
        """The JSON of each op of `block`, in order."""
        op_frag = self.op
        for i, op in enumerate(block.ops):
            try:
                yield op_frag(op, path, i)
            except _Unwritable as e:
                raise JsonError(e.args[0], path=short_path(f"{path}.ops[{i}]")) from None
            except JsonError as e:
                if not e.path:
                    e.path = f"{path}.ops[{i}]"
                raise

    def top_ops(self):
        """The top-level block's ops, comma-separated, piece by piece."""
        if self.top_block is None:
            return
        first = True
        for frag in self.ops(self.top_block, self.top_path):
            yield frag if first else "," + frag
            first = False

    # -- ops -------------------------------------------------------------------

    def code(self, op) -> str:
        name = op.name
        code = self.codes.get(name)
        if code is None:
            dialect, dot, short = name.partition(".")
            if not dot or not dialect or not short or dialect.lstrip("-").isdigit():
                # the reader would refuse the name, or read it as another op
                raise _Unwritable(f"op name {_dumps(name)} cannot be saved in Paddle JSON, which "
                                  "names an op <dialect>.<name> (\"pd_op.relu\") with a dialect "
                                  "name that is not a number")
            did = C.DIALECT_IDS.get(dialect)
            if dialect in PIRC_DIALECTS:
                self.pirc_ops.add(name)
            # Paddle keeps the name of a dialect it has no id for.
            code = _dumps(f"{did}.{short}" if did is not None else name)
            self.codes[name] = code
        return code

    def op(self, op, block_path: str, index: int) -> str:
        cls = type(op)
        attrs = op.attributes
        # Ops of one class with the same attribute objects share their A/OA
        # fragments; ids are stable while the program is alive.
        sig = (cls, tuple(attrs), tuple(map(id, attrs.values())))
        frags = self.attr_sets.get(sig)
        if frags is None:
            frags = self.attribute_fragments(op)
            self.attr_sets[sig] = frags
        if frags[2] is not None:
            frag = self.parameter(op, frags)
            if frag is not None:
                unknown = op.properties.get(UNKNOWN_KEYS_PROPERTY)
                return frag if unknown is None else restore(frag, unknown.data)
            frags = self.attribute_fragments(op, compact=False)  # operands or regions: generic

        values = self.values
        operands = []
        for v in op.operands:
            ref = values.get(id(v))
            if ref is None:
                if type(v.owner) is not NullValueOp:
                    raise _Unwritable(
                        f"{op.name} uses a value that is not defined before it in write order "
                        "(an op result or block argument of an enclosing block)")
                ref = '{"%":0}'
            operands.append(ref)
        results = []
        type_frag = self.type
        n = self.next_value
        for r in op.results:
            sn = str(n)
            n += 1
            values[id(r)] = '{"%":' + sn + "}"
            results.append('{"%":' + sn + ',"TT":' + type_frag(r.type) + "}")
        self.next_value = n
        if self.depth != TOP_OP_DEPTH:
            # memoised fragments were measured where first written, maybe shallower
            self.check_nested_op(op)
        regions = None
        if op.regions:
            where = f"{block_path}.ops[{index}].regions"
            outer = self.depth
            inner = outer + REGION_STEP
            if inner + LEAF_STEP > self.max_depth:
                raise _Unwritable("its regions would nest the JSON past the reader's limit: "
                                  + limits.MAX_NESTING.message(inner + LEAF_STEP))
            self.depth = inner
            bas = op.properties.get(BLOCK_ARG_ATTRS) if op.properties else None
            per_region = bas.data if type(bas) is ArrayAttr else ()
            try:
                regions = [self.region(r, f"{where}[{i}]", per_region[i] if i < len(per_region) else None)
                           for i, r in enumerate(op.regions)]
            finally:
                self.depth = outer

        out = [frags[0]]
        props = op.properties
        if props:
            da = props.get(C.DA_PROPERTY)
            if type(da) is ArrayAttr:
                out += [',"DA":', self.side_list(da)]
        out += [',"I":[', ",".join(operands), '],"O":[', ",".join(results), "]", frags[1]]
        if props:
            qa = props.get(C.QA_PROPERTY)
            if type(qa) is ArrayAttr:
                out += [',"QA":', self.side_list(qa)]
        if regions is not None:
            out += [',"regions":[', ",".join(regions), "]"]
        out.append("}")
        if props:
            unknown = props.get(UNKNOWN_KEYS_PROPERTY)
            if unknown is not None:  # keys pirc kept from its input (unknown_keys.py)
                return restore("".join(out), unknown.data)
        return "".join(out)

    def attribute_fragments(self, op, compact: bool = True) -> tuple:
        """(`{"#":..,"A":[..]`, `,"OA":[..]` or "", compact-parameter parts or None).

        For a builtin.parameter whose attributes fit the compact form, the
        generic parts are not built (None): each parameter has its own name,
        so nothing would share them.
        """
        depths = self.leaf_depths
        room = self.max_depth - self.depth - LEAF_STEP
        short = self.max_string // 4  # a string of at most this many characters fits
        for name, value in op.attributes.items():
            if type(value) is StringAttr and room >= 1 and len(value.data) <= short:
                continue  # the common distinct leaf (a parameter's name): depth 1, fits
            d = depths.get(id(value))
            if d is None or d > room:
                self.check_leaf(value, f"attribute \"{name}\"")
        if compact and op.name == C.PARAMETER_OP and (
                self.trainable or not any(n in op.attributes for n, _ in C.PARAMETER_OA_FLAGS)):
            # (without OA, the compact form has no room for the result flags)
            parts = self.compact_parameter(op)
            if parts is not None:
                return None, None, parts
        attrs = op.attributes
        entry = self.entry
        names = self.attribute_names(op)
        missing = [n for n in names if n not in attrs]
        if missing:
            raise _Unwritable(f"the attribute order names {missing}, which {op.name} lacks")
        result_attrs = [(n, v) for n, v in attrs.items() if n in _RESULT_ATTRS]
        oa = ""
        if self.trainable:
            oa = ',"OA":[' + ",".join([entry(n, v) for n, v in result_attrs]) + "]"
        else:
            # Paddle writes no OA for a program saved with trainable=false; an op that has
            # such attributes all the same keeps them in A, which every reader merges.
            names = names + [n for n, _ in result_attrs if n not in names]
        head = ('{"#":' + self.code(op) + ',"A":['
                + ",".join([entry(n, attrs[n]) for n in names]) + "]")
        return head, oa, None

    def compact_parameter(self, op) -> tuple[str, str] | None:
        """The compact `"p"` A and OA fragments, or None when the attributes do not fit.

        Paddle's compact form holds only the seven known attributes as one-bool
        arrays and a string name; anything else is written in the generic
        form `"0.parameter"`, which Paddle's reader also accepts.  A flag the op
        lacks goes generic too: the compact form would give it one, and the
        program read back would differ from the one written (the result flags
        of a trainable=false program are the exception: that form has no OA).
        """
        attrs = op.attributes
        if not _PARAMETER_ATTRS.issuperset(attrs):
            return None
        pname = attrs.get(C.PARAMETER_NAME)
        if type(pname) is not StringAttr:
            return None
        a_flags, oa_flags = [], []
        for names, flags in ((C.PARAMETER_A_FLAGS, a_flags), (C.PARAMETER_OA_FLAGS, oa_flags)):
            for name, default in names:
                v = attrs.get(name)
                if v is None:
                    if flags is a_flags or self.trainable:
                        return None
                    flags.append("1" if default else "0")
                    continue
                if (type(v) is not ArrayAttr or len(v.data) != 1
                        or type(v.data[0]) is not IntegerAttr or v.data[0].type != A.i1):
                    return None
                flags.append("1" if v.data[0].value.data else "0")
        a = '{"#":"p","A":[' + ",".join(a_flags) + "," + _dumps(pname.data) + "]"
        oa = ',"OA":[' + ",".join(oa_flags) + "]" if self.trainable else ""
        return a, oa

    def parameter(self, op, frags) -> str | None:
        """builtin.parameter in the compact `"#":"p"` form, if its structure fits."""
        if op.operands or len(op.results) != 1 or op.regions:
            return None
        a, oa = frags[2]
        r = op.results[0]
        n = str(self.next_value)
        self.next_value += 1
        self.values[id(r)] = '{"%":' + n + "}"
        out = [a]
        props = op.properties
        da = props.get(C.DA_PROPERTY)
        qa = props.get(C.QA_PROPERTY)
        if type(da) is ArrayAttr:
            out += [',"DA":', self.side_list(da)]
        elif da is None:
            out.append(',"DA":[]')
        out += [',"O":{"%":', n, ',"TT":', self.type(r.type), "}", oa]
        if type(qa) is ArrayAttr:
            out += [',"QA":', self.side_list(qa)]
        elif qa is None:
            out.append(',"QA":[]')
        out.append("}")
        return "".join(out)

    def side_list(self, pairs: ArrayAttr) -> str:
        for p in pairs.data:
            self.check_leaf(p, "a DA/QA entry")
        return "[" + ",".join(self.entry(p.data[0].data, p.data[1]) for p in pairs.data) + "]"

    # -- attributes -------------------------------------------------------------

    def entry(self, name: str, attr) -> str:
        key = (name, id(attr))
        frag = self.entry_frags.get(key)
        if frag is None:
            try:
                frag = '{"AT":' + self.attr(attr) + ',"N":' + _dumps(name) + "}"
            except _Unwritable as e:
                raise _Unwritable(f"attribute \"{name}\": {e.args[0]}") from None
            self.entry_frags[key] = frag
        return frag

    def attr(self, attr) -> str:
        frag = self.attr_frags.get(id(attr))
        if frag is None:
            frag = self.encode_attr(attr)
            self.attr_frags[id(attr)] = frag
        return frag

    def encode_attr(self, attr) -> str:
        cls = type(attr)
        if cls is IntegerAttr:
            kind = A.attr_kind(attr) if attr.type in _INT_TYPES else None
            if kind is None:
                raise _Unwritable(f"integer attribute of type {attr.type} has no PIR kind")
            v = attr.value.data
            data = ("true" if v else "false") if kind == "bool" else str(v)
            return '{"#":"' + C.ATTR_CODE_BY_KIND[kind] + '","D":' + data + "}"
        if cls is FloatAttr:
            code = "0.a_f64" if isinstance(attr.type, Float64Type) else "0.a_f32"
            v = float(attr.value.data)
            if math.isfinite(v):
                return '{"#":"' + code + '","D":' + _float(v) + "}"
            spelling = (C.NAN_SPELLING if math.isnan(v)
                        else C.INF_SPELLING if v > 0 else C.NEG_INF_SPELLING)
            return '{"#":"' + code + '","VD":"' + spelling + '"}'
        if cls is StringAttr:
            return '{"#":"0.a_str","D":' + _dumps(attr.data) + "}"
        if cls is ArrayAttr:
            return '{"#":"0.a_array","D":[' + ",".join(self.attr(a) for a in attr.data) + "]}"
        if cls is A.IntArrayAttr:
            return '{"#":"1.a_intarray","D":[' + ",".join(str(int(x)) for x in attr.data) + "]}"
        if cls is A.DataTypeAttr:
            name = C.DTYPE_JSON_BY_PRINTED.get(attr.data, attr.data)
            return '{"#":"1.a_dtype","D":' + _dumps(name) + "}"
        if cls is A.PlaceAttr:
            return '{"#":"1.a_place","D":' + _dumps(list(attr.data)) + "}"
        if cls is A.DataLayoutAttr:
            return '{"#":"1.a_layout","D":' + _dumps(attr.data) + "}"
        if cls is A.TensorNameAttr:
            return '{"#":"0.a_tensorname","D":' + _dumps(attr.data) + "}"
        if cls is A.TypeAttr:
            return '{"#":"0.a_type","D":' + self.type(attr.type) + "}"
        if cls is A.ComplexAttr:
            code = "0.a_c128" if isinstance(attr.element, Float64Type) else "0.a_c64"
            re_, im = float(attr.real.value.data), float(attr.imag.value.data)
            if not (math.isfinite(re_) and math.isfinite(im)):
                raise _Unwritable("a complex attribute with a non-finite part cannot be saved "
                                  "in Paddle JSON")
            return '{"#":"' + code + '","D":[' + _float(re_) + "," + _float(im) + "]}"
        if cls is A.ScalarAttr:
            return '{"#":"1.a_scalar","D":' + _dumps(list(attr.data)) + "}"
        if cls is A.NullAttr:
            return '{"#":"NULL"}'
        raise _Unwritable(f"{attr} is not a PIR attribute and has no Paddle JSON form")

    # -- types -------------------------------------------------------------------

    def check_leaf(self, x, what: str) -> None:
        """Refuse an attribute or type whose JSON the reader would refuse (bounds.py)."""
        d = self.leaf_depths.get(id(x))
        if d is None:
            try:
                d = leaf_depth(x, self.leaf_depths, self.max_depth, self.max_string)
            except TooDeep as e:
                raise _Unwritable(f"{what}: {e.message}") from None
        if self.depth + LEAF_STEP + d > self.max_depth:
            raise _Unwritable(f"{what} would nest the JSON past the reader's limit: "
                              + limits.MAX_NESTING.message(self.depth + LEAF_STEP + d))

    def check_nested_op(self, op) -> None:
        for name, value in op.attributes.items():
            self.check_leaf(value, f"attribute \"{name}\"")
        for r in op.results:
            self.check_leaf(r.type, "a result type")

    def type(self, t) -> str:
        frag = self.type_frags.get(id(t))
        if frag is None:
            self.check_leaf(t, "a type")
            frag = self.encode_type(t)
            self.type_frags[id(t)] = frag
        return frag

    def encode_type(self, t) -> str:
        name = ELEMENT_TYPE_NAMES.get(t)
        if name is not None:
            return '{"#":"' + C.ELEMENT_TYPE_CODE_BY_NAME[name] + '"}'
        cls = type(t)
        if cls is DenseTensorType or cls is SelectedRowsType:
            code = C.T_DENSE_TENSOR if cls is DenseTensorType else C.T_SELECTED_ROWS
            lod = "[" + ",".join("[" + ",".join(map(str, lv)) + "]" for lv in t.lod_levels) + "]"
            return ('{"#":"' + code + '","D":[' + self.type(t.dtype) + ",["
                    + ",".join(map(str, t.shape)) + "]," + _dumps(t.layout.data) + "," + lod
                    + "," + str(t.offset.data) + "]}")
        if cls is SparseCooTensorType:
            return ('{"#":"' + C.T_SPARSE_COO + '","D":[' + self.type(t.dtype) + ",["
                    + ",".join(map(str, t.shape)) + "],[" + ",".join(map(str, t.non_zero_shape))
                    + "]," + _dumps(t.layout.data) + "," + self.type(t.indices) + ","
                    + self.type(t.values) + "]}")
        if cls is DenseTensorArrayType:
            return ('{"#":"' + C.T_DENSE_TENSOR_ARRAY + '","D":[' + self.type(t.dtype) + ",["
                    + ",".join(map(str, t.shape)) + "]," + _dumps(t.layout.data) + "]}")
        if cls is VectorType:
            return '{"#":"0.t_vec","D":[' + ",".join(self.type(x) for x in t.types) + "]}"
        if cls is NullType:
            return '{"#":"NULL"}'
        raise _Unwritable(f"type {t} has no Paddle JSON form")


_INT_TYPES = (A.i1, A.i32, A.i64, A.index)


class _Unwritable(Exception):
    """Something in the IR that Paddle JSON cannot express (located by the caller)."""


def _tag_json(t) -> list:
    fields = [t.pass_name, t.pass_version, t.rollout]
    if t.before is not None or t.after is not None:
        fields += [t.before or "", t.after or ""]
    return fields


def _manifest_json(m) -> dict:
    out = {C.MANIFEST_FIELDS[0]: m.pirc_version, C.MANIFEST_FIELDS[1]: m.pir_version,
           C.MANIFEST_FIELDS[2]: m.op_versions, C.MANIFEST_FIELDS[3]: m.pipeline}
    if m.pipeline_version is not None:
        out[C.MANIFEST_FIELDS[4]] = m.pipeline_version
    return out
