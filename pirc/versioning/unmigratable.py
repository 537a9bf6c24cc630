"""The reviewed list of breaking changes no patch can migrate: `unmigratable.yaml`.

A patch folder may hold `unmigratable.yaml` beside `versions.yaml` (pirc's: patches/).  Each
entry names ops, the step (its new PIR version) whose definition change cannot be migrated,
why, and what a user can do:

    - ops: [pd_op.moe_dispatch, pd_op.moe_ffn]   # op names or fnmatch patterns
      version: 2                # the step's new version: Paddle 3.1 removed them
      change: op_removed        # optional: a change kind or pattern (default: any)
      subject: "*"              # optional: attribute / operand / result name pattern
      reason: ...               # required: why nothing migrates it
      advice: ...               # required: what the user can do

Two tools read it.  `pirc-patch check` / `coverage` (pirc.versioning.defcheck) count a
breaking change it matches as reviewed, not as uncovered; an entry that matches no
uncovered change is stale and fails the check.  An upgrade (pirc.versioning.planner)
refuses, before any step runs, a program holding an op an entry names at a step the plan
takes, naming the op, the release and the advice: the step could not give a program its
target version accepts.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import PatchError

UNMIGRATABLE_FILE = "unmigratable.yaml"
_KEYS = {"ops", "version", "change", "subject", "reason", "advice"}
_REQUIRED = {"ops", "version", "reason", "advice"}


@dataclass(frozen=True)
class Unmigratable:
    """One entry: breaking changes of a step that no patch can migrate."""

    versions: tuple[int, ...]  # the steps' new versions (0 = the develop step)
    ops: tuple[str, ...]  # fnmatch patterns
    change: str  # a change kind or a pattern ("attr_*"); "*" = any
    subject: str  # attribute / operand / result name pattern ("*" = any)
    reason: str
    advice: str
    path: str
    line: int

    def matches(self, step: int, kind: str, op: str, subject: str) -> bool:
        return (step in self.versions and fnmatch.fnmatchcase(kind, self.change)
                and fnmatch.fnmatchcase(subject or "", self.subject)
                and self.names(op))

    def names(self, op: str) -> bool:
        return any(fnmatch.fnmatchcase(op, p) for p in self.ops)


def read_unmigratable(path: Path, change_kinds: tuple[str, ...]) -> tuple[list[Unmigratable], list[PatchError]]:
    """The entries of `path` ([] when it does not exist) and a PatchError per mistake, each
    with its line.  `change_kinds`: the kinds `change:` may name (defdiff's breaking kinds)."""
    if not path.exists():
        return [], []
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError) as e:
        return [], [PatchError(f"cannot read: {e}", name)]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return [], [PatchError(f"invalid YAML: {getattr(e, 'problem', e)}", name,
                               mark.line + 1 if mark else None)]
    if node is None:
        return [], []
    doc = yaml.safe_load(text)
    if not isinstance(doc, list):
        return [], [PatchError("expected a list of entries {ops, version, change?, subject?, "
                               "reason, advice}", name, 1)]
    out, errors = [], []
    for entry, item in zip(doc, node.value):
        line = item.start_mark.line + 1
        problem = _problem(entry, change_kinds)
        if problem:
            errors.append(PatchError(problem, name, line))
            continue
        ops, versions = entry["ops"], entry["version"]
        out.append(Unmigratable(
            tuple([versions] if type(versions) is int else versions),
            tuple([ops] if isinstance(ops, str) else ops),
            str(entry.get("change", "*")), str(entry.get("subject", "*")),
            " ".join(str(entry["reason"]).split()), " ".join(str(entry["advice"]).split()),
            name, line))
    return out, errors


def _problem(entry, change_kinds) -> str | None:
    if not isinstance(entry, dict):
        return "an entry must be a mapping {ops, version, change?, subject?, reason, advice}"
    unknown = set(entry) - _KEYS
    if unknown:
        return (f"unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                f"(allowed: {', '.join(sorted(_KEYS))})")
    missing = _REQUIRED - set(entry)
    if missing:
        return f"missing {', '.join(sorted(missing))}"
    ops, versions = entry["ops"], entry["version"]
    ops = [ops] if isinstance(ops, str) else ops
    versions = [versions] if type(versions) is int else versions
    if not isinstance(versions, list) or not versions or not all(
            type(v) is int and v >= 0 for v in versions):
        return "`version` must be a PIR version (the step's new version) or a list of them"
    if not isinstance(ops, list) or not ops or not all(isinstance(o, str) and o for o in ops):
        return "`ops` must be an op name (pattern) or a list of them"
    change = str(entry.get("change", "*"))
    if not any(fnmatch.fnmatchcase(k, change) for k in change_kinds):
        return f"`change: {change}` matches no breaking change kind ({', '.join(change_kinds)})"
    for key in ("reason", "advice"):
        if not isinstance(entry[key], str) or not entry[key].strip():
            return f"`{key}` must be text: {'why no patch can migrate it' if key == 'reason' else 'what the user can do'}"
    return None


# -- refusing an upgrade -------------------------------------------------------------------------


def blocking_ops(program, steps, entries: list[Unmigratable], paddle: dict[int, str],
                 names=None) -> list[str]:
    """One message per op of `program` an entry names at a step of `steps` (forward
    (patch, from, to) triples, in order).  Names follow the steps' op renames, so an op
    is matched by the name it has when the step runs.  Entries are matched once per
    distinct op name, not per op: a 100k-op program has a few hundred names."""
    if not entries or not steps:
        return []
    if names is None:
        names = {op.name for op in program.walk() if op is not program.module}
    current = {n: n for n in names}  # the name each original name has at the step
    blocked: dict[str, tuple] = {}  # original name -> (step, from, entry, name then)
    for patch, _from, to in steps:
        hits = [e for e in entries if to in e.versions]
        for original, name in current.items():
            if original in blocked:
                continue
            entry = next((e for e in hits if e.names(name)), None)
            if entry is not None:
                blocked[original] = (to, _from, entry, name)
        renames = {entry.op_name: a.new_name for entry in patch.op_patches
                   for a in entry.actions if a.action == "modify_name"}
        if renames:
            current = {o: renames.get(n, n) for o, n in current.items()}
    if not blocked:
        return []
    from .step_context import describe_op
    out = []
    for op in program.walk():
        found = blocked.get(op.name) if op is not program.module else None
        if found is None:
            continue
        to, _from, e, name = found
        release = f"Paddle {paddle[to]} (PIR version {to})" if to in paddle else f"PIR version {to}"
        out.append(f"{describe_op(op, program)}: cannot be upgraded past PIR version {_from}: "
                   f"{release} {_what(e.change, name)}: {e.reason} What you can do: {e.advice} "
                   f"({e.path}:{e.line})")
    return out


def _what(change: str, name: str) -> str:
    if change == "op_removed":
        return f"removed {name}"
    return f"changed {name} in a way no patch migrates ({change})"
