"""`pirc-patch check`: the op definitions and the patches tell the same story.

Rules (docs/PATCH-CHECK.md):

1. **No change without a version bump.**  Every definition revision in dialects/ is for a
   released version (`since <= release`), or for release + 1 when the policy says develop.
   The definitions at each released version hash to the fingerprint recorded for it in
   dialects/released.yaml, so editing a released version's definitions in place fails.
2. **Every breaking change has a patch.**  For each step N = 2 .. release (and release ->
   release + 1 when develop, patched by 0.yaml), each breaking change between the
   definitions at N-1 and N (pirc.versioning.defdiff) is covered by an action of patch N,
   or listed in dialects/unpatched.yaml with a reason.
3. **Patches agree with the definitions.**  An action that retypes or adds an attribute of
   an op defined at N gives the kind the definition at N has.
4. **The allowlist stays honest.**  An unpatched.yaml entry that matches no uncovered
   breaking change is an error.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import PircError
from ..ir import specs
from . import paddle_kinds as K
from .defdiff import BREAKING_KINDS, DefChange, definitions_at, diff_versions, projection
from .model import AttrValue, PatchFile

ALLOWLIST = "unpatched.yaml"
FINGERPRINTS = "released.yaml"
_ALLOW_KEYS = {"version", "ops", "change", "subject", "reason"}


class CheckError(PircError):
    """dialects/unpatched.yaml or released.yaml is malformed."""


@dataclass(frozen=True)
class Allowed:
    """One unpatched.yaml entry: breaking changes of a step that stay unpatched on purpose."""

    versions: tuple[int, ...]  # the steps' new versions (0 = the develop step)
    ops: tuple[str, ...]  # fnmatch patterns
    change: str  # a change kind or a pattern ("attr_*"); "patch_mismatch" for rule 3
    subject: str  # attribute / operand / result name pattern ("*" = any)
    reason: str
    line: int

    def matches(self, step: int, kind: str, op: str, subject: str) -> bool:
        return (step in self.versions and fnmatch.fnmatchcase(kind, self.change)
                and fnmatch.fnmatchcase(subject or "", self.subject)
                and any(fnmatch.fnmatchcase(op, p) for p in self.ops))


@dataclass
class Finding:
    """One reason the check fails."""

    rule: str  # "bump", "fingerprint", "unpatched", "mismatch", "stale"
    message: str


# -- the allowlist and the fingerprints --------------------------------------------------------


def load_allowlist(path: Path) -> list[Allowed]:
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        raise CheckError(f"{path}: invalid YAML: {e}") from None
    if node is None:
        return []
    doc = yaml.safe_load(text)
    if not isinstance(doc, list):
        raise CheckError(f"{path}:1: error: expected a list of entries "
                         "({version, ops, change, subject?, reason})")
    out = []
    for entry, item in zip(doc, node.value):
        line = item.start_mark.line + 1
        where = f"{path}:{line}: error:"
        if not isinstance(entry, dict):
            raise CheckError(f"{where} an entry must be a mapping")
        unknown = set(entry) - _ALLOW_KEYS
        if unknown:
            raise CheckError(f"{where} unknown key(s) {', '.join(sorted(unknown))} "
                             f"(allowed: {', '.join(sorted(_ALLOW_KEYS))})")
        missing = {"version", "ops", "change", "reason"} - set(entry)
        if missing:
            raise CheckError(f"{where} missing {', '.join(sorted(missing))}")
        ops, versions = entry["ops"], entry["version"]
        ops = [ops] if isinstance(ops, str) else ops
        versions = [versions] if type(versions) is int else versions
        if not isinstance(versions, list) or not versions \
                or not all(type(v) is int for v in versions):
            raise CheckError(f"{where} `version` must be a PIR version or a list of them")
        if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
            raise CheckError(f"{where} `ops` must be an op name pattern or a list of them")
        change = str(entry["change"])
        if not any(fnmatch.fnmatchcase(k, change) for k in BREAKING_KINDS + ("patch_mismatch",)):
            raise CheckError(f"{where} `change: {change}` matches no breaking change kind "
                             f"({', '.join(BREAKING_KINDS)}, patch_mismatch)")
        if not str(entry["reason"]).strip():
            raise CheckError(f"{where} every entry needs a reason")
        out.append(Allowed(tuple(versions), tuple(ops), change,
                           str(entry.get("subject", "*")), str(entry["reason"]), line))
    return out


def fingerprint(version: int) -> str:
    """sha256 of what saved programs depend on in every op definition at `version`."""
    digest = hashlib.sha256()
    for name, spec in definitions_at(version).items():
        digest.update(json.dumps([name, projection(spec)], sort_keys=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def load_fingerprints(path: Path) -> dict[int, str]:
    if not path.exists():
        return {}
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    table = doc.get("fingerprints") if isinstance(doc, dict) else None
    if not isinstance(table, dict) or not all(type(k) is int for k in table):
        raise CheckError(f"{path}: expected `fingerprints:` mapping PIR versions to sha256 digests")
    return {k: str(v) for k, v in table.items()}


def write_fingerprints(path: Path, release: int) -> str:
    lines = ["# sha256 of the op definitions (what saved programs depend on) at each released",
             "# PIR version; `pirc-patch check` fails when a released version's definitions",
             "# change.  Written by `pirc-patch check --record` (docs/PATCH-CHECK.md).",
             "fingerprints:"]
    lines += [f"  {v}: {fingerprint(v)}" for v in range(1, release + 1)]
    text = "\n".join(lines) + "\n"
    from ..formats import write_output
    write_output(str(path), text)
    return text


# -- coverage: which patch action makes up for a change ----------------------------------------


def action_kind(value: AttrValue | None) -> str | None:
    """The definition kind an action's attribute value gives (`array<int64>`, `double`)."""
    if value is None:
        return None
    inner = K.array_shorthand(value.type)
    if inner is not None:
        return f"array<{K.attribute_kind(inner)}>"
    kind = K.attribute_kind(value.type)
    if kind == "array":
        element = value.element_type or (value.elements[0].type if value.elements else None)
        return f"array<{K.attribute_kind(element)}>" if element else "array"
    return kind


def kinds_agree(given: str | None, defined: str) -> bool:
    if given is None or defined == "any" or given == defined:
        return True
    if defined == "array":
        return given.startswith("array")
    if given == "array":  # an empty array fits any array kind
        return defined.startswith("array")
    if defined == "scalar":
        return given in ("bool", "int32", "int64", "float", "double", "complex64", "complex128")
    return False


def _renamed_kind(kind: str, renames: dict[str, str]) -> str:
    if kind.startswith("array<"):
        return f"array<{renames.get(kind[6:-1], kind[6:-1])}>"
    return renames.get(kind, kind)


def covered(c: DefChange, patch: PatchFile | None) -> bool:
    """Whether an action of `patch` makes up for the breaking change `c`."""
    if patch is None:
        return False
    actions = [a for p in patch.op_patches if p.op_name == c.op for a in p.actions]
    names = {a.action for a in actions}

    def on(action, obj):
        return [a for a in actions if a.action == action and a.object == obj]

    if c.kind == "op_removed":
        return "modify_name" in names
    if c.kind == "attr_retyped":
        if on("modify_attr", c.subject):
            return True
        renames = {}
        for kp in patch.attr_patches:
            for a in kp.actions:
                if a.action == "modify_name" and a.value is not None:
                    renames[K.attribute_kind(kp.attr_type)] = action_kind(a.value)
        return _renamed_kind(c.old, renames) == c.new
    if c.kind in ("attr_added", "attr_now_required"):
        return bool(on("add_attr", c.subject)) or any(
            a.action == "modify_attr_name" and a.new_name == c.subject for a in actions)
    if c.kind == "attr_removed":
        return bool(on("delete_attr", c.subject) or on("modify_attr_name", c.subject))
    if c.kind == "operand_removed":
        return bool(on("delete_input", c.index)) or _pair(patch, c, "delete_value", consumer=True)
    if c.kind == "operand_added":
        return _pair(patch, c, "add_value", consumer=True)
    if c.kind == "result_added":
        return bool(on("add_output", c.index)) or _pair(patch, c, "add_value", consumer=False)
    if c.kind == "result_removed":
        return _pair(patch, c, "delete_value", consumer=False)
    if c.kind == "result_retyped":
        return bool(on("modify_output_type", c.index))
    return False  # operand_retyped, operand_now_required, regions_changed: nothing migrates them


def _pair(patch: PatchFile, c: DefChange, action: str, consumer: bool) -> bool:
    for pp in patch.op_pair_patches:
        if (pp.consumer if consumer else pp.producer) != c.op:
            continue
        for a in pp.actions:
            if a.action == action and list(a.object)[1 if consumer else 0] == c.index:
                return True
    return False


def mismatches(step: int, patch: PatchFile) -> list[tuple[str, str, str]]:
    """(op, attribute, message) for each action of `patch` whose attribute contradicts the
    definitions at `step`."""
    out = []
    for p in patch.op_patches:
        spec = definitions_at_cached(step).get(p.op_name)
        if spec is None:
            continue  # ops pirc has no definition of (onednn_op.*): nothing to compare
        for a in p.actions:
            if a.action not in ("modify_attr", "add_attr") or a.value is None:
                continue
            attr = spec.attribute(a.object)
            given = action_kind(a.value)
            if attr is None:
                out.append((p.op_name, a.object, (
                    f"{patch.path}:{a.line}: {a.action} {p.op_name}.{a.object}: the definition "
                    f"at version {step} has no attribute {a.object}")))
            elif not kinds_agree(given, attr.type):
                out.append((p.op_name, a.object, (
                    f"{patch.path}:{a.line}: {a.action} {p.op_name}.{a.object} gives {given}, "
                    f"but the definition at version {step} says {attr.type}")))
    return out


_DEFS: dict[int, dict] = {}


def definitions_at_cached(version: int) -> dict:
    if version not in _DEFS:
        _DEFS[version] = definitions_at(version)
    return _DEFS[version]


# -- the check ----------------------------------------------------------------------------------


def steps(release: int, develop: bool) -> list[tuple[int, int, int]]:
    """(old version, new version, patch file number) for every step the check looks at."""
    out = [(n - 1, n, n) for n in range(2, release + 1)]
    if develop:
        out.append((release, release + 1, 0))
    return out


def run_check(patch_set, allowlist_path: Path, prints_path: Path, allowlist: list[Allowed],
              recorded: dict[int, str]) -> tuple[list[Finding], dict]:
    """Every Finding, plus counts for the report."""
    release, develop = patch_set.release_version, patch_set.develop
    findings: list[Finding] = []
    newest = release + 1 if develop else release
    for name in sorted(specs.all_op_names()):
        for spec in specs.revisions(name):
            if spec.since > newest:
                findings.append(Finding("bump", (
                    f"{name}: a definition for PIR version {spec.since}, but the release is "
                    f"{release}{' (develop: ' + str(release + 1) + ')' if develop else ''}; "
                    f"set `develop: true` in patches/versions.yaml (docs/PATCHES.md) or bump "
                    f"the release")))
    for version in range(1, release + 1):
        want = recorded.get(version)
        got = fingerprint(version)
        if want is None:
            findings.append(Finding("fingerprint", (
                f"no fingerprint recorded for released version {version} in "
                f"{prints_path}: run `pirc-patch check --record` when releasing")))
        elif want != got:
            findings.append(Finding("fingerprint", (
                f"the op definitions of released PIR version {version} changed (fingerprint "
                f"{got[:12]}, recorded {want[:12]}): a released format cannot change; record "
                f"the change as a revision `since: {release + 1}` with develop on, or, if it "
                f"only corrects pirc's record of Paddle's definitions, rerun with --record")))
    used: set[int] = set()
    counts = {"steps": 0, "breaking": 0, "covered": 0, "allowed": 0}

    def allowed(step, kind, op, subject) -> bool:
        hits = [i for i, a in enumerate(allowlist) if a.matches(step, kind, op, subject)]
        used.update(hits)
        return bool(hits)

    for old, new, number in steps(release, develop):
        counts["steps"] += 1
        patch = patch_set.files.get(number)
        step = number  # allowlist entries name the step by its patch: 0 = develop
        for op, attr, message in mismatches(new, patch) if patch is not None else ():
            if not allowed(step, "patch_mismatch", op, attr):
                findings.append(Finding("mismatch", message + (
                    f" (fix the patch, or list it in {allowlist_path} with a reason)")))
        for c in diff_versions(old, new):
            if not c.breaking:
                continue
            counts["breaking"] += 1
            if covered(c, patch):
                counts["covered"] += 1
                continue
            if allowed(step, c.kind, c.op, c.subject):
                counts["allowed"] += 1
                continue
            where = f"{number}.yaml" if patch is not None else f"{number}.yaml (absent)"
            findings.append(Finding("unpatched", (
                f"{old} -> {new}: {c.op}: {c.describe()}: no action of {where} covers it "
                f"(add one, e.g. from `pirc-patch diff {old} {new}`, or list it in "
                f"{allowlist_path} with a reason)")))
    for i, a in enumerate(allowlist):
        if i not in used:
            findings.append(Finding("stale", (
                f"{allowlist_path}:{a.line}: entry for version "
                f"{', '.join(map(str, a.versions))} "
                f"({a.change} on {', '.join(a.ops)}) matches no unpatched breaking change: "
                f"remove it")))
    return findings, counts
