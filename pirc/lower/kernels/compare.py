"""Comparisons and logical ops: results are bool tensors, inputs broadcast like numpy."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY
from ..specialize import specializer


@REGISTRY.register("pd_op.equal", since=1)
def equal(x, y):
    return torch.eq(x, y)


@REGISTRY.register("pd_op.greater_than", since=1)
def greater_than(x, y):
    return torch.gt(x, y)


@REGISTRY.register("pd_op.less_than", since=1)
def less_than(x, y):
    return torch.lt(x, y)


@REGISTRY.register("pd_op.logical_and", since=1)
def logical_and(x, y):
    return torch.logical_and(x, y)  # non-bool inputs: nonzero is true, result bool


@REGISTRY.register("pd_op.isnan", since=1)
def isnan(x):
    return torch.isnan(x)


# Specialisations (pirc.lower.specialize): the torch call itself.
for _kernel, _torch_fn in ((equal, torch.eq), (greater_than, torch.gt), (less_than, torch.lt)):
    specializer(_kernel)(lambda site, _fn=_torch_fn: site.call(_fn, site.p["x"], site.p["y"]))
