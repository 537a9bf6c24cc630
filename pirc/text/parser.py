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

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from xdsl.dialects.builtin import DictionaryAttr
from xdsl.ir import Block, Region

from .. import limits
from ..errors import SourceError, VersionError
from ..ir import attrs as A
from ..ir.builder import append_op, gc_paused
from ..ir.ops import BLOCK_ARG_ATTRS, is_null_value, null_value
from ..ir.program import KNOWN_VERSIONS, LATEST_VERSION, GraphTag, Manifest, Program, is_fingerprint
from ..ir.op_names import OpNameError
from ..ir.registry import op_class
from .attr_literals import UNTYPED_DEFAULTS, LiteralError, decode_string, literal_depth, to_attr
from .grammar import lark_parser
from .comments import strip_comments
from .input_limits import check_text_input
from .op_lines import NULL_VALUE_TEXT, split_head, value_names, while_operands
from .syntax_errors import explain_composite, explain_op_line, syntax_error
from .tree import TreeBuilder
from .types_text import TypeSyntaxError, type_text


def parse_text(text: str, filename: str = "<input>", from_version: int | None = None,
               line_offset: int = 0) -> Program:
    """Parse PIR text in any of its forms into a Program.

    `from_version` states the PIR version of text that carries none (Paddle's
    printed text); it must agree with a version the text carries.
    `line_offset` shifts reported line numbers (used by --split-input-file).
    """
    check_text_input(text, filename, line_offset)
    text = strip_comments(text)  # comments never reach the lexer (comments.py says why)
    parser = lark_parser(TreeBuilder)
    try:
        tree = parser.parse(text, start="start")
    except (UnexpectedCharacters, UnexpectedToken) as e:
        raise (explain_op_line(e, text, filename, line_offset)
               or explain_composite(parser, e, text, filename, line_offset)
               or syntax_error(e, text, filename, line_offset)) from None
    except UnexpectedInput as e:
        raise syntax_error(e, text, filename, line_offset) from None
    return _Builder(text, filename, from_version, line_offset).build(tree)


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
        self.parser = lark_parser(TreeBuilder)
        self.attr_memo: dict = {}
        self.sig_memo: dict = {}
        self.kinds_memo: dict = {}
        self.values: dict = {}
        self.classes: dict = {}
        self.type_pairs: dict = {}
        # Regions open around the op being built: with an attribute's array depth, the
        # nesting that pirc.limits.MAX_NESTING bounds, so that no recursive walker of the
        # IR (this builder, the printers, the verifier, equality, the JSON writer) can
        # reach Python's recursion limit on a program pirc accepted.
        self.depth = 0
        self.max_nesting = limits.MAX_NESTING.value()

    # -- errors
    def error(self, message: str, tok: Token, col_shift: int = 0) -> SourceError:
        if self.lines is None:
            self.lines = self.text.split("\n")
        line = tok.line
        source = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return SourceError(message, self.filename, line + self.line_offset, tok.column + col_shift, source)

    def check_nesting(self, depth: int, tok, col_shift: int = 0) -> None:
        if depth > self.max_nesting:
            raise self.error(limits.MAX_NESTING.message(depth), tok, col_shift)

    def sub_parse(self, tok: Token, start: str):
        try:
            return self.parser.parse(str(tok), start=start)
        except UnexpectedInput as e:
            col = (e.column if e.column and e.column > 0 else len(str(tok)) + 1) - 1
            base = syntax_error(e, str(tok), self.filename, 0)
            raise self.error(base.message, tok, col) from None
        except TypeSyntaxError as e:
            raise self.error(str(e), tok) from None

    # -- program
    def build(self, tree) -> Program:
        _, header, items = tree
        tags: list[GraphTag] = []
        if header is not None:
            self.canonical = True
            _, version_tok, tag_list, manifest_node = header
            version = self.header_int(version_tok, "a PIR version")
            if self.from_version is not None and self.from_version != version:
                raise self.error(
                    f"--from-version={self.from_version} contradicts the version this file "
                    f"carries (pir.version {version})", version_tok)
            tags = [self.graph_tag(t) for t in tag_list]
            self.check_version(version, version_tok)
        else:
            if self.from_version is None:
                raise SourceError(
                    "Paddle's printed text carries no PIR version; state it with "
                    "--from-version=N (1 = Paddle 3.0, 2 = 3.1, 3 = 3.2, 4 = 3.3)",
                    self.filename, 1 + self.line_offset, 1, self.text.split("\n")[0] if self.text else "")
            version = self.from_version
            self.check_version(version, None)
        self.version = version
        program = Program(version=version, graph_tags=tags)
        if header is not None and manifest_node is not None:
            program.manifest = self.manifest(manifest_node, version_tok)
        self.locations = program.locations
        with gc_paused():
            self.build_region_items(items, program.module.body, None)
        return program

    def header_int(self, tok, what: str) -> int:
        digits = len(str(tok).lstrip("-"))
        if digits > limits.MAX_INT_DIGITS.value():
            raise self.error(limits.MAX_INT_DIGITS.message(digits), tok)
        value = int(str(tok))
        if value not in range(-(2**63), 2**63):
            raise self.error(f"{what} is an int64, got {tok}", tok)
        return value

    def graph_tag(self, t) -> GraphTag:
        name, version, rollout = self.header_str(t[0]), self.header_int(t[1], "a pass version"), self.header_str(t[2])
        if len(t) == 3:
            return GraphTag(name, version, rollout)
        fingerprints = [self.header_str(tok) for tok in t[3:]]
        for tok, fp in zip(t[3:], fingerprints):
            if not is_fingerprint(fp):
                raise self.error(f"a graph tag's fingerprint is pfp1: and 64 hex digits, got {fp!r}", tok)
        return GraphTag(name, version, rollout, *fingerprints)

    def manifest(self, node, at) -> Manifest:
        """`pir.manifest {pirc_version: "...", pir_version: N, op_versions: "...",
        pipeline: "...", pipeline_version: N}` (pipeline_version only for a named pipeline)."""
        kinds = {"pirc_version": str, "pir_version": int, "op_versions": str, "pipeline": str,
                 "pipeline_version": int}
        values: dict = {}
        for key_tok, value_tok in node.fields:
            key = str(key_tok)
            if key not in kinds:
                raise self.error(f"pir.manifest: unknown field {key!r} (fields: {', '.join(kinds)})", key_tok)
            if key in values:
                raise self.error(f"pir.manifest: {key!r} given twice", key_tok)
            if kinds[key] is int:
                if value_tok.type != "INT":
                    raise self.error(f"pir.manifest: {key} is an integer, got {value_tok}", value_tok)
                values[key] = self.header_int(value_tok, f"the manifest's {key}")
            else:
                if value_tok.type == "INT":
                    raise self.error(f"pir.manifest: {key} is a string, got {value_tok}", value_tok)
                values[key] = self.header_str(value_tok)
        missing = [k for k in kinds if k not in values and k != "pipeline_version"]
        if missing:
            raise self.error(f"pir.manifest lacks {', '.join(missing)}", node.fields[0][0] if node.fields else at)
        return Manifest(values["pirc_version"], values["pir_version"], values["op_versions"],
                        values["pipeline"], values.get("pipeline_version"))

    def header_str(self, tok) -> str:
        try:
            return decode_string(str(tok), canonical=True)
        except LiteralError as e:
            raise self.error(f"a graph tag: {e}", tok) from None

    def check_version(self, version: int, tok):
        if version in KNOWN_VERSIONS or version == 0:
            return
        message = (f"program is PIR version {version}; this pirc reads versions "
                   f"0-{LATEST_VERSION} (up to Paddle 3.3); upgrade pirc to read it")
        if version < 0:
            message = f"PIR version {version} is not a version (expected 0-{LATEST_VERSION})"
        if tok is not None:
            raise VersionError(message).at(self.error(message, tok))
        raise VersionError(message).in_file(self.filename)

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
        results_text, name, operands_text = getattr(head_tok, "parts", None) or split_head(str(head_tok))
        results_tok = operands_tok = name_tok = head_tok
        cls = self.classes.get(name)
        if cls is None:
            try:
                cls = self.classes[name] = op_class(name, self.version)
            except OpNameError as e:
                head = str(head_tok)
                eq = head.index("=") + 1
                raise self.error(str(e), head_tok, eq + len(head[eq:]) - len(head[eq:].lstrip())) from None
        # operands
        if form == "while":
            cond, inputs = while_operands(operands_text)
            operand_names = [cond] + inputs
        else:
            operand_names = value_names(operands_text)
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
            for i, (value, annotated) in enumerate(zip(operands, operand_types)):
                if annotated is not value.type and not self.same_type(annotated, value.type) \
                        and not is_null_value(value):
                    self.annotation_mismatch(operand_names[i], value, annotated, i, sig_tok)
        elif form == "if":
            result_types = self.result_types(sig_tok)
        else:  # while: results mirror the loop-carried inputs
            result_types = tuple(v.type for v in operands[1:])
        result_names = value_names(results_text)
        if len(result_names) != len(result_types):
            raise self.error(f"{len(result_names)} results but {len(result_types)} result types",
                             sig_tok if sig_tok is not None else results_tok)
        attributes = self.typed_attrs(attrs_tok, cls) if attrs_tok is not None else {}
        # regions
        if regions:
            self.check_nesting(self.depth + 1, head_tok)
        self.depth += 1
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
            if form == "if" and name == "pd_op.if" and len(ir_regions) == 1:
                # Paddle prints no `else` for an empty false branch (its own if form only:
                # canonical text's generic regions say how many there are).
                ir_regions.append(Region(Block()))
                arg_attrs.append([None])
        self.depth -= 1
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

    def same_type(self, a, b) -> bool:
        # xDSL type equality is recursive (~20 us); the distinct pairs are few, and the
        # program keeps every type alive while it is built, so ids are stable keys.
        key = (id(a), id(b))
        same = self.type_pairs.get(key)
        if same is None:
            same = self.type_pairs[key] = a == b
        return same

    def annotation_mismatch(self, name: str, value, annotated, i: int, sig_tok):
        """An operand annotated with another type than its value's, as mlir-opt reports it:
        the program holds one type per value, so the annotation cannot be kept."""
        text = str(sig_tok)
        col = _operand_type_column(text, i)
        raise self.error(f"use of value '{name}' expects different type than its definition: "
                         f"annotated '{type_text(annotated, True)}', defined as "
                         f"'{type_text(value.type, True)}'", sig_tok, col)

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
        memo = self.attr_memo.get(key)
        if memo is not None:
            attrs, array_depth, col = memo
            self.check_nesting(self.depth + array_depth, pos_tok, pos_shift + col)
        else:
            entries = self.sub_parse(tok, "attr_dict")
            kinds = self.attr_kinds(cls) if cls is not None else {}
            attrs = {}
            deepest = (0, 0)
            for spelled, quoted, node in entries:
                col = max(text.find(spelled + ":"), 0)
                deepest = max(deepest, (literal_depth(node), col))
                # Before typing: to_attr recurses once per array level.
                self.check_nesting(self.depth + deepest[0], pos_tok, pos_shift + deepest[1])
                attr_name = spelled
                try:
                    if quoted:
                        # Paddle's names are identifiers; a quoted one is pirc's
                        # spelling in either form, with JSON escapes.
                        attr_name = decode_string(spelled, canonical=True)
                    attrs[attr_name] = to_attr(node, kinds.get(attr_name), self.canonical)
                except (LiteralError, ValueError) as e:
                    raise self.error(f"attribute {spelled if quoted else repr(attr_name)}: {e}", pos_tok,
                                     pos_shift + col) from None
            self.attr_memo[key] = (attrs, *deepest)
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


def _operand_type_column(signature: str, index: int) -> int:
    """Offset of operand type `index` in `: (T0, T1) -> R` (commas inside <> and [] skipped)."""
    start = signature.index("(") + 1
    depth, n = 0, 0
    for pos in range(start, len(signature)):
        c = signature[pos]
        if c in "<[":
            depth += 1
        elif c in ">]":
            depth -= 1
        elif c == "," and depth == 0:
            n += 1
            if n == index:
                start = pos + 1
                break
    return start + len(signature[start:]) - len(signature[start:].lstrip())
