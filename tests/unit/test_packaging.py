"""pyproject.toml lists every package and data file pirc needs once installed.

The tests run against the source tree, where every file is importable; a module or data
file missing from pyproject's explicit package list would only fail for users of the
installed wheel. This keeps the list honest without building a wheel.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _package_dir(package: str) -> Path:
    mapped = CONFIG.get("package-dir", {})
    if package in mapped:
        return ROOT / mapped[package]
    return ROOT / Path(*package.split("."))


def _python_dirs() -> set[str]:
    found = set()
    for path in (ROOT / "pirc").rglob("*.py"):
        if "__pycache__" not in path.parts:
            found.add(".".join(path.parent.relative_to(ROOT).parts))
    return found


def test_every_python_package_is_listed():
    missing = sorted(_python_dirs() - set(CONFIG["packages"]))
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def _owner(path: Path) -> tuple[str, Path]:
    """The listed package whose folder is the nearest ancestor of `path`."""
    best = None
    for package in CONFIG["packages"]:
        base = _package_dir(package)
        if base in path.parents and (best is None or len(base.parts) > len(best[1].parts)):
            best = (package, base)
    return best


def test_every_data_file_is_shipped():
    data = CONFIG.get("package-data", {})
    unshipped = []
    roots = {_package_dir(p) for p in CONFIG["packages"]}
    files = {f for base in roots for f in base.rglob("*") if f.is_file()}
    for path in sorted(files):
        if path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        package, base = _owner(path)
        relative = path.relative_to(base).as_posix()
        # setuptools expands package-data as globs relative to the package folder.
        if not any(path in set(base.glob(glob)) for glob in data.get(package, [])):
            unshipped.append(f"{package}: {relative}")
    assert unshipped == [], f"add to [tool.setuptools.package-data] in pyproject.toml: {unshipped}"
