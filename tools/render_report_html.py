#!/usr/bin/env python3
"""Render a pirc-migrate report.html in headless Chromium, with no network, to a PNG.

    python3 tools/render_report_html.py /tmp/pd331-out/report.html -o docs/migrate-report.png
    python3 tools/render_report_html.py /tmp/pd331-out            # OUT folder: its report.html

Run by hand (CI only checks the page's text is self-contained: tests/unit/test_migrate_report.py).
It shows that the page opens and draws with every network path shut: a proxy that goes
nowhere (127.0.0.1:9, the discard port) for every request, host names that resolve to
nothing, a fresh profile, no background services; a page that needed a font, a script or a
stylesheet from the network would be drawn without it.  A second run dumps the DOM after
the scripts ran and checks that the table's script did (it fills "N of M models"), so the
page's Content-Security-Policy did not block its own inline script.

Needs Debian's `chromium` package (`apt-get install -y chromium`), or `--chromium PATH`.
The screenshot is the top of the page at --window-size (CSS pixels, scale factor 1).

docs/migrate-report.png was made from the report of the hand-built sample run the report
tests use (tests/unit/migrate_records.py: every status once, dev-zoo model names):

    cd tests/unit && python -c "from migrate_records import sample_report; \
        from pirc.migrate.report import write_reports; write_reports('/tmp/pd331-out', sample_report())"
    python3 tools/render_report_html.py /tmp/pd331-out -o docs/migrate-report.png --window-size 1280,2130
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NO_NETWORK = ["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
              "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-extensions",
              "--disable-default-apps", "--no-first-run", "--no-default-browser-check",
              "--metrics-recording-only", "--disable-features=MediaRouter,OptimizationHints"]
SECONDS = 120  # for one Chromium run


def chromium_command(chromium: str, profile: str) -> list[str]:
    command = [chromium, "--headless", "--disable-gpu", f"--user-data-dir={profile}",
               "--hide-scrollbars", "--force-device-scale-factor=1", "--virtual-time-budget=3000",
               *NO_NETWORK]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return command


def run(command: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=SECONDS)
    except subprocess.TimeoutExpired:
        sys.exit(f"error: {command[0]} did not finish in {SECONDS} s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", help="report.html, or the OUT folder holding it")
    parser.add_argument("-o", "--output", default="migrate-report.png", help="PNG to write")
    parser.add_argument("--window-size", default="1200,1180", help="W,H in CSS pixels")
    parser.add_argument("--chromium", default=None, help="the browser (default: chromium on PATH)")
    args = parser.parse_args(argv)

    page = Path(args.report)
    if page.is_dir():
        page = page / "report.html"
    if not page.is_file():
        sys.exit(f"{page}: error: no such file (give report.html or the OUT folder of a pirc-migrate run)")
    if not re.fullmatch(r"\d+,\d+", args.window_size):
        sys.exit(f"error: --window-size {args.window_size!r}: give W,H in pixels, e.g. 1200,1180")
    chromium = args.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("error: no chromium on PATH: install Debian's package (apt-get install -y chromium) "
                 "or give --chromium PATH")
    url = page.resolve().as_uri()
    output = Path(args.output).resolve()

    with tempfile.TemporaryDirectory(prefix="pirc-chromium-") as profile:
        base = chromium_command(chromium, profile)
        dom = run(base + ["--dump-dom", url])
        if dom.returncode != 0:
            sys.exit(f"error: chromium failed ({dom.returncode}): {dom.stderr.strip()[-2000:]}")
        shown = re.search(r'id="shown">(\d+) of (\d+) models<', dom.stdout)
        if not shown:
            sys.exit(f"{page}: error: the page's script did not run (no 'N of M models' in the DOM)")
        shot = run(base + [f"--window-size={args.window_size}", f"--screenshot={output}", url])
        if shot.returncode != 0 or not output.is_file():
            sys.exit(f"error: chromium wrote no screenshot ({shot.returncode}): {shot.stderr.strip()[-2000:]}")
    print(f"{output}: {output.stat().st_size} bytes; the table's script ran ({shown.group(1)} of "
          f"{shown.group(2)} models shown)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
