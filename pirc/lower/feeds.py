"""The feeds of a lowered program: what each `pd_op.data` expects, and the check of what a
user gives against it (README, pirc-run: every feed's name, dtype and shape are
checked against its pd_op.data before running).

A feed is refused, naming the feed, what was given and what the program expects, when its
dtype differs, its rank differs, or a static dim differs (-1 accepts any size).  A 0-d feed
also takes a one-element array of shape [1] and gets it as 0-d, as Paddle's executor does
(the op fixtures' inputs, recorded from real Paddle runs, feed 0-d data that way).  An input
that is no feed of the program is refused too (a misspelt name would otherwise be ignored),
except in the corpus convention (`in__<feed>` keys beside `out__...` expectations: there
only `in__` keys are inputs).  numpy has no bfloat16: a bf16 feed is given as Paddle hands
bf16 to numpy, uint16 bit patterns, and is reinterpreted, never converted.  A big-endian
array is converted to native order (the same numbers; torch takes native order only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..errors import LoweringError

# The corpus's io.npz spell a feed `x` as `in__x` (corpus/paddle/README.md).
FEED_KEY_PREFIX = "in__"


class FeedError(LoweringError):
    """Inputs that do not fit the program's feeds."""


@dataclass(frozen=True)
class FeedSpec:
    """One pd_op.data: its name, the forward argument it becomes, its dtype and dims."""

    name: str
    arg: str
    dtype: torch.dtype | None  # None: a type the check cannot state (not a dense tensor)
    shape: tuple[int, ...] | None  # -1 for a dynamic dim; None: unknown rank


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def describe(dtype, shape) -> str:
    """`float32[2, 3]`, `-1` for a dynamic dim (as Paddle prints shapes)."""
    dims = "[?]" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"
    return f"{dtype_name(dtype) if dtype is not None else '?'}{dims}"


def as_tensor(value, spec: FeedSpec) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value
    array = np.asarray(value)
    if spec.dtype is torch.bfloat16 and array.dtype == np.uint16:
        return torch.from_numpy(np.ascontiguousarray(array)).view(torch.bfloat16)
    if array.dtype.kind not in "biufc":
        raise FeedError(f"feed {spec.name}: given an array of {array.dtype} (not numbers); the "
                        f"program expects {describe(spec.dtype, spec.shape)}")
    if not array.dtype.isnative:
        # a big-endian array (np.save on a big-endian machine, or dtype ">f4"): torch takes
        # native order only; the same numbers in native order
        array = array.astype(array.dtype.newbyteorder("="))
    return torch.from_numpy(np.ascontiguousarray(array))


def mismatch(spec: FeedSpec, tensor: torch.Tensor) -> str | None:
    """Why `tensor` does not fit `spec` (None if it fits)."""
    if spec.dtype is not None and tensor.dtype != spec.dtype:
        return "dtype"
    if spec.shape is None:
        return None
    if tensor.dim() != len(spec.shape):
        return "rank"
    for i, (want, got) in enumerate(zip(spec.shape, tensor.shape)):
        if want != -1 and want != got:
            return f"dim {i}"
    return None


def check_feeds(specs: list[FeedSpec], inputs: dict) -> dict[str, torch.Tensor]:
    """The forward's keyword arguments from `inputs`, or one FeedError naming every problem."""
    corpus = any(k.startswith(FEED_KEY_PREFIX) for k in inputs)
    names = {s.name for s in specs}
    problems, missing, out, used = [], [], {}, set()
    for spec in specs:
        key = spec.name if spec.name in inputs else FEED_KEY_PREFIX + spec.name
        if key not in inputs:
            missing.append(spec.name)
            continue
        used.add(key)
        tensor = as_tensor(inputs[key], spec)
        if spec.shape == () and tuple(tensor.shape) == (1,):
            tensor = tensor.reshape(())  # one element for a 0-d feed: Paddle feeds it as 0-d
        why = mismatch(spec, tensor)
        if why is not None:
            given = describe(tensor.dtype, tuple(tensor.shape))
            problems.append(f"feed {spec.name}: given {given}, the program expects "
                            f"{describe(spec.dtype, spec.shape)} ({why} differs)")
        out[spec.arg] = tensor
    unknown = [k for k in inputs if k not in used
               and (k.startswith(FEED_KEY_PREFIX) if corpus else True)]
    if missing:
        problems.insert(0, f"no input for feed{'s' if len(missing) > 1 else ''} "
                           f"{', '.join(missing)} (inputs given: {', '.join(sorted(inputs)) or 'none'}); "
                           "key inputs by the pd_op.data name")
    for key in unknown if not missing else ():  # a missing feed's message lists every key
        feed = key.removeprefix(FEED_KEY_PREFIX) if corpus else key
        if feed not in names:
            problems.append(f"input {key} is not a feed of the program (its feeds: "
                            f"{', '.join(s.name for s in specs) or 'none'})")
    if problems:
        raise FeedError("\n".join(problems) if len(problems) == 1 else
                        f"{len(problems)} problems with the inputs:\n  " + "\n  ".join(problems))
    return out
