"""`--split-input-file` and `--verify-diagnostics`, as in mlir-opt.

An expected error is written as a comment:
`// expected-error {{text}}` (this line), `// expected-error@+1 {{text}}`
(the next line), `// expected-error@-2 {{text}}`.  The run succeeds when
every expected error was reported on its line with a message containing
the text, and no other error was reported.
"""

from __future__ import annotations

import re
import sys

from ..errors import ErrorList, PircError, SourceError

_EXPECTED = re.compile(r"//\s*expected-error(?:@([+-]\d+))?\s*\{\{(.*?)\}\}")


def split_input(text: str, marker: str):
    """Yield (chunk, line offset of the chunk) for each part between marker lines."""
    chunk, start = [], 0
    for i, line in enumerate(text.splitlines(keepends=True)):
        if line.strip() == marker:
            yield "".join(chunk), start
            chunk, start = [], i + 1
        else:
            chunk.append(line)
    yield "".join(chunk), start


def expected_errors(chunk: str, offset: int):
    out = []
    for i, line in enumerate(chunk.splitlines()):
        m = _EXPECTED.search(line)
        if m:
            shift = int(m.group(1)) if m.group(1) else 0
            out.append((offset + i + 1 + shift, m.group(2)))
    return out


def check_expected_diagnostics(text: str, filename: str, args, process) -> int:
    chunks = list(split_input(text, "// -----")) if args.split_input_file else [(text, 0)]
    ok = True
    for chunk, offset in chunks:
        expected = expected_errors(chunk, offset)
        reported = []
        try:
            process(chunk, args, filename, offset)
        except SourceError as e:
            reported.append((e.line, e.message))
        except ErrorList as e:
            reported.extend((x.line, x.message) for x in e.errors)
        except PircError as e:
            reported.append((None, str(e)))
        for line, message in reported:
            match = next((x for x in expected if (x[0] == line or line is None) and x[1] in message), None)
            if match is None:
                where = f"{filename}:{line}" if line else filename
                print(f"{where}: error: unexpected error: {message}", file=sys.stderr)
                ok = False
            else:
                expected.remove(match)
        for line, message in expected:
            print(f"{filename}:{line}: error: expected error \"{message}\" was not produced", file=sys.stderr)
            ok = False
    return 0 if ok else 1
