#!/usr/bin/env python3
"""Add a Paddle release to dialects/ with one command.

    python tools/opdefs/add_release.py 3.4.0 --pir-version 5

1. creates the scratch venv /tmp/pd<release digits> (`python3 -m venv`, then
   `pip install paddlepaddle==<release> numpy`) unless it already has that wheel;
2. extracts tools/opdefs/opdefs-<release>.json from it (tools/opdefs/extract.py);
3. appends `{paddle: <release>, pir_version: <n>}` to tools/opdefs/releases.yaml;
4. runs tools/gen_dialects.py, which regenerates dialects/{pd_op,builtin,cf}.yaml.

If the generator stops because the release registers a new op without op-info record, specify
that op in dialects/handwritten.yaml and run `python tools/gen_dialects.py` again; steps 1-3
need not be repeated.  `--replace` re-extracts a release that is already listed (its PIR
version must stay the same).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RELEASES_FILE = HERE / "releases.yaml"

sys.path.insert(0, str(HERE))
import extract  # noqa: E402  (tools/opdefs/extract.py)

RELEASES_HEADER = """\
# Paddle releases whose op definitions tools/gen_dialects.py turns into dialects/, in PIR
# version order: each release's opdefs-<paddle>.json defines the ops of the programs it
# writes (PIR version pir_version).  tools/opdefs/add_release.py appends to this list.
releases:
"""


def read_releases(path: Path = RELEASES_FILE) -> list[tuple[str, int]]:
    """[(paddle release, PIR version)] in file order."""
    data = yaml.safe_load(path.read_text())
    return [(str(e["paddle"]), int(e["pir_version"])) for e in data["releases"]]


def render_releases(entries: list[tuple[str, int]]) -> str:
    body = "".join(f'- {{paddle: "{release}", pir_version: {version}}}\n'
                   for release, version in entries)
    return RELEASES_HEADER + body


def with_release(entries: list[tuple[str, int]], release: str, pir_version: int,
                 replace: bool) -> list[tuple[str, int]]:
    """The release list after adding (or, with `replace`, keeping) `release`."""
    known = dict(entries)
    if release in known:
        if not replace:
            raise SystemExit(f"add_release: {release} is already listed (use --replace to "
                             "re-extract it)")
        if known[release] != pir_version:
            raise SystemExit(f"add_release: {release} is listed with PIR version "
                             f"{known[release]}, not {pir_version}")
        return entries
    if entries and pir_version <= max(v for _, v in entries):
        raise SystemExit(f"add_release: PIR version {pir_version} must be above the last "
                         f"listed one ({max(v for _, v in entries)})")
    return entries + [(release, pir_version)]


def default_venv(release: str) -> Path:
    return Path("/tmp") / ("pd" + release.replace(".", ""))


def installed_paddle(venv: Path) -> str | None:
    """The paddlepaddle version pip lists in `venv`, or None."""
    python = venv / "bin" / "python"
    if not python.exists():
        return None
    done = subprocess.run([str(python), "-m", "pip", "show", "paddlepaddle"],
                          capture_output=True, text=True)
    m = re.search(r"^Version:\s*(\S+)", done.stdout, re.M)
    return m.group(1) if m else None


def ensure_venv(venv: Path, release: str, python: str) -> None:
    """A venv with paddlepaddle==release (and numpy, which paddle imports) installed."""
    have = installed_paddle(venv)
    if have == release:
        print(f"add_release: reusing {venv} (paddlepaddle {have})")
        return
    if have is not None:
        raise SystemExit(f"add_release: {venv} holds paddlepaddle {have}, not {release}; "
                         "pass another --venv")
    if not (venv / "bin" / "python").exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    f"paddlepaddle=={release}", "numpy"], check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", help="Paddle release, e.g. 3.4.0")
    parser.add_argument("--pir-version", type=int, required=True,
                        help="PIR version of the programs this release writes")
    parser.add_argument("--venv", type=Path,
                        help="scratch venv (default /tmp/pd<release without dots>)")
    parser.add_argument("--python", default="python3",
                        help="interpreter that creates the venv (default python3)")
    parser.add_argument("--replace", action="store_true",
                        help="re-extract a release that is already listed")
    parser.add_argument("--no-generate", action="store_true",
                        help="stop after updating tools/opdefs/ (skip tools/gen_dialects.py)")
    args = parser.parse_args(argv)

    entries = with_release(read_releases(), args.release, args.pir_version, args.replace)
    venv = (args.venv or default_venv(args.release)).resolve()
    ensure_venv(venv, args.release, args.python)

    version, records = extract.extract(venv)
    if version != args.release:
        raise SystemExit(f"add_release: {venv} imports paddle {version}, not {args.release}")
    out = HERE / f"opdefs-{args.release}.json"
    out.write_text(extract.opdef_records.dumps(records))
    print(f"add_release: wrote {out.relative_to(ROOT)}: {len(records)} ops")
    RELEASES_FILE.write_text(render_releases(entries))
    print(f"add_release: {RELEASES_FILE.relative_to(ROOT)} lists "
          + ", ".join(f"{r} (PIR {v})" for r, v in entries))
    if args.no_generate:
        return 0
    return subprocess.run([sys.executable, str(ROOT / "tools" / "gen_dialects.py")]).returncode


if __name__ == "__main__":
    sys.exit(main())
