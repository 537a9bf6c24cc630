"""Builders of the less common optimizer update ops (asgd, rprop, nadam, radam, lars,
merged/fused multi-tensor updates, ...): one update step on fed parameters, gradients and
state, every output fetched. Ops with no PIR Python builder (decayed_adagrad, dpsgd, ftrl,
sparse_momentum, fused_adam) go through the old-IR translator (old_ir_op.py)."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import arr, op
from .optimizer import _pos, _state

C = paddle._C_ops


def values(*outs):
    """Every created output, lists of lists flattened (an optional output not created comes
    back as a bool or None)."""
    flat = []
    for o in outs:
        if isinstance(o, (list, tuple)):
            flat += values(*o)
        elif isinstance(o, paddle.pir.Value):
            flat.append(o)
    return flat


def _st(f, tag, dtype="float32", shape=(2, 6)):
    """param, grad and lr [1] under feed names of their own (suffix `tag`)."""
    return f("param" + tag, list(shape), dtype), f("grad" + tag, list(shape), dtype), \
        _one(f, "lr" + tag, 0.1, dtype)


# Paddle's CPU nadam / radam get only element 0 of a many-element parameter right (the rest
# is garbage or NaN: an Eigen expression there mixes the [1] state with the [n] tensors
# without a broadcast and reads past the [1] buffer), so their fixtures use [1] parameters
_ONE = (1,)


def _one(f, name, v, dtype="float32"):
    return f(name, [1], dtype, value=np.array([v], dtype))


@op("asgd_")
def _asgd(f):
    outs = []
    # only a float32 kernel: float64 operands fail ("data type float32 ... float64")
    for dt in ("float32",):
        for n in (1.0, 4.0):
            p, g, lr = _st(f, str(n), dt)
            d, y = f(f"d{n}", [2, 6], dt), f(f"y{n}", [2, 6], dt)
            a = C.asgd_(p, g, lr, d, y, _one(f, f"n{n}", n, dt), None, False)
            outs += values(a)
    return outs, {}


@op("rprop_")
def _rprop(f):
    outs = []
    for dt in ("float32", "float64"):
        p, g = f("p" + dt, [3, 4], dt), f("g" + dt, [3, 4], dt)
        prev = f("prev" + dt, [3, 4], dt, value=np.where(
            arr(f.model, "sgn" + dt, [3, 4], lo=0, hi=3) == 0, 0.0,
            arr(f.model, "prev" + dt, [3, 4], dt)).astype(dt))
        lr = _pos(f, "lr" + dt, [3, 4], dt, lo=0.001)
        rng = f("range" + dt, [2], dt, value=np.array([1e-4, 0.5], dt))
        etas = f("etas" + dt, [2], dt, value=np.array([0.5, 1.2], dt))
        outs += values(C.rprop_(p, g, prev, lr, None, rng, etas, False))
    return outs, {}


@op("nadam_")
def _nadam(f):
    outs = []
    for dt, b1, b2, eps, md in (("float32", 0.9, 0.999, 1e-8, 0.004),
                                ("float32", 0.8, 0.99, 1e-6, 0.01)):
        tag = str(b1)
        p, g, lr = _st(f, tag, dt, _ONE)
        mdp = _one(f, "mdp" + tag, 0.96 ** 3, dt)
        b2p = _one(f, "b2p" + tag, b2 ** 3, dt)
        mu = _one(f, "mu" + tag, 0.85, dt)
        m1, m2 = f("m1" + tag, [1], dt), _pos(f, "m2" + tag, [1], dt, lo=0.0)
        outs += values(C.nadam_(p, g, lr, mdp, b2p, mu, m1, m2, None, b1, b2, eps, md, False))
    return outs, {}


@op("radam_")
def _radam(f):
    outs = []
    # rho_t > 5 (rectified step) at a late step, <= 5 (plain momentum step) at an early one
    for tag, dt, step in (("late", "float32", 10), ("early", "float32", 2),
                          ("later", "float32", 20)):
        p, g, lr = _st(f, tag, dt, _ONE)
        b1p = _one(f, "b1p" + tag, 0.9 ** step, dt)
        b2p = _one(f, "b2p" + tag, 0.999 ** step, dt)
        rho = _one(f, "rho" + tag, 0.0, dt)
        m1, m2 = f("m1" + tag, [1], dt), _pos(f, "m2" + tag, [1], dt, lo=0.0)
        outs += values(C.radam_(p, g, lr, b1p, b2p, rho, m1, m2, None, 0.9, 0.999, 1e-8, False))
    return outs, {}


@op("lars_momentum_")
def _lars(f):
    ps = [f("p0", [2, 6]), f("p1", [3])]
    gs = [f("g0", [2, 6]), f("g1", [3])]
    vs = [f("v0", [2, 6]), f("v1", [3])]
    lrs = [_one(f, "lr0", 0.1), _one(f, "lr1", 0.05)]
    a = C.lars_momentum_(ps, gs, vs, lrs, None, 0.9, 0.001, [0.0005, 0.0], 0.0, False, 1.0)
    zp, zg, zv = f("zp", [4], value=np.zeros(4, "float32")), f("zg", [4]), f("zv", [4])
    b = C.lars_momentum_([zp], [zg], [zv], [lrs[0]], None, 0.8, 0.01, [0.1], 1e-6, False, 2.0)
    return values(a, b), {}


@op("merged_momentum_", expect="the CPU kernel checks that each param and param_out are one "
                               "tensor object, which the PIR executor never makes them (fed "
                               "values and persistable parameters alike)")
def _merged_momentum(f):
    ps = [f("p0", [2, 6]), f("p1", [3])]
    gs = [f("g0", [2, 6]), f("g1", [3])]
    vs = [f("v0", [2, 6]), f("v1", [3])]
    lr = [_one(f, "lr0", 0.1)]
    a = C.merged_momentum_(ps, gs, vs, lr, None, 0.9, False, ["l2_decay", ""], [0.05, 0.0],
                           False, 1.0)
    return values(a), {}


def _multi_adam_state(f, tag=""):
    ps = [f("p0" + tag, [2, 6]), f("p1" + tag, [3])]
    gs = [f("g0" + tag, [2, 6]), f("g1" + tag, [3])]
    m1 = [f("m10" + tag, [2, 6]), f("m11" + tag, [3])]
    m2 = [_pos(f, "m20" + tag, [2, 6], lo=0.0), _pos(f, "m21" + tag, [3], lo=0.0)]
    b1p = [_one(f, "b1p0" + tag, 0.9 ** 3), _one(f, "b1p1" + tag, 0.9 ** 5)]
    b2p = [_one(f, "b2p0" + tag, 0.999 ** 3), _one(f, "b2p1" + tag, 0.999 ** 5)]
    return ps, gs, m1, m2, b1p, b2p


@op("merged_adam_", expect="no faithful build: paddle._C_ops.merged_adam_ types its vector results "
                           "0-d (vec[tensor<f32>, ...]) and the fetched results come back 0-d; "
                           "the old-IR translator knows no pd_op.merged_adam ('should have "
                           "corresponding OpInfo')")
def _merged_adam(f):
    ps, gs, m1, m2, b1p, b2p = _multi_adam_state(f)
    lrs = [_one(f, "lr0", 0.01), _one(f, "lr1", 0.02)]
    o = old_ir_op("merged_adam", {"Param": ps, "Grad": gs, "LearningRate": lrs, "Moment1": m1,
                                  "Moment2": m2, "Beta1Pow": b1p, "Beta2Pow": b2p},
                  {"ParamOut": 2, "Moment1Out": 2, "Moment2Out": 2, "Beta1PowOut": 2,
                   "Beta2PowOut": 2},
                  {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False,
                   "use_global_beta_pow": False}, assign=True)
    return o, {}


@op("average_accumulates_")
def _average_accumulates(f):
    outs = []
    # (num_accumulates, old_num_accumulates, num_updates): a plain step, a step that moves
    # sum_1 into sum_2 (num_updates % 16384 == 0) and one that closes the window
    for i, (na, ona, nu, win, mx, mn) in enumerate(((3, 2, 7, 0.5, 100, 2),
                                                    (5, 1, 16383, 0.1, 1000, 10),
                                                    (9, 4, 19, 0.5, 10, 2))):
        p = f(f"param{i}", [2, 3])
        s1, s2, s3 = f(f"s1{i}", [2, 3]), f(f"s2{i}", [2, 3]), f(f"s3{i}", [2, 3])
        ins = [f(f"{k}{i}", [1], "int64", value=np.array([v], "int64"))
               for k, v in (("na", na), ("ona", ona), ("nu", nu))]
        outs += values(C.average_accumulates_(p, s1, s2, s3, *ins, win, mx, mn))
    return outs, {}


@op("decayed_adagrad")
def _decayed_adagrad(f):
    outs = []
    for dt, decay, eps in (("float32", 0.95, 1e-6), ("float32", 0.5, 1e-3)):
        p, g = f(f"p{decay}", [2, 6]), f(f"g{decay}", [2, 6])
        lr = _one(f, f"lr{decay}", 0.1)
        m = _pos(f, f"moment{decay}", [2, 6], dt, lo=0.0)
        o = old_ir_op("decayed_adagrad", {"Param": [p], "Grad": [g], "Moment": [m],
                                          "LearningRate": [lr]},
                      {"ParamOut": 1, "MomentOut": 1}, {"decay": decay, "epsilon": eps})
        outs += results(o)
    return outs, {}


@op("ftrl")
def _ftrl(f):
    outs = []
    for dt, l1, l2, lrp in (("float32", 0.0, 0.0, -0.5), ("float32", 0.1, 0.2, -0.5),
                            ("float32", 0.05, 0.1, -0.3)):
        tag = f"{dt}{l1}{lrp}"
        p, g = f("p" + tag, [2, 6], dt), f("g" + tag, [2, 6], dt)
        lr = _one(f, "lr" + tag, 0.1, dt)
        sq = _pos(f, "sq" + tag, [2, 6], dt, lo=0.1)
        lin = f("lin" + tag, [2, 6], dt)
        o = old_ir_op("ftrl", {"Param": [p], "SquaredAccumulator": [sq],
                               "LinearAccumulator": [lin], "Grad": [g], "LearningRate": [lr]},
                      {"ParamOut": 1, "SquaredAccumOut": 1, "LinearAccumOut": 1},
                      {"l1": l1, "l2": l2, "lr_power": lrp})
        outs += results(o)
    return outs, {}


@op("dpsgd", random=True)
def _dpsgd(f):
    p, g, lr = _state(f, n=64)
    o = old_ir_op("dpsgd", {"Param": [p], "Grad": [g], "LearningRate": [lr]},
                  {"ParamOut": 1}, {"clip": 10.0, "batch_size": 16.0, "sigma": 1.0, "seed": 1})
    return results(o), {}


@op("sparse_momentum")
def _sparse_momentum(f):
    p, g = f("param", [4, 3]), f("grad", [2, 3])
    v = f("velocity", [4, 3])
    idx = f("index", [2], "int32", value=np.array([3, 1], "int32"))
    lr = _one(f, "lr", 0.1)
    o = old_ir_op("sparse_momentum", {"Param": [p], "Grad": [g], "Velocity": [v],
                                      "Index": [idx], "LearningRate": [lr]},
                  {"ParamOut": 1, "VelocityOut": 1},
                  {"mu": 0.9, "use_nesterov": False, "axis": 0,
                   "regularization_method": "", "regularization_coeff": 0.0})
    return results(o, 0, 1), {}


@op("fused_adam_")
def _fused_adam(f):
    lr = _one(f, "lr", 0.01)
    outs = []
    # each call updates its own state (the op writes its inputs in place)
    for tag, wd, adamw in (("", 0.0, False), ("_w", 0.01, True)):
        ps, gs, m1, m2, b1p, b2p = _multi_adam_state(f, tag)
        outs += old_ir_op("fused_adam", {"Params": ps, "Grads": gs, "LearningRate": [lr],
                                         "Moments1": m1, "Moments2": m2, "Beta1Pows": b1p,
                                         "Beta2Pows": b2p},
                          {"ParamsOut": 2, "Moments1Out": 2, "Moments2Out": 2,
                           "Beta1PowsOut": 2, "Beta2PowsOut": 2},
                          {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "chunk_size": 16,
                           "weight_decay": wd, "use_adamw": adamw, "multi_precision": False,
                           "use_global_beta_pow": False}, assign=True)
    return outs, {}
