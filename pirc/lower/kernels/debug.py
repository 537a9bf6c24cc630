"""Debugging ops that pass their input through: print (which writes the tensor to stdout
as Paddle's does), the model-wide NaN / Inf check switches and accuracy_check."""

from __future__ import annotations

import torch

from ...runtime.registry import REGISTRY


@REGISTRY.register("pd_op.print", since=1)
def print_(in_, *, first_n=-1, message="", summarize=20, print_tensor_name=True,
           print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
           print_tensor_lod=True, print_phase="BOTH", is_forward=True):
    # Paddle's PrintKernel returns its input; the printing is a side effect (below)
    _show(in_, message, summarize, print_tensor_type, print_tensor_shape,
          print_tensor_layout, print_tensor_lod)
    return in_


def _show(x, message, summarize, typ, shape, layout, lod):
    """Paddle's TensorFormatter layout: the message, then one `  - key: value` line per part
    asked for, then the first `summarize` values (all of them for -1)."""
    lines = ["Variable: var"]
    if message:
        lines.append(f"  - message: {message}")
    if lod:
        lines.append("  - lod: {}")
    lines.append("  - place: Place(cpu)")
    if shape:
        lines.append(f"  - shape: {list(x.shape)}")
    if layout:
        lines.append("  - layout: NCHW")
    if typ:
        lines.append(f"  - dtype: {str(x.dtype).replace('torch.', '')}")
    flat = x.detach().reshape(-1)
    n = flat.numel() if summarize == -1 else min(int(summarize), flat.numel())
    lines.append("  - data: [" + " ".join(_fmt(v) for v in flat[:n].tolist()) + "]")
    print("\n".join(lines), flush=True)


def _fmt(v):
    return f"{v:f}" if isinstance(v, float) else str(v)


def _check_nan_inf(x, flag: int, name: str):
    # The kernel copies x and sets FLAGS_check_nan_inf to `flag`; with the flag on Paddle's
    # executor then checks each op result for NaN / Inf, this op's own first. The check of
    # this op's result is kept here; the later ops' checks are the executor's, not the
    # lowering's (a lowered graph has no process-wide debug flag).
    if flag and x.is_floating_point() and bool((~torch.isfinite(x)).any()):
        raise FloatingPointError(f"{name}: there are NAN or INF in the result")
    return x.clone()


@REGISTRY.register("pd_op.enable_check_model_nan_inf", since=1)
def enable_check_model_nan_inf(x, *, flag=1):
    return _check_nan_inf(x, flag, "enable_check_model_nan_inf")


@REGISTRY.register("pd_op.disable_check_model_nan_inf", since=1)
def disable_check_model_nan_inf(x, *, flag=0):
    return _check_nan_inf(x, flag, "disable_check_model_nan_inf")


@REGISTRY.register("pd_op.accuracy_check", since=1)
def accuracy_check(x, y, *, fn_name="", rtol=1e-5, atol=1e-8, equal_nan=False):
    """AccuracyCheckKernel (CPU): elementwise in double, a == b or |a - b| <= atol + rtol * |b|
    or the two sides within 1e-10; NaN matches only NaN and only with equal_nan. The result is
    all true, since the kernel raises at the first mismatch."""
    a, b = x.to(torch.float64), y.to(torch.float64)
    left = (a - b).abs()
    right = atol + rtol * b.abs()
    ok = (a == b) | (left <= right) | ((left - right).abs() <= 1e-10)
    nan = torch.isnan(a) | torch.isnan(b)
    ok = torch.where(nan, torch.isnan(a) & torch.isnan(b) & equal_nan, ok)
    if not bool(ok.all()):
        bad = int(torch.nonzero(~ok.reshape(-1))[0])
        raise ValueError(f"accuracy_check: accuracy check failed, kernel name {fn_name}, "
                         f"res index {bad}")
    return torch.ones(x.shape, dtype=torch.bool)
