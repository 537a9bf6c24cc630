"""The dialect specs (YAML), shipped as package data `pirc.dialects` (see pirc.ir.specs)."""
