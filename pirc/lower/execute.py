"""Running a lowered module on numpy inputs: feeds by name in, fetches by name out."""

from __future__ import annotations

import numpy as np
import torch

from ..errors import LoweringError

# The corpus's io.npz spell a feed `x` as `in__x` (corpus/paddle/README.md).
FEED_KEY_PREFIX = "in__"


def feed_tensors(gm, inputs: dict) -> dict[str, torch.Tensor]:
    """Forward keyword arguments from `inputs` keyed by feed name or `in__<feed>`."""
    out, missing = {}, []
    for feed, arg in gm.pirc_feeds:
        if feed in inputs:
            value = inputs[feed]
        elif FEED_KEY_PREFIX + feed in inputs:
            value = inputs[FEED_KEY_PREFIX + feed]
        else:
            missing.append(feed)
            continue
        out[arg] = value if isinstance(value, torch.Tensor) else torch.from_numpy(np.array(value))
    if missing:
        known = ", ".join(sorted(inputs)) or "none"
        raise LoweringError(f"no input for feed{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)} (inputs given: {known}); key inputs by the "
                            "pd_op.data name")
    device = next((b.device for b in gm.buffers()), None)
    if device is not None and device.type != "cpu":
        out = {k: v.to(device) for k, v in out.items()}
    return out


def to_numpy(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: widen exactly
            t = t.float()
        return t.numpy()
    return np.asarray(value)


def run_module(gm, inputs: dict) -> dict[str, np.ndarray]:
    """Call a module made by `lower` and name its outputs by fetch name."""
    with torch.no_grad():
        results = gm(**feed_tensors(gm, inputs))
    return {name: to_numpy(v) for name, v in zip(gm.pirc_fetch_names, results)}


__all__ = ["run_module", "feed_tensors", "to_numpy"]
