"""No file of the tree carries a merge's conflict markers (a resolved-looking merge that
kept `<<<<<<<` / `>>>>>>>` lines once reached docs/)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEXT = {".py", ".md", ".yaml", ".yml", ".pir", ".test", ".toml", ".lark", ".txt", ".cfg"}
SKIP = {".git", ".ci-venv", "Output", "__pycache__", ".hypothesis", "fixtures"}


def test_no_conflict_markers():
    found = []
    for path in ROOT.rglob("*"):
        if path.suffix not in TEXT or any(part in SKIP for part in path.relative_to(ROOT).parts):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if line.startswith(("<<<<<<< ", ">>>>>>> ")):
                found.append(f"{path.relative_to(ROOT)}:{n}")
    assert not found, "conflict markers: " + ", ".join(found)
