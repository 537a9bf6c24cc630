"""What a Paddle wheel's shipped C++ headers say about its PIR ops.

The op-info records that Paddle compiles in (OpYamlInfoInterface::GetOpInfo) give no
attribute defaults, and some ops (builtin.*, cf.*, pd_op.if / while / pylayer ...) have no
record at all.  Both gaps are filled from the op classes in the wheel's headers
(site-packages/paddle/include/paddle/**.h): the C++ default expressions of the parameters of
their `Build(...)` overloads, and their operand / result accessors.

This is a small, purpose-built scanner for the code Paddle's op generator and its hand-written
op headers produce, not a C++ parser:

    class TEST_API Conv2dOp : public pir::Op<Conv2dOp, ...> {
     public:
      static const char *name() { return "pd_op.conv2d"; }
      static void Build(pir::Builder &builder, pir::OperationArgument &argument,
                        pir::Value input_, ..., int groups=1, ...);
      pir::Value input() { return operand_source(0); }
      pir::Value out() { return result(0); }
    };
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_CLASS_HEAD = re.compile(r"\b(?:class|struct)\s+(?:\w+\s+)*?(\w+)\s*(?::[^;{}()]*)?\{")
_OP_NAME = re.compile(r'static\s+const\s+char\s*\*\s*name\(\)\s*(?:const\s*)?\{\s*return\s+'
                      r'"(\w+\.[\w.]+)"\s*;\s*\}')  # "<dialect>.<op>"; dialects have no dot
_BUILD = re.compile(r"\bstatic\s+void\s+Build\s*\(")
# `pir::Value x() { return operand_source(0); }`, `Value out() const { return result(1); }`
_ACCESSOR = re.compile(r"(?<![\w:<])(?:pir::)?Value\s+(\w+)\s*\(\s*\)\s*(?:const\s*)?\{\s*"
                       r"return\s+(operand_source|result)\s*\(\s*(\d+)\s*\)\s*;\s*\}")
_NUM_OPERANDS = re.compile(r"\bnum_operands\s*\(\s*\)")
_NUM_RESULTS = re.compile(r"\bnum_results\s*\(\s*\)")


@dataclass
class Param:
    """One parameter of a `Build(...)` declaration."""

    type: str
    name: str
    default: str | None = None


@dataclass
class OpClass:
    """The header view of one op class."""

    op_name: str
    class_name: str
    header: str  # relative to include/paddle, e.g. fluid/pir/dialect/operator/ir/pd_op.h
    builds: list[list[Param]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)  # accessor names by operand index
    results: list[str] = field(default_factory=list)  # accessor names by result index
    variadic_operands: bool = False  # the class walks num_operands()
    variadic_results: bool = False  # the class walks num_results()

    def build_param(self, name: str) -> Param | None:
        """The first `Build` parameter called `name` (Paddle names attribute parameters
        after the attribute), over the overloads in declaration order."""
        for params in self.builds:
            for param in params:
                if param.name == name:
                    return param
        return None

    def default_of(self, name: str) -> str | None:
        """The C++ default expression the `Build` overloads give parameter `name`."""
        for params in self.builds:
            for param in params:
                if param.name == name and param.default is not None:
                    return param.default
        return None


# -- lexical helpers ----------------------------------------------------------------------------


def strip_comments(text: str) -> str:
    """`text` with // and /* */ comments replaced by spaces (string literals kept)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" ")
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" ")
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def matching(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start` ((), [] or {}), skipping literals."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[text[start]]]
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]}":
            if ch != stack[-1]:
                raise ValueError(f"unbalanced {ch!r} at offset {i}")
            stack.pop()
            if not stack:
                return i
        i += 1
    raise ValueError(f"unclosed {text[start]!r} at offset {start}")


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside brackets, template angle brackets and literals."""
    parts, depth, angle, current = [], 0, 0, []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            current.append(text[i:j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and depth == 0 and _is_template_open(text, i):
            angle += 1
        elif ch == ">" and depth == 0 and angle > 0:
            angle -= 1
        if ch == sep and depth == 0 and angle == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _is_template_open(text: str, i: int) -> bool:
    """A `<` right after an identifier (std::vector<int>), not a less-than operator."""
    j = i - 1
    while j >= 0 and text[j] == " ":
        j -= 1
    return j >= 0 and (text[j].isalnum() or text[j] == "_") and text[i + 1:i + 2] != "<"


# -- declarations ----------------------------------------------------------------------------


def parse_param(text: str) -> Param | None:
    """`const std::vector<int>& strides={1, 1}` -> Param(type, name, default)."""
    text = " ".join(text.split())
    if not text or text == "void":
        return None
    default = None
    pieces = split_top_level(text, "=")
    if len(pieces) > 1:
        text, default = pieces[0].strip(), "=".join(pieces[1:]).strip()
    m = re.match(r"^(.*?)(\w+)$", text)
    if not m or not m.group(1).strip():
        return Param(type=text, name="", default=default)  # unnamed parameter
    return Param(type=m.group(1).strip(), name=m.group(2), default=default)


def parse_params(param_list: str) -> list[Param]:
    """The parameters of a declaration's parenthesised list (without the parentheses)."""
    params = [parse_param(item) for item in split_top_level(param_list)]
    return [p for p in params if p is not None]


def value_type(cpp_type: str) -> str:
    """A parameter's C++ type without cv-qualifiers and references: `const int &` -> `int`."""
    text = re.sub(r"\bconst\b|\bvolatile\b|&", " ", cpp_type)
    return " ".join(text.split())


def class_bodies(text: str):
    """(class name, body text) for every class / struct definition in comment-free `text`."""
    for m in _CLASS_HEAD.finditer(text):
        open_brace = m.end() - 1
        try:
            close = matching(text, open_brace)
        except ValueError:
            continue
        yield m.group(1), text[open_brace + 1:close]


def scan_op_class(class_name: str, body: str, header: str) -> OpClass | None:
    """The OpClass for a class body that declares `static const char *name()`."""
    m = _OP_NAME.search(body)
    if not m:
        return None
    op = OpClass(op_name=m.group(1), class_name=class_name, header=header)
    for build in _BUILD.finditer(body):
        open_paren = build.end() - 1
        op.builds.append(parse_params(body[open_paren + 1:matching(body, open_paren)]))
    operands: dict[int, str] = {}
    results: dict[int, str] = {}
    for acc in _ACCESSOR.finditer(body):
        table = operands if acc.group(2) == "operand_source" else results
        table[int(acc.group(3))] = acc.group(1)  # a later alias of an index wins
    op.operands = [operands[i] for i in sorted(operands)]
    op.results = [results[i] for i in sorted(results)]
    op.variadic_operands = bool(_NUM_OPERANDS.search(body))
    op.variadic_results = bool(_NUM_RESULTS.search(body))
    return op


def scan_header_text(text: str, header: str) -> list[OpClass]:
    """The op classes defined in one header's text."""
    if "name()" not in text:
        return []
    clean = strip_comments(text)
    ops = []
    for class_name, body in class_bodies(clean):
        op = scan_op_class(class_name, body, header)
        if op is not None:
            ops.append(op)
    return ops


def scan_include_dir(include_paddle: Path) -> dict[str, OpClass]:
    """{op name: OpClass} over every header under site-packages/paddle/include/paddle.

    An op declared in several headers keeps the first by sorted path."""
    found: dict[str, OpClass] = {}
    for path in sorted(include_paddle.rglob("*.h")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for op in scan_header_text(text, path.relative_to(include_paddle).as_posix()):
            found.setdefault(op.op_name, op)
    return found
