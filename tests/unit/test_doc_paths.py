"""Every file the docs point a user at is in the repository.

The README, docs/ and the tools' READMEs name files by their path in the repository
(`pirc/lower/feeds.py`, `docs/notes/torch-npu.md`, `tests/fixtures/...`).  A path into a
folder the user does not have (`../shared/...`, `/work/...`) or one that no longer exists
is a broken promise; this test finds both.  Placeholders (`patches/N.yaml`, `<release>`,
`*`) are not paths.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "tools").rglob("README.md"))]
TOP = ("pirc", "docs", "tests", "tools", "patches", "dialects", "examples", ".ci")
_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w/])" % "|".join(map(re.escape, TOP)))
_PLACEHOLDER = re.compile(r"(^|/)(N|VER|DIR|t|v|X)(\.|/|$)|[<>*{}-]$|[<>*{}]")
# Research notes quote other projects' paths (Paddle's, torch_npu's docs); only the first
# test applies to them.
NOTES = ROOT / "docs" / "notes"


def test_no_doc_points_outside_the_repository():
    bad = [f"{doc.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
           for doc in DOCS for n, line in enumerate(doc.read_text().splitlines(), 1)
           if "../shared" in line or "/work/" in line or "`shared/" in line]
    assert not bad, "\n".join(bad)


def test_every_repository_path_in_the_docs_exists():
    missing = []
    for doc in DOCS:
        if NOTES in doc.parents:
            continue
        in_code = False
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            if line.startswith("```"):  # code blocks show commands and other projects' trees
                in_code = not in_code
            if in_code:
                continue
            for m in _PATH.finditer(line):
                path = m.group(1).rstrip(".")
                if _PLACEHOLDER.search(line[m.start():m.end() + 1]) or "://" in line[:m.start()][-10:]:
                    continue
                # patches/pirc/N.yaml is also spelt relative to patches/ (`pirc/4.yaml`)
                if not (ROOT / path).exists() and not (ROOT / "patches" / path).exists():
                    missing.append(f"{doc.relative_to(ROOT)}:{n}: {path}")
    assert not missing, "\n".join(missing)
