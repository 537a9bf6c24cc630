"""pirc: an MLIR-style compiler toolkit for Paddle PIR programs (see README.md)."""

from .dataclass_code import compiled_dataclass_methods

# pirc's modules (and xDSL's, which they import) define some 400 dataclass methods at
# import: compiled once per install, not on every start (pirc.dataclass_code)
with compiled_dataclass_methods():
    from .api import (downgrade, export, load, lower, lowering_coverage, parse, read_params, run,
                      run_pipeline, save, to_text, upgrade, verify, write_params)
    from .errors import PircError
    from .ir.program import Program

__all__ = ["load", "parse", "save", "to_text", "verify", "upgrade", "downgrade", "lower", "run",
           "read_params", "write_params", "run_pipeline", "lowering_coverage", "export", "Program", "PircError"]
__version__ = "0.1.0"
