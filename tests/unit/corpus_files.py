"""The real Paddle files under tests/fixtures, grouped by what they hold."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CORPUS = FIXTURES / "corpus"
GENERATED = FIXTURES / "generated"

# Paddle release -> the PIR version its files are in.
RELEASE_VERSIONS = {"3.0.0": 1, "3.3.1": 4}


def version_of(path: Path) -> int:
    for release, version in RELEASE_VERSIONS.items():
        if release in path.name:
            return version
    if "-loaded-in-3.3.1" in path.name:
        return 4
    raise ValueError(f"no PIR version known for {path}")


def _sorted(paths):
    return sorted(paths, key=lambda p: str(p))


def printed_texts() -> list[Path]:
    """Paddle 3.x `print(program)` output (with no [id:N])."""
    roots = [CORPUS / "3.0.0", CORPUS / "3.3.1", CORPUS / "crossload", GENERATED / "3.0.0", GENERATED / "3.3.1"]
    return _sorted(p for r in roots for p in r.glob("*.pir.txt"))


def id_texts() -> list[Path]:
    return _sorted(p for r in (CORPUS / "3.0.0", CORPUS / "3.3.1") for p in r.glob("*.pir-ids.txt"))


def typed_2_6_texts() -> list[Path]:
    return _sorted(list((CORPUS / "2.6.2-text").glob("*.txt")) + list((GENERATED / "2.6.2-text").glob("*.txt")))


def saved_jsons() -> list[Path]:
    """Saved-program JSON files whose loaded print exists beside them."""
    roots = [CORPUS / "3.0.0", CORPUS / "3.3.1", GENERATED / "3.0.0", GENERATED / "3.3.1"]
    return _sorted(p for r in roots for p in r.glob("*.json")
                   if p.with_name(p.name.replace(".json", ".loaded.pir.txt")).exists())


def crossload_jsons() -> list[Path]:
    return _sorted((CORPUS / "crossload").glob("*.json"))


def all_jsons() -> list[Path]:
    roots = [CORPUS / "3.0.0", CORPUS / "3.3.1", CORPUS / "crossload", GENERATED / "3.0.0", GENERATED / "3.3.1"]
    out = [p for r in roots for p in r.glob("*.json") if not p.name.startswith("gen_log")]
    out.append(CORPUS / "docs-example-program.json")
    return _sorted(out)
