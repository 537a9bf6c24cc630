"""Structure-aware mutators for migration patches (Paddle's patch schema, docs/PATCHES.md).

A patch is four lists (`op_patches`, `op_pair_patches`, `attr_patches`, `type_patches`) of
entries naming what they act on and their `actions` ({action, object, type, data}).  The
mutators rename keys and actions, swap kinds, put lists, nulls, huge numbers or nested data
where a value belongs, point `object` out of range, alias a node to itself (a recursive
anchor) or to shared nodes (an alias bomb), and write whole patches for the ops of the
program the patch will upgrade, so that the actions really run.
"""

from __future__ import annotations

import copy
import random
import re

import yaml

from . import values as V

SECTIONS = ["op_patches", "op_pair_patches", "attr_patches", "type_patches"]
SUBJECT = {"op_patches": "op_name", "op_pair_patches": "op_pair", "attr_patches": "attr_name",
           "type_patches": "type_name"}
ACTIONS = {
    "op_patches": ["add_attr", "modify_attr", "delete_attr", "add_output_attr", "modify_output_attr",
                   "delete_output_attr", "modify_attr_name", "modify_output_attr_name", "add_output",
                   "delete_input", "modify_output_type", "modify_name", "add_null_input", "attr_to_input",
                   "add_input", "delete_output"],
    "op_pair_patches": ["add_value", "delete_value"],
    "attr_patches": ["modify_name", "delete_attr"],
    "type_patches": ["modify_name", "add_type_attr", "delete_type_attr", "delete_type"],
}
ATTR_KINDS = ["pir::BoolAttribute", "pir::Int32Attribute", "pir::Int64Attribute", "pir::FloatAttribute",
              "pir::DoubleAttribute", "pir::StrAttribute", "pir::ArrayAttribute", "pir::IndexAttribute",
              "pir::TensorNameAttribute", "pir::TypeAttribute", "pir::Complex64Attribute",
              "pir::Complex128Attribute", "paddle::dialect::IntArrayAttribute",
              "paddle::dialect::DataTypeAttribute", "paddle::dialect::PlaceAttribute",
              "paddle::dialect::DataLayoutAttribute", "paddle::dialect::ScalarAttribute",
              "pir::NoSuchAttribute", "Int32Attribute", ""]
TYPE_KINDS = ["pir::DenseTensorType", "pir::VectorType", "pir::Float32Type", "pir::Float64Type",
              "pir::Int64Type", "pir::Int32Type", "pir::BoolType", "pir::BFloat16Type", "pir::Float16Type",
              "pir::Complex64Type", "pir::Complex128Type", "pir::IndexType", "pir::UInt8Type",
              "pir::Int8Type", "pir::Int16Type", "paddle::dialect::SelectedRowsType",
              "paddle::dialect::DenseTensorArrayType", "pir::NoSuchType", ""]
KEYS = SECTIONS + ["op_name", "op_pair", "attr_name", "type_name", "actions", "action", "object", "type",
                   "data", "default", "foo", ""]

_HUGE = "ZZHUGE{}ZZ"
_HUGE_RE = re.compile(r"'?ZZHUGE([0-9]+)ZZ'?")


def data_values(rng: random.Random):
    return copy.deepcopy(rng.choice([
        None, [], [None], [[1, 2]], [1, None], {"a": 1}, "", 2**63, 2**64, -1, 0, 1, True, False, "x",
        [[[]]], [["float32"], [1, 2]], ["float32", [1, -1], "NCHW", [], 0], ["float32", None, "NCHW"],
        [None, None, None, None, None], 1.5, float("inf"), float("nan"), "float32", "NCHW", [0, 0, ""],
        [-1, 0, ""], [1, 2, 3], ["a", "b"], _HUGE.format(rng.choice(V.HUGE_DIGITS)), {"": None},
        [{"x": [1]}], "pir::Float32Type", [True], "\u0000", "a b"]))


def object_values(rng: random.Random, names: list[str]):
    pool = [0, 1, 2, -1, 99, 2**63, [0, 1], [2, 0], [0], [0, 1, 2], [-1, 0], [None, 0], "x", None, [],
            _HUGE.format(5000), 1.5, True, {"a": 0}]
    if names and rng.random() < 0.5:
        return rng.choice(names)
    return copy.deepcopy(rng.choice(pool))


def op_names_of(program_ops: list[dict]) -> list[str]:
    return [o["name"] for o in program_ops] or ["pd_op.relu"]


def generate(rng: random.Random, program_ops: list[dict]) -> dict:
    """A patch written for the program's own ops, plausible enough to pass validation often."""
    doc: dict = {}
    for section in rng.sample(SECTIONS, rng.randint(1, 2)):
        entries = []
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(program_ops) if program_ops else {"name": "pd_op.relu", "attrs": [], "n_in": 1,
                                                               "n_out": 1}
            if section == "op_pairs_patches" or section == "op_pair_patches":
                other = rng.choice(program_ops) if program_ops else op
                subject = [op["name"], other["name"]]
            elif section == "attr_patches":
                subject = rng.choice(ATTR_KINDS)
            elif section == "type_patches":
                subject = rng.choice(TYPE_KINDS)
            else:
                subject = op["name"]
            actions = []
            for _ in range(rng.randint(1, 3)):
                action = {"action": rng.choice(ACTIONS[section])}
                if rng.random() < 0.85:
                    names = list(op.get("attrs", []))
                    if action["action"] in ("add_output", "delete_input", "modify_output_type",
                                            "add_null_input", "add_type_attr", "delete_type_attr"):
                        action["object"] = rng.choice([0, 1, op.get("n_in", 1), op.get("n_out", 1), -1, 5])
                    elif action["action"] in ("add_value", "delete_value"):
                        action["object"] = rng.choice([[0, 0], [0, 1], [1, 0], [op.get("n_out", 1), 0], [0]])
                    else:
                        action["object"] = object_values(rng, names + ["new_attr"])
                if rng.random() < 0.7:
                    kinds = TYPE_KINDS if action["action"] in ("add_output", "modify_output_type", "add_value") \
                        else ATTR_KINDS
                    action["type"] = rng.choice(kinds)
                if rng.random() < 0.75:
                    action[rng.choice(["data", "data", "default"])] = data_values(rng)
                actions.append(action)
            entries.append({SUBJECT[section]: subject, "actions": actions})
        doc[section] = entries
    return doc


def _nodes(doc):
    out = []
    stack = [(None, None, doc)]
    seen = set()
    while stack:
        parent, key, value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        out.append((parent, key, value))
        if isinstance(value, dict):
            stack.extend((value, k, v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((value, i, v) for i, v in enumerate(value))
    return out


def rename_key(rng, doc, ops):
    dicts = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and v]
    if not dicts:
        return
    d = rng.choice(dicts)
    key = rng.choice(list(d))
    d[rng.choice(KEYS)] = d.pop(key)


def swap_action(rng, doc, ops):
    actions = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and "action" in v]
    if not actions:
        return generic(rng, doc, ops)
    a = rng.choice(actions)
    section = rng.choice(SECTIONS)
    a["action"] = rng.choice(ACTIONS[section] + ["", "add_attr ", "ADD_ATTR", None, 1, ["add_attr"]])


def swap_kind(rng, doc, ops):
    actions = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and ("type" in v or "action" in v)]
    if not actions:
        return generic(rng, doc, ops)
    rng.choice(actions)["type"] = rng.choice(ATTR_KINDS + TYPE_KINDS + [None, [], 1])


def set_data(rng, doc, ops):
    actions = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and "action" in v]
    if not actions:
        return generic(rng, doc, ops)
    rng.choice(actions)[rng.choice(["data", "default"])] = data_values(rng)


def set_object(rng, doc, ops):
    actions = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and "action" in v]
    if not actions:
        return generic(rng, doc, ops)
    names = [a for o in ops for a in o.get("attrs", [])]
    rng.choice(actions)["object"] = object_values(rng, names)


def set_subject(rng, doc, ops):
    entries = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and any(k in v for k in SUBJECT.values())]
    if not entries:
        return generic(rng, doc, ops)
    e = rng.choice(entries)
    key = next(k for k in SUBJECT.values() if k in e)
    names = op_names_of(ops)
    if key == "op_pair":
        e[key] = rng.choice([[rng.choice(names), rng.choice(names)], [rng.choice(names)], [], "x",
                             [rng.choice(names)] * 3, [None, None]])
    else:
        e[key] = rng.choice(names + V.OP_NAMES[:20] + ATTR_KINDS[:3] + [None, 1, []])


def recursive_anchor(rng, doc, ops):
    """A node that contains itself (YAML writes it as an anchor and an alias to it)."""
    nodes = [(p, k, v) for p, k, v in _nodes(doc) if isinstance(v, (dict, list)) and p is not None]
    if not nodes:
        return generic(rng, doc, ops)
    parent, key, value = rng.choice(nodes)
    ancestors = [v for _, _, v in _nodes(doc) if isinstance(v, (dict, list))]
    target = rng.choice(ancestors)
    if isinstance(value, dict):
        value[rng.choice(["data", "actions", "object", "x"])] = [target] if rng.random() < 0.5 else target
    else:
        value.append(target)


def alias_bomb(rng, doc, ops):
    """Shared nodes nested so that expanding the aliases multiplies the size (a 'billion laughs')."""
    level = ["x"]
    for _ in range(rng.choice([3, 6, 9, 12])):
        level = [level] * 10
    actions = [v for _, _, v in _nodes(doc) if isinstance(v, dict) and "action" in v]
    if actions:
        rng.choice(actions)["data"] = level
    else:
        doc["op_patches"] = [{"op_name": "pd_op.relu", "actions": [{"action": "add_attr", "data": level}]}]


def generic(rng, doc, ops):
    nodes = [n for n in _nodes(doc) if n[0] is not None]
    if not nodes:
        return
    parent, key, value = rng.choice(nodes)
    roll = rng.random()
    if roll < 0.3:
        del parent[key]
    elif roll < 0.45 and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif roll < 0.55:
        parent[key] = [value]
    else:
        parent[key] = data_values(rng)


MUTATORS = [rename_key, swap_action, swap_kind, set_data, set_object, set_subject, recursive_anchor,
            alias_bomb, generic]
WEIGHTS = [4, 6, 6, 10, 6, 5, 2, 0.25, 6]  # a bomb hangs unfixed code for the whole limit


def mutate(rng: random.Random, doc, ops) -> str:
    fn = rng.choices(MUTATORS, WEIGHTS)[0]
    try:
        fn(rng, doc, ops)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        generic(rng, doc, ops)
    return fn.__name__


def dumps(rng: random.Random, doc) -> str:
    try:
        text = yaml.dump(doc, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=rng.random() < 0.5,
                         default_flow_style=rng.choice([False, None, True]), width=rng.choice([80, 10**6]))
    except (yaml.YAMLError, RecursionError, ValueError):
        text = yaml.dump(doc, Dumper=yaml.SafeDumper, sort_keys=False)

    def fill(m):
        n = int(m.group(1))
        return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))
    return _HUGE_RE.sub(fill, text)

