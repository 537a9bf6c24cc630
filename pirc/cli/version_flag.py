"""The top-level `--version` flag every pirc command has: `NAME VERSION (PIR versions 0-4)`.

VERSION is the installed package's version (pirc.__version__, which pyproject.toml's
`version` matches); the PIR range is what pirc.ir.program reads: the develop build (0)
up to the newest release it knows.  Both are looked up only when the flag is given, so the
flag costs nothing on an ordinary run.
"""

from __future__ import annotations

import argparse
import sys


def version_line(tool: str) -> str:
    from .. import __version__
    from ..ir.program import DEVELOP_VERSION, KNOWN_VERSIONS
    versions = set(KNOWN_VERSIONS) | {DEVELOP_VERSION}
    return f"{tool} {__version__} (PIR versions {min(versions)}-{max(versions)})"


class _PrintVersion(argparse.Action):
    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(version_line(parser.prog) + "\n")
        parser.exit()


def add_version_flag(parser: argparse.ArgumentParser) -> None:
    """Add `--version` to a command's top-level parser (named by its `prog`)."""
    parser.add_argument("--version", action=_PrintVersion,
                        help="print the pirc version and the PIR versions it reads, and exit")
