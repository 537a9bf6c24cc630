"""What the zoo builders share: the Model record and deterministic inputs."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Model:
    layer: object  # paddle.nn.Layer in eval mode
    specs: list  # paddle.static.InputSpec, -1 where the model allows
    inputs: dict  # feed name -> ndarray, in the specs' order
    notes: dict = field(default_factory=dict)
    # more input sets, label -> {feed: ndarray}: inputs that take each branch of every `if`,
    # loops of 0, 1 and many iterations (MODEL.VER.io.LABEL.npz)
    cases: dict = field(default_factory=dict)


def rng(model: str, feed: str) -> np.random.Generator:
    key = f"{model}/{feed}".encode()
    return np.random.default_rng(int.from_bytes(hashlib.sha256(key).digest()[:8], "little"))


def image(model: str, shape, feed: str = "x") -> np.ndarray:
    return rng(model, feed).standard_normal(shape).astype("float32")


def token_ids(model: str, shape, vocab: int, feed: str = "input_ids") -> np.ndarray:
    return rng(model, feed).integers(1, vocab, shape).astype("int64")
