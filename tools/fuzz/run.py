"""`python tools/fuzz/run.py ...`: the same as `python -m tools.fuzz ...`, from a checkout."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for `tools.fuzz`

from tools.fuzz.cli import main  # noqa: E402

raise SystemExit(main())
