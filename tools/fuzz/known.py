"""The 15 classes of uncaught exceptions the first campaign found on 8097cf3 (issue 9).

A class is an exception type raised from one pirc module (the signatures of
/work/shared/fuzz-crashes/**/*.txt grouped by type and innermost pirc file).  `report`
says which of them a fuzzer output folder holds: the rediscovery check of
docs/ROBUSTNESS.md, run against the pre-fix commit.
"""

from __future__ import annotations

import re
from pathlib import Path

KNOWN = [
    ("op name with spaces/brackets (split_line)", "AttributeError", "pirc/text/op_lines.py"),
    ("unknown (pd_op.X) attribute tag", "KeyError", "pirc/text/attr_literals.py"),
    ("(Complex128)[true] literal", "TypeError", "pirc/text/attr_literals.py"),
    ("untyped integer >= 2^63 for an Int64", "VerifyException", "pirc/ir/attrs.py"),
    ("NUL in an op name (registry)", "ValueError", "pirc/ir/registry.py"),
    ("regions nested 1,000 deep (parser)", "RecursionError", "pirc/text/parser.py"),
    ("deep attribute array (JSON writer)", "RecursionError", "pirc/paddle_json/writer.py"),
    ("value used before defined (--emit=paddle, block args)", "ValueError", "pirc/text/printer_base.py"),
    ("malformed pd_op.while (print_while)", "IndexError", "pirc/text/paddle_printer.py"),
    ("integer over 4,300 digits (JSON stream)", "ValueError", "pirc/paddle_json/stream.py"),
    ("deep nesting (JSON stream scanner)", "RecursionError", "pirc/paddle_json/stream.py"),
    ("deep nesting (JSON reader._read)", "RecursionError", "pirc/paddle_json/reader.py"),
    ("recursive YAML anchor (located_yaml)", "RecursionError", "pirc/versioning/located_yaml.py"),
    ("add_value data with lists/nulls (type_data)", "TypeError", "pirc/versioning/paddle_kinds.py"),
    ("5,000-digit integer in a patch (located_yaml)", "ValueError", "pirc/versioning/located_yaml.py"),
]

_SIG = re.compile(r"^(\w+) @ (pirc/[\w/]+\.py)")


def classify(sig: str) -> int | None:
    """The index in KNOWN of a crash signature, or None (a property failure, or a new class)."""
    m = _SIG.match(sig)
    if not m:
        return None
    for i, (_, exc, module) in enumerate(KNOWN):
        if m.group(1) == exc and m.group(2) == module:
            return i
    return None


def signatures(out: Path) -> list[tuple[str, str]]:
    """(front end, signature) of every class saved under a fuzzer output folder."""
    found = []
    for report in sorted(out.glob("*/*/report.txt")):
        first = report.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
        if first.startswith("signature: "):
            found.append((report.parent.parent.name, first[len("signature: "):]))
    return found


def report(outs: list[Path]) -> str:
    hits: dict[int, list[str]] = {}
    other: list[str] = []
    for out in outs:
        for front, sig in signatures(out):
            i = classify(sig)
            if i is None:
                other.append(f"  {front}: {sig}")
            else:
                hits.setdefault(i, []).append(f"{front}: {sig}")
    lines = [f"known classes rediscovered: {len(hits)} of {len(KNOWN)}"]
    for i, (what, exc, module) in enumerate(KNOWN):
        mark = "x" if i in hits else " "
        lines.append(f" [{mark}] {i + 1:2d}. {exc} in {module}: {what}")
        for s in hits.get(i, []):
            lines.append(f"         {s}")
    lines.append(f"other classes (property failures and new crashes): {len(other)}")
    lines += other
    return "\n".join(lines)
