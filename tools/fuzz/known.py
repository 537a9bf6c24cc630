"""The 15 classes of uncaught exceptions the first campaign found on 8097cf3 (issue 9).

Issue 9 lists them: nine in the text front end, two in JSON, three in patch YAML and one
resource class; /work/shared/fuzz-crashes holds an input and a traceback for each.  A class
is matched by the exception type and the pirc module(s) its innermost pirc frame may lie
in.  `report` says which of them a fuzzer output folder holds: the rediscovery check of
docs/ROBUSTNESS.md, run against the pre-fix commit.
"""

from __future__ import annotations

import re
from pathlib import Path

# (what, exception type, the modules its innermost pirc frame may be in)
KNOWN = [
    ("text: op name with spaces/brackets (split_line)", "AttributeError", ("pirc/text/op_lines.py",)),
    ("text: unknown (pd_op.X) attribute tag", "KeyError", ("pirc/text/attr_literals.py",)),
    ("text: (Complex128)[true] literal", "TypeError", ("pirc/text/attr_literals.py",)),
    ("text: untyped integer >= 2^63 for an Int64", "VerifyException", ("pirc/ir/attrs.py",)),
    ("text: NUL in an op name (registry)", "ValueError", ("pirc/ir/registry.py",)),
    ("text: regions nested 1,000 deep (parser)", "RecursionError", ("pirc/text/parser.py",)),
    ("text: deep attribute array that crashes the JSON writer", "RecursionError",
     ("pirc/paddle_json/writer.py",)),
    ("text: --emit=paddle, generic region op with block arguments", "ValueError",
     ("pirc/text/printer_base.py",)),
    ("text: --emit=paddle, malformed pd_op.while (print_while)", "IndexError", ("pirc/text/paddle_printer.py",)),
    ("json: integer literal over 4,300 digits", "ValueError",
     ("pirc/paddle_json/stream.py", "pirc/paddle_json/reader.py")),
    ("json: deep nesting before the op list", "RecursionError",
     ("pirc/paddle_json/stream.py", "pirc/paddle_json/reader.py")),
    ("yaml: recursive anchor (located_yaml)", "RecursionError", ("pirc/versioning/located_yaml.py",)),
    ("yaml: add_value data holding lists or nulls (type_data)", "TypeError", ("pirc/versioning/paddle_kinds.py",)),
    ("yaml: 5,000-digit integer (located_yaml)", "ValueError", ("pirc/versioning/located_yaml.py",)),
    ("resources: one huge string attribute, MemoryError under a memory cap", "MemoryError", None),
]

_SIG = re.compile(r"^(\w+) @ (pirc/[\w/]+\.py)?")


def classify(sig: str) -> int | None:
    """The index in KNOWN of a crash signature, or None (a property failure, or a new class)."""
    m = _SIG.match(sig)
    if not m:
        return None
    for i, (_, exc, modules) in enumerate(KNOWN):
        if m.group(1) == exc and (modules is None or m.group(2) in modules):
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
    for i, (what, exc, modules) in enumerate(KNOWN):
        mark = "x" if i in hits else " "
        lines.append(f" [{mark}] {i + 1:2d}. {what} ({exc})")
        for s in hits.get(i, []):
            lines.append(f"         {s}")
    lines.append(f"other classes (property failures and new crashes): {len(other)}")
    lines += other
    return "\n".join(lines)
