"""Kernels: one module per op family; importing this package registers every kernel.

Each kernel follows the calling convention of the lowering (operands positional in PIR
order, spec attributes as keywords, a tensor or a tuple of tensors back) and implements
Paddle's semantics for the PIR versions its registry entry covers.  Tensor arrays are
Python lists; a SelectedRows value is its dense value tensor (selected_rows.py says why).
"""

from ...module_scan import import_modules

# Every forward-kernel module registers itself: adding an op family is adding its module.
# The modules below run after them (in-place twins and backward ops are derived from the
# forward kernels) or hold helpers only.
LATE = frozenset({"inplace", "grad", "grad_common", "grad_nn", "grad_special", "losses",
                  "operands", "eigen_packets"})
import_modules(__name__, skip=LATE)
from .inplace import register_inplace_aliases  # noqa: E402 - after every kernel module

INPLACE_ALIASES = register_inplace_aliases()
from . import grad_special  # noqa: E402,F401 - backward ops autograd cannot give
from . import grad_common, grad_nn, losses  # noqa: E402,F401 - grads the generic rule cannot map
from .grad import GRAD_KERNELS  # noqa: E402,F401 - backward ops, after every forward kernel
