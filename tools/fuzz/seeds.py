"""The seed corpus: the project's own fixtures and examples, per front end.

Text seeds are every PIR text file under tests/ and examples/ (Paddle-printed `.pir.txt`,
pirc's canonical `.pir`, Paddle 2.6 typed text); JSON seeds every Paddle saved program
(`base_code` at the top); YAML seeds every patch file, plus pirc's own patches/.  Files over
MAX_SEED_BYTES are left out so that inputs stay small and fast (the mutators can still
build deep or huge inputs).  The order is sorted, so a seed index means the same file on
every machine.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MAX_SEED_BYTES = 24_000
SEED_DIRS = ("tests", "examples", "patches")
# Not seeds: build outputs, and the regression inputs of earlier crashes (tests replay those;
# as seeds they would only teach the mutators what pirc already refuses at the first byte).
SKIPPED_PARTS = frozenset({"__pycache__", "Output", "fuzz_crashes"})

# Paddle release in a file name -> its PIR version (1 = 3.0, ..., 4 = 3.3, as pirc.versioning says).
_RELEASE_VERSION = {"3.0.0": 1, "3.1.1": 2, "3.2.2": 3, "3.3.1": 4, "2.6.2": 1}
_RELEASE = re.compile(r"(?<!\d)(2\.6\.2|3\.0\.0|3\.1\.1|3\.2\.2|3\.3\.1)(?![\d])")
_HEADER_VERSION = re.compile(r"^pir\.version\s+(\d+)", re.M)


@dataclass(frozen=True)
class Seed:
    path: str             # relative to the checkout
    text: str
    version: int | None   # the PIR version the seed is at, when known
    carries_version: bool  # canonical text / JSON carry theirs; Paddle text needs --from-version


def _files(exts: tuple[str, ...]):
    for top in SEED_DIRS:
        root = REPO / top
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.name.endswith(exts) and path.stat().st_size <= MAX_SEED_BYTES \
                    and not SKIPPED_PARTS.intersection(path.parts):
                yield path


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def _release_version(path: Path) -> int | None:
    m = _RELEASE.search(path.name)
    return _RELEASE_VERSION[m.group(1)] if m else None


@lru_cache(maxsize=None)
def text_seeds() -> tuple[Seed, ...]:
    out = []
    for path in _files((".pir", ".pir.txt", ".txt", ".mlir")):
        text = _read(path)
        if text is None or not re.search(r'^\s*\(.*\)\s*=\s*"?[\w.]+"?\s*\(', text, re.M):
            continue  # not a program (docs, id lists, expected outputs without ops)
        m = _HEADER_VERSION.search(text)
        if m:
            out.append(Seed(str(path.relative_to(REPO)), text, int(m.group(1)), True))
        else:
            out.append(Seed(str(path.relative_to(REPO)), text, _release_version(path), False))
    return tuple(out)


@lru_cache(maxsize=None)
def json_seeds() -> tuple[Seed, ...]:
    out = []
    for path in _files((".json",)):
        text = _read(path)
        if text is None or '"base_code"' not in text:
            continue
        try:
            version = json.loads(text)["base_code"]["version"]
        except (ValueError, KeyError, TypeError, RecursionError):
            continue  # not a program Python's json reads: no seed
        out.append(Seed(str(path.relative_to(REPO)), text, version if isinstance(version, int) else None, True))
    return tuple(out)


@lru_cache(maxsize=None)
def yaml_seeds() -> tuple[Seed, ...]:
    out = []
    for path in _files((".yaml", ".yml")):
        if path.name in ("versions.yaml", "unmigratable.yaml") or path.parent.name in ("dialects",):
            continue
        text = _read(path)
        if text is None:
            continue
        m = re.fullmatch(r"(\d+)\.ya?ml", path.name)
        out.append(Seed(str(path.relative_to(REPO)), text, int(m.group(1)) if m else None, False))
    return tuple(out)


@lru_cache(maxsize=None)
def upgrade_programs() -> dict[int, tuple[Seed, ...]]:
    """Small JSON programs by PIR version: what a fuzzed N.yaml upgrades (from version N-1)."""
    by_version: dict[int, list[Seed]] = {}
    for seed in json_seeds():
        if seed.version in (1, 2, 3) and len(seed.text) <= 12_000 and "crossload" not in seed.path:
            by_version.setdefault(seed.version, []).append(seed)
    return {v: tuple(s) for v, s in by_version.items()}


def program_ops(seed: Seed) -> list[dict]:
    """The ops of a JSON seed as {name, attrs, n_in, n_out}: what a generated patch can name."""
    try:
        doc = json.loads(seed.text)
    except ValueError:
        return []
    out = []
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("#"), str) and "O" in node:
                out.append({"name": _op_name(node["#"]),
                            "attrs": [a.get("N") for a in node.get("A", []) if isinstance(a, dict)],
                            "n_in": len(node.get("I", [])), "n_out": len(node.get("O", []))})
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


_DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf"}


def _op_name(code: str) -> str:
    if code == "p":
        return "builtin.parameter"
    dialect, _, name = code.partition(".")
    return f"{_DIALECTS.get(dialect, dialect)}.{name}"


def by_path(path: str, front: str) -> Seed | None:
    pool = {"text": text_seeds, "json": json_seeds, "yaml": yaml_seeds}[front]()
    return next((s for s in pool if s.path == path), None)
