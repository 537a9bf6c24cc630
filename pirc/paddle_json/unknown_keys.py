"""Keys of a saved program that pirc does not know: kept, written back, and reported.

Paddle's reader looks up the keys it knows and ignores the rest, so a file with an extra key
inside an op, an operand, a result or a block argument loads in Paddle.  pirc does not drop
such a key silently: the reader keeps it (an op property holding the keys as JSON, by their
path relative to the op), the writer puts it back where it was, and each one is reported as
a warning naming its JSON path.
"""

from __future__ import annotations

import json

from .op_paths import op_paths
from .schema_checks import show

# The keys of an op object that the reader interprets (codes.py spells them).
OP_KEYS = frozenset(("#", "I", "O", "A", "OA", "DA", "QA", "regions"))
PARAMETER_KEYS = frozenset(("#", "A", "O", "OA", "DA", "QA"))
_VALUE_KEYS = frozenset(("%", "TT"))

# Op property: {relative path ("" = the op, "O[0]", "I[1]", "regions[0].blocks[0].args[2]"):
# {key: value}} as compact JSON.
UNKNOWN_KEYS_PROPERTY = "pir.json_unknown_keys"
# Marks a Program whose reading kept some (so that only then are the ops walked for paths).
UNKNOWN_KEYS_SEEN = "_unknown_keys_seen"


def keep_unknown(oj: dict, known: frozenset) -> dict:
    """{relative path: {key: value}} for the unknown keys of an op object and its values."""
    found = {}
    rest = {k: v for k, v in oj.items() if k not in known}
    if rest:
        found[""] = rest
    for key in ("I", "O"):
        entries = oj.get(key)
        if type(entries) is dict:  # builtin.parameter's compact "O"
            entries, single = [entries], True
        else:
            single = False
        if type(entries) is not list:
            continue
        for i, e in enumerate(entries):
            if type(e) is dict and not _VALUE_KEYS.issuperset(e):
                found[key if single else f"{key}[{i}]"] = {
                    k: v for k, v in e.items() if k not in _VALUE_KEYS}
    return found


def restore(fragment: str, unknown_json: str) -> str:
    """An op's JSON text with its kept unknown keys put back (keys sorted, as Paddle writes)."""
    obj = json.loads(fragment)
    for rel, keys in json.loads(unknown_json).items():
        target = _at(obj, rel)
        if type(target) is dict:
            for k, v in keys.items():
                target.setdefault(k, v)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _at(obj, rel: str):
    for part in rel.replace("[", ".").replace("]", "").split("."):
        if part == "":
            continue
        if type(obj) is list:
            i = int(part)
            obj = obj[i] if i < len(obj) else None
        elif type(obj) is dict:
            obj = obj.get(part)
        else:
            return None
    return obj


def unknown_key_warnings(program, filename: str):
    """One `FILE: PATH: warning: ...` line per kept unknown key."""
    for op, path in op_paths(program):
        prop = op.properties.get(UNKNOWN_KEYS_PROPERTY) if op.properties else None
        if prop is None:
            continue
        for rel, keys in json.loads(prop.data).items():
            where = f"{path}.{rel}" if rel else path
            for k in keys:
                yield (f"{filename}: {where}: warning: unknown key {show(k, 120)} "
                       "kept and written back as it is (Paddle's reader ignores keys it does not know)")
