"""Version plans: which patch steps turn a program of version v into version t.

Versions are ordered by release: 1, 2, ..., R (the patch set's release), and
then 0, an unreleased develop build, which comes after R when the set is a
develop set (it has `develop: true` and a 0.yaml).  `N.yaml` is the step from
the version before N to N.

* Upgrade v -> t applies N = v+1 ... t in order (with t = 0: v+1 ... R, then
  0.yaml).  Paddle applies v ... t: it re-applies the patch of the file's own
  version, which only works because its actions are meant to be idempotent,
  and applies 1.yaml to every 3.0 file.  pirc's rule is the one that follows
  from "N.yaml turns N-1 into N": a program of version v already has patch v.
* Downgrade v -> t (t before v) applies the inverses of v, v-1, ..., t+1.
* The target defaults to the version the patch set writes: its release, or 0
  for a develop set.

Refused before any step runs, with a message naming both versions:
a program newer than the patch set (the caller names the first op that
blocks: `describe_newer_program`), a develop (0) program on a release set, a
target the set cannot reach, and a missing step `N.yaml` (naming the first
op of the program whose definition changed at N, which that patch would have
had to handle).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import VersionError
from .model import PatchFile, PatchSet

DEVELOP = 0


class PlanError(VersionError):
    """No plan from the program's version to the target (refused before anything changes)."""


@dataclass(frozen=True)
class Step:
    patch: PatchFile
    from_version: int
    to_version: int
    inverse: bool  # a downgrade step: the inverse of `patch`


@dataclass(frozen=True)
class Plan:
    source: int
    target: int
    steps: tuple[Step, ...]
    # The program's op names when the planner walked it (for the unmigratable check);
    # apply_plan reuses them instead of walking again.
    op_names: frozenset | None = None

    @property
    def is_downgrade(self) -> bool:
        return any(s.inverse for s in self.steps)


def version_order(patch_set: PatchSet) -> list[int]:
    """The versions a patch set knows, oldest first: 1 .. release, then 0 if develop."""
    order = list(range(1, patch_set.release_version + 1))
    if patch_set.develop:
        order.append(DEVELOP)
    return order


def default_target(patch_set: PatchSet) -> int:
    return DEVELOP if patch_set.develop else patch_set.release_version


def name_version(v: int) -> str:
    return "0 (develop)" if v == DEVELOP else str(v)


def make_plan(source: int, target: int | None, patch_set: PatchSet, program=None) -> Plan:
    """The steps from `source` to `target` (None: the set's default); PlanError if none.

    `program`, when given, lets a missing-step refusal name the first op that blocks."""
    if target is None:
        target = default_target(patch_set)
    order = version_order(patch_set)
    where = _where(patch_set)
    release = patch_set.release_version
    if source not in order:
        if source == DEVELOP:
            raise PlanError(
                f"the program is PIR version 0, a develop build's; {where} is a release set "
                f"(release {release}, no 0.yaml), so pirc cannot tell which unreleased changes "
                f"the program has; re-save it with a released Paddle, or use a develop patch set "
                f"(--patch-dir)")
        raise PlanError(f"the program is PIR version {source}, newer than {where} knows "
                        f"(versions up to {name_version(order[-1])})")
    if target not in order:
        if target == DEVELOP:
            raise PlanError(f"cannot reach version 0 (develop) from version {source}: {where} has "
                            f"no develop patch (0.yaml with `develop: true`)")
        raise PlanError(f"cannot reach version {target} from version {source}: {where} goes up "
                        f"to version {name_version(order[-1])}")
    rs, rt = order.index(source), order.index(target)
    if rt >= rs:
        versions = order[rs + 1: rt + 1]
        steps = [(n, _before(n, order), n, False) for n in versions]
    else:
        versions = list(reversed(order[rt + 1: rs + 1]))
        steps = [(n, n, _before(n, order), True) for n in versions]
    missing = [n for n in versions if n not in patch_set.files]
    if missing:
        n = missing[0]
        direction = "upgrade" if rt >= rs else "downgrade"
        blocking = ""
        if program is not None:
            op = first_op_changed_at(program, _before(n, order), n)
            blocking = (f"; the first op that needs it: {op}" if op else
                        "; no op of this program changed at that version, but pirc does not "
                        "guess a step: add the file (an empty one if nothing changed)")
        raise PlanError(f"cannot {direction} from version {name_version(source)} to "
                        f"{name_version(target)}: {where} has no {n}.yaml (the step "
                        f"{name_version(_before(n, order))} -> {name_version(n)}){blocking}")
    plan = Plan(source, target, tuple(Step(patch_set.files[n], f, t, inv) for n, f, t, inv in steps))
    if program is not None and plan.steps and not plan.is_downgrade and patch_set.unmigratable:
        from .compiler import op_names
        plan = Plan(plan.source, plan.target, plan.steps, frozenset(op_names(program)))
        _refuse_unmigratable(program, plan, patch_set)
    return plan


def _refuse_unmigratable(program, plan: Plan, patch_set: PatchSet) -> None:
    """An op the folder's unmigratable.yaml names at a step of the plan: no step can give it
    a form the target accepts, so the upgrade stops before anything changes."""
    from .policy import POLICY
    from .unmigratable import blocking_ops
    found = blocking_ops(program, [(s.patch, s.from_version, s.to_version) for s in plan.steps],
                         patch_set.unmigratable, POLICY.paddle_releases, plan.op_names)
    if found:
        n = len(found)
        raise PlanError(f"cannot upgrade from version {name_version(plan.source)} to "
                        f"{name_version(plan.target)}: {n} op{'s have' if n != 1 else ' has'} "
                        f"no migration:\n  " + "\n  ".join(found))


def _before(n: int, order: list[int]) -> int:
    i = order.index(n)
    return order[i - 1] if i > 0 else n - 1


def _where(patch_set: PatchSet) -> str:
    return f"the patch set {patch_set.directory}" if patch_set.directory else "this pirc's patch set"


def first_op_changed_at(program, before: int, version: int) -> str | None:
    """The first op (walk order) whose op definition differs between two versions."""
    from ..ir.specs import get_spec
    from .step_context import describe_op
    for op in program.walk():
        if op is program.module:
            continue
        try:
            old, new = get_spec(op.name, before), get_spec(op.name, version)
        except ValueError:  # a version the op definitions do not cover
            return None
        if old is not new:
            return describe_op(op, program)
    return None


# -- programs newer than the tool ----------------------------------------------------------

_HEADER = re.compile(r"^(\s*pir\.version\s+)(\d+)", re.MULTILINE)


def describe_newer_program(text: str, fmt: str, filename: str, file_version: int | None,
                           latest: int, tool: str = "this pirc") -> VersionError:
    """The refusal of a program newer than `latest`, naming the first op that blocks.

    The program is read as if it were of version `latest` (never kept: only to find the
    first op whose name, attributes or structure version `latest`'s definitions do not
    know); if none, the message says so.
    """
    if file_version is None:
        file_version = _stated_version(text, fmt)
    first = None
    try:
        program = _read_as(text, fmt, filename, latest)
        first = first_unknown_op(program, latest)
    except Exception:  # the program is not readable even as `latest`: no op to name
        program = None
    head = (f"program is PIR version {file_version}, newer than {tool}, which reads versions "
            f"up to {latest}")
    if first:
        tail = f"; the first op version {latest} does not know: {first}"
    elif program is not None:
        tail = (f"; every op is known at version {latest}, but a newer version may have changed "
                f"what they mean")
    else:
        tail = ""
    return VersionError(head + tail + f"; use a pirc that knows version {file_version}").in_file(filename)


def _stated_version(text: str, fmt: str):
    if fmt == "json":
        try:
            return json.loads(text)["base_code"]["version"]
        except Exception:
            return "?"
    m = _HEADER.search(text)
    return int(m.group(2)) if m else "?"


def _read_as(text: str, fmt: str, filename: str, version: int):
    from ..formats import parse_program
    if fmt == "json":
        from ..paddle_json.reader import read_program
        obj = json.loads(text)
        obj["base_code"]["version"] = version
        return read_program(obj, filename)
    if _HEADER.search(text):
        return parse_program(_HEADER.sub(lambda m: m.group(1) + str(version), text, count=1),
                             fmt, filename)
    return parse_program(text, fmt, filename, version)


def first_unknown_op(program, version: int) -> str | None:
    """The first op (walk order) that version `version`'s definitions do not know or that
    does not match them: a missing op name first, else the first verification problem."""
    from ..ir.specs import all_op_names, get_spec
    from ..ir.verifier import collect_problems
    from .step_context import describe_op
    known_anywhere = all_op_names()
    for op in program.walk():
        if op is program.module:
            continue
        if get_spec(op.name, version) is None and "." in op.name:
            why = ("not an op of any version pirc knows" if op.name not in known_anywhere
                   else f"no op of that name at version {version}")
            return f"{describe_op(op, program)}: {why}"
    problems = collect_problems(program, strict=False)
    if problems:
        p = problems[0]
        return f"{describe_op(p.op, program)}: {p.message}"
    return None

