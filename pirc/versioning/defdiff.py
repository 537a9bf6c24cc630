"""What changed in the op definitions (dialects/) between two PIR versions, and which changes
break saved programs.

`diff_versions(old, new)` compares the definition every op has at `old` with the one it has at
`new` (pirc.ir.specs) and lists DefChanges.  Only what a saved program depends on is compared:
op names, operand and result positions with their types, optional and variadic flags,
attribute names and kinds, regions.  Kernels, inplace pairs, operand names and attribute
defaults are not part of a program, so they never make a change (a default only feeds
drafted `add_attr` data).

A change is **breaking** when a program that is valid under the old definition can be
invalid under the new one (docs/PATCH-CHECK.md has the table): such a program needs a patch
step to be read at the new version.  `covering_actions` says which patch actions make up for a
change; `pirc-patch check` (pirc.versioning.defcheck) and `pirc-patch diff` build on it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass

from ..ir import specs

# Change kinds.  The first group breaks programs saved under the old definition.
BREAKING_KINDS = (
    "op_removed",
    "op_renamed",  # the old op is a new name's now (matched by signature): `new` names it
    "attr_added",  # a required attribute the old programs lack
    "attr_removed",  # the verifier rejects attributes the definition does not know
    "attr_retyped",  # Float -> Double, array<int32> -> array<int64>, ...
    "attr_now_required",
    "operand_added",
    "operand_removed",
    "operand_retyped",
    "operand_now_required",  # old programs may have <<NULL VALUE>> there
    "result_added",
    "result_removed",
    "result_retyped",
    "regions_changed",
)
COMPATIBLE_KINDS = (
    "op_added",
    "op_name_reused",  # after op_renamed: the old name now holds a different op
    "attr_added_optional",
    "attr_now_optional",
    "operand_now_optional",
    "operand_renamed",  # operands are positional: the name is not in a program
    "result_renamed",
)
CHANGE_KINDS = BREAKING_KINDS + COMPATIBLE_KINDS


@dataclass(frozen=True)
class DefChange:
    """One difference between an op's definitions at two versions.

    `subject` is the attribute name, or the operand / result name (new name if it has one);
    `index` the operand / result position (at the new version, or the old one for a removal);
    `old` / `new` the types or kinds before and after.  `default` is the new definition's
    default of an added attribute (`has_default` says whether it has one).
    """

    op: str
    kind: str
    subject: str = ""
    index: int | None = None
    old: str | None = None
    new: str | None = None
    default: object = None
    has_default: bool = False

    @property
    def breaking(self) -> bool:
        return self.kind in BREAKING_KINDS

    def describe(self) -> str:
        """One line in words: `attribute negative_slope: float -> double`."""
        k, s = self.kind, self.subject
        if k == "op_added":
            return "op added"
        if k == "op_removed":
            return "op removed"
        if k == "op_renamed":
            return f"op renamed to {self.new} (same operands, attributes and results)"
        if k == "op_name_reused":
            return f"name reused by a different op (the old op is {self.new} now)"
        if k in ("attr_added", "attr_added_optional"):
            default = f" = {json.dumps(_plain(self.default))}" if self.has_default else ""
            optional = ", optional" if k == "attr_added_optional" else ""
            return f"attribute {s} added ({self.new}{optional}){default}"
        if k == "attr_removed":
            return f"attribute {s} removed (was {self.old})"
        if k == "attr_retyped":
            return f"attribute {s}: {self.old} -> {self.new}"
        if k == "attr_now_required":
            return f"attribute {s} becomes required"
        if k == "attr_now_optional":
            return f"attribute {s} becomes optional"
        if k == "regions_changed":
            return f"regions: {self.old} -> {self.new}"
        noun = "operand" if k.startswith("operand") else "result"
        what = k.split("_", 1)[1]
        where = f"{noun} {self.index} ({s})"
        if what == "added":
            return f"{where} added ({self.new})"
        if what == "removed":
            return f"{where} removed (was {self.old})"
        if what == "retyped":
            return f"{where}: {self.old} -> {self.new}"
        if what == "renamed":
            return f"{noun} {self.index} renamed {self.old} -> {self.new}"
        return f"{where} becomes {what.split('_', 1)[1]}"


def _plain(value):
    return list(_plain(v) for v in value) if isinstance(value, tuple) else value


# -- the format-relevant projection of a definition ------------------------------------------


def _slot(item) -> str:
    """An operand or result as the program sees it: its type plus flags."""
    flags = "".join(f" {f}" for f in ("optional", "variadic") if getattr(item, f))
    return item.type + flags


def projection(spec: specs.OpSpec) -> dict:
    """What a saved program depends on in `spec` (also what definition fingerprints hash)."""
    return {
        "operands": [_slot(o) for o in spec.operands],
        "attributes": {a.name: [a.type, a.optional] for a in spec.attributes},
        "results": [_slot(r) for r in spec.results],
        "regions": [[r.name, r.terminator, r.block_args,
                     list(r.yields) if isinstance(r.yields, tuple) else r.yields]
                    for r in spec.regions],
    }


def definitions_at(version: int) -> dict[str, specs.OpSpec]:
    """Every Paddle op's definition at `version` (a released version, or release + 1 for
    develop).  pirc's own dialects (npu) are left out: they are not Paddle's, a release does
    not fix them, and a saved Paddle program never depends on them."""
    return {name: spec for name in sorted(specs.all_op_names())
            if name.split(".", 1)[0] in specs.PADDLE_DIALECTS
            and (spec := spec_at(name, version)) is not None}


def spec_at(name: str, version: int) -> specs.OpSpec | None:
    """The definition of `name` at `version`.  Past the release this is the develop
    definition (revisions with a higher `since`), which pirc.ir.specs does not serve; a
    removal recorded past the release is not seen there."""
    last = max(specs.SPEC_VERSIONS)
    if version <= last:
        return specs.get_spec(name, version)
    found = specs.get_spec(name, last)
    for spec in specs.revisions(name):
        if last < spec.since <= version:
            found = spec
    return found


def _role(name: str) -> tuple[bool, bool]:
    """(backward, inplace) of an op name: `pd_op.relu_grad_` is both."""
    return name.rstrip("_").endswith("grad"), name.endswith("_")


# -- diffing ----------------------------------------------------------------------------------


def diff_versions(old: int, new: int) -> list[DefChange]:
    """Every change from the definitions at `old` to those at `new`, sorted by op.

    An op whose old definition is, exactly, the definition of an op new at `new` was
    renamed (`op_renamed`): Paddle 3.3 moved 3.2's rms_norm to fused_rms_norm_quant.  Its
    other changes are not listed (a program of the old op becomes the new name's op), the
    new name is not listed as added, and an old name that still exists gets
    `op_name_reused` (3.3's rms_norm is another op)."""
    before, after = definitions_at(old), definitions_at(new)
    renamed = find_renames(before, after)
    changes: list[DefChange] = []
    targets = set(renamed.values())
    for name in sorted(set(before) | set(after)):
        if name in renamed:
            changes.append(DefChange(name, "op_renamed", new=renamed[name]))
            if name in after:
                changes.append(DefChange(name, "op_name_reused", new=renamed[name]))
            continue
        if name in targets:
            continue
        changes.extend(diff_op(name, before.get(name), after.get(name)))
    return changes


def find_renames(before: dict, after: dict) -> dict[str, str]:
    """{old name: new name} for ops whose old definition equals, in everything a program
    depends on, the definition of exactly one op that is new at the later version (and
    no other old op's), in the same role: forward, backward (`*_grad`) or inplace (`*_`)
    ops are only renamed into their own kind.  Exact equality keeps look-alikes apart
    (send_and_recv and ap_variadic share operands and results, not attributes); the role
    keeps 3.0's repeat_interleave from passing for 3.3's repeat_interleave_double_grad,
    whose definitions happen to agree."""
    added = {n: json.dumps(projection(s), sort_keys=True) for n, s in after.items()
             if n not in before}
    by_shape: dict[str, list[str]] = {}
    for n, shape in added.items():
        by_shape.setdefault(shape, []).append(n)
    candidates: dict[str, list[str]] = {}
    for n, spec in before.items():
        now = after.get(n)
        if now is not None and projection(now) == projection(spec):
            continue  # unchanged: not renamed
        shape = json.dumps(projection(spec), sort_keys=True)
        same = [m for m in by_shape.get(shape, ()) if _role(m) == _role(n)]
        if len(same) == 1:
            candidates.setdefault(same[0], []).append(n)
    return {olds[0]: new for new, olds in candidates.items() if len(olds) == 1}


def diff_op(name: str, old: specs.OpSpec | None, new: specs.OpSpec | None) -> list[DefChange]:
    if old is None and new is None:
        return []
    if old is None:
        return [DefChange(name, "op_added")]
    if new is None:
        return [DefChange(name, "op_removed")]
    if old is new or projection(old) == projection(new):
        return []
    out = _diff_attributes(name, old, new)
    out += _diff_slots(name, "operand", old.operands, new.operands)
    out += _diff_slots(name, "result", old.results, new.results)
    before, after = projection(old)["regions"], projection(new)["regions"]
    if before != after:
        out.append(DefChange(name, "regions_changed", old=json.dumps(before),
                             new=json.dumps(after)))
    return out


def _diff_attributes(name, old, new) -> list[DefChange]:
    out = []
    was, now = old.attribute_map, new.attribute_map
    for attr in old.attributes:
        if attr.name not in now:
            out.append(DefChange(name, "attr_removed", attr.name, old=attr.type))
    for attr in new.attributes:
        before = was.get(attr.name)
        if before is None:
            kind = "attr_added_optional" if attr.optional else "attr_added"
            out.append(DefChange(name, kind, attr.name, new=attr.type, default=attr.default,
                                 has_default=attr.has_default))
            continue
        if before.type != attr.type:
            out.append(DefChange(name, "attr_retyped", attr.name, old=before.type,
                                 new=attr.type, default=attr.default,
                                 has_default=attr.has_default))
        if before.optional and not attr.optional:
            out.append(DefChange(name, "attr_now_required", attr.name, new=attr.type,
                                 default=attr.default, has_default=attr.has_default))
        elif attr.optional and not before.optional:
            out.append(DefChange(name, "attr_now_optional", attr.name))
    return out


def _diff_slots(name, noun, old, new) -> list[DefChange]:
    """Operands or results are positional: align them by name, then compare each pair."""
    out = []
    matcher = difflib.SequenceMatcher(a=[o.name for o in old], b=[n.name for n in new],
                                      autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2)))
        if tag != "equal":
            # A replaced stretch: same positions are the same slot renamed (or retyped);
            # what is left over was added or removed.
            for i in range(i1 + len(pairs), i2):
                out.append(DefChange(name, f"{noun}_removed", old[i].name, i, old=_slot(old[i])))
            for j in range(j1 + len(pairs), j2):
                out.append(DefChange(name, f"{noun}_added", new[j].name, j, new=_slot(new[j])))
        for i, j in pairs:
            a, b = old[i], new[j]
            if a.name != b.name:
                out.append(DefChange(name, f"{noun}_renamed", b.name, j, old=a.name, new=b.name))
            if (a.type, a.variadic) != (b.type, b.variadic):
                out.append(DefChange(name, f"{noun}_retyped", b.name, j, old=_slot(a),
                                     new=_slot(b)))
            elif a.optional != b.optional and noun == "operand":
                kind = "operand_now_optional" if b.optional else "operand_now_required"
                out.append(DefChange(name, kind, b.name, j))
            elif a.optional != b.optional:
                out.append(DefChange(name, "result_retyped", b.name, j, old=_slot(a),
                                     new=_slot(b)))
    return sorted(out, key=lambda c: (c.index, c.kind))
