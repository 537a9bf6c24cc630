"""Compat registry for torch / torch_npu API differences (docs/COMPAT.md).

`compat_impl` registers a version-gated side of a key; `compat_impl_container[key]` resolves it.
The modules that define keys are listed in COMPAT_MODULES so `pirc-compat list` can load them all;
none of them imports torch at import time.
"""

from .registry import CompatError, CompatPoint, CompatRegistry, compat_impl, compat_impl_container
from .torch_versions import MIN_TORCH, MIN_TORCH_NPU

# Every module that registers compat keys (pirc-compat list imports these; a test checks the
# list against a source scan, so a new module cannot be forgotten).
COMPAT_MODULES = ("pirc.lower.npu.generators",)

__all__ = ["CompatError", "CompatPoint", "CompatRegistry", "compat_impl", "compat_impl_container",
           "MIN_TORCH", "MIN_TORCH_NPU", "COMPAT_MODULES"]
