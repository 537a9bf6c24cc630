"""Draft a patch (Paddle's YAML schema) from the op-definition changes between two versions.

`pirc-patch diff OLD NEW` prints `draft_patch(...)`: one `op_patches` entry per op whose
definition changed in a way a single-op action can make up for, and YAML comments for what
actions cannot express or what cannot be told from the definitions:

* attribute kind changed   -> modify_attr with the new kind (arrays: the length-independent
  `pir::ArrayAttribute<X>` shorthand, since definitions do not say how long the array is);
* attribute added          -> add_attr with the definition's default as `data`
  (commented out when the definition has no default);
* attribute removed        -> delete_attr;
* operand removed          -> delete_input (highest index first, so that each index is still
  the one the old definition means after the earlier deletions);
* result added             -> add_output (a DenseTensorType whose dtype and shape the
  definition does not give: review them);
* operand added, result removed, operand/result retyped, regions changed: comments (they
  need op_pair_patches or cannot be migrated);
* op renamed (its old definition is exactly a new op's: defdiff.find_renames) -> modify_name;
* other ops added and ops removed are listed as comments: a rename that also changed the
  definition cannot be told apart from a removal plus an addition.

Output is deterministic: ops sorted by name, actions in definition order.
"""

from __future__ import annotations

import json

from .defdiff import DefChange
from .paddle_kinds import ATTRIBUTE_BY_KIND

_TENSOR_DATA = '[pir::Float32Type, [-1], "NCHW", [], 0]'


def cpp_attribute(kind: str) -> str | None:
    """The C++ name a patch writes for a definition's attribute kind (`array<int64>` ->
    `pir::ArrayAttribute<pir::Int64Attribute>`); None for kinds a patch cannot name."""
    if kind.startswith("array<") and kind.endswith(">"):
        inner = cpp_attribute(kind[6:-1])
        return f"pir::ArrayAttribute<{inner}>" if inner else None
    return ATTRIBUTE_BY_KIND.get(kind)


def _data_lines(kind: str, value, indent: str) -> list[str] | None:
    """`data :` for an add_attr of `kind` with default `value`; None if it cannot be written."""
    if kind.startswith("array<"):
        element = cpp_attribute(kind[6:-1])
        if element is None or not isinstance(value, (list, tuple)):
            return None
        if not value:
            return [f"{indent}data : []"]
        lines = [f"{indent}data :"]
        for v in value:
            scalar = _scalar(v)
            if scalar is None:
                return None
            lines += [f"{indent}  - type : {element}", f"{indent}    data : {scalar}"]
        return lines
    if isinstance(value, (list, tuple)):
        return [f"{indent}data : {json.dumps(list(value))}"]
    scalar = _scalar(value)
    return None if scalar is None else [f"{indent}data : {scalar}"]


def _scalar(value) -> str | None:
    if isinstance(value, bool):
        return json.dumps(str(value).lower())  # Paddle's own patches write "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    return None


def _op_entry(op: str, changes: list[DefChange]) -> tuple[list[str], list[str]]:
    """(action lines, comment lines) for one op."""
    actions: list[str] = []
    notes: list[str] = []
    a = " " * 8  # the keys of an action, under `      - action : X`

    def action(name, obj, *extra):
        actions.extend([f"      - action : {name}", f"{a}object : {obj}", *extra])

    removed_inputs = []
    for c in changes:
        k = c.kind
        if k == "op_renamed":
            actions.extend(["      - action : modify_name", f"{a}data : {c.new}"])
        elif k == "attr_retyped":
            cpp = cpp_attribute(c.new)
            if cpp is None:
                notes.append(f"attribute {c.subject}: {c.old} -> {c.new} (no patch type for {c.new})")
            else:
                action("modify_attr", c.subject, f"{a}type : {cpp}")
        elif k in ("attr_added", "attr_now_required"):
            cpp = cpp_attribute(c.new)
            if cpp and cpp.startswith("pir::ArrayAttribute<"):
                cpp = "pir::ArrayAttribute"
            data = _data_lines(c.new, c.default, a) if c.has_default else None
            if cpp is None or data is None:
                why = "no default in the definition" if cpp else f"no patch type for {c.new}"
                notes.append(f"attribute {c.subject} ({c.new}) is required now: add_attr needs "
                             f"data ({why})")
            else:
                action("add_attr", c.subject, f"{a}type : {cpp}", *data)
        elif k == "attr_removed":
            action("delete_attr", c.subject)
        elif k == "operand_removed":
            removed_inputs.append(c)
        elif k == "result_added":
            if c.new == "tensor":
                action("add_output", c.index, f"{a}type : pir::DenseTensorType",
                       f"{a}data : {_TENSOR_DATA}  # dtype and shape: not in the definition")
            else:
                notes.append(f"result {c.index} ({c.subject}, {c.new}) added: no single-op "
                             f"action builds that type")
        elif c.breaking:
            hint = {"operand_added": " (needs op_pair_patches add_value: the producer is not "
                                     "in the definition)",
                    "result_removed": " (needs op_pair_patches delete_value)"}.get(k, "")
            notes.append(c.describe() + hint)
    for c in sorted(removed_inputs, key=lambda c: -c.index):
        action("delete_input", c.index)
        actions[-1] += f"  # {c.subject}"
    removed = [c for c in changes if c.kind == "attr_removed"]
    added = [c for c in changes if c.kind == "attr_added"]
    if len(removed) == 1 and len(added) == 1 and removed[0].old == added[0].new:
        notes.append(f"maybe a rename: attribute {removed[0].subject} -> {added[0].subject} "
                     f"(modify_attr_name keeps the value)")
    return actions, notes


def draft_patch(old: int, new: int, changes: list[DefChange], source: str = "dialects/") -> str:
    """The YAML text of a draft patch for the step `old` -> `new`."""
    by_op: dict[str, list[DefChange]] = {}
    for c in changes:
        by_op.setdefault(c.op, []).append(c)
    added = sorted(op for op, cs in by_op.items() if cs[0].kind == "op_added")
    removed = sorted(op for op, cs in by_op.items() if cs[0].kind == "op_removed")
    lines = [f"# Draft patch for PIR version {old} -> {new}, from the op definitions in {source}",
             f"# (`pirc-patch diff {old} {new}`).  Review it: types of added outputs and renames",
             "# cannot be told from the definitions.  docs/PATCH-CHECK.md explains each entry."]
    for title, ops in ((f"Ops added at {new} (nothing to migrate; if one is a renamed old op, "
                        "give the old op modify_name)", added),
                       (f"Ops removed at {new} (a program that has one cannot be read at {new} "
                        "unless a patch renames or replaces it)", removed)):
        if ops:
            lines.append(f"# {title}:")
            lines += [f"#   {op}" for op in ops]
    entries, unexpressed = [], []
    for op in sorted(by_op):
        if op in added or op in removed:
            continue
        actions, notes = _op_entry(op, by_op[op])
        if actions:
            entries.append(f"  - op_name : {op}")
            entries += [f"    # {n}" for n in notes]
            entries.append("    actions:")
            entries += actions
        elif notes:
            unexpressed.append(f"#   {op}:")
            unexpressed += [f"#     {n}" for n in notes]
    if unexpressed:
        lines.append("# Breaking changes no single-op action expresses:")
        lines += unexpressed
    if entries:
        lines.append("op_patches:")
        lines += entries
    else:
        lines.append("# No op needs a patch action.")
    return "\n".join(lines) + "\n"


def summary_text(old: int, new: int, changes: list[DefChange], statuses: dict | None = None) -> str:
    """`--format=text`: every change, one line each, marked breaking or harmless; with
    `statuses` (pirc.versioning.coverage rows keyed by (op, kind, subject, index)), each
    breaking change also says what covers it."""
    by_op: dict[str, list[DefChange]] = {}
    for c in changes:
        by_op.setdefault(c.op, []).append(c)
    n_added = sum(1 for cs in by_op.values() if cs[0].kind == "op_added")
    n_removed = sum(1 for cs in by_op.values() if cs[0].kind == "op_removed")
    n_renamed = sum(1 for cs in by_op.values() if cs[0].kind == "op_renamed")
    n_breaking = sum(1 for c in changes if c.breaking)
    lines = [f"PIR version {old} -> {new}: {n_added} ops added, {n_removed} removed, "
             f"{n_renamed} renamed, {len(by_op) - n_added - n_removed - n_renamed} changed; "
             f"{n_breaking} breaking changes"]
    for op in sorted(by_op):
        for c in by_op[op]:
            lines.append(f"{op}: {c.describe()}  [{_mark(c, statuses)}]")
    return "\n".join(lines) + "\n"


def _mark(c: DefChange, statuses: dict | None) -> str:
    if not c.breaking:
        return "harmless"
    row = (statuses or {}).get((c.op, c.kind, c.subject, c.index))
    if row is None:
        return "breaking"
    if row.status == "paddle":
        return f"breaking, covered by {row.number}.yaml"
    if row.status == "pirc":
        return f"breaking, covered by pirc/{row.number}.yaml"
    if row.status == "unmigratable":
        return f"breaking, unmigratable (unmigratable.yaml:{row.entry.line})"
    return "breaking, UNCOVERED"
