"""Is an Ascend NPU usable here? Detection that never breaks `import torch`.

torch_npu registers a `torch.backends` entry point that torch loads at `import torch` when
TORCH_DEVICE_BACKEND_AUTOLOAD is "1" (its default). With torch_npu installed but no CANN
toolkit, that load fails and `import torch` itself raises; the failure cannot be undone in the
process (docs/notes/torch-npu.md section 3). So pirc turns autoload off before torch is first
imported (`setdefault`: a user's explicit "1" is respected) and imports torch_npu explicitly,
guarded, only when someone asks whether an NPU is there.

This module imports torch only inside `npu_status()`.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from dataclasses import dataclass

AUTOLOAD_VARIABLE = "TORCH_DEVICE_BACKEND_AUTOLOAD"


def disable_backend_autoload() -> bool:
    """Turn torch's device-backend autoload off unless the user chose; False if torch is already in.

    Too late once torch is imported: then it returns False and changes nothing that matters.
    """
    os.environ.setdefault(AUTOLOAD_VARIABLE, "0")
    return "torch" not in sys.modules


@dataclass(frozen=True)
class NpuStatus:
    available: bool
    reason: str
    torch_npu_version: str | None = None


_status: NpuStatus | None = None


def npu_status(refresh: bool = False) -> NpuStatus:
    """The tested recipe: find_spec, guarded import, then torch.npu.is_available(); cached."""
    global _status
    if _status is not None and not refresh:
        return _status
    disable_backend_autoload()
    _status = _probe()
    return _status


def npu_available() -> bool:
    return npu_status().available


def _probe() -> NpuStatus:
    if importlib.util.find_spec("torch_npu") is None:
        return NpuStatus(False, "torch_npu not installed")
    try:
        version = importlib.metadata.version("torch_npu")
    except importlib.metadata.PackageNotFoundError:
        version = None
    import torch
    try:
        import torch_npu  # noqa: F401  (explicit: autoload is off)
    except (ImportError, OSError, RuntimeError) as e:
        return NpuStatus(False, f"torch_npu {version or '?'} present but unusable: "
                                f"{type(e).__name__}: {e}", version)
    try:
        ok = bool(torch.npu.is_available() and torch.npu.device_count() > 0)
    except Exception as e:  # any failure of the device query means: no usable NPU
        return NpuStatus(False, f"torch.npu query failed: {type(e).__name__}: {e}", version)
    return NpuStatus(ok, f"torch_npu {version or '?'}, is_available={ok}", version)
