"""Reproducers: the IR before a pass, the pipeline from that pass on, the bisect limit (when
there is one) and the pirc version, in one canonical-text file that `pirc-opt
--run-reproducer=FILE` replays.  pirc-opt writes one when a pass fails (a crash
reproducer); pirc.testing.bisect writes one for the first rewrite that changes what a
program computes (a bisection reproducer: replayed, it stops after that rewrite).

The header is `//` comments, which every text reader skips, so the file is also an ordinary
program: `pirc-opt FILE -p PIPELINE --bisect-limit=N` does the same by hand.
"""

from __future__ import annotations

import re

from ...errors import PircError
from .pipeline import Pipeline

_PIPELINE = re.compile(r"^// pipeline: (.*)$", re.M)
_LIMIT = re.compile(r"^// bisect-limit: (.*)$", re.M)


def reproducer_text(program, pipeline: Pipeline, index: int, failure: str,
                    bisect_limit: int | None = None, kind: str = "crash") -> str:
    """The reproducer of a failure of pass #index+1 of `pipeline`; `program` is the IR
    before that pass, `bisect_limit` the rewrites (counted from that pass) to apply."""
    from ... import __version__
    from ...text.canonical_printer import print_canonical

    tail = Pipeline(pipeline.spec, pipeline.passes[index:]).text()
    header = [f"// pirc {kind} reproducer, written by pirc {__version__}",
              f"// failure: {' '.join(failure.split())}",
              f"// pipeline: {tail}"]
    if bisect_limit is not None:
        header.append(f"// bisect-limit: {bisect_limit}")
    header.append("// replay: pirc-opt --run-reproducer=THIS-FILE")
    return "\n".join(header) + "\n" + print_canonical(program)


def read_reproducer(text: str, filename: str) -> tuple[str, int | None]:
    """The pipeline a reproducer replays and its bisect limit (None: every rewrite); its IR
    is the rest of the file."""
    found = _PIPELINE.search(text)
    if found is None:
        raise PircError(f"{filename}: not a pirc reproducer (no `// pipeline: ...` line); "
                        "a reproducer is what pirc-opt writes when a pass fails, or pirc-bisect "
                        "for the rewrite that changed a program's outputs")
    limit = _LIMIT.search(text)
    if limit is None:
        return found.group(1).strip(), None
    raw = limit.group(1).strip()
    # isascii: str.isdigit() is true of '²' and other digits int() refuses
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise PircError(f"`// bisect-limit: {shown}`: expected a number of rewrites "
                        "(0 or more, ASCII digits, at most 19 of them)").in_file(filename)
    return found.group(1).strip(), int(raw)
