"""`--emit=paddle`: the program printed exactly as Paddle 3.3's `print(program)`.

Byte-for-byte rules (corpus/FORMAT-NOTES.md section 1, Paddle's
ir_printer.cc and control_flow_op.cc): attributes sorted by name with no
spaces, numbers with `%g`, ` -> ` with a trailing space for zero results,
`pd_op.if` with no operand types and `} else {`, `pd_op.while` with
`(cond=..., inputs=...)` and its block arguments on a `^` line.
"""

from __future__ import annotations

import json

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr

from ..errors import excerpt
from ..ir import attrs as A
from ..ir.paddle_names import place_text
from .floats import paddle_g
from .printer_base import PrinterBase, attr_name_text, PrintError, describe_op
from .types_text import type_text

# Ops Paddle prints like pd_op.if: no operand types, ` -> RESULTS {`, and
# `} else {` between regions (pylayer has one region).
_IF_LIKE = frozenset({"pd_op.if", "pd_op.pylayer"})

# Attributes Paddle's printer leaves out (ir_printer.cc).
# Ops whose Paddle text has a fixed structure (checked before printing).
_STRUCTURED = _IF_LIKE | {"pd_op.while"}

HIDDEN_ATTRS = frozenset({"op_callstack", "sym_shape_str"})


def print_paddle(program) -> str:
    return PaddlePrinter.print(program)


class PaddlePrinter(PrinterBase):
    @staticmethod
    def spell_attr(attr) -> str:
        return paddle_attr_text(attr)

    def print_program(self, program):
        self.out.append("{\n")
        self.print_block(program.block, 1)
        self.out.append("}\n")

    def print_block(self, block, depth: int):
        for op in block.ops:
            self.print_op(op, depth)

    def refuse(self, op, why: str):
        raise PrintError(f"cannot print {describe_op(self.program, op)} as Paddle text: {why}; "
                         "--emit=pir (canonical text) or --emit=json keep it")

    def check_structure(self, op):
        """Refuse what Paddle's text cannot show, so that every print reads back as printed."""
        name = op.name
        if name == "pd_op.while":
            if not op.operands:
                self.refuse(op, "a while has a condition operand, this one has no operands")
            if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
                self.refuse(op, "a while has one region of one block (its body)")
            body = op.regions[0].blocks[0]
            inputs = op.operands[1:]
            if len(body.args) != len(inputs):
                self.refuse(op, f"its body has {len(body.args)} arguments for {len(inputs)} inputs; "
                            "Paddle's text gives the body one argument per input")
            for i, (arg, value) in enumerate(zip(body.args, inputs)):
                if arg.type != value.type:
                    self.refuse(op, f"body argument {i} has type {self.type_text(arg.type, False)} "
                                f"but input {i} has type {self.type_text(value.type, False)}; "
                                "Paddle's text shows no body argument types")
            if [r.type for r in op.results] != [v.type for v in inputs]:
                self.refuse(op, "its results differ from its inputs; Paddle's text shows no "
                            "while result types (they are the inputs')")
            return
        expected = {"pd_op.if": 2, "pd_op.pylayer": 1}.get(name)
        if expected is not None and len(op.regions) != expected:
            self.refuse(op, f"it has {len(op.regions)} regions, Paddle's {name} has {expected}")
        for ri, region in enumerate(op.regions):
            if len(region.blocks) != 1:
                self.refuse(op, f"region {ri} has {len(region.blocks)} blocks; Paddle's text "
                            "shows one block per region")
            if region.blocks[0].args:
                self.refuse(op, f"region {ri} has block arguments, which Paddle's text shows "
                            "only for pd_op.while")

    def print_op(self, op, depth: int):
        indent = self.INDENT * depth
        out = self.out
        name = op.name
        if op.regions or name in _STRUCTURED:
            self.check_structure(op)
        if name == "pd_op.while":
            self.print_while(op, depth)
            return
        results = self.name_results(op)
        operands = self.operand_list(op)
        attrs = self.attr_dict(op)
        if name in _IF_LIKE:
            out.append(f'{indent}{results} = "{name}" {operands} {attrs} -> '
                       f"{self.type_list(r.type for r in op.results)} {{\n")
            for i, region in enumerate(op.regions):
                if i:
                    out.append(f"{indent}}} else {{\n")
                for block in region.blocks:
                    self.print_block(block, depth + 1)
            out.append(f"{indent}}}\n")
            return
        operand_types = ", ".join(self.type_text(v.type, False) for v in op.operands)
        out.append(f'{indent}{results} = "{name}" {operands} {attrs} : ({operand_types}) -> '
                   f"{self.type_list(r.type for r in op.results)}\n")
        for region in op.regions:
            out.append(f"{indent}{{\n")
            for block in region.blocks:
                self.print_block(block, depth + 1)
            out.append(f"{indent}}}\n")

    def print_while(self, op, depth: int):
        indent = self.INDENT * depth
        results = self.name_results(op)
        values = [self.value_name(v) for v in op.operands]
        self.out.append(f'{indent}{results} = "{op.name}" (cond={values[0]}, '
                        f"inputs={', '.join(values[1:])}) {{ \n")
        body = op.regions[0].blocks[0]
        names = self.name_block_args(body)
        arg_attrs = self.block_arg_attrs(op, 0, 0)
        parts = []
        for i, n in enumerate(names):
            attrs = arg_attrs[i] if i < len(arg_attrs) else {}
            parts.append(f"{n} {self.dict_text(attrs)}")
        self.out.append(f"{indent}^{', '.join(parts)}\n")
        self.print_block(body, depth + 1)
        self.out.append(f"{indent}}}\n")

    # -- types and attributes
    def type_list(self, types) -> str:
        return ", ".join(self.type_text(t, False) for t in types)

    def attr_dict(self, op) -> str:
        return self.dict_text(op.attributes)

    def dict_text(self, attributes) -> str:
        items = sorted((k, v) for k, v in attributes.items() if k not in HIDDEN_ATTRS)
        return "{" + ",".join(f"{attr_name_text(k)}:{self.attr_text(v)}" for k, v in items) + "}"



def paddle_string(value: str) -> str:
    """A string as Paddle prints it: quotes escaped, nothing else.  A newline, or a
    backslash before a quote or at the end, would print text that reads back as another
    string (or none): such a string is refused."""
    if "\n" in value or value.endswith("\\") or '\\"' in value:
        raise PrintError(f"cannot print the string {excerpt(json.dumps(value), 80)} as Paddle text: "
                         "Paddle escapes only quotes, so a newline or a backslash before a "
                         "quote would not read back; --emit=pir (canonical text) keeps it")
    return '"' + value.replace('"', '\\"') + '"'


def paddle_attr_text(attr) -> str:
    cls = type(attr)
    if cls is IntegerAttr:
        value = attr.value.data
        if attr.type == A.i1:
            return "true" if value else "false"
        return str(value)
    if cls is FloatAttr:
        return paddle_g(attr.value.data)
    if cls is StringAttr:
        return paddle_string(attr.data)
    if cls is ArrayAttr:
        return "[" + ",".join(paddle_attr_text(a) for a in attr.data) + "]"
    if cls is A.DataTypeAttr or cls is A.DataLayoutAttr:
        return attr.data
    if cls is A.PlaceAttr:
        return place_text(*attr.data)
    if cls is A.IntArrayAttr:
        return "[" + ",".join(str(v) for v in attr.data) + "]"
    if cls is A.TypeAttr:
        text = type_text(attr.type, False)
        return text
    if cls is A.TensorNameAttr:
        return paddle_string(attr.data)
    if cls is A.ComplexAttr:
        return f"({paddle_g(attr.real.value.data)},{paddle_g(attr.imag.value.data)})"
    if cls is A.NullAttr:
        return "<#AttrNull>"
    if cls is A.ScalarAttr:
        return ",".join(str(v) for v in attr.data[1:])
    raise TypeError(f"no Paddle spelling for attribute {attr}")
