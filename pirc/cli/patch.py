"""`pirc-patch`: tools for migration patches.

    pirc-patch validate [--version=N] PATH...   check patch files and patch folders
    pirc-patch explain PATH                      say in words what a patch (or folder) does

Other subcommands register themselves: each module named in SUBCOMMAND_MODULES defines
`SUBCOMMANDS`, a sequence of `Subcommand` (name, help, a function that adds its
arguments to an argparse parser, a function that runs it and returns the exit status).
A module that is not there yet is skipped; one that fails to import is an error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .exit_status import report_errors
from .version_flag import add_version_flag

# Modules that add subcommands (`diff`, `check`: pirc/cli/patch_defs.py).
SUBCOMMAND_MODULES = ("pirc.cli.patch_defs",)


@dataclass(frozen=True)
class Subcommand:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# -- validate --------------------------------------------------------------------------------


def _configure_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="patch files (N.yaml) or patch folders (N.yaml files + versions.yaml)")
    p.add_argument("--version", type=int, metavar="N",
                   help="the PIR version a file upgrades to, for a file not named N.yaml "
                        "(enables the checks against the op specs of version N-1)")


def run_validate(args: argparse.Namespace) -> int:
    from ..versioning.patch_sets import check_patch_set
    from ..versioning.schema import check_patch_file
    failed = False
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            patch_set, errors = check_patch_set(path)
            summary = (f"release {patch_set.release_version}"
                       f"{', develop build' if patch_set.develop else ''}; "
                       + "; ".join(_count_step(patch_set, n) for n in sorted(patch_set.files)))
            if patch_set.unmigratable:
                summary += f"; unmigratable.yaml: {len(patch_set.unmigratable)} entries"
        else:
            patch, errors = check_patch_file(path, args.version)
            summary = _count(patch)
        for e in errors:
            print(e.render(), file=sys.stderr)
        if errors:
            failed = True
            print(f"{raw}: {len(errors)} error{'s' if len(errors) != 1 else ''}", file=sys.stderr)
        else:
            print(f"{raw}: ok ({summary})")
    return 1 if failed else 0


def _count_step(patch_set, n: int) -> str:
    """`2.yaml: 4 entries, 8 actions`, plus the folder's layer file when it has one
    (pirc.versioning.layers): `+ pirc/2.yaml: 10 entries, 18 actions`."""
    from ..versioning.layers import LAYER_DIR
    text = f"{n}.yaml: {_count(patch_set.base_files.get(n, patch_set.files[n]))}"
    layer = patch_set.layer_files.get(n)
    return text + (f" + {LAYER_DIR}/{n}.yaml: {_count(layer)}" if layer is not None else "")


def _count(patch) -> str:
    entries = (patch.op_patches, patch.op_pair_patches, patch.attr_patches, patch.type_patches)
    n_actions = sum(len(e.actions) for group in entries for e in group)
    if not n_actions:
        return "empty"
    return f"{sum(map(len, entries))} entries, {n_actions} actions"


# -- explain ---------------------------------------------------------------------------------


def _configure_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="a patch file, or a patch folder (every file in order)")
    p.add_argument("--version", type=int, metavar="N",
                   help="the PIR version the file upgrades to, for a file not named N.yaml")


def run_explain(args: argparse.Namespace) -> int:
    from ..versioning.explain import explain_patch
    from ..versioning.policy import VersionPolicy
    from ..versioning.patch_sets import load_patch_set
    from ..versioning.schema import load_patch_file
    path = Path(args.path)
    if path.is_dir():
        patch_set = load_patch_set(path)
        policy = VersionPolicy(patch_set.release_version, patch_set.develop,
                               _paddle_releases(patch_set.release_version))
        lines = [f"{path}: release {patch_set.release_version}"
                 + (", a develop build (version 0)" if patch_set.develop else "")]
        for n in sorted(patch_set.files, key=lambda v: (v == 0, v)):  # 0.yaml applies last
            lines += explain_patch(patch_set.files[n], policy)
    else:
        lines = explain_patch(load_patch_file(path, args.version))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _paddle_releases(release: int) -> dict[int, str]:
    from ..versioning.policy import POLICY
    return {v: r for v, r in POLICY.paddle_releases.items() if v <= release}


BUILTIN_SUBCOMMANDS = (
    Subcommand("validate", "check patch files and folders; report every error with its line",
               _configure_validate, run_validate),
    Subcommand("explain", "say in words what a patch does, one line per action",
               _configure_explain, run_explain),
)


def subcommands() -> list[Subcommand]:
    found = list(BUILTIN_SUBCOMMANDS)
    for module_name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                continue  # not written yet
            raise
        found.extend(module.SUBCOMMANDS)
    return found


def build_arg_parser(commands: list[Subcommand]) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pirc-patch", description="Tools for pirc's migration patches.")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks")
    add_version_flag(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in commands:
        command.configure(sub.add_parser(command.name, help=command.help, description=command.help))
    return p


def run(argv=None) -> int:
    commands = subcommands()
    args = build_arg_parser(commands).parse_args(argv)
    command = next(c for c in commands if c.name == args.command)
    return report_errors(lambda: command.run(args), args.debug)


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":
    main()
