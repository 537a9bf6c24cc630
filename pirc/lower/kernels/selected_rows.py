"""Selected-rows ops on the dense form a lowered graph gives a SelectedRows value.

The lowering has no sparse row type: a SelectedRows value (a feed such as the one
tests/fixtures/generated/*/selected_rows.* declares) is carried as its dense value tensor
with rows 0..height-1.  Rows are then distinct, so merging duplicates changes nothing and
the value tensor is the dense tensor.
"""

from __future__ import annotations

from ...runtime.registry import REGISTRY


@REGISTRY.register("pd_op.merge_selected_rows", since=1)
def merge_selected_rows(x):
    return x


@REGISTRY.register("pd_op.get_tensor_from_selected_rows", since=1)
def get_tensor_from_selected_rows(x):
    return x
