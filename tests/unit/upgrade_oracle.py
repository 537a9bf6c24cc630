"""The upgrade oracle: pirc's upgrade of an old Paddle file equals what Paddle 3.3.1 writes
after loading it (tests/fixtures/*/crossload/NAME.VER-loaded-in-3.3.1.json).

    from upgrade_oracle import assert_upgrade_matches, oracle_cases
    assert_upgrade_matches("old.3.0.0.json", "old.3.0.0-loaded-in-3.3.1.json")

"Equal" is pirc.paddle_json.equality.documents_equal: the same ops in the same order, the
same attribute names, PIR kinds and values, the same types and version.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pirc
from pirc.paddle_json.equality import documents_equal

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CROSSLOAD_DIRS = (FIXTURES / "corpus" / "crossload", FIXTURES / "patchops" / "crossload")
_CROSSLOADED = re.compile(r"^(?P<name>.+)\.(?P<release>\d+\.\d+\.\d+)-loaded-in-3\.3\.1\.json$")


@dataclass(frozen=True)
class OracleCase:
    name: str  # "cnn.3.0.0"
    source: Path  # the old file
    expected: Path  # what Paddle 3.3.1 wrote after loading it

    def __str__(self) -> str:
        return self.name


def oracle_cases() -> list[OracleCase]:
    """Every crossload result whose source file is in the fixtures, sorted by name."""
    cases = []
    for folder in CROSSLOAD_DIRS:
        for expected in sorted(folder.glob("*-loaded-in-3.3.1.json")):
            m = _CROSSLOADED.match(expected.name)
            if m is None:
                continue
            name, release = m.group("name"), m.group("release")
            source = folder.parent / release / f"{name}.{release}.json"
            if source.is_file():
                cases.append(OracleCase(f"{name}.{release}", source, expected))
    return cases


def upgraded_json(source: Path, *, target=None, patch_dir=None, via_cli: bool = False,
                  tmp_path: Path | None = None) -> str:
    """The JSON pirc writes for `source` upgraded: through the API, or `pirc-opt --upgrade`."""
    if not via_cli:
        program = pirc.load(str(source))
        pirc.upgrade(program, target, patch_dir)
        pirc.verify(program)
        return pirc.to_text(program, "json")
    assert tmp_path is not None, "the CLI route writes a file: give tmp_path"
    out = tmp_path / (source.stem + ".upgraded.json")
    cmd = [sys.executable, "-m", "pirc", str(source), "-o", str(out)]
    cmd += ["--upgrade"] if target is None else [f"--target-version={target}"]
    if patch_dir is not None:
        cmd.append(f"--patch-dir={patch_dir}")
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"{' '.join(cmd)} failed:\n{run.stderr}"
    return out.read_text()


def assert_upgrade_matches(source, expected, *, target=None, patch_dir=None, via_cli: bool = False,
                           tmp_path: Path | None = None) -> None:
    """Fail, listing every difference, unless `source` upgraded equals `expected`."""
    source, expected = Path(source), Path(expected)
    got = upgraded_json(source, target=target, patch_dir=patch_dir, via_cli=via_cli, tmp_path=tmp_path)
    differences = documents_equal(expected.read_text(), got)
    if differences:
        route = "pirc-opt --upgrade" if via_cli else "pirc.upgrade"
        shown = "\n  ".join(differences[:40])
        more = f"\n  ... {len(differences) - 40} more" if len(differences) > 40 else ""
        raise AssertionError(
            f"{route} of {source.relative_to(ROOT) if source.is_relative_to(ROOT) else source} "
            f"differs from what Paddle 3.3.1 wrote ({expected.name}); "
            f"{len(differences)} difference(s), expected vs pirc:\n  {shown}{more}")
