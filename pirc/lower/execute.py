"""Running a lowered module on numpy inputs: feeds by name in, fetches by name out.

Inputs are checked against the program's feeds first (feeds.py).  Outputs are what Paddle
hands to numpy: bf16 as its uint16 bit patterns (numpy has no bfloat16;
README, pirc-run), every other dtype as itself (f16 stays f16).  A kernel that fails is reported
naming its op and operands (failures.py).
"""

from __future__ import annotations

import numpy as np
import torch

from ..errors import PircError
from .failures import find_failure
from .feeds import FEED_KEY_PREFIX, FeedSpec, check_feeds
from .lod import PREFIXES as LOD_PREFIXES
from .lod import lod_feed_arguments, split_lod_inputs


def feed_specs(gm) -> list[FeedSpec]:
    """The module's feeds; a module made before feed types were recorded checks names only."""
    specs = getattr(gm, "pirc_feed_specs", None)
    if specs is not None:
        return specs
    return [FeedSpec(name, arg, None, None) for name, arg in gm.pirc_feeds]


def feed_tensors(gm, inputs: dict) -> dict[str, torch.Tensor]:
    """Forward keyword arguments from `inputs` keyed by feed name or `in__<feed>`, checked
    against each feed's pd_op.data (FeedError names every mismatch)."""
    inputs, lods = split_lod_inputs(inputs)
    out = check_feeds(feed_specs(gm), inputs)
    if lods:
        out.update(lod_feed_arguments(gm, lods, out))
    device = next((b.device for b in gm.buffers()), None)
    if device is not None and device.type != "cpu":
        out = {k: v.to(device) for k, v in out.items()}
    return out


def to_numpy(value) -> np.ndarray:
    """A result as Paddle gives it to numpy: bf16 as uint16 bit patterns, else its dtype."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.contiguous().view(torch.int16).numpy().view(np.uint16)
        return t.numpy()
    return np.asarray(value)


def run_module(gm, inputs: dict) -> dict[str, np.ndarray]:
    """Call a module made by `lower` and name its outputs by fetch name."""
    feeds = feed_tensors(gm, inputs)
    try:
        with torch.no_grad():
            # forward, not gm(...): GraphModule.__call__ prints the generated code's traceback
            # to stderr itself before re-raising.
            results = gm.forward(**feeds)
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - find the op that failed, then report it
        failure = find_failure(gm, feeds, e)
        if failure is e and not isinstance(e, PircError):
            raise
        raise failure from e
    # a LoD output is absent when the fetched value has no LoD at run time (lod.py)
    return {name: to_numpy(v) for name, v in zip(gm.pirc_fetch_names, results)
            if v is not None or not name.startswith(LOD_PREFIXES)}


__all__ = ["run_module", "feed_tensors", "to_numpy", "FEED_KEY_PREFIX"]
