"""Builders of Paddle's legacy ops: the fluid-era recurrent cells and sequence ops, lookup
tables, hashing, graph sampling, the mixture-of-experts routing helpers (number_count,
assign_pos, limit / prune by capacity), and small framework ops (nop, share_data, is_empty,
seed, set, variance, ...). Ops with no PIR Python builder go through the old-IR translator
(old_ir_op.py)."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import arr, boundary, int_boundary, op  # noqa: F401

C = paddle._C_ops

_LOD = ("needs a LoD input: the CPU kernel reads the input's sequence LoD, which a fed PIR "
        "DenseTensor never has (it segfaults, exit -11, or refuses the input)")


def _vals(o):
    return [v for v in (o if isinstance(o, (list, tuple)) else [o])
            if isinstance(v, paddle.pir.Value)]


# -- recurrent cells -------------------------------------------------------------------------

@op("gru_unit")
def _gru_unit(f):
    x, h = f("x", [3, 6]), f("h", [3, 2])
    w, b = f("w", [2, 6]), f("b", [1, 6])
    xd, hd = f("xd", [2, 9], "float64"), f("hd", [2, 3], "float64")
    wd = f("wd", [3, 9], "float64")
    outs = []
    # activation ids: 0 identity, 1 sigmoid, 2 tanh, 3 relu
    for args in ((x, h, w, b, 2, 1, False), (x, h, w, None, 2, 1, True),
                 (x, h, w, b, 3, 1, False), (x, h, w, b, 0, 2, False),
                 (xd, hd, wd, None, 2, 1, False)):
        outs += _vals(C.gru_unit(*args))
    return outs, {}


@op("lstm", expect=_LOD)
def _lstm(f):
    x, w, b = f("x", [5, 8]), f("w", [2, 8]), f("b", [1, 8])
    return _vals(C.lstm(x, None, None, w, b, False, False, True, "sigmoid", "tanh", "tanh"))[:2], {}


@op("gru", expect=_LOD)
def _gru(f):
    x, w, b = f("x", [5, 6]), f("w", [2, 6]), f("b", [1, 6])
    return [C.gru(x, None, w, b, "tanh", "sigmoid", False, False, True)[-1]], {}


@op("cudnn_lstm", expect="GPU-only: the CPU kernel raises 'CPU is not support for cudnn_lstm now'")
def _cudnn_lstm(f):
    x, h, c = f("x", [3, 2, 4]), f("h", [1, 2, 5]), f("c", [1, 2, 5])
    ws = [f("wih", [20, 4]), f("whh", [20, 5]), f("bih", [20]), f("bhh", [20])]
    return _vals(C.cudnn_lstm(x, h, c, None, ws, None, 0.0, False, 5, 1, True, 0))[:3], {}


@op("attention_lstm", expect=_LOD)
def _attention_lstm(f):
    x, c0 = f("x", [5, 3]), f("c0", [1, 2])
    aw = f("aw", [5, 1])
    lw, lb = f("lw", [5, 8]), f("lb", [1, 8])
    o = C.attention_lstm(x, c0, None, aw, None, None, None, lw, lb, "sigmoid", "tanh", "tanh")
    return _vals(o)[:2], {}


# -- lookup tables, sequences, hashing ---------------------------------------------------------

# No Python API builds pd_op.lookup_table (_C_ops has none, and the old-IR translator turns
# the fluid op into squeeze + embedding): the builder saves pd_op.embedding as a stand-in and
# _as_lookup_table rewrites it in the saved JSON into the lookup_table op an old model
# carries; Paddle then loads and runs that program (gen_op_fixtures.rewrite).
_LOOKUP_TABLE_ATTRS = [("is_sparse", "0.a_bool", False), ("is_distributed", "0.a_bool", False),
                       ("remote_prefetch", "0.a_bool", False), ("entry_config", "0.a_str", ""),
                       ("is_test", "0.a_bool", True), ("entry", "0.a_str", "none"),
                       ("table_class", "0.a_str", "none"), ("table_names", "0.a_array", []),
                       ("trainer_id", "0.a_i32", 0), ("slot", "0.a_i32", 0),
                       ("grad_inplace", "0.a_bool", False), ("epmap", "0.a_array", []),
                       ("height_sections", "0.a_array", [])]


def _as_lookup_table(doc):
    """each pd_op.embedding(ids [n, 1], w) becomes pd_op.lookup_table(w, ids) -> [n, d]"""
    for o in doc["program"]["regions"][0]["blocks"][0]["ops"]:
        if o["#"] != "1.embedding":
            continue
        pad = next(a for a in o["A"] if a["N"] == "padding_idx")
        o["#"] = "1.lookup_table"
        o["I"] = [o["I"][1], o["I"][0]]
        o["A"] = [pad] + [{"AT": {"#": t, "D": d}, "N": n} for n, t, d in _LOOKUP_TABLE_ATTRS]
        dims = o["O"][0]["TT"]["D"][1]
        o["O"][0]["TT"]["D"][1] = dims[:-2] + dims[-1:]  # [n, 1, d] -> [n, d]


@op("lookup_table", rewrite="_as_lookup_table")
def _lookup_table(f):
    w = f("w", [6, 3], value=boundary()[:18].reshape(6, 3).astype("float32"))
    ids = f("ids", [4, 1], "int64", value=np.array([[0], [5], [2], [5]], "int64"))
    # the stand-in's [4, 1, 3] result is reshaped to [4, 3], which lookup_table gives itself
    return [paddle.reshape(C.embedding(ids, w, pad, False), [4, 3]) for pad in (-1, 5)], {}


@op("lookup_table_dequant")
def _lookup_table_dequant(f):
    # each row: min, max, then the row's uint8 codes packed four to a float
    codes = arr(f.model, "codes", [5, 8], "int32", lo=0, hi=256).astype(np.uint8)
    packed = codes.view(np.float32)
    mn = arr(f.model, "mn", [5, 1]) - 1.0
    mx = mn + np.abs(arr(f.model, "mx", [5, 1])) + 0.5
    w = f("w", [5, 4], value=np.concatenate([mn, mx, packed], 1).astype("float32"))
    ids = f("ids", [3, 1], "int64", value=np.array([[4], [0], [2]], "int64"))
    return [C.lookup_table_dequant(w, ids, -1), C.lookup_table_dequant(w, ids, 0)], {}


@op("row_conv")
def _row_conv(f):
    x, w = f("x", [2, 5, 3]), f("w", [3, 3])
    return results(old_ir_op("row_conv", {"X": [x], "Filter": [w]}, {"Out": 1})), {}


@op("im2sequence")
def _im2sequence(f):
    # the result holds LoD (one sequence per image), which a numpy fetch refuses; a reshape's
    # 1-D result carries none (the second attempt, reexamine_unbuildable.py, fetched the LoD)
    x = f("x", [2, 2, 4, 5])
    outs = [C.im2sequence(x, None, [2, 2], [1, 1], [0, 0, 0, 0], [1, 1]),
            C.im2sequence(x, None, [3, 2], [2, 1], [1, 0, 1, 1], [1, 1])]
    return [paddle.reshape(o, [-1]) for o in outs], {}


@op("hash")
def _hash(f):
    x = f("x", [4, 2], "int32", lo=-50, hi=50)
    y = f("y", [3, 1], "int64", value=np.array([[0], [-1], [2 ** 40]], "int64"))
    # paddle._C_ops.hash (static_api_hash) crashes building the op: the old-IR route
    outs = []
    for v, nh, mod in ((x, 1, 100000), (x, 3, 17), (y, 2, 1000)):
        outs += results(old_ir_op("hash", {"X": [v]}, {"Out": 1},
                                  {"num_hash": nh, "mod_by": mod}))
    return outs, {}


@op("pyramid_hash", expect=_LOD)
def _pyramid_hash(f):
    x = f("x", [4, 1], "int32", lo=0, hi=20)
    w = f("w", [16 + 4, 1])
    wl, bl = f("wl", [0, 1]), f("bl", [0, 1])
    return _vals(C.pyramid_hash(x, w, wl, bl, 4, 16, 2, 4, 0.0, 0, False, 0, 0, 0, 0.0, ""))[:1], {}


@op("match_matrix_tensor", expect=_LOD)
def _match_matrix_tensor(f):
    x, y, w = f("x", [3, 2]), f("y", [4, 2]), f("w", [2, 2, 2])
    return results(old_ir_op("match_matrix_tensor", {"X": [x], "Y": [y], "W": [w]},
                             {"Out": 1, "Tmp": 1}, {"dim_t": 2}), 0), {}


@op("lod_reset", expect="a LoD-only op: without a LoD input the kernel fails ('The current MetaTensor is not initialized')")
def _lod_reset(f):
    x = f("x", [4, 3])
    return results(old_ir_op("lod_reset", {"X": [x]}, {"Out": 1},
                             {"target_lod": [0, 1, 4], "append": False})), {}


@op("nce", random=True)
def _nce(f):
    x = f("x", [4, 3])
    lbl = f("label", [4, 1], "int64", lo=0, hi=6)
    w, b = f("w", [6, 3]), f("b", [6, 1])
    o = old_ir_op("nce", {"Input": [x], "Label": [lbl], "Weight": [w], "Bias": [b]},
                  {"Cost": 1, "SampleLogits": 1, "SampleLabels": 1},
                  {"num_total_classes": 6, "num_neg_samples": 3, "sampler": 0, "seed": 1,
                   "is_test": True})
    return results(o, 0), {}


@op("nce__custom_neg")
def _nce_custom_neg(f):
    # fixed noise classes: nothing is drawn, so the cost is deterministic
    x = f("x", [4, 3])
    lbl = f("label", [4, 2], "int64", value=np.array([[1, 3], [0, 4], [5, 2], [3, 3]], "int64"))
    w, b = f("w", [6, 3]), f("b", [6, 1])
    outs = []
    for sampler, bias in ((0, [b]), (1, [])):
        o = old_ir_op("nce", {"Input": [x], "Label": [lbl], "Weight": [w], "Bias": bias},
                      {"Cost": 1, "SampleLogits": 1, "SampleLabels": 1},
                      {"num_total_classes": 6, "num_neg_samples": 3, "sampler": sampler,
                       "seed": 1, "is_test": True, "custom_neg_classes": [0, 2, 5]})
        outs += results(o, 0)
    return outs, {}


@op("cvm")
def _cvm(f):
    x = f("x", [3, 5], value=np.abs(arr(f.model, "x", [3, 5])) * 3)
    c = f("cvm", [3, 2])
    d = f("d", [2, 4], "float64", value=np.abs(arr(f.model, "d", [2, 4], "float64")))
    cd = f("cd", [2, 2], "float64")
    return [C.cvm(x, c, True), C.cvm(x, c, False), C.cvm(d, cd, True)], {}


# -- framework ops -----------------------------------------------------------------------------

@op("is_empty")
def _is_empty(f):
    return [C.is_empty(f("x", [2, 3])), C.is_empty(f("e", [0, 3])),
            C.is_empty(f("s", [], value=np.array(1.0, "float32")))], {}


@op("nop", expect="the CPU kernel writes nothing: a use of its result fails ('Tensor holds no memory')")
def _nop(f):
    x = f("x", [2, 3])
    return [paddle.scale(C.nop(x), 2.0)], {}


@op("share_data")
def _share_data(f):
    x, i = f("x", [2, 3]), f("i", [4], "int64", lo=-9, hi=9)
    return [C.share_data(x), C.share_data(i)], {}


@op("depend", expect="the CPU kernel checks that x and out are one variable, which the PIR executor never makes them ('Input(X) and Output(Out) variable should be the same')")
def _depend(f):
    x, y = f("x", [2, 3]), f("y", [3])
    return [C.depend(x, [y])], {}


# pd_op.assert has no result: saving without pruning keeps it (pruning to the fetches drops it)
@op("assert", save_kwargs={"skip_prune_program": True})
def _assert(f):
    x = f("x", [2, 3])
    cond = paddle.all(paddle.isfinite(x))
    old_ir_op("assert", {"Cond": [cond], "Data": [x]}, {}, {"summarize": 3})
    return [paddle.scale(x, 2.0)], {}


@op("seed", expect="the translated op carries rng_name \"\", which the kernel looks up and never finds ('RandomSeedGenerator is not found')")
def _seed(f):
    x = f("x", [2])
    outs = []
    for seed in (7, 123):
        outs += results(old_ir_op("seed", {}, {"Out": 1},
                                  {"seed": seed, "deterministic": True, "force_cpu": True}))
    return outs + [paddle.scale(x, 1.0)], {}


@op("set")
def _set(f):
    x, s = f("x", [4, 3]), f("src", [2, 3])
    s1 = f("s1", [6])
    # the offset counts bytes
    return [C.set(x, s, [], [], 0), C.set(x, s1, [2, 2], [3, 1], 4),
            C.set(x, s1, [3, 2], [1, 3], 0)], {}


@op("random", random=True)
def _random(f):
    x = f("x", [200], "int64", lo=0, hi=2)
    return [C.random(x, 0, 10), C.random(f("y", [100]), -5, 5)], {}


@op("range_v2")
def _range_v2(f):
    return [C.range_v2(0, 10, 3, paddle.int64, paddle.CPUPlace()),
            C.range_v2(1.5, -2.0, -0.5, paddle.float32, paddle.CPUPlace()),
            C.range_v2(0.0, 1.0, 0.1, paddle.float64, paddle.CPUPlace())], {}


@op("variance")
def _variance(f):
    x = f("x", [3, 4, 5])
    b = f("b", [21], value=boundary())
    d = f("d", [4, 6], "float64")
    return [C.variance(x, [], False), C.variance(x, [1], False), C.variance(x, [0, 2], True),
            C.variance(x, [-1], False), C.variance(b, [0], False), C.variance(d, [1], True)], {}


@op("legacy_reshape")
def _legacy_reshape(f):
    x = f("x", [2, 3, 4])
    return results(old_ir_op("reshape", {"X": [x]}, {"Out": 1}, {"shape": [4, -1]})) + \
        results(old_ir_op("reshape", {"X": [x]}, {"Out": 1}, {"shape": [0, 12]})), {}


# -- tree / graph sampling ---------------------------------------------------------------------

def _tree(child_nums=2):
    # node id, item id, layer, parent, then the children (0 = none): a full binary tree of
    # seven nodes (ids 1..7) whose four leaves carry items
    rows = [[0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 2, 3], [2, 0, 1, 1, 4, 5], [3, 0, 1, 1, 6, 7],
            [4, 10, 2, 2, 0, 0], [5, 11, 2, 2, 0, 0], [6, 12, 2, 3, 0, 0], [7, 13, 2, 3, 0, 0]]
    return np.array(rows, "int32")


@op("tdm_child")
def _tdm_child(f):
    x = f("x", [2, 3], "int32", value=np.array([[1, 2, 3], [4, 0, 7]], "int32"))
    t = f("tree", [8, 6], "int32", value=_tree())
    return list(C.tdm_child(x, t, 2, paddle.int32)) + \
        list(C.tdm_child(x, t, 2, paddle.int64)), {}


@op("tdm_sampler", random=True)
def _tdm_sampler(f):
    x = f("x", [3, 1], "int64", value=np.array([[0], [1], [3]], "int64"))
    travel = f("travel", [4, 2], "int64", value=np.array([[1, 2], [1, 3], [2, 4], [2, 6]]))
    layer = f("layer", [6, 1], "int64", value=np.array([[1], [2], [3], [4], [5], [6]]))
    return _vals(C.tdm_sampler(x, travel, layer, True, [1, 2], [0, 2, 6], 0, 3)), {}


def _csc(f):
    # a small graph in CSC form: node j's in-neighbours are row[colptr[j]:colptr[j + 1]]
    row = f("row", [8], "int64", value=np.array([1, 2, 0, 3, 0, 1, 2, 4], "int64"))
    colptr = f("colptr", [6], "int64", value=np.array([0, 2, 4, 5, 7, 8], "int64"))
    return row, colptr


@op("graph_sample_neighbors")
def _graph_sample_neighbors(f):
    row, colptr = _csc(f)
    x = f("x", [3], "int64", value=np.array([0, 3, 4], "int64"))
    eids = f("eids", [8], "int64", value=np.arange(10, 18).astype("int64"))
    return _vals(C.graph_sample_neighbors(row, colptr, x, eids, None, 5, True, False)), {}


@op("weighted_sample_neighbors")
def _weighted_sample_neighbors(f):
    row, colptr = _csc(f)
    w = f("w", [8], value=np.abs(arr(f.model, "w", [8])) + 0.1)
    x = f("x", [3], "int64", value=np.array([0, 3, 4], "int64"))
    eids = f("eids", [8], "int64", value=np.arange(10, 18).astype("int64"))
    return _vals(C.weighted_sample_neighbors(row, colptr, w, x, eids, 5, True)), {}


@op("graph_khop_sampler")
def _graph_khop_sampler(f):
    row, colptr = _csc(f)
    x = f("x", [2], "int64", value=np.array([0, 3], "int64"))
    return _vals(C.graph_khop_sampler(row, colptr, x, None, [5, 5], False))[:4], {}


@op("reindex_graph")
def _reindex_graph(f):
    x = f("x", [3], "int64", value=np.array([5, 9, 2], "int64"))
    nb = f("nb", [6], "int64", value=np.array([9, 7, 5, 1, 7, 2], "int64"))
    cnt = f("count", [3], "int32", value=np.array([2, 3, 1], "int32"))
    return list(C.reindex_graph(x, nb, cnt, None, None)), {}


# -- mixture-of-experts routing ----------------------------------------------------------------

@op("number_count", expect="GPU-only: the CPU kernel raises 'Do not support expert count op for cpu kernel now'")
def _number_count(f):
    n = f("n", [3, 4], "int64", value=np.array([[0, 2, 2, -1], [5, 1, 0, 2], [7, 3, 3, 3]]))
    return [C.number_count(n, 6), C.number_count(n, 1)], {}


@op("assign_pos", expect="GPU-only: the CPU kernel raises 'Do not support assign pos op for cpu kernel now'")
def _assign_pos(f):
    x = f("x", [6], "int64", value=np.array([2, 0, 1, 2, -1, 0], "int64"))
    cum = f("cum", [3], "int64", value=np.array([2, 3, 5], "int64"))
    eff = f("eff", [1], "int64", value=np.array([5], "int64"))
    return [C.assign_pos(x, cum, eff)], {}


@op("limit_by_capacity", expect="GPU-only: the CPU kernel raises 'limit_by_capacity is not supported on CPU'")
def _limit_by_capacity(f):
    ec = f("ec", [6], "int64", value=np.array([3, 0, 5, 1, 2, 7], "int64"))
    cap = f("cap", [3], "int64", value=np.array([4, 2, 6], "int64"))
    return [C.limit_by_capacity(ec, cap, 2)], {}


@op("prune_gate_by_capacity", expect="GPU-only: the CPU kernel raises 'prune_gate_by_capacity is not supported on CPU'")
def _prune_gate_by_capacity(f):
    g = f("g", [8], "int64", value=np.array([0, 1, 1, 2, 0, 1, 3, 2], "int64"))
    ec = f("ec", [4], "int64", value=np.array([1, 2, 0, 1], "int64"))
    return [C.prune_gate_by_capacity(g, ec, 4, 1)], {}


@op("random_routing", expect="GPU-only: the CPU kernel raises 'Do not support expert count op for cpu kernel now (random_routing_kernel.cc)'")
def _random_routing(f):
    prob = f("prob", [4], value=np.array([0.1, 0.9, 0.5, 0.0], "float32"))
    tv = f("tv", [4, 2], value=np.abs(arr(f.model, "tv", [4, 2])))
    ti = f("ti", [4, 2], "int64", lo=0, hi=4)
    return results(old_ir_op("random_routing", {"Prob": [prob], "TopK_Value": [tv],
                                                "TopK_Idx": [ti]}, {"Out": 1})), {}
