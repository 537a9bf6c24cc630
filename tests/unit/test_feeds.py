"""pirc-run's feed check and output conversion (pirc/lower/feeds.py, execute.py), and how
stdin's format is told from its content (pirc/formats.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pirc.formats import format_of_content
from pirc.lower.execute import to_numpy
from pirc.lower.feeds import FeedError, FeedSpec, check_feeds

X = FeedSpec("x", "x_arg", torch.float32, (-1, 3))
B = FeedSpec("b", "b_arg", torch.bfloat16, (2,))


def test_a_feed_that_fits_becomes_its_forward_argument():
    got = check_feeds([X], {"x": np.zeros((5, 3), np.float32)})
    assert list(got) == ["x_arg"] and got["x_arg"].shape == (5, 3)


def test_a_bf16_feed_given_as_uint16_bits_is_reinterpreted():
    got = check_feeds([B], {"b": np.array([0x3F80, 0xC000], np.uint16)})["b_arg"]
    assert got.dtype == torch.bfloat16 and got.tolist() == [1.0, -2.0]


@pytest.mark.parametrize("given, why", [
    (np.zeros((5, 4), np.float32), "feed x: given float32[5, 4], the program expects float32[-1, 3] (dim 1 differs)"),
    (np.zeros(3, np.float32), "feed x: given float32[3], the program expects float32[-1, 3] (rank differs)"),
    (np.zeros((1, 3), np.int64), "feed x: given int64[1, 3], the program expects float32[-1, 3] (dtype differs)"),
])
def test_a_feed_that_does_not_fit_is_refused_saying_why(given, why):
    with pytest.raises(FeedError) as e:
        check_feeds([X], {"x": given})
    assert str(e.value) == why


def test_outputs_are_what_paddle_hands_numpy():
    bits = to_numpy(torch.tensor([1.0, 3.0], dtype=torch.bfloat16))
    assert bits.dtype == np.uint16 and bits.tolist() == [0x3F80, 0x4040]
    assert to_numpy(torch.tensor([0.5], dtype=torch.float16)).dtype == np.float16


@pytest.mark.parametrize("text, fmt", [
    ('{"base_code": {}}', "json"),
    ('\ufeff  {\n  "program": 1}', "json"),
    ('{\n    (%0) = "pd_op.data" () {} : () -> tensor<f32>\n}', "pir"),  # Paddle text opens with { too
    ("{\n}\n", "pir"),
    ("pir.version 4\n{\n}", "pir"),
])
def test_stdin_format_is_told_by_content(text, fmt):
    assert format_of_content(text) == fmt


def test_a_0d_feed_takes_one_element_as_paddle_does():
    scalar = FeedSpec("s", "s_arg", torch.float32, ())
    assert check_feeds([scalar], {"s": np.zeros(1, np.float32)})["s_arg"].shape == ()
    with pytest.raises(FeedError, match=r"given float32\[2\], the program expects float32\[\] \(rank differs\)"):
        check_feeds([scalar], {"s": np.zeros(2, np.float32)})
