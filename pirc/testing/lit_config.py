"""lit substitutions for pirc's tools, for pirc's own lit suite and for a user's.

In a lit.cfg.py (docs/TESTING.md):

    from pirc.testing.lit_config import add_pirc_substitutions
    add_pirc_substitutions(config)

makes `pirc-opt`, `pirc-run`, `pirc-patch`, `pirc-compat`, `pirc-bisect`, `FileCheck` (and
its older spelling `filecheck`) and `%python` in RUN lines run with the Python that runs
lit: the tools as `python -m <module>`, so the pirc that lit's Python imports is the one tested
(a virtual environment need not be on PATH), and FileCheck as the `filecheck` Python
package, so no LLVM is needed and nothing named `FileCheck` is installed that could shadow
LLVM's.  A tool name is replaced only where it stands as a word of its own (not inside
`my-pirc-opt.pir`); lit does not know shell quoting, so a RUN line that must spell a tool's
name inside a string spells it apart (`'pirc' + '-opt'`).
"""

from __future__ import annotations

import importlib.util
import re
import sys

# Command name -> the module `python -m` runs (pyproject.toml's [project.scripts]).
TOOLS = {
    "pirc-opt": "pirc",
    "pirc-run": "pirc.cli.run",
    "pirc-patch": "pirc.cli.patch",
    "pirc-compat": "pirc.cli.compat",
    "pirc-bisect": "pirc.cli.bisect",
}


def _word(name: str) -> str:
    return rf"(?<![\w./-]){re.escape(name)}(?![\w.-])"


def add_pirc_substitutions(config, python: str = sys.executable) -> None:
    """Add the substitutions to a lit `config` (see the module docstring)."""
    if importlib.util.find_spec("filecheck") is None:
        raise RuntimeError("pirc's lit substitutions need the filecheck package: "
                           "pip install 'pirc[test]' (or pip install filecheck)")
    for tool, module in TOOLS.items():
        config.substitutions.append((_word(tool), f'"{python}" -m {module}'))
    # lit applies substitutions in order, each to the line the previous ones left:
    # `filecheck` first, or it would rewrite the `-m filecheck` that `FileCheck` becomes.
    for spelling in ("filecheck", "FileCheck"):
        config.substitutions.append((_word(spelling), f'"{python}" -m filecheck'))
    config.substitutions.append(("%python", f'"{python}"'))
