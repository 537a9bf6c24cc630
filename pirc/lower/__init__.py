"""Lowering PIR programs to torch: `lower(program, params, device)` -> torch.fx.GraphModule.

torch_npu, when installed without Ascend's CANN, makes `import torch` fail unless
TORCH_DEVICE_BACKEND_AUTOLOAD=0 is set before torch is first imported
(docs/notes/torch-npu.md); every path to torch in pirc goes through this package, so it
is set here (setdefault: a user's explicit value wins).  torch_npu is then imported
explicitly by pirc.lower.npu when an NPU is asked for.
"""

import os

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")

from .lower import check_lowerable, lower, missing_lowerings  # noqa: E402

__all__ = ["lower", "check_lowerable", "missing_lowerings"]


class _CallableModule(type(os)):
    """`pirc.lower` is both this package and the API call `pirc.lower(program, ...)`.

    Importing any submodule (pirc.lower.kernels, ...) rebinds the attribute `pirc.lower`
    from the API function to this package; making the package callable keeps
    `pirc.lower(program, params, device)` working either way.
    """

    def __call__(self, program, params=None, device: str = "cpu", pipeline: str | None = None):
        return lower(program, params, device, pipeline)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule
