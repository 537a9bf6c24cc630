"""The torch and torch_npu versions pirc supports, and the installed ones, read without importing torch.

Why these minimums (docs/COMPAT.md): torch_npu 2.13.0 is the first release that pins torch as
`torch==X.Y.*` (any build of that minor, the CPU one included) and its fused-op schemas are the
ones pirc emits; 2.13 and 2.14 have byte-identical op yaml. torch's minimum follows torch_npu's,
since torch_npu pins its own torch minor.

Versions are (major, minor) tuples, the granularity at which torch and torch_npu differ in API;
this mirrors torch_npu's own `torch_npu/_compat/version.py`.
"""

from __future__ import annotations

import importlib.metadata

MIN_TORCH: tuple[int, int] = (2, 13)
MIN_TORCH_NPU: tuple[int, int] = (2, 13)
# The releases whose op schemas pirc commits (pirc/lower/npu/schemas/) and checks its calls against.
SUPPORTED_TORCH_NPU: tuple[str, ...] = ("2.13.0", "2.14.0")


def parse_version(text: str) -> tuple[int, int]:
    """'2.14.0+cpu' -> (2, 14); '2.13.0.post3' -> (2, 13)."""
    parts = text.split("+")[0].split(".")
    return int(parts[0]), int(parts[1])


def installed_version(distribution: str) -> tuple[int, int] | None:
    """(major, minor) of an installed distribution, or None; reads metadata, imports nothing."""
    try:
        return parse_version(importlib.metadata.version(distribution))
    except (importlib.metadata.PackageNotFoundError, ValueError, IndexError):
        return None


def torch_version() -> tuple[int, int]:
    """The installed torch's (major, minor); pirc cannot lower without torch."""
    found = installed_version("torch")
    if found is None:
        from ..errors import PircError
        raise PircError("torch is not installed: lowering and running programs need torch "
                        f">= {MIN_TORCH[0]}.{MIN_TORCH[1]} (pip install torch)")
    return found
