# lit configuration for pirc's FileCheck tests (tests/lit).
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
python = sys.executable
# Run the tools with the Python that runs lit, from this checkout.
config.environment["PYTHONPATH"] = repo_root + os.pathsep + os.environ.get("PYTHONPATH", "")
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
for var in ("HOME", "XDG_CACHE_HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("pirc-opt", f'"{python}" -m pirc'))
config.substitutions.append(("pirc-run", f'"{python}" -m pirc.cli.run'))
config.substitutions.append(("pirc-compat", f'"{python}" -m pirc.cli.compat'))
config.substitutions.append(("pirc-patch", f'"{python}" -m pirc.cli.patch'))
config.substitutions.append(("filecheck", f'"{python}" -m filecheck'))
config.substitutions.append(("%fixtures", os.path.join(repo_root, "tests", "fixtures")))
config.substitutions.append(("%python", f'"{python}"'))

# `REQUIRES: no-torch-npu`: tests of what --device npu does where torch_npu is not installed.
if importlib.util.find_spec("torch_npu") is None:
    config.available_features.add("no-torch-npu")
