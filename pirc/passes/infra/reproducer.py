"""Crash reproducers: the IR before the pass that failed, the pipeline from that pass on and
the pirc version, in one canonical-text file that `pirc-opt --run-reproducer=FILE` replays.

The header is `//` comments, which every text reader skips, so the file is also an ordinary
program: `pirc-opt FILE -p PIPELINE` does the same by hand.
"""

from __future__ import annotations

import re

from ...errors import PircError
from .pipeline import Pipeline

_PIPELINE = re.compile(r"^// pipeline: (.*)$", re.M)


def reproducer_text(program, pipeline: Pipeline, index: int, failure: str) -> str:
    """The reproducer of a failure of pass #index+1 of `pipeline`; `program` is the IR
    before that pass."""
    from ... import __version__
    from ...text.canonical_printer import print_canonical

    tail = Pipeline(pipeline.spec, pipeline.passes[index:]).text()
    header = [f"// pirc crash reproducer, written by pirc {__version__}",
              f"// failure: {' '.join(failure.split())}",
              f"// pipeline: {tail}",
              "// replay: pirc-opt --run-reproducer=THIS-FILE"]
    return "\n".join(header) + "\n" + print_canonical(program)


def read_reproducer(text: str, filename: str) -> str:
    """The pipeline a reproducer replays (its IR is the rest of the file)."""
    found = _PIPELINE.search(text)
    if found is None:
        raise PircError(f"{filename}: not a pirc crash reproducer (no `// pipeline: ...` line); "
                        "a reproducer is what pirc-opt writes when a pass fails")
    return found.group(1).strip()
