"""`pirc.export(program, params)`: a program as a `torch.export.ExportedProgram` whose -1
dims stay dynamic (docs/LOWERING.md, "Dynamic shapes").

The lowered module (pirc.lower) takes the feeds, in the program's `pd_op.data` order, and
follows a saved program's shape arithmetic as symbolic sizes; `torch.export.export` keeps a
dim symbolic only when told, so each -1 dim of each feed (its FeedSpec, pirc/lower/feeds.py)
becomes a `Dim.DYNAMIC`: the export fails, rather than silently fixing a size, if anything
in the module makes that dim a constant.  A feed without -1 dims is static (None).

torch.export traces with the example inputs' sizes as hints only: without `inputs`, every -1
dim is given `EXAMPLE_SIZE` and every value is zero (a valid index for an embedding, a
valid length).  Give real `inputs` when a size of 2 does not fit the model (an image
-1 in height and width that its pooling would shrink below 1).  torch specialises the sizes
0 and 1, so example sizes below 2 would export a static dim.

A failure is one LoweringError line: the lowering's own refusal as it made it (a pd_op.while
whose body changes a carried shape, pirc/lower/control_flow.py), else `torch.export cannot
export this program: ...` with torch's exception as the cause.
"""

from __future__ import annotations

import torch

from ..errors import LoweringError, excerpt
from .feeds import FeedSpec, describe

# the size every -1 dim gets in the example inputs made here (2: the smallest size torch.export
# does not specialise)
EXAMPLE_SIZE = 2


def dynamic_shapes(feed_specs: list[FeedSpec]) -> dict:
    """torch.export's `dynamic_shapes` for a lowered module's feeds (`gm.pirc_feed_specs`):
    each forward argument's -1 dims as `Dim.DYNAMIC` by axis, None for a static feed."""
    dynamic = torch.export.Dim.DYNAMIC
    return {s.arg: ({i: dynamic for i, d in enumerate(s.shape or ()) if d == -1} or None)
            for s in feed_specs}


def example_inputs(feed_specs: list[FeedSpec], size: int = EXAMPLE_SIZE) -> dict[str, torch.Tensor]:
    """Zeros of each feed's dtype and shape, `size` in each -1 dim, keyed by feed name."""
    out = {}
    for s in feed_specs:
        if s.dtype is None or s.shape is None:
            raise LoweringError(f"feed {s.name} is {describe(s.dtype, s.shape)}: no example input can "
                                "be made for it; pass inputs={feed name: array} to export")
        out[s.name] = torch.zeros([size if d == -1 else d for d in s.shape], dtype=s.dtype)
    return out


def export(program, params=None, inputs: dict | None = None, *, device: str = "cpu",
           pipeline: str | None = None) -> torch.export.ExportedProgram:
    """Lower `program` (as pirc.lower: `params`, `device`, `pipeline`) and export it with every
    -1 dim dynamic.  `inputs`: example feeds by name (checked as pirc-run checks them),
    else zeros with each -1 dim 2.  The result's `.module()` takes the feeds positionally
    in `pd_op.data` order, at any size in the -1 dims, and returns the fetches in order."""
    from .execute import feed_tensors
    from .lower import lower

    gm = lower(program, params, device, pipeline)
    specs = list(gm.pirc_feed_specs)
    given = feed_tensors(gm, inputs if inputs is not None else example_inputs(specs))
    args = tuple(given[s.arg] for s in specs)
    try:
        return torch.export.export(gm, args, dynamic_shapes=dynamic_shapes(specs))
    except LoweringError as e:  # a refusal of the lowering's (control_flow): its own message
        raise LoweringError(e.bare_message) from None
    except Exception as e:  # noqa: BLE001 - torch's own failure, said in one line
        first = next((line.strip() for line in str(e).splitlines() if line.strip()), "")
        raise LoweringError(f"torch.export cannot export this program: {type(e).__name__}: "
                            f"{excerpt(first, 300)}") from e
