"""Builders of the sequence-decoding ops: gather_tree, viterbi_decode, crf_decoding, ctc_align,
segment_pool, chunk_eval (padded [batch, time] inputs with per-sequence lengths, the form
that needs no LoD), and beam_search / beam_search_decode, whose CPU kernels need LoD or
tensor-array inputs that a static feed cannot carry."""
import numpy as np
import paddle

from . import Feeds, arr, op  # noqa: F401

C = paddle._C_ops


@op("gather_tree")
def _gather_tree(f):
    ids = f("ids", [4, 2, 3], "int64", 0, 9)
    par = f("par", [4, 2, 3], "int64", 0, 3)
    ids32 = f("ids32", [3, 1, 2], "int32", 0, 50)
    par32 = f("par32", [3, 1, 2], "int32", 0, 2)
    return [paddle.nn.functional.gather_tree(ids, par),
            paddle.nn.functional.gather_tree(ids32, par32)], {}


@op("viterbi_decode")
def _viterbi_decode(f):
    pot = f("pot", [3, 5, 4])
    trans = f("trans", [4, 4])
    lens = f("lens", [3], "int64", value=np.array([5, 2, 1], "int64"))
    pot64 = f("pot64", [2, 3, 3], "float64")
    trans64 = f("trans64", [3, 3], "float64")
    lens64 = f("lens64", [2], "int64", value=np.array([3, 3], "int64"))
    s1, p1 = paddle.text.viterbi_decode(pot, trans, lens, include_bos_eos_tag=True)
    s2, p2 = paddle.text.viterbi_decode(pot, trans, lens, include_bos_eos_tag=False)
    s3, p3 = paddle.text.viterbi_decode(pot64, trans64, lens64, include_bos_eos_tag=False)
    return [s1, p1, s2, p2, s3, p3], {}


@op("crf_decoding")
def _crf_decoding(f):
    em = f("em", [2, 4, 3])
    tr = f("tr", [5, 3])
    ln = f("ln", [2], "int64", value=np.array([4, 2], "int64"))
    lab = f("lab", [2, 4], "int64", 0, 3)
    return [C.crf_decoding(em, tr, None, ln), C.crf_decoding(em, tr, lab, ln)], {}


@op("ctc_align")
def _ctc_align(f):
    x = f("x", [2, 6], "int32", value=np.array([[0, 1, 1, 0, 2, 2], [3, 3, 0, 0, 1, 4]], "int32"))
    # input_length is read as the input's own integer type
    ln = f("ln", [2, 1], "int32", value=np.array([[6], [4]], "int32"))
    y = f("y", [2, 5], "int64", value=np.array([[1, 1, 2, 0, 2], [0, 0, 0, 4, 4]], "int64"))
    yl = f("yl", [2, 1], "int64", value=np.array([[5], [5]], "int64"))
    o1, l1 = C.ctc_align(x, ln, 0, True, 0)
    o2, l2 = C.ctc_align(x, ln, 0, False, -1)
    o3, l3 = C.ctc_align(y, yl, 4, True, 9)
    return [o1, l1, o2, l2, o3, l3], {}


@op("segment_pool")
def _segment_pool(f):
    x = f("x", [6, 3])
    seg = f("seg", [6], "int64", value=np.array([0, 0, 1, 3, 3, 3], "int64"))
    d = f("d", [4, 2], "float64")
    seg32 = f("seg32", [4], "int32", value=np.array([0, 1, 1, 1], "int32"))
    G = paddle.geometric
    return [G.segment_sum(x, seg), G.segment_mean(x, seg), G.segment_max(x, seg),
            G.segment_min(x, seg), G.segment_sum(d, seg32), G.segment_mean(d, seg32),
            G.segment_max(d, seg32)], {}


@op("chunk_eval")
def _chunk_eval(f):
    inf = f("inf", [2, 6], "int64", value=np.array([[0, 1, 4, 2, 3, 4], [1, 4, 0, 1, 1, 4]],
                                                   "int64"))
    lab = f("lab", [2, 6], "int64", value=np.array([[0, 1, 4, 2, 3, 3], [1, 4, 0, 0, 1, 4]],
                                                   "int64"))
    ln = f("ln", [2], "int64", value=np.array([6, 5], "int64"))
    r1 = C.chunk_eval(inf, lab, ln, 2, "IOB", [])
    r2 = C.chunk_eval(inf, lab, ln, 4, "plain", [])
    r3 = C.chunk_eval(inf, lab, ln, 2, "IOB", [1])
    # the two four- and two-tag schemes that end chunks by tag
    r4 = C.chunk_eval(inf, lab, ln, 1, "IOBES", [])
    r5 = C.chunk_eval(inf, lab, ln, 2, "IOE", [0])
    return [*r1, *r2, *r3, *r4, *r5], {}


@op("beam_search", expect="the CPU kernel reads the LoD of pre_ids / scores (two levels: "
                          "source sentences and their beams); a static feed carries none")
def _beam_search(f):
    pre_ids = f("pre_ids", [2, 1], "int64", value=np.array([[1], [2]], "int64"))
    pre_sc = f("pre_sc", [2, 1], value=np.array([[0.1], [0.2]], "float32"))
    ids = f("ids", [2, 3], "int64", 0, 9)
    sc = f("sc", [2, 3])
    return list(C.beam_search(pre_ids, pre_sc, ids, sc, 0, 2, 0, True))[:2], {}


@op("beam_search_decode", expect="ids and scores are tensor arrays of per-step LoD tensors "
                                 "(beam_search's outputs); a fed array carries no LoD")
def _beam_search_decode(f):
    ids = f("ids", [2, 1], "int64", value=np.array([[1], [2]], "int64"))
    sc = f("sc", [2, 1], value=np.array([[0.1], [0.2]], "float32"))
    ia = paddle.tensor.create_array("int64")
    sa = paddle.tensor.create_array("float32")
    i0 = paddle.zeros([1], "int64")
    paddle.tensor.array_write(ids, i0, ia)
    paddle.tensor.array_write(sc, i0, sa)
    return list(C.beam_search_decode(ia, sa, 2, 0)), {}
