"""`--pipeline=default` keeps what every fixture program computes: each program with outputs
recorded by real Paddle, read, upgraded and optimised, gives bit for bit what it gives
upgraded alone (outputs that depend on a random op are skipped)."""

from __future__ import annotations

import numpy as np
import pytest

import pirc
from pirc.passes import run_pipeline

from test_parity_corpus import CASES, case_id, random_fetches, run_case


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_default_pipeline_keeps_the_outputs(case):
    npz, path, _ = case
    plain = pirc.load(str(path))
    pirc.upgrade(plain)
    optimised = pirc.load(str(path))
    pirc.upgrade(optimised)
    result = run_pipeline(optimised, "default")
    # every pass ran, but the weight passes, which have no parameters here (skipped whole)
    assert all(r.ran or r.skipped_reason.startswith("params: ") for r in result.passes)
    want, got = run_case(plain, npz), run_case(optimised, npz)
    assert list(want) == list(got)
    random = random_fetches(plain)
    for i, name in enumerate(want):
        if i not in random:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{name} changed by the pipeline")
