"""`--split-input-file` and `--verify-diagnostics`, as in mlir-opt.

An expected diagnostic is a comment (mlir's SourceMgrDiagnosticVerifierHandler syntax):

    (%1) = "pd_op.relu" (%7) ... // expected-error {{use of undefined value %7}}
    // expected-error@+1 {{...}}      the next line (@-2: two lines up)
    // expected-warning@above {{...}} the nearest line above that holds no expectation
    // expected-note@below {{...}}    the nearest line below that holds no expectation
                                      (a line with the same-line form holds one)
    // expected-remark@unknown {{...}} a diagnostic with no line (a whole-program error)
    // expected-error-re {{value {{%[0-9]+}} is defined twice}}   {{regex}} inside the text

Kinds: error, warning, note, remark.  A diagnostic matches an expectation of its kind on
its line whose text it contains (for -re, whose pattern it matches).  The run succeeds
when every expectation was matched and nothing else was reported; otherwise each
diagnostic nobody expected is reported at its own place (`unexpected error: ...`), each
expectation nobody met at the comment's line and column (`expected error "..." was not
produced`), and one of the wrong kind as mlir does (`'warning' diagnostic emitted when
expecting a 'error'`).  Matching is by line (as mlir); the locations printed are exact.
"""

from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass

from ..errors import ErrorList, PircError, PircWarning, render_diagnostic

KINDS = ("error", "warning", "note", "remark")
_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)(-re)?[ \t]*(?:@([+-]\d+|above|below|unknown))?[ \t]*\{\{(.*)\}\}")


@dataclass
class Expected:
    kind: str
    text: str
    regex: re.Pattern | None
    line: int | None  # None: @unknown
    at_line: int  # where the comment is (for "was not produced")
    at_column: int
    matched: bool = False

    def accepts(self, message: str) -> bool:
        return bool(self.regex.search(message)) if self.regex is not None else self.text in message


@dataclass(frozen=True)
class Reported:
    """One diagnostic a run produced: kind, message, where (line None: no line)."""

    kind: str
    message: str
    line: int | None
    column: int = 0
    path: str = ""


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


def _pattern(text: str) -> re.Pattern:
    """An -re expectation: literal text with `{{regex}}` parts, as mlir's."""
    parts, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        parts.append(re.escape(text[pos:m.start()]))
        parts.append(f"(?:{m.group(1)})")
        pos = m.end()
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))


def expected_diagnostics(chunk: str, offset: int, filename: str) -> list[Expected]:
    """Every expectation of `chunk` (line numbers of the whole file: + offset)."""
    out, below, last_plain = [], [], None
    for i, line in enumerate(chunk.splitlines()):
        number = offset + i + 1
        found = _EXPECTED.search(line)  # one per line, as mlir: its text runs to the last }}
        if found is None:
            for e in below:  # the first line below that holds no expectation
                e.line = number
            below = []
            last_plain = number
            continue
        kind, is_re, where, text = found.groups()
        try:
            regex = _pattern(text) if is_re else None
        except re.error as err:
            raise PircError(f"invalid regex in expected-{kind}-re: {err}").at(
                _located(filename, number, found.start() + 1)) from None
        e = Expected(kind, text, regex, number, number, found.start() + 1)
        if where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain if last_plain is not None else 0
        elif where == "below":
            below.append(e)
        elif where is not None:
            if len(where) > 10:  # int() stops at 4,300 digits; no file has 10^9 lines
                raise PircError(f"expected-{kind}@{where[:12]}...: a line offset of "
                                f"{len(where) - 1} digits; no file has that many lines").at(
                    _located(filename, number, found.start() + 1))
            e.line = number + int(where)
        out.append(e)
    return out


def _located(filename: str, line: int, column: int) -> PircError:
    where = PircError("")
    where.filename, where.line, where.column = filename, line, column
    return where


def reported_diagnostics(error: PircError | None, caught) -> list[Reported]:
    """The diagnostics of one run: its warnings (`caught`), then its error(s) with notes."""
    out = []
    for w in caught:
        if isinstance(w.message, PircWarning):
            m = w.message
            out.append(Reported(m.severity, m.bare_message, m.line or None, m.column, m.path))
    errors = error.errors if isinstance(error, ErrorList) else [error] if error is not None else []
    for e in errors:
        for d in [e, *getattr(e, "notes", ())]:
            out.append(Reported(getattr(d, "severity", "error"), _message(d),
                                getattr(d, "line", 0) or None, getattr(d, "column", 0),
                                getattr(d, "path", "")))
    return out


def _message(d) -> str:
    return d.bare_message if hasattr(d, "bare_message") else str(d)


def verify(expected: list[Expected], reported: list[Reported], filename: str) -> list[str]:
    """The problems, as rendered errors (empty: the expectations hold)."""
    problems = []
    for r in reported:
        here = [e for e in expected if not e.matched and e.line == r.line and e.accepts(r.message)]
        match = next((e for e in here if e.kind == r.kind), None)
        if match is not None:
            match.matched = True
            continue
        if here:  # the right text on the right line, of another kind
            here[0].matched = True
            problems.append(render_diagnostic(
                "error", f"'{r.kind}' diagnostic emitted when expecting a '{here[0].kind}'",
                filename, r.line or 0, r.column, path=r.path))
            continue
        problems.append(render_diagnostic("error", f"unexpected {r.kind}: {r.message}", filename,
                                          r.line or 0, r.column, path=r.path))
    for e in expected:
        if not e.matched:
            problems.append(render_diagnostic(
                "error", f'expected {e.kind} "{e.text}" was not produced', filename,
                e.at_line, e.at_column))
    return problems


def check_expected_diagnostics(text: str, filename: str, args, process) -> int:
    """Run `process` on each part of `text` and check its diagnostics; the exit status."""
    chunks = list(split_input(text, "// -----")) if args.split_input_file else [(text, 0)]
    ok = True
    for chunk, offset in chunks:
        expected = expected_diagnostics(chunk, offset, filename)
        error = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PircWarning)
            try:
                process(chunk, args, filename, offset)
            except PircError as e:
                error = e
        problems = verify(expected, reported_diagnostics(error, caught), filename)
        for p in problems:
            print(p, file=sys.stderr)
        ok = ok and not problems
    return 0 if ok else 1
