"""Random-number generators on the NPU, behind the compat registry.

Random kernels (gaussian, uniform, dropout in training) take an explicit generator when the op's
`seed` is non-zero and the device's default generator otherwise. Getting the NPU's default
generator differs by torch version, a real difference that torch_npu itself gates
(torch_npu 2.14.0 wheel, torch_npu/_compat/accelerator.py: "COMPAT(>= 2.14): upstream added
torch._C._accelerator_getDefaultGenerator"; pytorch PR #186596; torch 2.13.0 has no
`torch._C._accelerator_getDefaultGenerator`, checked on 2.13.0+cpu).
"""

from __future__ import annotations

from ...compat.registry import compat_impl, compat_impl_container


@compat_impl(key="npu_default_generator", ge=(2, 14))
def _default_generator_accelerator(device_index: int):
    import torch
    return torch._C._accelerator_getDefaultGenerator(device_index)


@compat_impl(key="npu_default_generator", lt=(2, 14))
def _default_generator_npu_module(device_index: int):
    import torch
    return torch.npu.default_generators[device_index]


def generator_for(device, seed: int):
    """The generator a random kernel uses on `device`: seeded if seed != 0, else the default."""
    import torch
    device = torch.device(device)
    if seed:
        return torch.Generator(device=device).manual_seed(seed)
    if device.type == "npu":
        return compat_impl_container["npu_default_generator"].resolve()(device.index or 0)
    return None  # torch's global generator for the CPU / CUDA device
