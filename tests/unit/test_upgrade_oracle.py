"""pirc's upgrade reproduces Paddle 3.3.1 exactly: every old Paddle file of the fixtures
(corpus models, and one per op the patches touch, saved by Paddle 3.0.0 / 3.1.1 / 3.2.2),
upgraded by pirc, equals what Paddle 3.3.1 saves after loading it."""

from __future__ import annotations

import pytest
from upgrade_oracle import assert_upgrade_matches, oracle_cases

CASES = oracle_cases()


def test_the_oracle_covers_the_corpus_and_every_patched_op():
    names = {c.name for c in CASES}
    assert {"cnn.3.0.0", "mlp.3.0.0", "transformer.3.0.0", "control_flow.3.0.0"} <= names
    # Ops of each shipped patch: 2.yaml (pool, expand_as), 3.yaml (kthvalue,
    # repeat_interleave), 4.yaml (float -> double); from each older release.
    for op in ("pool2d", "expand_as", "kthvalue", "repeat_interleave", "leaky_relu", "bilinear_interp"):
        assert f"{op}.3.0.0" in names, op
    assert any(n.endswith(".3.1.1") for n in names) and any(n.endswith(".3.2.2") for n in names)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_upgrade_equals_paddle_3_3_1(case):
    assert_upgrade_matches(case.source, case.expected)


def test_pirc_opt_upgrade_equals_paddle_3_3_1(tmp_path):
    """The same through the real command line, on the corpus model the patches change."""
    case = next(c for c in CASES if c.name == "cnn.3.0.0")
    assert_upgrade_matches(case.source, case.expected, via_cli=True, tmp_path=tmp_path)


def test_the_oracle_fails_on_a_wrong_upgrade(tmp_path):
    """The helper does see a difference: target version 3 is not what 3.3.1 writes."""
    case = next(c for c in CASES if c.name == "leaky_relu.3.0.0")
    with pytest.raises(AssertionError) as e:
        assert_upgrade_matches(case.source, case.expected, target=3)
    message = str(e.value)
    assert "base_code.version: expected 4, got 3" in message
    assert 'attribute "negative_slope": expected 0.a_f64' in message
