"""How every pirc command ends: a pirc error is its rendered message on stderr and exit 1.

No Python traceback unless --debug (DESIGN.md, "Errors"); Ctrl-C is exit 130, as a shell's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..errors import PircError


def report_errors(command: Callable[[], int], debug: bool = False) -> int:
    """Run `command`; return its exit status, or 1 after printing the error it raised."""
    try:
        return command()
    except PircError as e:
        if debug:
            raise
        print(e.render(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
