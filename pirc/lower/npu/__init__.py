"""The torch_npu back end: NPU detection, fused-op entry points with CPU references, and the
per-op emitters that pick them on device npu (emit.py; the fusions are passes).

Importing this package imports no torch_npu; it turns torch's device-backend autoload off if
torch is not imported yet (detect.py says why).
"""

from .detect import disable_backend_autoload, npu_available, npu_status

disable_backend_autoload()

__all__ = ["npu_available", "npu_status", "disable_backend_autoload"]
