"""`pirc-patch diff` and `pirc-patch check`: patches from and against the op definitions.

    pirc-patch diff OLD NEW [--format=yaml|text] [--patch-dir DIR] [-o FILE]
    pirc-patch check [--patch-dir DIR] [--fingerprints FILE] [--record]
    pirc-patch coverage [--patch-dir DIR]

`diff` drafts a patch for the step OLD -> NEW from what changed in dialects/ (0 = the
develop definitions), or lists the changes with what covers each; `check` is the CI gate of
docs/PATCH-CHECK.md; `coverage` the per-step table.  They register with `pirc-patch`
through pirc.cli.patch's SUBCOMMANDS hook.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import PircError
from .patch import Subcommand


def _version(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a PIR version number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"`{text}` is not a PIR version number")
    return value


# -- diff ------------------------------------------------------------------------------------


def _configure_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("old", type=_version, metavar="OLD", help="the PIR version to migrate from")
    p.add_argument("new", type=_version, metavar="NEW",
                   help="the PIR version to migrate to (0 = the develop definitions)")
    p.add_argument("--format", choices=("yaml", "text"), default="yaml",
                   help="yaml: a draft patch in Paddle's schema (default); text: every change, "
                        "one per line, breaking ones marked")
    p.add_argument("--patch-dir", metavar="DIR",
                   help="with --format=text: mark each breaking change covered by this folder's "
                        "patches (default: pirc's own)")
    p.add_argument("-o", dest="output", default=None, help="output file (written atomically)")


def _resolve(version: int, release: int, develop: bool, role: str) -> int:
    """A version as the definitions know it: 0 (develop) is release + 1."""
    if version == 0:
        if not develop:
            raise PircError(f"{role} 0 means the develop definitions, and this build is not a "
                            f"develop build (patches/versions.yaml: develop: false)")
        return release + 1
    newest = release + 1 if develop else release
    if not 1 <= version <= newest:
        raise PircError(f"{role} {version} is not a PIR version pirc has definitions for "
                        f"(1 .. {newest}{', 0 = develop' if develop else ''})")
    return version


def run_diff(args: argparse.Namespace) -> int:
    from ..formats import write_output
    from ..versioning.defdiff import diff_versions
    from ..versioning.patch_draft import draft_patch, summary_text
    from ..versioning.policy import DEVELOP, RELEASE_VERSION
    old = _resolve(args.old, RELEASE_VERSION, DEVELOP, "OLD")
    new = _resolve(args.new, RELEASE_VERSION, DEVELOP, "NEW")
    if old >= new:
        raise PircError(f"OLD ({args.old}) must be an older version than NEW ({args.new}): a "
                        f"patch migrates forward; pirc derives the way back from it")
    changes = diff_versions(old, new)
    if args.format == "text":
        text = summary_text(args.old, args.new, changes, _statuses(args, old, new))
    else:
        text = draft_patch(args.old, args.new, changes)
    write_output(args.output, text)
    return 0


def _statuses(args, old: int, new: int) -> dict:
    """{id(change): coverage row} for the breaking changes of the step old -> new, when the
    step is one of the patch set's (a diff across several steps has no single patch)."""
    from ..versioning.coverage import measure
    from ..versioning.patch_sets import load_patch_set
    table = measure(load_patch_set(args.patch_dir))
    rows = [r for r in table.rows if (r.old, r.new) == (old, new)]
    return {(r.change.op, r.change.kind, r.change.subject, r.change.index): r for r in rows}


# -- check ----------------------------------------------------------------------------------


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("--patch-dir", metavar="DIR",
                   help="the patch folder to check against (default: pirc's own patches, "
                        "with their layer pirc/ and unmigratable.yaml)")
    p.add_argument("--fingerprints", metavar="FILE",
                   help="fingerprints of the released definitions (default: dialects/released.yaml)")
    p.add_argument("--record", action="store_true",
                   help="write the fingerprints of versions 1 .. release first (at release time)")


def run_check(args: argparse.Namespace) -> int:
    from ..ir.specs import dialects_dir
    from ..versioning import defcheck
    from ..versioning.coverage import PADDLE, PIRC, UNMIGRATABLE
    from ..versioning.patch_sets import load_patch_set
    prints_path = (Path(args.fingerprints) if args.fingerprints
                   else dialects_dir() / defcheck.FINGERPRINTS)
    patch_set = load_patch_set(args.patch_dir)
    if args.record:
        defcheck.write_fingerprints(prints_path, patch_set.release_version)
        print(f"recorded the fingerprints of versions 1 .. {patch_set.release_version} in "
              f"{prints_path}")
    recorded = defcheck.load_fingerprints(prints_path)
    findings, table = defcheck.run_check(patch_set, prints_path, recorded)
    for f in findings:
        print(f.render(), file=sys.stderr)
    if findings:
        print(f"pirc-patch check: {len(findings)} problem{'s' if len(findings) != 1 else ''}",
              file=sys.stderr)
        return 1
    print(f"pirc-patch check: ok: release {patch_set.release_version}"
          f"{' (develop)' if patch_set.develop else ''}, {len(table.steps)} steps, "
          f"{table.count()} breaking definition changes: {table.count(PADDLE)} covered by the "
          f"folder's patches, {table.count(PIRC)} by its layer, {table.count(UNMIGRATABLE)} "
          f"reviewed as unmigratable; released definitions match their fingerprints")
    return 0


# -- coverage --------------------------------------------------------------------------------


def _configure_coverage(p: argparse.ArgumentParser) -> None:
    p.add_argument("--patch-dir", metavar="DIR",
                   help="the patch folder to measure (default: pirc's own patches)")


def run_coverage(args: argparse.Namespace) -> int:
    from ..versioning.coverage import measure, table_text
    from ..versioning.policy import POLICY
    from ..versioning.patch_sets import load_patch_set
    sys.stdout.write(table_text(measure(load_patch_set(args.patch_dir)), POLICY.paddle_releases))
    return 0


SUBCOMMANDS = (
    Subcommand("diff", "list the op-definition changes between two PIR versions, or draft a "
                       "patch from them", _configure_diff, run_diff),
    Subcommand("check", "fail when the op definitions changed without a patch, a reviewed "
                        "unmigratable entry or a version bump (for CI)",
               _configure_check, run_check),
    Subcommand("coverage", "per release step, how many breaking definition changes Paddle's "
                           "and pirc's patches migrate", _configure_coverage, run_coverage),
)
