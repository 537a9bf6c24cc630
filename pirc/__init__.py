"""pirc: an MLIR-style compiler toolkit for Paddle PIR programs (see README.md)."""

from .api import (downgrade, export, load, lower, lowering_coverage, parse, read_params, run, run_pipeline,
                  save, to_text, upgrade, verify, write_params)
from .errors import PircError
from .ir.program import Program

__all__ = ["load", "parse", "save", "to_text", "verify", "upgrade", "downgrade", "lower", "run",
           "read_params", "write_params", "run_pipeline", "lowering_coverage", "export", "Program", "PircError"]
__version__ = "0.1.0"
