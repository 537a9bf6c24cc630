"""pirc's canonical text: lossless, versioned, and read back by the same grammar.

It is Paddle's printed form plus everything Paddle's printer drops:

* a header: `pir.version N` and `pir.graph_tags [("pass", 1, "on"), ...]`;
* every attribute's PIR kind as a 2.6-style tag: `(Int32)-1`, `(Double)1e-05`,
  `(Float)0.02` (shortest decimal that round-trips in the kind's own width),
  `(pd_op.IntArray)[1,2]`; strings as JSON string literals;
* non-default tensor layout/lod/offset: `tensor<2x3xf32,layout:NHWC>`;
* regions in one generic form for every op: `: (T) -> R ({ ... }, { ... })`,
  with typed block arguments: `^%arg_0 : tensor<1xi64> {stop_gradient:true}`.

print -> parse -> print is a fixpoint, and parse(print(P)) equals P.
"""

from __future__ import annotations

import json

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr

from ..ir import attrs as A
from ..ir.paddle_names import lossless_place_text
from ..paddle_json.codes import DA_PROPERTY, QA_PROPERTY
from .attr_literals import KIND_TAGS
from .floats import shortest_f32, shortest_f64
from .printer_base import PrinterBase, PrintError, attr_name_text
from .types_text import type_text


def print_canonical(program) -> str:
    return CanonicalPrinter.print(program)


class CanonicalPrinter(PrinterBase):
    @staticmethod
    def spell_attr(attr) -> str:
        return canonical_attr_text(attr)

    def print_program(self, program):
        tags = ", ".join(_tag_text(t) for t in program.graph_tags)
        self.out.append(f"pir.version {program.version}\npir.graph_tags [{tags}]\n")
        if program.manifest is not None:
            self.out.append(_manifest_text(program.manifest))
        self.out.append("{\n")
        self.print_block_ops(program.block, 1)
        self.out.append("}\n")

    def print_block_ops(self, block, depth: int):
        for op in block.ops:
            self.print_op(op, depth)

    def print_op(self, op, depth: int):
        if op.properties:
            self.refuse_json_side_attributes(op)
        indent = self.INDENT * depth
        results = self.name_results(op)
        operands = self.operand_list(op)
        attrs = self.dict_text(op.attributes)
        operand_types = self.types_text(op.operands)
        result_types = self.types_text(op.results)
        line = f'{indent}{results} = "{op.name}" {operands} {attrs} : ({operand_types}) -> {result_types}'
        if not op.regions:
            self.out.append(line + "\n")
            return
        if any(not region.blocks for region in op.regions):
            # `{ }` reads back as a region holding one empty block: a region with no block
            # at all has no spelling of its own (Paddle's programs never hold one).
            raise PrintError(f"{op.name} has a region without blocks, which canonical text cannot "
                             "tell from a region with one empty block: write it as JSON (--emit=json)")
        self.out.append(line + " (")
        for ri, region in enumerate(op.regions):
            self.out.append("{\n" if ri == 0 else ", {\n")
            many = region.blocks[0] is not region.blocks[-1] if region.blocks else False
            for bi, block in enumerate(region.blocks):
                self.print_block_header(op, ri, bi, block, depth + 1, many)
                self.print_block_ops(block, depth + 1)
            self.out.append(f"{indent}}}")
        self.out.append(")\n")

    def refuse_json_side_attributes(self, op):
        # Paddle's JSON can give an op dist / quant attribute lists ("DA", "QA"; real programs
        # carry them empty, on parameters only), which the reader keeps as op properties.
        # The canonical text has no spelling for them yet, and it must lose nothing: refuse
        # rather than write a file that reads back as another program.
        # Absent or empty lists say nothing (program equality ignores them): only entries count.
        held = [k for k in (DA_PROPERTY, QA_PROPERTY) if getattr(op.properties.get(k), "data", None)]
        if held:
            keys = " and ".join('"DA"' if k == DA_PROPERTY else '"QA"' for k in held)
            raise PrintError(f"{op.name} carries Paddle JSON {keys} (dist / quant attributes) other than "
                             "Paddle's default, which canonical text cannot hold: write it as JSON "
                             "(--emit=json) to keep them")

    def print_block_header(self, op, ri: int, bi: int, block, depth: int, many: bool):
        # A `^` line opens a block; the first block of a one-block region
        # needs none unless it has arguments.
        if not block.args and bi == 0 and not many:
            return
        names = self.name_block_args(block)
        arg_attrs = self.block_arg_attrs(op, ri, bi)
        parts = []
        for i, (n, arg) in enumerate(zip(names, block.args)):
            text = f"{n} : {type_text(arg.type, True)}"
            if i < len(arg_attrs) and arg_attrs[i]:
                text += " " + self.dict_text(arg_attrs[i])
            parts.append(text)
        self.out.append(f"{self.INDENT * depth}^{', '.join(parts)}\n")

    def types_text(self, values) -> str:
        # type_text inlined (memoised by identity): twice per op
        memo = self.type_memo
        parts = []
        for v in values:
            t = v.type
            text = memo.get(id(t))
            if text is None:
                text = memo[id(t)] = type_text(t, True)
            parts.append(text)
        return ", ".join(parts)

    def dict_text(self, attributes) -> str:
        # attr_text inlined: this runs once per op, for every attribute
        memo, spell = self.attr_memo, self.spell_attr
        parts = []
        for name in sorted(attributes):
            attr = attributes[name]
            text = memo.get(id(attr))
            if text is None:
                text = memo[id(attr)] = spell(attr)
            parts.append(f"{attr_name_text(name)}:{text}")
        return "{" + ",".join(parts) + "}"



_INT_TAGS = {A.i32: "(Int32)", A.i64: "(Int64)", A.index: "(Index)"}


def _tag_text(t) -> str:
    fields = [json.dumps(t.pass_name), str(t.pass_version), json.dumps(t.rollout)]
    if t.before is not None or t.after is not None:
        fields += [json.dumps(t.before or ""), json.dumps(t.after or "")]
    return "(" + ", ".join(fields) + ")"


def _manifest_text(m) -> str:
    fields = [f"pirc_version: {json.dumps(m.pirc_version)}", f"pir_version: {m.pir_version}",
              f"op_versions: {json.dumps(m.op_versions)}", f"pipeline: {json.dumps(m.pipeline)}"]
    if m.pipeline_version is not None:
        fields.append(f"pipeline_version: {m.pipeline_version}")
    return "pir.manifest {" + ", ".join(fields) + "}\n"


def canonical_attr_text(attr) -> str:
    cls = type(attr)
    if cls is IntegerAttr:
        value = attr.value.data
        if attr.type == A.i1:
            return "true" if value else "false"
        return f"{_INT_TAGS[attr.type]}{value}"
    if cls is FloatAttr:
        if A.attr_kind(attr) == "float":
            return "(Float)" + shortest_f32(attr.value.data)
        return "(Double)" + shortest_f64(attr.value.data)
    if cls is StringAttr:
        return json.dumps(attr.data, ensure_ascii=False)
    if cls is ArrayAttr:
        return "[" + ",".join(canonical_attr_text(a) for a in attr.data) + "]"
    if cls is A.DataTypeAttr:
        return KIND_TAGS["dtype"] + attr.data
    if cls is A.DataLayoutAttr:
        return KIND_TAGS["layout"] + attr.data
    if cls is A.PlaceAttr:
        text = lossless_place_text(*attr.data)
        if text is None:
            raise PrintError(f"cannot print place {list(attr.data)} as text: its device type is "
                             "not an identifier; --emit=json keeps it")
        return text
    if cls is A.IntArrayAttr:
        return KIND_TAGS["int_array"] + "[" + ",".join(str(v) for v in attr.data) + "]"
    if cls is A.TypeAttr:
        return "(Type)" + type_text(attr.type, True)
    if cls is A.TensorNameAttr:
        return KIND_TAGS["tensor_name"] + json.dumps(attr.data, ensure_ascii=False)
    if cls is A.ComplexAttr:
        kind = A.attr_kind(attr)
        fmt = shortest_f32 if kind == "complex64" else shortest_f64
        return f"{KIND_TAGS[kind]}[{fmt(attr.real.value.data)},{fmt(attr.imag.value.data)}]"
    if cls is A.NullAttr:
        return "<#AttrNull>"
    if cls is A.ScalarAttr:
        # JSON's `1.a_scalar` data ([dtype, value...], any JSON) kept verbatim as a string.
        return KIND_TAGS["scalar"] + json.dumps(json.dumps(list(attr.data)), ensure_ascii=False)
    raise TypeError(f"no canonical spelling for attribute {attr}")
