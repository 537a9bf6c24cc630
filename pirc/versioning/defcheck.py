"""`pirc-patch check`: the op definitions and the patches tell the same story.

Rules (docs/PATCH-CHECK.md):

1. **No change without a version bump.**  Every definition revision in dialects/ is for a
   released version (`since <= release`), or for release + 1 when the policy says develop.
   The definitions at each released version hash to the fingerprint recorded for it in
   dialects/released.yaml, so editing a released version's definitions in place fails.
2. **Every breaking change is migrated or reviewed.**  For each step N = 2 .. release (and
   release -> release + 1 when develop, patched by 0.yaml), each breaking change between
   the definitions at N-1 and N (pirc.versioning.defdiff) is covered by an action of patch
   N (Paddle's N.yaml with pirc's layer pirc/N.yaml merged over it), or listed in the
   folder's unmigratable.yaml with the reason and the advice (pirc.versioning.coverage).
3. **Patches agree with the definitions.**  An action that retypes or adds an attribute of
   an op defined at N gives the kind the definition at N has (unless a later action of the
   same entry deletes it again).
4. **The unmigratable list stays honest.**  An entry that matches no uncovered breaking
   change is an error.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import PircError, render_diagnostic
from ..ir import specs
from .actions.registry import lookup
from .coverage import UNCOVERED, Coverage, measure
from .covered import action_kind, steps
from .defdiff import definitions_at, projection
from .model import PatchFile, action_path

FINGERPRINTS = "released.yaml"


class CheckError(PircError):
    """dialects/released.yaml is malformed."""


@dataclass
class Finding:
    """One reason the check fails."""

    rule: str  # "bump", "fingerprint", "unpatched", "mismatch", "stale"
    message: str
    filename: str | None = None  # where, when the finding is at a line of a file
    line: int = 0

    def render(self) -> str:
        return render_diagnostic("error", self.message, self.filename, self.line)


# -- the allowlist and the fingerprints --------------------------------------------------------


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
        raise CheckError("expected `fingerprints:` mapping PIR versions to sha256 digests").in_file(str(path))
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


def mismatches(step: int, patch: PatchFile) -> list[tuple[str, str, str, str, int]]:
    """(op, attribute, message, file, line) for each action of `patch` whose attribute
    contradicts the definitions at `step`."""
    out = []
    for p in patch.op_patches:
        # A renamed op ends as the new name's op: its attributes must fit that definition.
        final = p.op_name
        for a in p.actions:
            final = lookup("op_patches", a.action).op_name_after(a, final)
        spec = definitions_at_cached(step).get(final)
        if spec is None:
            continue  # ops pirc has no definition of (onednn_op.*): nothing to compare
        for i, a in enumerate(p.actions):
            given_value = lookup("op_patches", a.action).attr_given(a)
            if given_value is None:
                continue
            if any(lookup("op_patches", b.action).deletes_attr(b) == a.object
                   for b in p.actions[i + 1:]):
                continue  # deleted again by a later action (pirc's layer over Paddle's patch)
            attr = spec.attribute(a.object)
            given = action_kind(given_value)
            if attr is None:
                out.append((p.op_name, a.object, (
                    f"{a.action} {p.op_name}.{a.object}: the definition "
                    f"at version {step} has no attribute {a.object}"), action_path(patch, a), a.line))
            elif not kinds_agree(given, attr.type):
                out.append((p.op_name, a.object, (
                    f"{a.action} {p.op_name}.{a.object} gives {given}, "
                    f"but the definition at version {step} says {attr.type}"), action_path(patch, a), a.line))
    return out


_DEFS: dict[int, dict] = {}


def definitions_at_cached(version: int) -> dict:
    if version not in _DEFS:
        _DEFS[version] = definitions_at(version)
    return _DEFS[version]


# -- the check ----------------------------------------------------------------------------------


def run_check(patch_set, prints_path: Path, recorded: dict[int, str]) -> tuple[list[Finding], Coverage]:
    """Every Finding, plus the coverage table (coverage.Coverage) for the report."""
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
    table = measure(patch_set)
    for old, new, number in steps(release, develop):
        patch = patch_set.files.get(number)
        for op, attr, message, path, line in mismatches(new, patch) if patch is not None else ():
            findings.append(Finding("mismatch", message + " (fix the patch: pirc's layer "
                                                          "can delete an attribute Paddle adds)", path, line))
    where = _unmigratable_path(patch_set)
    for row in table.rows:
        if row.status != UNCOVERED:
            continue
        c, number = row.change, row.number
        findings.append(Finding("unpatched", (
            f"{row.old} -> {row.new}: {c.op}: {c.describe()}: no action of {number}.yaml or "
            f"pirc/{number}.yaml covers it (add one to the layer pirc/{number}.yaml, e.g. from "
            f"`pirc-patch diff {row.old} {row.new}`, or, if nothing can migrate it, list it "
            f"in {where} with the reason and the advice)")))
    for e in table.stale:
        findings.append(Finding("stale", (
            f"entry for version {', '.join(map(str, e.versions))} "
            f"({e.change} on {', '.join(e.ops)}) matches no uncovered breaking change: "
            f"remove it"), str(e.path), e.line))
    return findings, table


def _unmigratable_path(patch_set) -> str:
    from .unmigratable import UNMIGRATABLE_FILE
    return str(Path(patch_set.directory) / UNMIGRATABLE_FILE)
