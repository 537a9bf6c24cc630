"""Structure-aware mutators for PIR text (canonical, Paddle-printed and Paddle 2.6 typed text).

They work on op lines and on the tokens of one line: the op name, attribute names and
literals (tags such as `(Int64)`, numbers, strings, places), types, value ids, and regions
(wrapping ops into `pd_op.if` / `pd_op.while` / generic region ops with block arguments,
nested up to past the recursion limit).  The result need not be valid: half of what they
make should be refused cleanly, and the rest must round-trip.
"""

from __future__ import annotations

import json
import random
import re

from . import values as V

_OP_NAME = re.compile(r'=\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_BARE_OP_NAME = re.compile(r"=\s*([A-Za-z_][\w]*\.[A-Za-z_][\w.]*)\s*\(")
_VALUE_ID = re.compile(r"%[A-Za-z_0-9]+")
_TAG = re.compile(r"\((?:pd_op\.)?[A-Z][A-Za-z0-9]*\)")
_NUMBER = re.compile(r"(?<![\w%])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_TYPE = re.compile(r"(?:pd_op\.|builtin\.)?(?:tensor|vec|selected_rows|tensor_array)<[^<>]*(?:<[^<>]*>[^<>]*)*>"
                   r"|vec\[[^\]]*\]")
_ATTR_ENTRY = re.compile(r"(?<=[{,])\s*([A-Za-z_][\w.]*|\"[^\"]*\")?\s*:")
_ATTR_VALUE = re.compile(r"(?<=:)[^,{}]*?(?=[,}])")

TAGS = ["(Bool)", "(Float)", "(Double)", "(Int32)", "(Int64)", "(Index)", "(Str)", "(TensorName)",
        "(Complex64)", "(Complex128)", "(pd_op.DataType)", "(pd_op.Place)", "(pd_op.IntArray)",
        "(pd_op.DataLayout)", "(pd_op.Scalar)", "(pd_op.X)", "(pd_op.e)", "(Foo)", "(Int8)",
        "(Float16)", "(pd_op.Complex)", "(UInt64)", "(pd_op.Tensor)"]

LITERALS = [
    "(Complex128)[true]", "(Complex64)[1,2]", "(Complex128)[1.5,-nan]", "(Complex64)[]", "(Complex64)[1,2,3]",
    "(Int64)18446744073709551615", "(Int64)9223372036854775808", "(Int64)-9223372036854775809",
    "(Int32)2147483648", "(Int32)-2147483649", "(Index)-1", "(pd_op.X)3", "(pd_op.e)3", "(Foo)1",
    "(pd_op.Place)Place(gpu:0)", "Place(-1:0)", "Place(undefined:0)", "Place(gpu:99999999999999999999)",
    "Place(xpu:0)", "Place()", "Place(cpu)", "Place(gpu_pinned)", "(pd_op.IntArray)[]",
    "(pd_op.IntArray)[9223372036854775808]", "(pd_op.IntArray)[1.5]", "(Double)-nan", "(Double)nan",
    "(Float)-nan", "(Float)1e39", "(Float)inf", "(Double)-inf", "(pd_op.DataType)complex128",
    "(pd_op.DataType)bogus", "(pd_op.DataLayout)NCHW", "(pd_op.DataLayout)X", "(pd_op.Scalar)1",
    "(pd_op.Scalar)(Int64)3", "(pd_op.Scalar)[1]", "(Bool)2", "(Str)1", "(TensorName)\"\"", "[[[[]]]]",
    "[(Int64)1,(Float)2]", "[true,1,\"a\",1.5]", "[]", "[false]", "[true,true]", "\"\"", "-nan", "nan",
    "9223372036854775808", "18446744073709551616", "29223372036854775807", "-9223372036854775809",
    "1e309", "true", "false", "float32", "int64", "bool", "undefined", "e", "P", "Place", "NCHW",
    "[Place(cpu)]", "[(pd_op.DataType)float32]", "tensor<f32>", "{}", "{a:1}",
]

TYPES = ["tensor<f32>", "tensor<-1xf32>", "tensor<0xi64>", "tensor<2x3xf64>", "tensor<1xb>", "tensor<b>",
         "tensor<9223372036854775808xf32>", "tensor<f32,layout:>", "tensor<1xc64>", "tensor<1xc128>",
         "tensor<1xbf16>", "tensor<1xf16>", "tensor<1xui8>", "tensor<?xf32>", "tensor<xf32>",
         "tensor<1x2x3x4x5x6x7x8x9xf32>", "tensor<1xf8e4m3fn>", "tensor<1xfoo>", "f32", "i64", "b",
         "vec[tensor<f32>]", "vec[]", "vec[tensor<f32>,tensor<1xi64>]", "pd_op.tensor<2xf32>",
         "tensor<2xf32,NHWC>", "selected_rows<2xf32>", "tensor_array<f32>", "tensor<-2xf32>",
         "tensor<1xindex>", "tensor<18446744073709551616xf32>", "tensor<<f32>>", "undefined", "none",
         "<<NULL TYPE>>"]

VALUE_IDS = ["%0", "%1", "%999", "%arg_0", "%arg_9", "%-1", "%", "%a b", "%00", "%99999999999999999999",
             "<<NULL VALUE>>"]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _op_line_indices(lines: list[str]) -> list[int]:
    return [i for i, ln in enumerate(lines) if "=" in ln and not ln.lstrip().startswith("//")]


def _on_random_line(rng, text, pattern: re.Pattern, replace) -> str:
    """Apply `replace(rng, match)` to one random match of `pattern` on a random op line."""
    lines = _lines(text)
    candidates = [(i, m) for i in _op_line_indices(lines) for m in pattern.finditer(lines[i])]
    if not candidates:
        return text
    i, m = rng.choice(candidates)
    line = lines[i]
    lines[i] = line[:m.start()] + replace(rng, m) + line[m.end():]
    return "\n".join(lines)


def op_name(rng, text, other):
    def repl(rng, m):
        name = rng.choice(V.OP_NAMES) if rng.random() < 0.7 else _name_from(rng, other)
        if rng.random() < 0.15:
            return "= " + name  # unquoted, as Paddle prints control-flow ops
        return "= " + json.dumps(name, ensure_ascii=rng.random() < 0.5) if rng.random() < 0.3 \
            else '= "' + name + '"'
    if rng.random() < 0.2:
        return _on_random_line(rng, text, _BARE_OP_NAME, lambda r, m: '= "' + rng.choice(V.OP_NAMES) + '" (')
    return _on_random_line(rng, text, _OP_NAME, repl)


def _name_from(rng, other: str) -> str:
    names = _OP_NAME.findall(other) or ["pd_op.relu"]
    return rng.choice(names)


def attr_literal(rng, text, other):
    """An attribute's value replaced by a hostile literal."""
    def repl(rng, m):
        old = m.group(0)
        roll = rng.random()
        if roll < 0.55:
            return rng.choice(LITERALS)
        if roll < 0.7 and _TAG.match(old.strip() or " "):
            t = _TAG.match(old.strip())
            return rng.choice(TAGS) + old.strip()[t.end():]
        if roll < 0.85:
            return rng.choice(TAGS) + old.strip()
        return V.number_text(rng)
    return _on_random_line(rng, text, _ATTR_VALUE, repl)


def attr_tag(rng, text, other):
    return _on_random_line(rng, text, _TAG, lambda r, m: rng.choice(TAGS))


def attr_number(rng, text, other):
    return _on_random_line(rng, text, _NUMBER, lambda r, m: V.number_text(rng))


def attr_string(rng, text, other):
    def repl(rng, m):
        s = rng.choice(V.STRINGS)
        if rng.random() < 0.5:
            return json.dumps(s, ensure_ascii=rng.random() < 0.5)
        return '"' + s + '"'
    return _on_random_line(rng, text, _STRING, repl)


def attr_entry(rng, text, other):
    """A new attribute entry in an op's attribute dict: empty names, duplicates, deep arrays."""
    lines = _lines(text)
    idx = [i for i in _op_line_indices(lines) if "{" in lines[i]]
    if not idx:
        return text
    i = rng.choice(idx)
    line = lines[i]
    brace = [m.start() for m in re.finditer(r"\{", line)]
    at = rng.choice(brace) + 1
    roll = rng.random()
    if roll < 0.15:
        depth = rng.choice([100, 300, 600, 1000, 3000])
        entry = "x:" + "[" * depth + "]" * depth
    elif roll < 0.25:
        size = rng.choice([1000, 100000]) if rng.random() < 0.97 else 20_000_000
        entry = 's:"' + "a" * size + '"'
    else:
        name = rng.choice(V.ATTR_NAMES)
        name = json.dumps(name) if (rng.random() < 0.3 or not re.fullmatch(r"[A-Za-z_][\w.]*", name)) \
            and rng.random() < 0.6 else name
        entry = name + ":" + rng.choice(LITERALS)
    sep = "" if line[at:at + 1] == "}" else ","
    lines[i] = line[:at] + entry + sep + line[at:]
    return "\n".join(lines)


def attr_delete(rng, text, other):
    lines = _lines(text)
    idx = [i for i in _op_line_indices(lines) if _ATTR_ENTRY.search(lines[i])]
    if not idx:
        return text
    i = rng.choice(idx)
    line = lines[i]
    m = rng.choice(list(_ATTR_ENTRY.finditer(line)))
    end = line.find(",", m.end())
    close = line.find("}", m.end())
    stop = min(x for x in (end + 1 if end >= 0 else len(line), close if close >= 0 else len(line)))
    lines[i] = line[:m.start()] + line[stop:]
    return "\n".join(lines)


def type_swap(rng, text, other):
    return _on_random_line(rng, text, _TYPE, lambda r, m: rng.choice(TYPES))


def value_id(rng, text, other):
    lines = _lines(text)
    ids = sorted(set(_VALUE_ID.findall(text))) or ["%0"]
    def repl(rng, m):
        return rng.choice(ids) if rng.random() < 0.6 else rng.choice(VALUE_IDS)
    return _on_random_line(rng, "\n".join(lines), _VALUE_ID, repl)


def line_delete(rng, text, other):
    lines = _lines(text)
    idx = _op_line_indices(lines)
    if not idx:
        return text
    i = rng.choice(idx)
    n = rng.choice([1, 1, 1, 2, 5, 20])
    del lines[i:i + n]
    return "\n".join(lines)


def line_keep_few(rng, text, other):
    """Keep a few consecutive op lines (shrinks a large seed to a fast input)."""
    lines = _lines(text)
    idx = _op_line_indices(lines)
    if len(idx) < 3:
        return text
    start = rng.randrange(len(idx))
    keep = set(idx[start:start + rng.randint(1, 4)])
    head = [ln for ln in lines if ln.startswith("pir.")]
    body = [lines[i] for i in sorted(keep)]
    return "\n".join(head + ["{"] + body + ["}", ""])


def line_duplicate(rng, text, other):
    lines = _lines(text)
    idx = _op_line_indices(lines)
    if not idx:
        return text
    i, j = rng.choice(idx), rng.choice(idx)
    lines.insert(j, lines[i])
    return "\n".join(lines)


def line_swap(rng, text, other):
    lines = _lines(text)
    idx = _op_line_indices(lines)
    if len(idx) < 2:
        return text
    i, j = rng.sample(idx, 2)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def line_from_other(rng, text, other):
    lines, others = _lines(text), _lines(other)
    oidx = _op_line_indices(others)
    if not oidx:
        return text
    at = rng.randint(0, len(lines))
    lines.insert(at, others[rng.choice(oidx)])
    return "\n".join(lines)


def _region_wrap(rng, body: list[str], vid: str) -> tuple[list[str], str]:
    kind = rng.randrange(5)
    if kind == 0:
        head = [f'    (%900) = "pd_op.if" ({vid}) {{stop_gradient:[true]}} -> tensor<f32> {{']
        tail = ["    } else {", '        () = "cf.yield" () {} : () -> ', "    }"]
        return head, "\n".join(tail)
    if kind == 1:
        head = [f'    (%900) = "test.region_op" ({vid}) {{}} : (tensor<1xb>) -> tensor<1xb> ({{',
                "        ^%arg_0 : tensor<1xb> {stop_gradient:true}"]
        tail = ['        () = "cf.yield" (%arg_0) {} : (tensor<1xb>) -> ', "    })"]
        return head, "\n".join(tail)
    if kind == 2:
        head = [f'    (%900) = "pd_op.while" (cond={vid}, inputs={vid}) {{ ',
                "    ^%arg_0 {stop_gradient:true}"]
        tail = [f'        () = "cf.yield" ({vid}, %arg_0) {{}} : (tensor<1xb>, tensor<1xb>) -> ', "    }"]
        return head, "\n".join(tail)
    if kind == 3:
        head = [f'    (%900) = "{rng.choice(["pd_op.pylayer", "pd_op.if", "pd_op.while", "test.op"])}" '
                f'({vid}) {{}} : (tensor<1xb>) -> tensor<1xb> ({{',
                "        ^%arg_0 : tensor<1xb>, %arg_1 : tensor<f32> {x:1}"]
        tail = ["    }, {", "    })"]
        return head, "\n".join(tail)
    head = [f'    (%900) = pd_op.if ({vid}) {{}} -> tensor<f32>{{']
    tail = ["    }"]
    return head, "\n".join(tail)


def region_wrap(rng, text, other):
    """Some op lines moved into a region op (if / while / generic with block arguments)."""
    lines = _lines(text)
    idx = _op_line_indices(lines)
    if not idx:
        return text
    start = rng.randrange(len(idx))
    chosen = idx[start:start + rng.randint(1, 3)]
    ids = _VALUE_ID.findall(lines[idx[0]]) or ["%0"]
    head, tail = _region_wrap(rng, [lines[i] for i in chosen], rng.choice(ids))
    body = ["    " + lines[i] for i in chosen]
    new = lines[:chosen[0]] + head + body + [tail] + lines[chosen[-1] + 1:]
    return "\n".join(new)


def malformed_control_flow(rng, text, other):
    """A control-flow op line with no or wrong operands and regions."""
    templates = [
        '    (%800) = "pd_op.while" () {t:[]} : () -> tensor<5xf32>',
        '    (%800) = "pd_op.while" (%0) {} : (tensor<f32>) -> tensor<f32>',
        '    (%800, %801) = "pd_op.while" (cond=%0, inputs=) { \n    }',
        '    (%800) = "pd_op.if" () {} : () -> tensor<f32>',
        '    (%800) = pd_op.if (%0) {s:[]} : (tensor<6xf32>) -> tensor<1xf32>',
        '    (%800) = "pd_op.pylayer" (%0) {} : (tensor<f32>) -> tensor<f32>',
        '    () = "cf.yield" (%0) {} : (tensor<f32>) -> ',
        '    (%800) = "pd_op.select_input" () {} : () -> tensor<f32>',
        '    (%800) = "builtin.combine" () {} : () -> vec[]',
        '    (%800, %801) = "builtin.split" (%0) {} : (tensor<f32>) -> tensor<f32>, tensor<f32>',
    ]
    lines = _lines(text)
    idx = _op_line_indices(lines) or [max(len(lines) - 1, 0)]
    at = rng.choice(idx) + (1 if rng.random() < 0.5 else 0)
    lines.insert(at, rng.choice(templates))
    return "\n".join(lines)


def deep_regions(rng, text, other):
    """One op nested in N region ops (N up to past the recursion limit)."""
    depth = rng.choice([5, 50, 200, 500, 999, 1000, 1500, 3000])
    canonical = "pir.version" in text or rng.random() < 0.5
    if canonical:
        opener = '() = "test.op" () {} : () -> ({\n'
        closer = "})\n"
        inner = '() = "test.leaf" () {} : () -> \n'
        head = "pir.version 4\n" if "pir.version" not in text else text.split("\n")[0] + "\n"
    else:
        opener = '(%9) = "pd_op.if" (%0) {} -> tensor<f32> {\n'
        closer = "}\n"
        inner = '() = "cf.yield" (%0) {} : (tensor<f32>) -> \n'
        head = ""
    return head + "{\n" + '    (%0) = "test.op" () {} : () -> f32\n' + opener * depth + inner + closer * depth + "}\n"


def header(rng, text, other):
    lines = [ln for ln in _lines(text) if not ln.startswith("pir.version")]
    roll = rng.random()
    if roll < 0.25:
        return "\n".join(lines)
    version = rng.choice(["-1", "0", "1", "2", "3", "4", "5", "99", "1.5", "", "x",
                          "99999999999999999999", V.huge_int_text(rng)])
    new = [f"pir.version {version}"]
    if rng.random() < 0.3:
        tags = rng.choice(["[]", "[[\"p\",1,\"on\"]]", "[x]", "[[]]", "[\"a\"]", "{", "[[\"\",-1,\"\"]]"])
        lines = [ln for ln in lines if not ln.startswith("pir.graph_tags")]
        new.append(f"pir.graph_tags {tags}")
    return "\n".join(new + lines)


def unquote_names(rng, text, other):
    return _on_random_line(rng, text, _OP_NAME, lambda r, m: "= " + m.group(1))


MUTATORS = [op_name, attr_literal, attr_tag, attr_number, attr_string, attr_entry, attr_delete,
            type_swap, value_id, line_delete, line_keep_few, line_duplicate, line_swap, line_from_other,
            region_wrap, malformed_control_flow, deep_regions, header, unquote_names]
WEIGHTS = [8, 12, 5, 6, 4, 7, 3, 6, 5, 4, 6, 2, 2, 3, 6, 3, 1, 2, 1]


def mutate(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    fn = rng.choices(MUTATORS, WEIGHTS)[0]
    return fn(rng, text, other), fn.__name__
