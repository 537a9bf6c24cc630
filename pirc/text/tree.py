"""The Lark transformer: parse tree -> light op tuples and literal nodes.

It runs inline while Lark's LALR parser reduces (no parse tree is built)
and never creates IR: the builder in parser.py does, in program order.
"""

from __future__ import annotations

from lark import Token, Transformer

from ..ir.types import ELEMENT_TYPES, NULL_TYPE, VectorType
from .op_lines import split_line
from .types_text import decode_tensor_like


class ManifestNode:
    """`pir.manifest {key: value, ...}`: its (KEY token, value token) pairs."""

    def __init__(self, fields: list):
        self.fields = fields


class TreeBuilder(Transformer):
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
        tags = next((x for x in c[1:] if isinstance(x, list)), [])
        manifest = next((x for x in c[1:] if isinstance(x, ManifestNode)), None)
        return ("header", c[0], tags, manifest)

    def graph_tags(self, c):
        return [t for t in c if t is not None]

    def graph_tag(self, c):
        return tuple(x for x in c if x is not None)

    def manifest(self, c):
        return ManifestNode([f for f in c if f is not None])

    def manifest_field(self, c):
        return (c[0], c[1])

    # -- ops
    def plain_op(self, c):
        head, *rest = c
        if head.type == "OP_LINE":
            head, attrs, sig = split_line(head)
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

    def paddle_regions(self, c):
        return c

    def region(self, c):
        return c[0]

    def else_region(self, c):
        return c[0]

    # -- attribute literals (sub-grammar attr_dict)
    def attr_dict(self, c):
        return c

    def attr_entry(self, c):
        # A quoted name stays spelled as written: the parser decodes it where
        # it can locate a bad escape.
        return (str(c[0]), c[0].type == "STRING", c[1])

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

    def complex_pair(self, c):
        return ("c", [("n", str(c[0])), ("n", str(c[1]))])

    def place(self, c):
        return ("p", str(c[0]))

    def null_attr(self, c):
        return ("null",)

    def tagged(self, c):
        return ("t", str(c[0]), c[1])

    def type_attr(self, c):
        return ("ty", c[1])

    def bare_tensor_type(self, c):  # Paddle's print of a type attribute
        return ("ty", self.tensor(c))

    def bare_vec_type(self, c):
        return ("ty", self.vec([t for t in c if t is not None]))

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
        return ELEMENT_TYPES[str(c[0])]

    def vec(self, c):
        return VectorType.make(c)

    def null_type(self, c):
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

