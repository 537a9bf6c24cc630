"""Upgrade (and, through the same door, downgrade) a program to another PIR version.

    from pirc.versioning.upgrade import change_version
    change_version(program)                  # to the version this pirc writes
    change_version(program, target=2)        # up or down
    change_version(program, patch_dir="my/patches")

The plan (pirc.versioning.planner) says which steps run; each patch file is
compiled once per process (pirc.versioning.compiler, or its inverse in
pirc.versioning.downgrade) and run on the program in place.  Afterwards every
op has the op class of its name at the target version and `program.version`
is the target.

A refusal (no plan, an op a step cannot change, an op that cannot be
downgraded) raises a PircError before the program's version changes; the
program object may then be partly converted and should be discarded (the
CLI writes nothing).  Verification against the target's op definitions is
the caller's: `pirc.verify(program)`, which `pirc-opt` runs by default.
"""

from __future__ import annotations

from pathlib import Path

from ..ir import specs
from ..ir.builder import gc_paused
from .compiler import CompiledStep, compile_patch, op_names, run_steps, settle_classes
from .model import PatchFile, PatchSet
from .planner import Plan, PlanError, make_plan, name_version

_SETS: dict[str, PatchSet] = {}
_COMPILED: dict[tuple[int, bool, int, int], tuple[PatchFile, CompiledStep]] = {}


def load_patches(patch_dir: str | Path | None = None) -> PatchSet:
    """The validated patch set of a folder (default: pirc's own), read once per process."""
    key = str(Path(patch_dir).resolve()) if patch_dir is not None else ""
    found = _SETS.get(key)
    if found is None:
        found = _SETS[key] = _read_patch_set(patch_dir)
    return found


def _read_patch_set(patch_dir) -> PatchSet:
    """The validated set; a missing step N.yaml alone does not stop it here: the planner
    refuses a plan that passes through it, naming both versions and the first op that
    blocks, while a program that does not need the step still converts."""
    from ..errors import ErrorList
    from .patch_sets import check_patch_set
    patch_set, errors = check_patch_set(patch_dir)
    gaps = {f"no {n}.yaml:" for n in range(1, patch_set.release_version + 1)
            if n not in patch_set.files}
    errors = [e for e in errors if not any(str(getattr(e, "message", e)).startswith(g) for g in gaps)]
    if errors:
        raise ErrorList(errors)
    return patch_set


def compiled(patch: PatchFile, from_version: int, to_version: int, inverse: bool) -> CompiledStep:
    key = (id(patch), inverse, from_version, to_version)
    hit = _COMPILED.get(key)
    if hit is not None and hit[0] is patch:
        return hit[1]
    if inverse:
        from .downgrade import compile_inverse
        step = compile_inverse(patch, from_version, to_version)
    else:
        step = compile_patch(patch, from_version, to_version)
    _COMPILED[key] = (patch, step)
    return step


def plan_for(program, target: int | None = None, patch_dir=None) -> Plan:
    return make_plan(program.version, target, load_patches(patch_dir), program)


def change_version(program, target: int | None = None, patch_dir=None):
    """Bring `program` to `target` (default: the patch set's own version); returns it."""
    plan = plan_for(program, target, patch_dir)
    apply_plan(program, plan)
    return program


def apply_plan(program, plan: Plan) -> None:
    steps = [compiled(s.patch, s.from_version, s.to_version, s.inverse) for s in plan.steps]
    # Consecutive steps without op pairs share one walk (run_steps); the last walk also
    # gives every op its class at the target.  A step whose pairs name no op the program
    # has (or that a step renames an op to) cannot act through them, so it shares a walk
    # too: pirc's layer has a pair for nanmedian_grad that most programs never meet.  The
    # cyclic GC is paused as in the readers: the program's objects are long-lived, and
    # each collection would rescan them all.
    idle = not any(s.has_pairs() for s in steps)
    if not idle:
        names = plan.op_names if plan.op_names is not None else op_names(program)
        reachable = set(names).union(*(s.rename_targets() for s in steps))
        idle = not any(s.pair_names() & reachable for s in steps)
    groups: list[list[CompiledStep]] = []
    for step in steps:
        if groups and (idle or (not step.has_pairs() and not groups[-1][-1].has_pairs())):
            groups[-1].append(step)
        else:
            groups.append([step])
    with gc_paused():
        for i, group in enumerate(groups):
            run_steps(program, group, plan.target if i == len(groups) - 1 else None,
                      idle_pairs=idle)
        if not groups and program.version != plan.target:
            settle_classes(program, plan.target)
    if plan.is_downgrade:
        from .downgrade import check_ops_exist, restore_kinds
        check_ops_exist(program, plan.target)
        restore_kinds(program, plan.target)
    program.version = plan.target


def upgrade(program, target: int | None = None, patch_dir=None):
    """Upgrade `program` in place to `target` (default: the newest version the patch set
    writes) and return it.  A target older than the program is refused: use downgrade."""
    patch_set = load_patches(patch_dir)
    plan = make_plan(program.version, target, patch_set, program)
    if plan.is_downgrade:
        raise PlanError(f"version {name_version(plan.target)} is older than the program's "
                        f"version {name_version(program.version)}: use downgrade")
    _refuse_ops_of_a_later_version(program, plan)
    apply_plan(program, plan)
    return program


def _refuse_ops_of_a_later_version(program, plan: Plan) -> None:
    """An op no definition of the program's version knows, but one of the target's does:
    the upgrade would turn an op kept generically into that later op without a patch saying
    what it meant (a 3.3.1 `fused_rms_norm_quant` saved under version 1 is not 3.0's op of
    that name, which was called `rms_norm`). Refuse, naming it, before anything changes."""
    if program.version == 0 or plan.target == program.version:
        return
    names = plan.op_names if plan.op_names is not None else op_names(program)
    source, target = specs.op_names(program.version), specs.op_names(plan.target)
    later = sorted(n for n in names if n not in source and n in target)
    if later:
        raise PlanError(
            f"{', '.join(later)}: not an op of PIR version {name_version(program.version)} but one "
            f"of version {name_version(plan.target)}; no patch says what it means in this program, "
            "so pirc will not upgrade it (is the program's version number wrong?)")


def downgrade(program, target: int, patch_dir=None):
    """Downgrade `program` in place to the older version `target` and return it; refuses
    (listing every op and action) what cannot be undone."""
    patch_set = load_patches(patch_dir)
    plan = make_plan(program.version, target, patch_set, program)
    if plan.steps and not plan.is_downgrade:
        raise PlanError(f"version {name_version(target)} is newer than the program's version "
                        f"{name_version(program.version)}: use upgrade")
    apply_plan(program, plan)
    return program
