"""Structure-aware mutators for Paddle saved JSON: they edit the parsed document and re-serialize.

The document's parts (docs/FORMAT notes): `base_code` {magic, trainable, version}, `program`
{regions: [{"#", blocks: [{"#", args, ops}]}]}; an op is {"#": "1.matmul", "A": attrs, "I":
operands [{"%": id}], "O": results [{"%": id, "TT": type}], "OA": output attrs, "regions"};
an attribute is {"AT": {"#": "0.a_i32", "D": data}, "N": name}.  The mutators change op
names, attribute tags, data and names, types, value ids, block arguments and regions, and
insert what json.dumps cannot write (numbers past 4,300 digits, nesting deeper than the
recursion limit) through placeholders replaced after serializing.
"""

from __future__ import annotations

import copy
import json
import random
import re

from . import values as V

ATTR_TAGS = ["0.a_array", "0.a_bool", "0.a_c128", "0.a_c64", "0.a_f32", "0.a_f64", "0.a_i32", "0.a_i64",
             "0.a_index", "0.a_pointer", "0.a_str", "0.a_tensorname", "0.a_type", "1.a_dtype",
             "1.a_intarray", "1.a_layout", "1.a_place", "1.a_scalar", "0.a_xyz", "1.a_zzz", "", "a_i32",
             "2.a_i32", "0.a_", "0.t_f32"]
TYPE_TAGS = ["0.t_bf16", "0.t_bool", "0.t_c128", "0.t_c64", "0.t_dtensor", "0.t_f16", "0.t_f32", "0.t_f64",
             "0.t_f8e4m3fn", "0.t_f8e5m2", "0.t_i16", "0.t_i32", "0.t_i64", "0.t_i8", "0.t_index", "0.t_ui8",
             "0.t_undefined", "0.t_vec", "1.t_dense_tensor_array", "1.t_selected_rows",
             "1.t_sparse_coo_tensor", "1.t_sparse_csr_tensor", "0.t_zzz", "", "0.a_i32"]
OP_CODES = ["[.s", "1.", "", "1.a b", "Z", "1.x\u0000", "pd_op.x", "9.foo", "1.while", "1.if", "1.pylayer",
            "2.yield", "0.parameter", "0.combine", "0.split", "0.constant", "0.set_parameter",
            "0.shadow_output", "1.data", "1.fetch", "1.full", "1.select_input", "1.matmul", "p", "1.[",
            "1.a{", "1.\u00e9", "0.module", "3.x", "-1.x", "1.a\"b", "1.a\\b", "1." + "x" * 300]
JSON_VALUES = [[], [-1, 0, ""], [None], None, "", "NaN", "-NaN", "nan", "NAN", "INF", "-INF", "inf",
               2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, -0.0, 1e308, 0.1, True, False, {"a": 1},
               [[[]]], [1, "a", None, True], "float32", "bogus", [0, 0, ""], [1, 0, ""], [99, 0, ""],
               [-1, -1, "x"], [0], "NCHW", "X", [True], [False], [{"#": "0.a_bool", "D": True}],
               [{"#": "0.a_i32", "D": 1}], {"#": "0.a_i32"}, {"#": "0.t_f32"}, [1.5, 2.5], "\u0000"]

# Placeholders for what json.dumps cannot produce, replaced in the serialized text.
_DEEP = "\u0001DEEP:{}\u0001"
_HUGE = "\u0001HUGE:{}\u0001"
_REGIONS = "\u0001REGIONS:{}\u0001"
_PLACEHOLDER = re.compile(r'"\\u0001(DEEP|HUGE|REGIONS):([0-9]+)\\u0001"')
_OP_OPEN = ('{"#":"1.if","A":[],"I":[],"O":[],"OA":[],"regions":[{"#":"region_9","blocks":'
            '[{"#":"block_9","args":[],"ops":[')
_OP_CLOSE = "]}]}]}"


def deep_value(depth: int) -> str:
    return _DEEP.format(depth)


def huge_value(digits: int) -> str:
    return _HUGE.format(digits)


def dumps(rng: random.Random, doc) -> str:
    if rng.random() < 0.8:
        text = json.dumps(doc, separators=(",", ":"))
    else:
        text = json.dumps(doc, indent=rng.choice([None, 1, 4]))

    def fill(m):
        n = int(m.group(2))
        if m.group(1) == "REGIONS":  # an op nested in n region ops, the placeholder an op itself
            return _OP_OPEN * n + '{"#":"1.relu","A":[],"I":[],"O":[],"OA":[]}' + _OP_CLOSE * n
        if m.group(1) == "DEEP":
            opener, closer = ("[", "]") if rng.random() < 0.8 else ('{"a":', "}")
            return opener * n + ("0" if opener == "[" and rng.random() < 0.3 else
                                 "" if opener == "[" else "0") + closer * n
        return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))
    return _PLACEHOLDER.sub(fill, text)


def _nodes(doc):
    """Every (container, key, value, path) of the document, parents before children."""
    out = []
    stack = [(None, None, doc, "")]
    while stack:
        parent, key, value, path = stack.pop()
        out.append((parent, key, value, path))
        if isinstance(value, dict):
            for k, v in value.items():
                stack.append((value, k, v, f"{path}.{k}"))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((value, i, v, f"{path}[{i}]"))
    return out


def _ops(doc) -> list[dict]:
    return [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and "#" in v and "O" in v]


def _attrs(doc) -> list[dict]:
    return [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and "AT" in v and isinstance(v["AT"], dict)]


def _value_holders(doc) -> list[dict]:
    return [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and "%" in v]


def op_code(rng, doc, other):
    ops = _ops(doc)
    if not ops:
        return generic(rng, doc, other)
    op = rng.choice(ops)
    codes = [o["#"] for o in _ops(other)] if other else []
    op["#"] = rng.choice(OP_CODES) if (rng.random() < 0.6 or not codes) else rng.choice(codes)


def attr_tag(rng, doc, other):
    attrs = _attrs(doc)
    if not attrs:
        return generic(rng, doc, other)
    rng.choice(attrs)["AT"]["#"] = rng.choice(ATTR_TAGS)


def attr_data(rng, doc, other):
    attrs = _attrs(doc)
    if not attrs:
        return generic(rng, doc, other)
    at = rng.choice(attrs)["AT"]
    roll = rng.random()
    if roll < 0.1:
        at["D"] = huge_value(rng.choice(V.HUGE_DIGITS))
    elif roll < 0.15:
        at["D"] = deep_value(V.nesting_depth(rng))
    elif roll < 0.25 and isinstance(at.get("D"), list) and at["D"]:
        at["D"][rng.randrange(len(at["D"]))] = rng.choice(JSON_VALUES)
    elif roll < 0.3:
        at["D"] = [{"#": rng.choice(ATTR_TAGS), "D": rng.choice(JSON_VALUES)}]
    else:
        at["D"] = copy.deepcopy(rng.choice(JSON_VALUES))


def attr_name(rng, doc, other):
    attrs = _attrs(doc)
    if not attrs:
        return generic(rng, doc, other)
    a = rng.choice(attrs)
    a["N"] = rng.choice(V.ATTR_NAMES) if rng.random() < 0.8 else rng.choice(attrs)["N"]


def attr_add(rng, doc, other):
    ops = _ops(doc)
    if not ops:
        return generic(rng, doc, other)
    op = rng.choice(ops)
    key = rng.choice(["A", "OA", "A", "DA", "QA"])
    entry = {"AT": {"#": rng.choice(ATTR_TAGS), "D": copy.deepcopy(rng.choice(JSON_VALUES))},
             "N": rng.choice(V.ATTR_NAMES)}
    if rng.random() < 0.2:
        entry = rng.choice([{}, {"N": "x"}, {"AT": None, "N": "x"}, {"AT": {"#": "0.a_i32"}, "N": "x"}, []])
    if isinstance(op.get(key), list):
        op[key].insert(rng.randint(0, len(op[key])), entry)
    else:
        op[key] = [entry]


def stop_gradient(rng, doc, other):
    ops = _ops(doc)
    if not ops:
        return generic(rng, doc, other)
    op = rng.choice(ops)
    value = rng.choice([[], [{"#": "0.a_bool", "D": False}], [{"#": "0.a_bool", "D": True}] * 3,
                        [{"#": "0.a_i32", "D": 1}], "x", [None]])
    op["OA"] = [{"AT": {"#": "0.a_array", "D": value}, "N": rng.choice(["stop_gradient", "persistable"])}]


def result_type(rng, doc, other):
    holders = [h for h in _value_holders(doc) if "TT" in h]
    if not holders:
        return generic(rng, doc, other)
    tt = rng.choice(holders)
    roll = rng.random()
    if roll < 0.3:
        tt["TT"] = {"#": rng.choice(TYPE_TAGS)}
    elif roll < 0.7 and isinstance(tt["TT"], dict) and isinstance(tt["TT"].get("D"), list) and tt["TT"]["D"]:
        d = tt["TT"]["D"]
        i = rng.randrange(len(d))
        d[i] = copy.deepcopy(rng.choice([[-1], [], [2**63], [0], ["x"], None, [2**31, 2**31], {"#": "0.t_i64"},
                                         {"#": rng.choice(TYPE_TAGS)}, "NHWC", "", [[0, 1]], 5, -1]))
    else:
        tt["TT"] = copy.deepcopy(rng.choice([None, {}, {"#": "0.t_vec", "D": []},
                                             {"#": "0.t_vec", "D": [{"#": "0.t_f32"}]},
                                             {"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [1], "NCHW", [], 0]},
                                             {"#": "0.t_dtensor", "D": []}, "0.t_f32"]))


def value_ref(rng, doc, other):
    holders = _value_holders(doc)
    if not holders:
        return generic(rng, doc, other)
    ids = [h["%"] for h in holders]
    h = rng.choice(holders)
    h["%"] = rng.choice(ids) if rng.random() < 0.5 else copy.deepcopy(
        rng.choice([0, -1, 10**6, 2**63, "1", None, 1.5, [], huge_value(5000)]))


def operands(rng, doc, other):
    ops = _ops(doc)
    if not ops:
        return generic(rng, doc, other)
    op = rng.choice(ops)
    key = rng.choice(["I", "O"])
    items = op.get(key)
    if not isinstance(items, list):
        op[key] = []
        return
    if items and rng.random() < 0.5:
        del items[rng.randrange(len(items))]
    else:
        ids = [h["%"] for h in _value_holders(doc)] or [1]
        new = {"%": rng.choice(ids)} if key == "I" else {"%": max([i for i in ids if isinstance(i, int)] or [0]) + 1,
                                                       "TT": {"#": "0.t_f32"}}
        if rng.random() < 0.2:
            new = rng.choice([{"%": 0}, {}, {"%": None}, 1, {"%": 1, "TT": None}])
        items.insert(rng.randint(0, len(items)), new)


def op_move(rng, doc, other):
    """Delete, duplicate or move an op; or copy one from another seed (control flow included)."""
    blocks = [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and isinstance(v.get("ops"), list)]
    if not blocks:
        return generic(rng, doc, other)
    block = rng.choice(blocks)
    ops = block["ops"]
    roll = rng.random()
    if roll < 0.3 and ops:
        del ops[rng.randrange(len(ops))]
    elif roll < 0.55 and ops:
        ops.insert(rng.randint(0, len(ops)), copy.deepcopy(rng.choice(ops)))
    elif roll < 0.75 and len(ops) > 1:
        i, j = rng.sample(range(len(ops)), 2)
        ops[i], ops[j] = ops[j], ops[i]
    else:
        donors = _ops(other) if other else []
        if donors:
            ops.insert(rng.randint(0, len(ops)), copy.deepcopy(rng.choice(donors)))


def regions(rng, doc, other):
    """Regions and block arguments: add to a plain op, empty, give block args types and attrs."""
    ops = _ops(doc)
    if not ops:
        return generic(rng, doc, other)
    op = rng.choice(ops)
    roll = rng.random()
    arg = {"%": 9000 + rng.randrange(9), "TT": {"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, [1], "NCHW", [], 0]}}
    if rng.random() < 0.4:
        arg["ATTRS"] = [{"AT": {"#": "0.a_bool", "D": True}, "N": "stop_gradient"}]
    block = {"#": "block_9", "args": [arg] if rng.random() < 0.6 else [], "ops": []}
    if roll < 0.4:
        op["regions"] = [{"#": "region_9", "blocks": [block]}]
    elif roll < 0.6:
        op["regions"] = rng.choice([[], [{}], [{"#": "r", "blocks": []}], None, [{"#": "r", "blocks": [{}]}]])
    elif roll < 0.8 and isinstance(op.get("regions"), list):
        op["regions"].append({"#": "region_9", "blocks": [block]})
    else:
        blocks = [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and isinstance(v.get("args"), list)]
        if blocks:
            rng.choice(blocks)["args"].append(arg)


def base_code(rng, doc, other):
    if not isinstance(doc, dict) or not isinstance(doc.get("base_code"), dict):
        return generic(rng, doc, other)
    bc = doc["base_code"]
    key = rng.choice(["version", "version", "magic", "trainable", "pirc", "extra"])
    bc[key] = copy.deepcopy(rng.choice([-1, 0, 1, 4, 5, 99, "4", None, 2**64, 1.5, huge_value(4400),
                                        deep_value(100000), "pir", "", True, []]))


def deep_before_ops(rng, doc, other):
    """Deep nesting in a key the stream scanner reads before the op list."""
    if not isinstance(doc, dict):
        return generic(rng, doc, other)
    depth = rng.choice([1000, 3000, 100000])
    roll = rng.random()
    if roll < 0.4:
        doc["base_code"] = deep_value(depth)
    elif roll < 0.7:
        regions_ = doc.get("program", {}).get("regions") if isinstance(doc.get("program"), dict) else None
        if isinstance(regions_, list) and regions_ and isinstance(regions_[0], dict):
            new = {"#": deep_value(depth)}
            new.update(regions_[0])
            regions_[0] = new
        else:
            doc["program"] = deep_value(depth)
    else:
        doc[rng.choice(["extra", "program"])] = deep_value(depth)


def deep_regions(rng, doc, other):
    """An op nested in N region ops (N up to past the recursion limit)."""
    blocks = [v for _, _, v, _ in _nodes(doc) if isinstance(v, dict) and isinstance(v.get("ops"), list)]
    if not blocks:
        return generic(rng, doc, other)
    ops = rng.choice(blocks)["ops"]
    ops.insert(rng.randint(0, len(ops)), _REGIONS.format(rng.choice([10, 300, 999, 1000, 3000])))


def generic(rng, doc, other):
    """Any node: deleted, duplicated, replaced by another kind, wrapped in a list."""
    nodes = [n for n in _nodes(doc) if n[0] is not None]
    if not nodes:
        return
    parent, key, value, _ = rng.choice(nodes)
    roll = rng.random()
    if roll < 0.25:
        del parent[key]
    elif roll < 0.4 and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif roll < 0.5:
        parent[key] = [value]
    elif roll < 0.55:
        parent[key] = deep_value(V.nesting_depth(rng))
    elif roll < 0.6:
        parent[key] = huge_value(rng.choice(V.HUGE_DIGITS))
    elif isinstance(value, str):
        parent[key] = rng.choice(V.STRINGS + V.OP_NAMES)
    elif isinstance(value, bool) or isinstance(value, (int, float)):
        parent[key] = rng.choice(V.BOUNDARY_INTS + [1e308, -0.0, 0.5, True, False])
    else:
        parent[key] = copy.deepcopy(rng.choice(JSON_VALUES))


MUTATORS = [op_code, attr_tag, attr_data, attr_name, attr_add, stop_gradient, result_type, value_ref,
            operands, op_move, regions, base_code, deep_before_ops, deep_regions, generic]
WEIGHTS = [8, 7, 12, 6, 4, 3, 6, 5, 4, 5, 4, 2, 1, 1, 8]


def mutate(rng: random.Random, doc, other) -> str:
    """Mutate `doc` (a parsed document, changed in place); returns the mutator's name."""
    fn = rng.choices(MUTATORS, WEIGHTS)[0]
    try:
        fn(rng, doc, other)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        generic(rng, doc, other)  # a shape the mutator did not expect: fall back
    return fn.__name__
