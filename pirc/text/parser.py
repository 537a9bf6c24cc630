"""Text front end: PIR text (any form) -> Program.

Two phases.  Lark's LALR parser, with an inline transformer, turns the file
into a light tree of op tuples holding the raw composite tokens (no IR yet).
The builder then walks that tree in program order, decodes each composite
token through a memo (the same attribute dictionary or signature text is
decoded once), and creates the xDSL ops with `append_op`.  Building after
parsing keeps name resolution simple: an op's operands were all defined
earlier in program order, in its block or an enclosing one.
"""

from __future__ import annotations

import re

from lark import Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Block, Region

from ..errors import SourceError, VersionError
from ..ir import attrs as A
from ..ir.builder import append_op, gc_paused
from ..ir.ops import BLOCK_ARG_ATTRS, null_value
from ..ir.program import KNOWN_VERSIONS, LATEST_VERSION, GraphTag, Program
from ..ir.registry import op_class
from .attr_literals import UNTYPED_DEFAULTS, LiteralError, to_attr
from .grammar import lark_parser
from .types_text import TypeSyntaxError, decode_tensor_like
from .token_names import expected_text

NULL_VALUE_TEXT = "<<NULL VALUE>>"


class _Tree(Transformer):
    """Inline transformer: builds op tuples and literal nodes, never IR."""

    # -- program
    def start(self, c):
        return c[0]

    def program(self, c):
        if len(c) == 2:
            return ("program", c[0], c[1])
        return ("program", None, c[0])

    def items(self, c):
        if not c:
            return []
        c[0].append(c[1])
        return c[0]

    def header(self, c):
        return ("header", c[0], c[1] if len(c) > 1 else [])

    def graph_tags(self, c):
        return c

    def graph_tag(self, c):
        return (c[0], c[1], c[2])

    # -- ops
    def plain_op(self, c):
        head, *rest = c
        if head.type == "OP_LINE":
            head, attrs, sig = _split_line(head)
        else:
            attrs = rest.pop(0) if rest[0].type == "ATTR_DICT" else None
            sig = rest.pop(0)
        regions = rest[0] if rest else []
        return ("plain", head, attrs, sig, regions)

    def if_op(self, c):
        head, *rest = c
        attrs = rest.pop(0) if rest[0].type == "ATTR_DICT" else None
        result_types = rest.pop(0)
        return ("if", head, attrs, result_types, list(rest))

    def while_op(self, c):
        return ("while", c[0], None, None, [c[1]])

    def regions(self, c):
        return c

    def region(self, c):
        return c[0]

    def else_region(self, c):
        return c[0]

    # -- attribute literals (sub-grammar attr_dict)
    def attr_dict(self, c):
        return c

    def attr_entry(self, c):
        return (str(c[0]), c[1])

    def true(self, c):
        return ("b", True)

    def false(self, c):
        return ("b", False)

    def number(self, c):
        return ("n", str(c[0]))

    def inf(self, c):
        return ("n", "inf")

    def neg_inf(self, c):
        return ("n", "-inf")

    def nan(self, c):
        return ("n", "nan")

    def neg_nan(self, c):
        return ("n", "-nan")

    def string(self, c):
        return ("s", str(c[0]))

    def array(self, c):
        return ("a", c)

    def ident(self, c):
        return ("i", str(c[0]))

    def place(self, c):
        return ("p", str(c[0]))

    def null_attr(self, c):
        return ("null",)

    def tagged(self, c):
        return ("t", str(c[0]), c[1])

    def type_attr(self, c):
        return ("ty", c[1])

    # -- types (sub-grammars signature / result_types)
    def signature(self, c):
        return (tuple(c[0]), tuple(c[1]))

    def operand_types(self, c):
        return c

    def type_list(self, c):
        return c

    def result_types(self, c):
        return tuple(c[0])

    def tensor(self, c):
        return decode_tensor_like(str(c[0]))

    def other_type(self, c):
        return decode_tensor_like(str(c[0]))

    def element(self, c):
        from ..ir.types import ELEMENT_TYPES
        return ELEMENT_TYPES[str(c[0])]

    def vec(self, c):
        from ..ir.types import VectorType
        return VectorType.make(c)

    def null_type(self, c):
        from ..ir.types import NULL_TYPE
        return NULL_TYPE

    # -- block arguments (sub-grammar block_args)
    def block_args(self, c):
        return c

    def block_arg(self, c):
        name = str(c[0])
        arg_type = None
        attrs = None
        for item in c[1:]:
            if isinstance(item, Token) and item.type == "ATTR_DICT":
                attrs = item
            else:
                arg_type = item
        return (name, arg_type, attrs)


def parse_text(text: str, filename: str = "<input>", from_version: int | None = None,
               line_offset: int = 0) -> Program:
    """Parse PIR text in any of its forms into a Program.

    `from_version` states the PIR version of text that carries none (Paddle's
    printed text); it must agree with a version the text carries.
    `line_offset` shifts reported line numbers (used by --split-input-file).
    """
    parser = lark_parser(_Tree)
    try:
        tree = parser.parse(text, start="start")
    except (UnexpectedCharacters, UnexpectedToken) as e:
        raise (_explain_op_line(e, text, filename, line_offset)
               or _explain_composite(parser, e, text, filename, line_offset)
               or _syntax_error(e, text, filename, line_offset)) from None
    except UnexpectedInput as e:
        raise _syntax_error(e, text, filename, line_offset) from None
    return _Builder(text, filename, from_version, line_offset).build(tree)


def _syntax_error(e: UnexpectedInput, text: str, filename: str, line_offset: int,
                  at: Token | None = None) -> SourceError:
    lines = text.splitlines()
    line, col = e.line, e.column
    if isinstance(e, UnexpectedEOF) or line is None or line < 1:
        line = max(len(lines), 1)
        col = len(lines[-1]) + 1 if lines else 1
        message = "unexpected end of input; expected " + expected_text(e.expected)
    elif isinstance(e, UnexpectedToken) and e.token.type == "$END":
        message = "unexpected end of input; expected " + expected_text(e.expected)
    elif isinstance(e, UnexpectedToken):
        message = f"unexpected '{_clip(str(e.token).strip())}'; expected {expected_text(e.expected)}"
    elif isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        allowed = e.allowed or set()
        message = f"unexpected character '{ch}'" + (
            f"; expected {expected_text(allowed)}" if allowed else "")
    else:  # pragma: no cover - lark raises only the three above
        message = str(e)
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return SourceError(message, filename, line + line_offset, col, source)


# Composite tokens and the sub-grammar that reads their insides.
_COMPOSITE_STARTS = {
    "ATTR_DICT": "attr_dict",
    "SIGNATURE": "signature",
    "RESULT_TYPES": "result_types",
    "BLOCK_ARGS": "block_args",
}


def _explain_composite(parser, e, text: str, filename: str, line_offset: int):
    """A composite token failed to lex: find the exact problem inside it.

    `{dtype:float32 : ...` does not lex as an attribute dictionary; parsing
    the rest of the line with the `attr_dict` sub-grammar says where and why.
    """
    if isinstance(e, UnexpectedToken):
        allowed, pos = e.expected or set(), e.token.start_pos
    else:
        allowed, pos = e.allowed or set(), e.pos_in_stream
    if pos is None:
        return None
    line_end = text.find("\n", pos)
    rest = text[pos: line_end if line_end >= 0 else len(text)]
    for terminal, start in _COMPOSITE_STARTS.items():
        if terminal not in allowed or not rest or rest[0] != {"ATTR_DICT": "{", "SIGNATURE": ":",
                                                               "RESULT_TYPES": "-", "BLOCK_ARGS": "^"}[terminal]:
            continue
        try:
            parser.parse(rest, start=start)
        except UnexpectedInput as inner:
            err = _syntax_error(inner, rest, filename, 0)
            lines = text.splitlines()
            source = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
            col = e.column + (err.column - 1 if inner.line == 1 else len(rest))
            return SourceError(err.message, filename, e.line + line_offset, col, source)
        except Exception:  # noqa: BLE001 - fall back to the plain message
            return None
    return None


# The parts of an op head, in order, with what to say when one is missing.
_HEAD_PARTS = (
    (re.compile(r"\((?:\s*(?:%[A-Za-z0-9_]+|<<NULL VALUE>>)\s*,?)*\)"), "a result list like (%0, %1)"),
    (re.compile(r"\s*=\s*"), "'=' after the result list"),
    (re.compile(r'(?:"[^"\n]+"|[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)'), 'an op name like "pd_op.relu"'),
    (re.compile(r"\s*(?:\[id:-?\d+\]\s*)?"), "[id:N]"),
    (re.compile(r"\((?:cond=[^()\n]*|(?:\s*(?:%[A-Za-z0-9_]+|<<NULL VALUE>>)\s*,?)*)\)"),
     "an operand list like (%0, <<NULL VALUE>>) or (cond=%c, inputs=%a, ...)"),
)


def _explain_op_line(e, text: str, filename: str, line_offset: int):
    """An op line whose head `(%r) = "name" (%a)` is malformed: say which part."""
    line_no = e.line
    lines = text.splitlines()
    if not line_no or not 0 < line_no <= len(lines):
        return None
    line = lines[line_no - 1]
    start = len(line) - len(line.lstrip())
    if not line[start:].startswith("("):
        return None
    pos = start
    for pattern, what in _HEAD_PARTS:
        m = pattern.match(line, pos)
        if m is None:
            return SourceError(f"malformed op: expected {what}", filename, line_no + line_offset,
                               pos + 1, line)
        pos = m.end()
    return None


def _clip(s: str, n: int = 40) -> str:
    return s if len(s) <= n else s[: n - 3] + "..."


class _Builder:
    """Walks the op-tuple tree in program order and builds the xDSL IR."""

    def __init__(self, text: str, filename: str, from_version: int | None, line_offset: int):
        self.text = text
        self.lines = None
        self.filename = filename
        self.from_version = from_version
        self.line_offset = line_offset
        self.canonical = False
        self.version = None
        self.parser = lark_parser(_Tree)
        self.attr_memo: dict = {}
        self.sig_memo: dict = {}
        self.kinds_memo: dict = {}
        self.values: dict = {}
        self.classes: dict = {}

    # -- errors
    def error(self, message: str, tok: Token, col_shift: int = 0) -> SourceError:
        if self.lines is None:
            self.lines = self.text.splitlines()
        line = tok.line
        source = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return SourceError(message, self.filename, line + self.line_offset, tok.column + col_shift, source)

    def sub_parse(self, tok: Token, start: str):
        try:
            return self.parser.parse(str(tok), start=start)
        except UnexpectedInput as e:
            col = (e.column if e.column and e.column > 0 else len(str(tok)) + 1) - 1
            base = _syntax_error(e, str(tok), self.filename, 0)
            raise self.error(base.message, tok, col) from None
        except TypeSyntaxError as e:
            raise self.error(str(e), tok) from None

    # -- program
    def build(self, tree) -> Program:
        _, header, items = tree
        tags: list[GraphTag] = []
        if header is not None:
            self.canonical = True
            _, version_tok, tag_list = header
            version = int(version_tok)
            if self.from_version is not None and self.from_version != version:
                raise self.error(
                    f"--from-version={self.from_version} contradicts the version this file "
                    f"carries (pir.version {version})", version_tok)
            tags = [GraphTag(_json_str(n), int(v), _json_str(r)) for n, v, r in tag_list]
            self.check_version(version, version_tok)
        else:
            if self.from_version is None:
                raise SourceError(
                    "Paddle's printed text carries no PIR version; state it with "
                    "--from-version=N (1 = Paddle 3.0, 2 = 3.1, 3 = 3.2, 4 = 3.3)",
                    self.filename, 1 + self.line_offset, 1, self.text.splitlines()[0] if self.text else "")
            version = self.from_version
            self.check_version(version, None)
        self.version = version
        program = Program(version=version, graph_tags=tags)
        self.locations = program.locations
        with gc_paused():
            self.build_region_items(items, program.module.body, None)
        return program

    def check_version(self, version: int, tok):
        if version in KNOWN_VERSIONS or version == 0:
            return
        message = (f"program is PIR version {version}; this pirc reads versions "
                   f"0-{LATEST_VERSION} (up to Paddle 3.3); upgrade pirc to read it")
        if version < 0:
            message = f"PIR version {version} is not a version (expected 0-{LATEST_VERSION})"
        if tok is not None:
            raise VersionError(self.error(message, tok).render())
        raise VersionError(f"{self.filename}: error: {message}")

    # -- blocks
    def build_region_items(self, items, region: Region, owner_tok, arg_types_hint=None):
        """Fill `region` from `items`; returns per-block argument attributes."""
        defined: list[str] = []
        block = region.blocks[0] if region.blocks else None
        arg_attrs_per_block = []
        for item in items:
            if isinstance(item, Token):  # a `^...` block-argument line
                if block is not None and (block.ops or block.args or arg_attrs_per_block):
                    block = None
                args = self.sub_parse(item, "block_args")
                types = []
                for i, (name, t, _) in enumerate(args):
                    if t is None:
                        if arg_types_hint is None or i >= len(arg_types_hint):
                            raise self.error(f"cannot tell the type of block argument {name}; "
                                             "write it as `^%arg_0 : TYPE`", item)
                        t = arg_types_hint[i]
                    types.append(t)
                new_block = Block(arg_types=types)
                if block is None:
                    region.add_block(new_block)
                else:  # replace the empty placeholder block
                    region.detach_block(block)
                    region.add_block(new_block)
                block = new_block
                attrs_list = []
                for (name, _, attr_tok), value in zip(args, block.args):
                    self.define(name, value, item, defined)
                    attrs_list.append(self.block_arg_attrs(attr_tok, item))
                arg_attrs_per_block.append(attrs_list)
                continue
            if block is None:
                block = Block()
                region.add_block(block)
                arg_attrs_per_block.append(None)
            self.build_op(item, block, defined)
        if not region.blocks:
            region.add_block(Block())
        for name in defined:
            del self.values[name]
        return arg_attrs_per_block

    def block_arg_attrs(self, tok, line_tok):
        if tok is None:
            return None
        # The ATTR_DICT token was lexed from the `^...` line alone: report
        # problems at that line's position.
        return self.typed_attrs(tok, None, line_tok, tok.column - 1)

    def define(self, name: str, value, tok, defined: list):
        if name in self.values:
            raise self.error(f"value {name} is defined twice", tok)
        self.values[name] = value
        defined.append(name)

    # -- ops
    def build_op(self, item, block: Block, defined: list):
        form, head_tok, attrs_tok, sig_tok, regions = item
        results_text, name, operands_text = getattr(head_tok, "parts", None) or _split_head(str(head_tok))
        results_tok = operands_tok = name_tok = head_tok
        cls = self.classes.get(name)
        if cls is None:
            cls = self.classes[name] = op_class(name, self.version)
        # operands
        if form == "while":
            cond, inputs = _while_operands(operands_text)
            operand_names = [cond] + inputs
        else:
            operand_names = _value_names(operands_text)
        operands = []
        for n in operand_names:
            if n == NULL_VALUE_TEXT:
                operands.append(null_value())
                continue
            v = self.values.get(n)
            if v is None:
                raise self.error(f"use of undefined value {n}", operands_tok)
            operands.append(v)
        # types
        if form == "plain":
            operand_types, result_types = self.signature(sig_tok)
            if len(operand_types) != len(operands):
                raise self.error(f"{len(operands)} operands but {len(operand_types)} operand types", sig_tok)
        elif form == "if":
            result_types = self.result_types(sig_tok)
        else:  # while: results mirror the loop-carried inputs
            result_types = tuple(v.type for v in operands[1:])
        result_names = _value_names(results_text)
        if len(result_names) != len(result_types):
            raise self.error(f"{len(result_names)} results but {len(result_types)} result types",
                             sig_tok if sig_tok is not None else results_tok)
        attributes = self.typed_attrs(attrs_tok, cls) if attrs_tok is not None else {}
        # regions
        ir_regions = []
        arg_attrs = []
        any_arg_attrs = False
        if form == "while":
            hint = [v.type for v in operands[1:]]
            region = Region()
            per_block = self.build_region_items(regions[0], region, name_tok, hint)
            ir_regions.append(region)
            arg_attrs.append(per_block)
        else:
            for items in regions:
                region = Region()
                per_block = self.build_region_items(items, region, name_tok)
                ir_regions.append(region)
                arg_attrs.append(per_block)
            if name == "pd_op.if" and len(ir_regions) == 1:
                # Paddle prints no `else` for an empty false branch.
                ir_regions.append(Region(Block()))
                arg_attrs.append([None])
        for per_block in arg_attrs:
            for attrs_list in per_block:
                if attrs_list is not None:
                    any_arg_attrs = True
        properties = None
        if any_arg_attrs:
            properties = {BLOCK_ARG_ATTRS: _arg_attrs_property(arg_attrs, ir_regions)}
        op = append_op(cls, operands, result_types, dict(attributes), block, ir_regions, properties)
        self.locations[op] = (head_tok.line + self.line_offset, head_tok.column)
        for n, r in zip(result_names, op.results):
            self.define(n, r, results_tok, defined)
        return op

    def signature(self, tok):
        text = str(tok)
        sig = self.sig_memo.get(text)
        if sig is None:
            sig = self.sub_parse(tok, "signature")
            self.sig_memo[text] = sig
        return sig

    def result_types(self, tok):
        text = str(tok)
        key = ("->", text)
        types = self.sig_memo.get(key)
        if types is None:
            types = self.sub_parse(tok, "result_types")
            self.sig_memo[key] = types
        return types

    def attr_kinds(self, cls) -> dict:
        kinds = self.kinds_memo.get(cls)
        if kinds is None:
            kinds = dict(UNTYPED_DEFAULTS)
            spec = getattr(cls, "spec", None)
            if spec is not None:
                for a in spec.attributes:
                    kinds[a.name] = _text_kind(a)
            self.kinds_memo[cls] = kinds
        return kinds

    def typed_attrs(self, tok, cls, pos_tok=None, pos_shift: int = 0) -> dict:
        text = str(tok)
        if pos_tok is None:
            pos_tok = tok
        key = (cls, text)
        attrs = self.attr_memo.get(key)
        if attrs is None:
            entries = self.sub_parse(tok, "attr_dict")
            kinds = self.attr_kinds(cls) if cls is not None else {}
            attrs = {}
            for attr_name, node in entries:
                try:
                    attrs[attr_name] = to_attr(node, kinds.get(attr_name), self.canonical)
                except (LiteralError, ValueError) as e:
                    col = text.find(attr_name + ":")
                    raise self.error(f"attribute '{attr_name}': {e}", pos_tok,
                                     pos_shift + max(col, 0)) from None
            self.attr_memo[key] = attrs
        return attrs


# A Scalar attribute is saved as the builtin kind of its C++ data type
# (scale.bias is `float` -> 0.a_f32, full.value is `double` -> 0.a_f64).
_SCALAR_KINDS = {"float": "float", "double": "double", "int64_t": "int64", "int": "int32",
                 "int32_t": "int32", "bool": "bool"}


def _text_kind(attr_spec) -> str:
    if attr_spec.type == "scalar":
        return _SCALAR_KINDS.get(getattr(attr_spec, "data_type", None) or "", "scalar")
    if attr_spec.type == "array<scalar>":
        return "array<" + _SCALAR_KINDS.get(getattr(attr_spec, "data_type", None) or "", "scalar") + ">"
    return attr_spec.type


def _arg_attrs_property(arg_attrs, regions):
    per_region = []
    for per_block, region in zip(arg_attrs, regions):
        blocks = []
        for attrs_list, block in zip(per_block, region.blocks):
            if attrs_list is None:
                attrs_list = [None] * len(block.args)
            blocks.append(A.array_attr(
                DictionaryAttr(a if a is not None else {}) for a in attrs_list))
        per_region.append(A.array_attr(blocks))
    return A.array_attr(per_region)


_LINE = re.compile(
    r'(\(([^()]*)\)[ \t]*=[ \t]*"?([^"\s\[(]+)"?[ \t]*(?:\[id:-?\d+\][ \t]*)?\(([^()]*)\)[ \t]*)'
    r'(\{[^{}"\n]*(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"[^{}"\n]*)*\}[ \t]*)?'
    r'(:.*)$', re.S)


class _Piece:
    """A part of an OP_LINE token, with its position (a light stand-in for a lark Token)."""

    __slots__ = ("text", "type", "line", "column", "parts")

    def __init__(self, text: str, type_: str, line: int, column: int, parts=None):
        self.text = text
        self.type = type_
        self.line = line
        self.column = column
        self.parts = parts  # for an op head: (results text, op name, operands text)

    def __str__(self) -> str:
        return self.text


def _split_line(tok: Token):
    """Split an OP_LINE token into its OP_HEAD, ATTR_DICT (or None) and SIGNATURE parts."""
    m = _LINE.match(tok)
    line, col = tok.line, tok.column
    head, results, name, operands, attrs, sig = m.groups()
    return (_Piece(head, "OP_HEAD", line, col, (results, name, operands)),
            None if attrs is None else _Piece(attrs, "ATTR_DICT", line, col + m.start(5)),
            _Piece(sig, "SIGNATURE", line, col + m.start(6)))


_HEAD = re.compile(r'\(([^()]*)\)\s*=\s*"?([^"\s\[(]+)"?\s*(?:\[id:-?\d+\]\s*)?(\(.*\))\s*$', re.S)


def _split_head(text: str) -> tuple[str, str, str]:
    """`(%r) = "pd_op.x" [id:3] (%a, %b)` -> ("%r", "pd_op.x", "(%a, %b)")."""
    m = _HEAD.match(text)
    return m.group(1), m.group(2), m.group(3)


_VALUE_NAME = re.compile(r"%[A-Za-z0-9_]+|<<NULL VALUE>>")


def _value_names(text: str) -> list[str]:
    """`(%0, <<NULL VALUE>>, %arg_1)` -> ["%0", "<<NULL VALUE>>", "%arg_1"]."""
    return _VALUE_NAME.findall(text)


def _while_operands(text: str) -> tuple[str, list[str]]:
    inner = text[1:-1]
    cond_part, _, inputs_part = inner.partition("inputs=")
    cond = cond_part.replace("cond=", "").strip().rstrip(",").strip()
    inputs = [n.strip() for n in inputs_part.split(",") if n.strip()]
    return cond, inputs


def _json_str(tok) -> str:
    import json
    return json.loads(str(tok))
