# docs/TESTING.md's lit configuration for a user's own project, verbatim.
import lit.formats
from pirc.testing.lit_config import add_pirc_substitutions

config.name = "my-project"
config.test_format = lit.formats.ShTest()
config.suffixes = [".pir", ".test"]
config.excludes = ["Inputs"]
add_pirc_substitutions(config)  # pirc-opt, pirc-run, pirc-patch, pirc-compat, FileCheck, %python
