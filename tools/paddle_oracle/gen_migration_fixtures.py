#!/usr/bin/env python3
"""Real-Paddle fixtures for the breaking op-definition changes between Paddle 3.0.0 (PIR
version 1) and 3.3.1 (PIR version 4), most of which Paddle's own patches leave out, plus three
controls that they do migrate (issue 5, item 4).

Run with the python of a scratch venv that has paddlepaddle 3.0.0 (never pirc's environment):

    python3 -m venv /tmp/pd300 && /tmp/pd300/bin/pip install paddlepaddle==3.0.0 numpy
    /tmp/pd300/bin/python tools/paddle_oracle/gen_migration_fixtures.py \
        --out tests/fixtures/migrations                                      # ~2 min

One small program per case, named after the op under test (CASES below). Each case is a
class of change (op renamed, attribute retyped, attribute added, operand inserted, attribute
moved to an operand) and a variant (forward, grad, inplace). Per case OUT gets:

    CASE.3.0.0.json       what paddle.static.save_inference_model (3.0.0) wrote
    CASE.3.0.0.pdiparams  its parameters, when it has any
    CASE.3.0.0.pir.txt    str(program) as built
    CASE.3.0.0.io.npz     in__<feed>; out__<i> = outputs of the saved program loaded back and
                          run by 3.0.0 (built_out__<i> only where it differs)

and OUT/manifest.json lists every case (class, op, variant, what changed between the two
op definitions, what the upgraded op must look like: name, attribute kinds, operand arity,
absent operands), OUT/gen_log.3.0.0.json what happened.

Grad ops: a program's backward ops come from paddle.static.gradients(outs, inputs,
target_gradients=[dy fed as data]); fetching the gradients makes save_inference_model's
pruning keep the backward ops (FORMAT-NOTES section 4 writer, unchanged). Double-grad ops
(`*_double_grad`): the gradient of those gradients w.r.t. x and dy, against a fed ddx. Inplace ops: in
static mode the public in-place APIs (F.leaky_relu_, paddle.logit_) emit the out-of-place op,
so the `_` op is emitted through paddle._C_ops (= paddle._pir_ops here), as the dynamic-mode
API does.

Hand-written cases (`"built": "hand-written"`): rms_norm_grad has no CPU kernel in 3.0.0 and
op construction checks for one, so the 3.0.0-built rms_norm program is extended by hand with
its rms_norm_grad op, written from opdefs-3.0.0.json with the JSON conventions of the ops
Paddle wrote around it; Paddle 3.0.0 loads it back (checked here) but cannot run it.
No op that exists in 3.0.0 moves an attribute to an operand before 3.3.1: the only such
change is flash_attn_v3_varlen (and _grad), new in 3.1 and changed at PIR 3 -> 4, GPU-only;
those two are written by hand as Paddle 3.2.2 (PIR version 3) writes them
(CASE.3.2.2.json) and checked to load in 3.2.2 when --pd322 is given.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OPDEFS = os.path.join(ROOT, "tools", "opdefs", "opdefs-{}.json")
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import gen_fixtures as gf  # noqa: E402  (imports paddle, enable_static)
from gen_fixtures import rng_for  # noqa: E402

paddle = gf.paddle
F = paddle.nn.functional
VER = gf.PADDLE_VERSION
RELEASE_VERSION = {"3.0.0": 1, "3.1.1": 2, "3.2.2": 3, "3.3.1": 4}


def arr(case, key, shape, lo=None, hi=None):
    r = rng_for(f"migrations/{case}/{key}")
    if lo is not None:
        return r.uniform(lo, hi, shape).astype("float32")
    return r.standard_normal(shape).astype("float32")


class Feeds:
    def __init__(self, case):
        self.case, self.items = case, []

    def __call__(self, name, shape, lo=None, hi=None, value=None, grad=False):
        a = arr(self.case, name, shape, lo, hi) if value is None else value
        self.items.append((name, a))
        v = paddle.static.data(name, list(a.shape), str(a.dtype))
        if grad:
            v.stop_gradient = False
        return v


def grads(f, outs, wrt):
    """Backward ops for outs w.r.t. wrt, with each out's incoming gradient fed as data."""
    dys = [f(f"dy{i}", list(o.shape)) for i, o in enumerate(outs)]
    return paddle.static.gradients(outs, wrt, target_gradients=dys)


# --- the cases ---------------------------------------------------------------------------------
# (case, class, variant, fn(f) -> fetches, info).  `op` defaults to pd_op.<case>; `target` is
# the op's 3.3.1 name (renames).  `paddle_migrates`: Paddle 3.3.1's own patches migrate it.
# `pirc_patch` (default "shipped"): "pending" while pirc's patches do not migrate it yet
# (the CI tests are then strict xfails until the patch lands; patches/pirc/N.yaml, the layer
# over Paddle's patches, migrates every case since 2026-11-30).  `pirc_run`: "expected" when pirc's
# lowering covers every op of the upgraded program, else why not.
CASES = {}


def case(name, cls, variant, **info):
    def deco(fn):
        CASES[name] = dict(cls=cls, variant=variant, fn=fn, **info)
        return fn
    return deco


@case("rms_norm", "op_renamed", "forward", target="pd_op.fused_rms_norm_quant",
      pirc_run="expected")
def _rms_norm(f):
    x, w, r = f("x", [2, 3, 8]), f("w", [8]), f("r", [2, 3, 8])
    b = f("b", [8])
    fn = paddle.incubate.nn.functional.fused_rms_norm
    a = fn(x, w, None, 1e-6, 2)
    out, res = fn(x, w, b, 1e-5, 2, residual=r)
    return [a[0] if isinstance(a, (tuple, list)) else a, out, res]


@case("leaky_relu", "attr_retyped", "forward", paddle_migrates=True,
      pirc_run="expected", note="control: Paddle's patch 4 covers it")
def _leaky_relu(f):
    x = f("x", [2, 5])
    return [F.leaky_relu(x, 0.02), F.leaky_relu(x, 0.25)]




@case("leaky_relu_", "attr_retyped", "inplace",
      pirc_run="expected")
def _leaky_relu_(f):
    x = f("x", [2, 5])
    return [paddle._C_ops.leaky_relu_(x * 2.0, 0.02)]


@case("leaky_relu_grad", "attr_retyped", "grad", pirc_run="expected")
def _leaky_relu_grad(f):
    x = f("x", [2, 5], grad=True)
    y = F.leaky_relu(x, 0.02)
    return [y, *grads(f, [y], [x])]


@case("leaky_relu_grad_", "attr_retyped", "inplace",
      pirc_run="expected", note="inplace grad op, emitted through paddle._C_ops")
def _leaky_relu_grad_(f):
    x, dy = f("x", [2, 5]), f("dy", [2, 5])
    return [paddle._C_ops.leaky_relu_grad_(x, dy * 1.5, 0.02)]


@case("logit_", "attr_retyped", "inplace",
      pirc_run="expected")
def _logit_(f):
    v = arr("logit_", "x", [2, 5], 0.0, 0.5)
    v[0, 0], v[1, 1] = 0.0, 0.5                              # eps clamps these (after * 2)
    x = f("x", [2, 5], value=v)
    return [paddle._C_ops.logit_(x * 2.0, 1e-6)]


@case("logit_grad", "attr_retyped", "grad", pirc_run="expected")
def _logit_grad(f):
    x = f("x", [2, 5], 0.05, 0.95, grad=True)
    y = paddle.logit(x, 1e-6)
    return [y, *grads(f, [y], [x])]


@case("softplus_grad", "attr_retyped", "grad", pirc_run="expected")
def _softplus_grad(f):
    x = f("x", [2, 5], -12.0, 12.0, grad=True)
    y = F.softplus(x, 1.7, 15.0)
    return [y, *grads(f, [y], [x])]


@case("softplus_grad_", "attr_retyped", "inplace",
      pirc_run="expected", note="inplace grad op, emitted through paddle._C_ops")
def _softplus_grad_(f):
    x, dy = f("x", [2, 5], -12.0, 12.0), f("dy", [2, 5])
    return [paddle._C_ops.softplus_grad_(x, dy * 1.5, 1.7, 15.0)]


@case("group_norm_grad", "attr_retyped", "grad", pirc_run="expected")
def _group_norm_grad(f):
    x = f("x", [2, 4, 3, 3], grad=True)
    y = F.group_norm(x, 2, epsilon=1e-5)
    return [y, *grads(f, [y], [x])]


@case("pad3d_grad", "attr_retyped", "grad", pirc_run="expected")
def _pad3d_grad(f):
    x = f("x", [1, 2, 2, 3, 3], grad=True)
    y = F.pad(x, [1, 1, 0, 1, 1, 0], value=0.3)
    return [y, *grads(f, [y], [x])]


@case("bilinear_interp_grad", "attr_retyped", "grad",
      pirc_run="expected")
def _bilinear_interp_grad(f):
    x = f("x", [1, 2, 4, 4], grad=True)
    y = F.interpolate(x, scale_factor=[1.5, 1.7], mode="bilinear")
    return [y, *grads(f, [y], [x])]


@case("pool2d", "attr_retyped", "forward", paddle_migrates=True,
      pirc_run="expected", note="control: Paddle's patch 2 covers it")
def _pool2d(f):
    x = f("x", [1, 2, 6, 6])
    return [F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2, [1, 2], [1, 0])]


@case("pool2d_grad", "attr_retyped", "grad", pirc_run="expected")
def _pool2d_grad(f):
    x = f("x", [1, 2, 6, 6], grad=True)
    y = F.max_pool2d(x, 3, 2, 1)
    z = F.avg_pool2d(x, 2, [1, 2], [1, 0])
    return [y, z, *grads(f, [y, z], [x])]


@case("pool3d_grad", "attr_retyped", "grad", pirc_run="expected")
def _pool3d_grad(f):
    x = f("x", [1, 1, 4, 4, 4], grad=True)
    y = F.avg_pool3d(x, [2, 2, 2], [1, 2, 2], [0, 1, 1])
    return [y, *grads(f, [y], [x])]


@case("lp_pool2d_grad", "attr_retyped", "grad", pirc_run="expected")
def _lp_pool2d_grad(f):
    x = f("x", [1, 2, 6, 6], 0.1, 2.0, grad=True)
    y = F.lp_pool2d(x, 2, 2, 2)
    return [y, *grads(f, [y], [x])]


@case("expand_as_grad", "attr_retyped", "grad", pirc_run="expected")
def _expand_as_grad(f):
    x, t = f("x", [1, 5], grad=True), f("t", [2, 4, 5])
    y = paddle.expand_as(x, t)
    return [y, *grads(f, [y], [x])]


@case("kthvalue_grad", "attr_retyped", "grad", pirc_run="expected")
def _kthvalue_grad(f):
    x = f("x", [3, 5], grad=True)
    v, _ = paddle.kthvalue(x, 2, axis=1)
    return [v, *grads(f, [v], [x])]


def double_grads(f, fwd, x):
    """x_grad = d fwd(x)/dx against a fed dy0 (not stop_gradient), then the gradient of
    x_grad w.r.t. x and dy0 against a fed ddx: Paddle emits the op's double_grad."""
    y = fwd(x)
    dy = f("dy0", list(y.shape), grad=True)
    g, = paddle.static.gradients([y], [x], target_gradients=[dy])
    ddx = f("ddx", list(g.shape))
    gg = paddle.static.gradients([g], [x, dy], target_gradients=[ddx])
    return [y, g, *[v for v in gg if v is not None]]


@case("leaky_relu_double_grad", "attr_retyped", "grad", pirc_run="expected",
      note="double grad: the gradient of leaky_relu_grad w.r.t. its out_grad")
def _leaky_relu_double_grad(f):
    return double_grads(f, lambda x: F.leaky_relu(x, 0.02), f("x", [2, 5], grad=True))


@case("softplus_double_grad", "attr_retyped", "grad", pirc_run="expected",
      note="double grad")
def _softplus_double_grad(f):
    return double_grads(f, lambda x: F.softplus(x, 1.7, 15.0),
                        f("x", [2, 5], -12.0, 12.0, grad=True))


@case("pad3d_double_grad", "attr_retyped", "grad", pirc_run="expected",
      note="double grad")
def _pad3d_double_grad(f):
    return double_grads(f, lambda x: F.pad(x, [1, 1, 0, 1, 1, 0], value=0.3),
                        f("x", [1, 2, 2, 3, 3], grad=True))


@case("pool2d_double_grad", "attr_retyped", "grad", pirc_run="expected",
      note="double grad")
def _pool2d_double_grad(f):
    return double_grads(f, lambda x: F.avg_pool2d(x, 2, [1, 2], [1, 0]),
                        f("x", [1, 2, 6, 6], grad=True))


@case("repeat_interleave", "attr_added", "forward", paddle_migrates=True,
      pirc_run="expected", note="control: Paddle's patch 3 covers it")
def _repeat_interleave(f):
    x = f("x", [2, 3])
    return [paddle.repeat_interleave(x, 2, axis=1)]


@case("repeat_interleave_grad", "attr_added", "grad",
      pirc_run="expected")
def _repeat_interleave_grad(f):
    x = f("x", [2, 3], grad=True)
    y = paddle.repeat_interleave(x, 2, axis=1)
    return [y, *grads(f, [y], [x])]


@case("repeat_interleave_with_tensor_index_grad", "attr_added", "grad",
      pirc_run="expected")
def _riti_grad(f):
    x = f("x", [3, 2], grad=True)
    r = f("r", [3], value=np.array([1, 0, 2], "int64"))
    y = paddle.repeat_interleave(x, r, axis=0)
    # y's static shape is [-1, 2] and a fed dy must match it exactly: ones (full_like) instead
    return [y, *paddle.static.gradients([y], [x])]


@case("instance_norm_grad", "operand_inserted", "grad",
      pirc_run="expected")
def _instance_norm_grad(f):
    x = f("x", [2, 3, 4, 4], grad=True)
    layer = paddle.nn.InstanceNorm2D(3)
    y = layer(x)
    return [y, *grads(f, [y], [x, layer.scale, layer.bias])]


@case("nanmedian_grad", "operand_inserted", "grad",
      pirc_run="expected",
      note="a REQUIRED operand (out, nanmedian's result 0) is inserted at index 1: no null "
           "value will do; the migration has to wire the forward op's result in")
def _nanmedian_grad(f):
    v = arr("nanmedian_grad", "x", [3, 5])
    v[0, 1], v[2, 4] = np.nan, np.nan
    x = f("x", [3, 5], value=v, grad=True)
    y = paddle.nanmedian(x, axis=1)
    return [y, *grads(f, [y], [x])]


HAND = {
    "rms_norm_grad": dict(cls="op_renamed", variant="grad", base="rms_norm",
                          target="pd_op.fused_rms_norm_quant_grad",
                          pirc_run="no CPU kernel in Paddle 3.0.0: no outputs to compare",
                          runs_on_cpu=False,
                          note="no CPU kernel in 3.0.0 (op construction refuses it): the "
                               "3.0.0-built rms_norm program extended by hand"),
    "flash_attn_v3_varlen": dict(cls="attr_moved", variant="forward", release="3.2.2",
                                 runs_on_cpu=False,
                                 pirc_run="GPU-only op: no CPU kernel, no outputs",
                                 note="new in 3.1; max_seqlen_q/k move from Int32 attributes "
                                      "to Scalar operands at PIR 3 -> 4; no 3.0.0 op has "
                                      "such a move"),
    "flash_attn_v3_varlen_grad": dict(cls="attr_moved", variant="grad", release="3.2.2",
                                      runs_on_cpu=False,
                                      pirc_run="GPU-only op: no CPU kernel, no outputs",
                                      note="as flash_attn_v3_varlen"),
}
# Inplace variants that do not exist: no rms_norm_, repeat_interleave*_, instance_norm*_,
# nanmedian*_ or flash_attn*_ op is defined in any release (recorded in the manifest).


# --- op definitions -> expected upgraded op ----------------------------------------------------

def json_kind(t):
    """A Paddle C++ attribute type as the JSON kind Paddle writes for it."""
    simple = {"pir::FloatAttribute": "0.a_f32", "pir::DoubleAttribute": "0.a_f64",
              "pir::Int32Attribute": "0.a_i32", "pir::Int64Attribute": "0.a_i64",
              "pir::BoolAttribute": "0.a_bool", "pir::StrAttribute": "0.a_str",
              "paddle::dialect::IntArrayAttribute": "1.a_intarray",
              "paddle::dialect::DataTypeAttribute": "1.a_dtype",
              "paddle::dialect::PlaceAttribute": "1.a_place",
              "paddle::dialect::ScalarAttribute": "scalar"}
    if t in simple:
        return simple[t]
    if t.startswith("pir::ArrayAttribute<") and t.endswith(">"):
        return "0.a_array<" + json_kind(t[len("pir::ArrayAttribute<"):-1]) + ">"
    return t


def opdef_diff(old, new):
    """The breaking differences between two op definitions, in words."""
    out = []
    oa = {a["name"]: a["type"] for a in old["attributes"]}
    na = {a["name"]: a for a in new["attributes"]}
    for n, t in oa.items():
        if n not in na:
            moved = [i for i, x in enumerate(new["inputs"]) if x["name"] == n]
            out.append(f"attribute {n} ({t}) removed" + (
                f", now operand {moved[0]} ({new['inputs'][moved[0]]['type']})" if moved else ""))
        elif na[n]["type"] != t:
            out.append(f"attribute {n}: {t} -> {na[n]['type']}")
    for n, a in na.items():
        if n not in oa:
            d = f" = {a['default']}" if "default" in a else ""
            out.append(f"attribute {n} ({a['type']}{d}) added")
    oi = [x["name"] for x in old["inputs"]]
    ni = [x["name"] for x in new["inputs"]]
    if oi != ni:
        for i, x in enumerate(new["inputs"]):
            if x["name"] not in oi and x["name"] not in oa:
                out.append(f"operand {i} ({x['name']}, "
                           f"{'optional' if x['optional'] else 'required'}) inserted")
        for x in old["inputs"]:
            if x["name"] not in ni:
                out.append(f"operand {x['name']} removed")
    for i, (x, y) in enumerate(zip(old["outputs"], new["outputs"])):
        if x["name"] != y["name"] or x["optional"] != y["optional"]:
            out.append(f"result {i}: {x['name']} -> {y['name']}")
    return out


def expected_op(new):
    """What the upgraded op must look like (from the 3.3.1 definition)."""
    return {"attrs": {a["name"]: json_kind(a["type"]) for a in new["attributes"]},
            "operands": len(new["inputs"]),
            "optional_operands": [i for i, x in enumerate(new["inputs"]) if x["optional"]],
            "results": len(new["outputs"])}


def manifest_entry(name, info, source_release, defs_old, defs_new, built, extra=None):
    op = info.get("op", "pd_op." + name)
    target = info.get("target", op)
    old, new = defs_old[op], defs_new[target]
    e = {"case": name, "class": info["cls"], "variant": info["variant"], "op": op,
         "source_release": source_release, "source_version": RELEASE_VERSION[source_release],
         "built": built,
         "files": {"json": f"{name}.{source_release}.json",
                   "io": f"{name}.{source_release}.io.npz"},
         "changes": ([f"renamed to {target}"] if target != op else []) + opdef_diff(old, new),
         "paddle_migrates": bool(info.get("paddle_migrates", False)),
         "pirc_patch": info.get("pirc_patch", "shipped"),
         "pirc_run": info["pirc_run"],
         "runs_on_cpu": info.get("runs_on_cpu", True),
         "expect": {"op": target, **expected_op(new)}}
    moved = {}
    for i, x in enumerate(new["inputs"]):
        if x["name"] in {a["name"] for a in old["attributes"]} and x["name"] not in \
                {y["name"] for y in old["inputs"]}:
            moved[x["name"]] = i
    if moved:
        e["expect"]["moved_attrs"] = moved
    added = {a["name"]: a.get("default") for a in new["attributes"]
             if a["name"] not in {b["name"] for b in old["attributes"]}}
    if added:
        e["expect"]["added_attrs"] = added
    retyped = sorted(a["name"] for a in new["attributes"] for b in old["attributes"]
                     if a["name"] == b["name"] and a["type"] != b["type"])
    if retyped:
        e["expect"]["retyped_attrs"] = retyped
    inserted = [i for i, x in enumerate(new["inputs"])
                if x["name"] not in {y["name"] for y in old["inputs"]} and x["name"] not in moved]
    if inserted:
        e["expect"]["inserted_operands"] = {str(i): ("null" if new["inputs"][i]["optional"]
                                                     else "value")
                                            for i in inserted}
    if "note" in info:
        e["note"] = info["note"]
    if extra:
        e.update(extra)
    return e


# --- generation --------------------------------------------------------------------------------

def build(name):
    info = CASES[name]
    f = Feeds(name)
    fetches = info["fn"](f)
    return f.items, fetches, {"class": info["cls"], "variant": info["variant"]}


def compact_io(name, outdir):
    path = os.path.join(outdir, f"{name}.{VER}.io.npz")
    if not os.path.exists(path):
        return
    d = dict(np.load(path))
    keep = {k: v for k, v in d.items()
            if not (k.startswith("built_out__") and f"out__{k[11:]}" in d
                    and d[f"out__{k[11:]}"].tobytes() == v.tobytes()
                    and d[f"out__{k[11:]}"].dtype == v.dtype)}
    np.savez_compressed(path, **keep)


def child(args):
    setattr(gf, "m_" + args.one, lambda model: build(model))
    try:
        r = gf.gen_one_3x(args.one, args.outdir, VER)
        loaded = os.path.join(args.outdir, f"{args.one}.{VER}.loaded.pir.txt")
        if os.path.exists(loaded):
            os.remove(loaded)    # same as the .pir.txt apart from fetch ops; keep fixtures small
        compact_io(args.one, args.outdir)
        with open(os.path.join(args.outdir, f"{args.one}.{VER}.json")) as fh:
            doc = json.load(fh)
        r["ops_saved"] = [o["#"] for o in doc["program"]["regions"][0]["blocks"][0]["ops"]]
    except Exception as e:
        import traceback
        r = {"ok": False, "build_error": gf.err(e), "traceback": traceback.format_exc()[-3000:]}
    with open(args.result, "w") as fh:
        json.dump(r, fh)


def run_isolated(name, outdir):
    with tempfile.TemporaryDirectory() as td:
        res = os.path.join(td, "log.json")
        cp = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name,
                             "--outdir", outdir, "--result", res], capture_output=True, text=True)
        if os.path.exists(res):
            with open(res) as fh:
                return json.load(fh)
        return {"ok": False, "child_error": f"exit {cp.returncode}: {cp.stderr[-3000:]}"}


# --- hand-written programs ----------------------------------------------------------------------

def _ops(doc):
    return doc["program"]["regions"][0]["blocks"][0]["ops"]


def _attr(kind, value, name):
    return {"AT": {"#": kind, "D": value}, "N": name}


def _sg(*flags):
    return {"AT": {"#": "0.a_array", "D": [{"#": "0.a_bool", "D": f} for f in flags]},
            "N": "stop_gradient"}


def _dt(elem, dims):
    return {"#": "0.t_dtensor", "D": [{"#": elem}, dims, "NCHW", [], 0]}


def _data_op(vid, name, elem, dims, dtype):
    return {"#": "1.data", "A": [_attr("0.a_str", name, "name"),
                                 _attr("1.a_intarray", dims, "shape"),
                                 _attr("1.a_dtype", dtype, "dtype"),
                                 _attr("1.a_place", [0, 0, ""], "place")],
            "I": [], "O": [{"%": vid, "TT": _dt(elem, dims)}], "OA": [_sg(True)]}


def _fetch_op(vid_in, vid_out, name, col, tt):
    return {"#": "1.fetch", "A": [_attr("0.a_str", name, "name"), _attr("0.a_i32", col, "col")],
            "I": [{"%": vid_in}], "O": [{"%": vid_out, "TT": tt}],
            "OA": [{"AT": {"#": "0.a_array", "D": [{"#": "0.a_bool", "D": True}]},
                    "N": "persistable"}, _sg(False)]}


def hand_rms_norm_grad(outdir, log):
    """3.0.0's rms_norm program + rms_norm_grad (x, bias, residual, norm_weight, norm_bias,
    inv_var, out_grad), attributes epsilon, begin_norm_axis, quant_scale (opdefs-3.0.0.json
    order), results x_grad, norm_weight_grad, norm_bias_grad (absent: null type)."""
    src = os.path.join(outdir, f"rms_norm.{VER}.json")
    with open(src) as fh:
        doc = json.load(fh)
    ops = _ops(doc)
    # keep the first rms_norm (no bias/residual) and what it needs; drop the fetch ops
    rms = next(o for o in ops if o["#"] == "1.rms_norm")
    if len(rms["O"]) != 3 or rms["O"][2]["%"] == 0:
        raise RuntimeError("rms_norm's inv_var result is absent: cannot wire rms_norm_grad")
    keep_ids = {i["%"] for i in rms["I"] if i["%"]}
    body = [o for o in ops if o["#"] == "1.data" and o["O"][0]["%"] in keep_ids] + [rms]
    next_id = 1 + max(r["%"] for o in ops for r in (o["O"] if isinstance(o["O"], list)
                                                     else [o["O"]]))
    x_in, w_in = rms["I"][0], rms["I"][3]
    out_tt, inv_tt = rms["O"][0]["TT"], rms["O"][2]["TT"]
    x_tt = next(o for o in body if o["O"][0]["%"] == x_in["%"])["O"][0]["TT"]
    w_tt = next(o for o in body if o["O"][0]["%"] == w_in["%"])["O"][0]["TT"]
    dims = out_tt["D"][1]
    dy = next_id
    body.append(_data_op(dy, "dy0", "0.t_f32", dims, "float32"))
    attrs = {a["N"]: a for a in rms["A"]}
    xg, wg = dy + 1, dy + 2
    grad = {"#": "1.rms_norm_grad",
            "A": [attrs["epsilon"], attrs["begin_norm_axis"], attrs["quant_scale"]],
            "I": [x_in, {"%": 0}, {"%": 0}, w_in, {"%": 0}, {"%": rms["O"][2]["%"]}, {"%": dy}],
            "O": [{"%": xg, "TT": x_tt}, {"%": wg, "TT": w_tt}, {"%": wg + 1, "TT": {"#": "NULL"}}],
            "OA": [_sg(False, False, True)]}
    body.append(grad)
    fetch_id = wg + 2
    body.append(_fetch_op(rms["O"][0]["%"], fetch_id, "fetch_name_0", 0, out_tt))
    body.append(_fetch_op(xg, fetch_id + 1, "fetch_name_1", 1, x_tt))
    body.append(_fetch_op(wg, fetch_id + 2, "fetch_name_2", 2, w_tt))
    doc["program"]["regions"][0]["blocks"][0]["ops"] = renumber(body)
    del inv_tt
    return doc


def renumber(ops):
    """Value ids 1, 2, ... in op order, as Paddle's writer numbers them."""
    ids = {}
    for o in ops:
        for r in (o["O"] if isinstance(o["O"], list) else [o["O"]]):
            ids[r["%"]] = len(ids) + 1
    for o in ops:
        for r in (o["O"] if isinstance(o["O"], list) else [o["O"]]):
            r["%"] = ids[r["%"]]
        for i in o["I"]:
            if i["%"]:
                i["%"] = ids[i["%"]]
    return ops


def hand_flash_attn(name, release):
    """flash_attn_v3_varlen(_grad) as Paddle 3.2.2 writes a program: bf16 q/k/v data ops,
    int32 cu_seqlens data ops, the op with its attributes in opdefs-3.2.2.json order, and
    fetches.  Shapes: 12 tokens, 2 heads, head dim 64; two sequences (max length 8)."""
    defs = json.load(open(OPDEFS.format(release)))
    d = defs["pd_op." + name]
    vid = iter(range(1, 100))
    ops, ids = [], {}
    qkv = [12, 2, 64]
    for n in ("q", "k", "v"):
        ids[n] = next(vid)
        ops.append(_data_op(ids[n], n, "0.t_bf16", qkv, "bfloat16"))
    for n in ("cu_seqlens_q", "cu_seqlens_k"):
        ids[n] = next(vid)
        ops.append(_data_op(ids[n], n, "0.t_i32", [3], "int32"))
    values = {"max_seqlen_q": ("0.a_i32", 8), "max_seqlen_k": ("0.a_i32", 8),
              "softmax_scale": ("0.a_f32", 0.125), "causal": ("0.a_bool", True),
              "window_size_left": ("0.a_i32", -1), "window_size_right": ("0.a_i32", -1),
              "softcap": ("0.a_f32", 0.0), "num_splits": ("0.a_i32", 1),
              "manual_set_pack_gqa": ("0.a_bool", False), "pack_gqa": ("0.a_bool", False),
              "sm_margin": ("0.a_i32", 0)}
    for a in d["attributes"]:
        assert json_kind(a["type"]) == values[a["name"]][0], (a, values[a["name"]])
    attrs = [_attr(*values[a["name"]], a["name"]) for a in d["attributes"]]
    lse_tt = _dt("0.t_f32", [2, 12])                    # [num_heads, total_q]
    if name == "flash_attn_v3_varlen":
        ins = [{"%": ids[x["name"]]} if x["name"] in ids else {"%": 0} for x in d["inputs"]]
        out, lse = next(vid), next(vid)
        ops.append({"#": "1.flash_attn_v3_varlen", "A": attrs, "I": ins,
                    "O": [{"%": out, "TT": _dt("0.t_bf16", qkv)}, {"%": lse, "TT": lse_tt}],
                    "OA": [_sg(True, True)]})
        fetches = [(out, _dt("0.t_bf16", qkv)), (lse, lse_tt)]
    else:
        for n, elem, dims in (("out", "0.t_bf16", qkv), ("softmax_lse", "0.t_f32", [2, 12]),
                              ("out_grad", "0.t_bf16", qkv)):
            ids[n] = next(vid)
            ops.append(_data_op(ids[n], n, elem, dims, "float32" if elem == "0.t_f32"
                                else "bfloat16"))
        ins = [{"%": ids[x["name"]]} if x["name"] in ids else {"%": 0} for x in d["inputs"]]
        res = [next(vid) for _ in range(3)]
        ops.append({"#": "1.flash_attn_v3_varlen_grad", "A": attrs, "I": ins,
                    "O": [{"%": r, "TT": _dt("0.t_bf16", qkv)} for r in res],
                    "OA": [_sg(True, True, True)]})
        fetches = [(r, _dt("0.t_bf16", qkv)) for r in res]
    for col, (v, tt) in enumerate(fetches):
        ops.append(_fetch_op(v, next(vid), f"fetch_name_{col}", col, tt))
    return {"base_code": {"magic": "pir", "trainable": True,
                          "version": RELEASE_VERSION[release]},
            "program": {"regions": [{"#": "region_0", "blocks": [
                {"#": "block_0", "args": [], "ops": ops}]}]}}


def paddle_loads(path, python=None):
    """Load a hand-written JSON with load_inference_model (in this process's Paddle, or in
    `python`'s) and print it; returns the log entry."""
    code = ("import sys,paddle,shutil,tempfile,os\npaddle.enable_static()\n"
            "td=tempfile.mkdtemp();shutil.copy(sys.argv[1],os.path.join(td,'m.json'))\n"
            "exe=paddle.static.Executor(paddle.CPUPlace())\n"
            "p,f,t=paddle.static.load_inference_model(os.path.join(td,'m'),exe)\n"
            "print(paddle.__version__);print(str(p))\n")
    cp = subprocess.run([python or sys.executable, "-c", code, path], capture_output=True,
                        text=True)
    ok = cp.returncode == 0
    return {"loads_in": cp.stdout.splitlines()[0] if ok else None, "ok": ok,
            "printed": cp.stdout.split("\n", 1)[1] if ok else None,
            **({} if ok else {"load_error": cp.stderr.strip()[-1500:]})}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="e.g. tests/fixtures/migrations")
    ap.add_argument("--cases", nargs="*", help="subset of cases")
    ap.add_argument("--pd322", help="python of a Paddle 3.2.2 venv: check that the hand-written "
                                    "3.2.2 files load there")
    ap.add_argument("--manifest-only", action="store_true",
                    help="rewrite manifest.json only (no Paddle programs built)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return child(args)
    if not args.out:
        ap.error("--out is required")
    if VER != "3.0.0":
        ap.error(f"needs paddlepaddle 3.0.0, this is {VER}")
    out = args.out
    os.makedirs(out, exist_ok=True)
    if not args.manifest_only:
        generate(args, out)
    write_manifest(out)


def generate(args, out):
    gf.__file__ = os.path.abspath(__file__)
    logpath = os.path.join(out, f"gen_log.{VER}.json")
    log = {"paddle_version": VER, "commit": getattr(paddle.version, "commit", None),
           "numpy_version": np.__version__, "python": sys.version.split()[0],
           "date_utc": time.strftime("%Y-%m-%d", time.gmtime()), "cases": {}}
    if args.cases and os.path.exists(logpath):
        with open(logpath) as fh:
            log["cases"] = json.load(fh).get("cases", {})
    want = lambda n: not args.cases or n in args.cases  # noqa: E731
    for name in CASES:
        if want(name):
            log["cases"][name] = r = run_isolated(name, out)
            print(f"== {name}: ok={r.get('ok')} "
                  + json.dumps({k: v for k, v in r.items() if k.endswith("error")})[:400],
                  flush=True)
    # hand-written cases
    if want("rms_norm_grad"):
        doc = hand_rms_norm_grad(out, log)
        path = os.path.join(out, f"rms_norm_grad.{VER}.json")
        with open(path, "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))
        io = dict(np.load(os.path.join(out, f"rms_norm.{VER}.io.npz")))
        feeds = {o["A"][0]["AT"]["D"] for o in _ops(doc) if o["#"] == "1.data"}
        ins = {k: v for k, v in io.items() if k.startswith("in__") and k[4:] in feeds}
        ins["in__dy0"] = arr("rms_norm_grad", "dy0", [2, 3, 8])
        np.savez_compressed(os.path.join(out, f"rms_norm_grad.{VER}.io.npz"), **ins)
        r = paddle_loads(path)
        with open(os.path.join(out, f"rms_norm_grad.{VER}.pir.txt"), "w") as fh:
            fh.write(r.pop("printed") or "")
        r["hand_written"] = True
        log["cases"]["rms_norm_grad"] = r
        print("== rms_norm_grad (hand-written):", json.dumps(r)[:300], flush=True)
    for name in ("flash_attn_v3_varlen", "flash_attn_v3_varlen_grad"):
        if not want(name):
            continue
        rel = HAND[name]["release"]
        doc = hand_flash_attn(name, rel)
        path = os.path.join(out, f"{name}.{rel}.json")
        with open(path, "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))
        r = {"hand_written": True, "release": rel}
        if args.pd322:
            r.update(paddle_loads(path, args.pd322))
            with open(os.path.join(out, f"{name}.{rel}.pir.txt"), "w") as fh:
                fh.write(r.pop("printed") or "")
        log["cases"][name] = r
        print(f"== {name} (hand-written {rel}):", json.dumps(r)[:300], flush=True)
    with open(logpath, "w") as fh:
        json.dump(log, fh, indent=1)
        fh.write("\n")


def write_manifest(out):
    """manifest.json: every case, whichever were regenerated."""
    defs = {v: json.load(open(OPDEFS.format(v))) for v in ("3.0.0", "3.2.2", "3.3.1")}
    entries = []
    for name, info in CASES.items():
        entries.append(manifest_entry(name, info, "3.0.0", defs["3.0.0"], defs["3.3.1"],
                                      "paddle 3.0.0"))
    for name, info in HAND.items():
        rel = info.get("release", "3.0.0")
        e = manifest_entry(name, {**info, "op": "pd_op." + name}, rel, defs[rel],
                           defs["3.3.1"], "hand-written")
        if not os.path.exists(os.path.join(out, e["files"]["io"])):
            e["files"]["io"] = None
        entries.append(e)
    missing_inplace = sorted(
        f"pd_op.{n}_" for n in ("rms_norm", "rms_norm_grad", "repeat_interleave",
                                "repeat_interleave_grad", "instance_norm_grad",
                                "nanmedian_grad", "flash_attn_v3_varlen")
        if f"pd_op.{n}_" not in defs["3.0.0"] and f"pd_op.{n}_" not in defs["3.3.1"])
    manifest = {
        "what": "migration fixtures: one program per breaking op change between Paddle 3.0.0 "
                "(PIR 1) and 3.3.1 (PIR 4); made by tools/paddle_oracle/"
                "gen_migration_fixtures.py",
        "fields": {
            "class": "op_renamed | attr_retyped | attr_added | operand_inserted | attr_moved",
            "variant": "forward | grad | inplace",
            "changes": "op-definition differences source -> 3.3.1 (opdefs-*.json)",
            "paddle_migrates": "Paddle 3.3.1's own patches migrate it",
            "pirc_patch": "shipped: pirc's patches migrate it now; pending: tests are strict "
                          "xfails until the patch lands (then set it to shipped)",
            "pirc_run": "expected: pirc-run must reproduce the 3.0.0 outputs; else the reason "
                        "it cannot yet (strict xfail)",
            "expect": "the upgraded op: its 3.3.1 name, attribute JSON kinds, operand count, "
                      "operands that are optional, results; inserted_operands index -> "
                      "null | value; moved_attrs name -> operand index"},
        "inplace_variants_that_do_not_exist": missing_inplace,
        "cases": entries}
    with open(os.path.join(out, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
