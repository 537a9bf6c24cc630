"""`python -m tools.fuzz ...` (see tools/fuzz/cli.py)."""

from tools.fuzz.cli import main

raise SystemExit(main())
