# lit configuration for pirc's lit + FileCheck tests (tests/lit); docs/TESTING.md.
import importlib.util
import os
import sys

import lit.formats

config.name = "pirc"
config.test_format = lit.formats.ShTest()  # lit 23: the internal shell
config.suffixes = [".pir", ".test"]
# Run as `lit tests/lit`; inputs that are not tests live in Inputs/ folders.
config.excludes = ["Inputs", "fixtures"]

repo_root = os.path.dirname(os.path.abspath(__file__))
# Run the tools with the Python that runs lit, from this checkout (not an installed pirc).
sys.path.insert(0, repo_root)
config.environment["PYTHONPATH"] = repo_root + os.pathsep + os.environ.get("PYTHONPATH", "")
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
for var in ("HOME", "XDG_CACHE_HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Every pass pipeline a test runs is checked fully (docs/PASSES.md, "The manager").
config.environment["PIRC_VERIFY_EACH"] = os.environ.get("PIRC_VERIFY_EACH", "full")

# pirc-opt, pirc-run, pirc-patch, pirc-compat, FileCheck (the filecheck Python package) and
# %python: the same substitutions a user's lit.cfg.py gets (pirc/testing/lit_config.py).
from pirc.testing.lit_config import add_pirc_substitutions  # noqa: E402

try:
    add_pirc_substitutions(config)
except RuntimeError as e:
    lit_config.fatal(str(e))
config.substitutions.append(("%fixtures", os.path.join(repo_root, "tests", "fixtures")))

# `REQUIRES: no-torch-npu`: tests of what --device npu does where torch_npu is not installed.
if importlib.util.find_spec("torch_npu") is None:
    config.available_features.add("no-torch-npu")
