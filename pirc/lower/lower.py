"""`lower(program, params, device, pipeline=None)`: a PIR program as a torch.fx.GraphModule.

Steps: with `pipeline` (on device npu by default the `npu` pipeline, whose fusion passes
make the fused ops), run that pass pipeline on a copy of the program with the parameters
first (`param-fold,cse,dce` does what this module once did on the fx graph: folding,
sharing and fusion are passes, visible in the IR, docs/PASSES.md); import the kernel modules (they
register into the versioned registry); find every op with no lowering at the program's PIR
version and refuse them all in one error, before building anything; bind the parameters
(module buffers named after the Paddle parameter, made Python identifiers;
`gm.pirc_parameters` maps them back); build the graph node by node, one call per op
(graph_builder, control_flow), on device npu a Paddle fused op or an npu.* op as its one
torch_npu call (npu/emit.py: chosen from that op alone); replace kernel calls by the torch
calls they make where the static types decide them (specialize).  The lowering makes no
folding, sharing or fusion decision of its own.

The module's forward takes the feeds (pd_op.data, in program order) and returns a tuple of
the fetched values in fetch (`col`) order; a program without fetch ops returns every value
of the top block that no op uses, in op order.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections import Counter

import numpy as np
import torch
import torch.fx as fx

from ..errors import LoweringError, PircWarning
from ..runtime.registry import REGISTRY
from .lod import lod_key, placeholders_last, reads_lod
from .module_class import direct_attribute_reads, plain_module_calls
from .graph_builder import STRUCTURAL_OPS, GraphBuilder, LoweringContext, python_name
from ..ir.locations import json_paths
from .specialize import specialize_calls
from .values import torch_dtype_of_type

DEVICES = ("cpu", "npu", "cuda")
# The pipeline `lower(..., pipeline=None)` runs first, per device: on npu the `npu` pipeline
# (pipelines/npu.yaml: the portable and the device fusions), so that a Python user gets the
# fused torch_npu calls the fusion passes make; elsewhere none.  `pipeline=""` runs none.
DEFAULT_PIPELINES = {"npu": "npu"}


class NpuFallbackWarning(PircWarning):
    """device="npu" asked for where torch_npu is missing or sees no NPU: the module is the
    NPU graph (fused calls) with every call's CPU reference, on the CPU.  Issued once per
    process: the answer is the same for every module (a zoo run lowers dozens), and Python's
    own once-per-call-site rule does not hold under `simplefilter("always")`, which the
    commands and pytest set."""


_npu_fallback_warned = False


def load_kernels() -> None:
    """Import `pirc.lower.kernels` (every kernel module registers itself at import)."""
    if importlib.util.find_spec("pirc.lower.kernels") is not None:
        importlib.import_module("pirc.lower.kernels")


def missing_lowerings(program, registry=REGISTRY) -> list[str]:
    """One line per op name with no registry entry at the program's version (with counts)."""
    counts = Counter(op.name for op in program.walk()
                     if op.name not in STRUCTURAL_OPS and op.name != "builtin.module")
    return [f"{registry.missing_message(name, program.version)} ({n} op{'s' if n > 1 else ''})"
            for name, n in sorted(counts.items()) if registry.find(name, program.version) is None]


def check_lowerable(program, registry=REGISTRY) -> None:
    """Raise one LoweringError naming every op kind with no lowering at the program's version."""
    missing = missing_lowerings(program, registry)
    if missing:
        raise LoweringError(f"{len(missing)} op kind{'s' if len(missing) > 1 else ''} of this program "
                            "cannot be lowered to torch:\n  " + "\n  ".join(missing))


def _parameter_ops(program):
    return [op for op in program.walk() if op.name == "builtin.parameter"]


def _as_tensor(value, name: str) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, np.ndarray) or np.isscalar(value):
        # np.require, not np.ascontiguousarray: that one makes a 0-D parameter 1-D
        return torch.from_numpy(np.require(value, requirements="C"))
    raise LoweringError(f"parameter {name}: expected a numpy array or torch tensor, got {type(value).__name__}")


def bind_parameters(program, params, ctx: LoweringContext) -> dict[str, str]:
    """Register each builtin.parameter's tensor on the root module; name map root -> Paddle."""
    from ..runtime.persistence import created_parameters, created_value

    ops = _parameter_ops(program)
    params = _read_params_file(program, params) or {}
    # what Paddle creates at load rather than reading (not persistable): created here too when
    # a params dict leaves them out (read_params, given the program, already made them)
    created = created_parameters(program)
    missing, bad = [], []
    mapping = {}
    for op in ops:
        pname = op.attributes["parameter_name"].data
        if pname in ctx.param_nodes:
            continue
        if pname not in params and pname in created:
            value = created_value(pname, created[pname])
        elif pname not in params:
            missing.append(pname)
            continue
        else:
            value = params[pname]
        tensor = _as_tensor(value, pname)
        rtype = op.results[0].type
        dtype = torch_dtype_of_type(rtype)
        if dtype is not None and tensor.dtype != dtype:
            tensor = tensor.to(dtype)
        shape = getattr(rtype, "shape", None)
        if shape is not None and (len(shape) != tensor.dim()
                                  or any(d != -1 and d != s for d, s in zip(shape, tensor.shape))):
            bad.append(f"{pname}: program declares {list(shape)}, got {list(tensor.shape)}")
            continue
        attr = python_name(pname, ctx.attr_names, "param")
        ctx.root.register_buffer(attr, tensor.clone())
        ctx.param_nodes[pname] = attr
        mapping[attr] = pname
    if missing or bad:
        lines = [f"missing parameter {n}" for n in sorted(missing)] + [f"wrong shape for {b}" for b in bad]
        raise LoweringError("the parameters do not fit the program (pass params= a dict or the "
                            "model's .pdiparams file):\n  " + "\n  ".join(lines))
    return mapping


def _unused_top_values(program, builder: GraphBuilder) -> list:
    out = []
    for op in program.block.ops:
        if op.name == "pd_op.fetch":
            continue
        for r in op.results:
            if not r.uses and r in builder.env and isinstance(builder.env[r], fx.Node):
                out.append((r, builder.env[r]))
    return out


def lower(program, params=None, device: str = "cpu", pipeline: str | None = None, *,
          registry=REGISTRY) -> fx.GraphModule:
    """The program as a torch.fx.GraphModule (see the module docstring).

    `pipeline`: a pass pipeline (`param-fold,cse,dce`) run first, with the parameters, on a
    copy of the program (the program given is not changed); None: the device's default
    (DEFAULT_PIPELINES: `npu` on device npu, none elsewhere); "": none.  `registry`: the op registry to
    resolve kernels in (tests pass their own).
    """
    if device not in DEVICES:
        raise LoweringError(f"unknown device {device!r}; use one of {', '.join(DEVICES)}")
    if pipeline is None:
        pipeline = DEFAULT_PIPELINES.get(device)
    if pipeline:
        program, params = optimised_copy(program, params, pipeline, device)
    load_kernels()
    check_lowerable(program, registry)

    root = torch.nn.Module()
    emitters = None
    if device == "npu":
        from .npu.emit import EMITTERS
        emitters = EMITTERS
    ctx = LoweringContext(root, program.version, registry, emitters)
    ctx.program = program
    param_map = bind_parameters(program, params, ctx)
    builder = GraphBuilder(ctx)
    builder.lod_enabled = reads_lod(program)
    builder.lower_ops(program.block.ops)
    written_parameters = builder.write_back_parameters()

    if builder.fetches:
        ordered = sorted(enumerate(builder.fetches), key=lambda item: (item[1][0], item[0]))
        names = [name for _, (_, name, _) in ordered]
        outputs = [node for _, (_, _, node) in ordered]
    else:
        unused = _unused_top_values(program, builder)
        names = [f"out{i}" for i in range(len(unused))]
        outputs = [node for _, node in unused]
    # a fetched value's LoD, as `.lod()` of Paddle's fetch (lod.py): outputs lod__<fetch> ...
    for name in list(names):
        for level, node in enumerate(builder.fetch_lods.get(name, ())):
            names.append(lod_key(level, name))
            outputs.append(node)
    builder.graph.output(tuple(outputs))
    if builder.lod_feeds:
        placeholders_last(builder.graph, builder.lod_feeds)
    # Constants folded into their users (graph_builder._folded) leave their own ops unused.
    builder.graph.eliminate_dead_code()
    builder.graph.lint()
    gm = fx.GraphModule(root, builder.graph, class_name="PircProgram")
    gm.pirc_parameters = param_map  # root attribute -> Paddle parameter name
    gm.pirc_feeds = list(builder.feeds)  # (pd_op.data name, forward argument name)
    gm.pirc_feed_specs = list(builder.feed_specs)  # dtype and dims of each feed
    gm.pirc_fetch_names = names
    gm.pirc_lod_feeds = dict(builder.lod_feeds)  # feed -> forward arguments of its LoD levels
    gm.pirc_version = program.version
    # Paddle parameters the forward writes in place (a later call reads the written values)
    gm.pirc_written_parameters = sorted(n for n, _ in written_parameters)

    specialize_calls(gm)
    plain_module_calls(gm)
    direct_attribute_reads(gm)
    if device == "npu":
        from .npu.detect import npu_status
        status = npu_status()
        if status.available:
            gm = gm.to("npu")
        else:
            _warn_npu_fallback(status.reason)
    elif device == "cuda":
        if not torch.cuda.is_available():
            raise LoweringError("device 'cuda' asked for, but torch sees no CUDA device")
        gm = gm.to("cuda")
    return gm


def _warn_npu_fallback(reason: str) -> None:
    """NpuFallbackWarning, the first time only (its docstring says why)."""
    global _npu_fallback_warned
    if _npu_fallback_warned:
        return
    _npu_fallback_warned = True
    warnings.warn(NpuFallbackWarning(
        f"device npu: no usable NPU here ({reason}); the fused torch_npu calls "
        "run their CPU references, on the CPU"), stacklevel=3)


def optimised_copy(program, params, pipeline: str, device: str):
    """(a copy of `program` after `pipeline`, the parameters after it)."""
    from ..ir.program import Program
    from ..passes import run_pipeline

    params = _read_params_file(program, params)
    copy = Program(program.module.clone(), program.version, list(program.graph_tags),
                   program.trainable, program.manifest, dict(program.extra))
    # Each op of the copy keeps its original's place in the input (line:col, else its JSON
    # path there): the fx nodes and a kernel failure name it as the user wrote it, not as it
    # stands after the passes.  The clone has the same ops in the same walk order.
    where = program.locations or json_paths(program)
    for original, cloned in zip(program.walk(), copy.walk()):
        if original in where:
            copy.locations[cloned] = where[original]
    _pin_outputs(copy)
    # passes know cpu and npu; a module for the CPU (or cuda) takes the pipeline's own
    # device: `npu`'s fused ops then run their CPU references
    pass_device = "npu" if device == "npu" else None
    result = run_pipeline(copy, pipeline, device=pass_device, params=params)
    return copy, result.params


def _pin_outputs(program) -> None:
    """A program without fetch ops returns every unused value the lowering binds (lower's
    docstring): to the passes those are dead, and dce would remove them.  Give each one the
    fetch it stands for (named `out{i}` as the lowering names them), so the optimised copy
    returns what the program given returns."""
    from ..ir.attrs import int32_attr, str_attr
    from ..ir.builder import append_op
    from ..ir.registry import op_class
    from ..ir.types import DenseTensorType

    block = program.block
    if any(op.name == "pd_op.fetch" for op in block.ops):
        return
    # what the builder binds: one-result ops' results (a multi-result op's only where used)
    unused = [op.results[0] for op in block.ops
              if len(op.results) == 1 and op.name not in _UNBOUND and not op.results[0].uses
              and isinstance(op.results[0].type, DenseTensorType)]
    fetch = op_class("pd_op.fetch", program.version)
    for col, value in enumerate(unused):
        append_op(fetch, [value], [value.type], {"name": str_attr(f"out{col}"),
                                                 "col": int32_attr(col)}, block)


_UNBOUND = frozenset({"builtin.combine", "builtin.split", "builtin.slice", "cf.yield"})


def _read_params_file(program, params):
    """`params` as a dict: a `.pdiparams` path is read with the program's persisted parameter
    names, and the parameters Paddle creates at load are created (runtime/persistence.py)."""
    if isinstance(params, (str, bytes)) or hasattr(params, "__fspath__"):
        from ..runtime.params import read_params
        return read_params(str(params), program)
    return params
