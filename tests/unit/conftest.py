"""Settings that make every test's outcome independent of the machine it runs on.

- torch (and the BLAS under it) split reductions and GEMMs by the number of threads, and a
  different split sums in a different order: one thread everywhere, so a 2-core CI VM and a
  64-core workstation compute the same bits. Set before torch is first imported, and inherited
  by the commands the lit tests start.
- hypothesis draws its examples from a fixed seed (derandomize) and keeps no example database,
  so a run does not depend on the time of day or on what an earlier run found; exploring new
  inputs is the fuzzer's job (tools/fuzz), not the test suite's. No deadline: a slow machine
  is not a failure.
- every pass pipeline a test runs at the default level checks the pass fully
  (`PIRC_VERIFY_EACH=full`: the whole program verified after each pass, and the rewrite
  gate checked by fingerprints and attributes before and after, not only by the cheap watch
  a user's run has), so a pass that changes the IR outside `pc.begin` fails the suite.  The
  lit tests the suite starts inherit it.
"""

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("PIRC_VERIFY_EACH", "full")

from hypothesis import settings  # noqa: E402

settings.register_profile("pirc", derandomize=True, database=None, deadline=None)
settings.load_profile("pirc")


import resource  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _address_space_limit_is_restored():
    """A test that runs a tool's entry point in this process (`tools.fuzz replay` caps the
    address space at its --memory-mb, 2 GiB by default, as its workers do) must not leave the
    cap on the rest of the session: torch's and oneDNN's later allocations fail under it
    ("could not create a primitive"), on whichever test happens to cross 2 GiB first."""
    before = resource.getrlimit(resource.RLIMIT_AS)
    yield
    if resource.getrlimit(resource.RLIMIT_AS) != before:
        resource.setrlimit(resource.RLIMIT_AS, before)
