"""Record the default pipeline's pass report of every corpus program (pirc.testing.corpus_reports)
in tests/fixtures/pass_reports/default.json, which tests/unit/test_corpus_pass_reports.py
compares today's reports with.

    python tools/gen_corpus_pass_reports.py [--out FILE]

Regenerate only when a report is meant to change, and say why in the commit: the fixture is
the promise that a speed-up left every report as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pirc.testing.corpus_reports import REPORTS, all_reports  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPORTS))
    args = ap.parse_args()
    reports = all_reports()
    # One program per line: a change shows as the lines of the programs it touched.
    lines = [f"{json.dumps(key)}: {json.dumps(report, sort_keys=True)}" for key, report in reports.items()]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"{out}: {len(reports)} reports")


if __name__ == "__main__":
    main()
