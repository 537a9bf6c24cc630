"""Character-level mutators: they know nothing of the format, so they reach what structure misses
(a lexer fed a NUL, a number cut in half, a bracket left open)."""

from __future__ import annotations

import random
import re

from . import values as V

_ALPHABET = ("{}[]()<>\"'%^:,=.-+_ \n\t\\/#*@!?;xyzAB019" + "\x00\x01\x7f\u00e9\u4e2d\U0001f600\u202e")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _pos(rng: random.Random, text: str) -> int:
    return rng.randint(0, len(text))


def flip(rng, text, other):
    if not text:
        return rng.choice(_ALPHABET)
    i = rng.randrange(len(text))
    return text[:i] + rng.choice(_ALPHABET) + text[i + 1:]


def insert(rng, text, other):
    i = _pos(rng, text)
    piece = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 4)))
    return text[:i] + piece + text[i:]


def delete(rng, text, other):
    if not text:
        return text
    i = rng.randrange(len(text))
    return text[:i] + text[i + rng.randint(1, 24):]


def splice(rng, text, other):
    """A span of this input replaced by a span of another seed."""
    if not other:
        return text
    i, j = sorted((_pos(rng, text), _pos(rng, text)))
    k = rng.randrange(len(other))
    return text[:i] + other[k:k + rng.randint(1, 400)] + text[j:]


def repeat(rng, text, other):
    if not text:
        return text
    i = rng.randrange(len(text))
    span = text[i:i + rng.randint(1, 60)]
    times = rng.choice([2, 3, 10, 50, 500])
    return text[:i] + span * times + text[i:]


def boundary_number(rng, text, other):
    found = list(_NUMBER.finditer(text))
    if not found:
        return insert(rng, text, other)
    m = rng.choice(found)
    return text[:m.start()] + V.number_text(rng) + text[m.end():]


def huge_int(rng, text, other):
    found = list(_NUMBER.finditer(text))
    if found:
        m = rng.choice(found)
        return text[:m.start()] + V.huge_int_text(rng) + text[m.end():]
    i = _pos(rng, text)
    return text[:i] + V.huge_int_text(rng) + text[i:]


def deep_nesting(rng, text, other):
    i = _pos(rng, text)
    opener, closer = rng.choice([("[", "]"), ("{", "}"), ("(", ")"), ("<", ">"), ('[{"a":', "}]")])
    depth = V.nesting_depth(rng)
    closed = closer * depth if rng.random() < 0.6 else ""
    return text[:i] + opener * depth + closed + text[i:]


def nul(rng, text, other):
    i = _pos(rng, text)
    return text[:i] + "\x00" + text[i:]


def unicode(rng, text, other):
    i = _pos(rng, text)
    return text[:i] + V.unicode_text(rng, rng.randint(1, 4)) + text[i:]


def truncate(rng, text, other):
    return text[:_pos(rng, text)]


MUTATORS = [flip, insert, delete, splice, repeat, boundary_number, huge_int, deep_nesting, nul,
            unicode, truncate]
WEIGHTS = [10, 8, 10, 6, 4, 10, 3, 3, 3, 3, 2]


def mutate(rng: random.Random, text: str, other: str) -> tuple[str, str]:
    """One character-level mutation; returns (new text, the mutator's name)."""
    fn = rng.choices(MUTATORS, WEIGHTS)[0]
    return fn(rng, text, other), fn.__name__
