"""pd_op.if and pd_op.while run as a plain Python `if` / `while`, and the same kept out of
torch.compile's graph for a region that holds a tensor array (control_flow).

A tensor array is a Python list whose length the data decides (a decoding loop appends a
token per step); torch's cond / while_loop take and carry tensors only.  Under torch.compile
such a region runs eagerly behind a graph break: `untraced_if` / `untraced_while` are
`torch.compiler.disable`d, and dynamo's error under fullgraph=True quotes `array_message`.
They are made on first use (this module's `__getattr__`): `torch.compiler.disable` imports
torch._dynamo, seconds that a program run eagerly (pirc-run) should not pay, and the first
use is always under dynamo, which has it loaded.
"""

from __future__ import annotations

import torch


def array_message(op_name: str) -> str:
    return (f"{op_name} reads or writes a tensor array of the enclosing block inside its "
            f"{'branches' if op_name == 'pd_op.if' else 'body'}: tensor arrays are Python lists "
            "of data-dependent length in the lowering, and torch's control-flow operators carry "
            "tensors only")


def eager_if(pred, true_fn, false_fn, operands: tuple):
    return (true_fn if bool(pred) else false_fn).forward(*operands)


def eager_while(body_fn, carried: tuple, additional: tuple):
    # lower_while's condition graph is torch.all of the carried condition: the truth value
    # of that one-element tensor is read directly (one graph call less per iteration).
    while bool(carried[0]):
        carried = tuple(body_fn.forward(*carried, *additional))
    return carried


_UNTRACED = {"untraced_if": (eager_if, "pd_op.if"), "untraced_while": (eager_while, "pd_op.while")}


def __getattr__(name: str):
    if name not in _UNTRACED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    fn, op_name = _UNTRACED[name]
    disabled = torch.compiler.disable(fn, reason=array_message(op_name))
    globals()[name] = disabled
    return disabled
