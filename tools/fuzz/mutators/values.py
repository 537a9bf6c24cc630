"""Boundary and hostile values the mutators draw from.

Each list holds what a front end has got wrong before or is likely to: integers at the edges
of int32/int64/uint64 and past Python's 4,300-digit str limit, NaN of either sign, names with
spaces, brackets, NUL or no dialect, strings that need escaping, unicode.  Sizes that would
allocate much (deep nesting, huge strings) are drawn rarely, by the callers.
"""

from __future__ import annotations

import random

BOUNDARY_INTS = [
    0, 1, -1, 2, 127, 128, 255, 256, -129, 2**15, 2**16, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1,
    2**32, 2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64,
    29223372036854775807, 10**30,
]

# Spelled as text: the literal forms a parser may see.
NUMBER_TEXTS = [str(i) for i in BOUNDARY_INTS] + [
    "-0", "0.0", "-0.0", "1e308", "1e309", "-1e309", "1e-320", "4.9e-324", "3.4028235e38",
    "3.5e38", "0.1", "1.", ".5", "1e", "0x10", "1_000", "01", "nan", "-nan", "inf", "-inf",
    "NaN", "-NaN", "Infinity", "-Infinity", "NAN", "+1",
]

# Digit counts around CPython's int max_str_digits (4,300).
HUGE_DIGITS = [400, 4299, 4300, 4301, 5000, 20000]

OP_NAMES = [
    "", "a", "Z", "a b", "[.s", "[", "]", "pd_op.", ".x", "pd_op.a b", "pd_op.x]", "pd_op.(", "pd_op.{",
    "x\x00y", "pd_op.\x00", "pd_op.a\x00", "pd_op.while", "pd_op.if", "pd_op.pylayer", "cf.yield",
    "cf.stack_create", "builtin.parameter", "builtin.combine", "builtin.split", "builtin.constant",
    "builtin.set_parameter", "builtin.shadow_output", "builtin.module", "pd_op.data", "pd_op.fetch",
    "pd_op.full", "pd_op.full_int_array", "pd_op.assign_value_", "pd_op.matmul", "pd_op.select_input",
    "\u00fc.op", "pd_op.\u00f1", "pd_op.a\u202e", "test.op", "test.region_op", "1.matmul", "pd_op.a\\",
    "pd_op.a\"b", "pd_op.a{b}", "pd_op.a,b", "pd_op.a:b", "pd_op.a%b", "pd_op.a->b", "pd_op.a\nb",
    "pd_op.a\tb", "pd_op..x", "a.b.c", "\u4e2d.\u6587", "pd_op.x" * 40, "%0", "^bb", "()",
]

STRINGS = [
    "", " ", "a b", "\x00", "a\x00b", "\n", "\t", "\\", "\"", "'", "{", "}", "[", "]", "(", ")",
    ":", ",", "%", "^", "->", "//", "/*", "Place(cpu)", "float32", "\u00e9", "\u4e2d\u6587",
    "\U0001f600", "\u202e", "\ufeff", "\u2028", "\u0301", "x" * 300, "NaN", "-nan", "inf",
]

ATTR_NAMES = ["", " ", "a b", "stop_gradient", "persistable", "name", "dtype", "place", "shape",
              "value", "op_callstack", "struct_name", "is_persistable", "x", "_", "1x", "\u00e9",
              "a\x00", "{", "x" * 200, "kwargs", "__proto__"]


def huge_int_text(rng: random.Random) -> str:
    """A decimal integer with a digit count around Python's str-conversion limit."""
    digits = rng.choice(HUGE_DIGITS)
    sign = "-" if rng.random() < 0.2 else ""
    return sign + str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))


def nesting_depth(rng: random.Random) -> int:
    """A nesting depth: usually modest, sometimes past any recursion limit."""
    return rng.choice([2, 10, 50, 100, 300, 600, 999, 1000, 1200, 3000, 10000, 100000])


def number_text(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return huge_int_text(rng)
    return rng.choice(NUMBER_TEXTS)


def unicode_text(rng: random.Random, n: int = 3) -> str:
    """A few characters from awkward unicode ranges (combining marks, RTL, CJK, emoji, controls)."""
    ranges = [(0x1, 0x1f), (0x7f, 0xa0), (0x300, 0x36f), (0x200b, 0x202e), (0x4e00, 0x4e80),
              (0x1f600, 0x1f64f), (0xfff0, 0xfffd), (0xe000, 0xe010)]
    out = []
    for _ in range(n):
        lo, hi = rng.choice(ranges)
        out.append(chr(rng.randint(lo, hi)))
    return "".join(out)
