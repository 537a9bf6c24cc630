#!/usr/bin/env python3
"""A second attempt at every op docs/COVERAGE.md records "not buildable on CPU".

The first attempt is the op's fixture builder (tests/fixtures/ops/VER/gen_log.VER[.FAMILY].json)
or the survey's generic `paddle._C_ops.NAME` call (results/op_survey.VER.json). This one goes
through what a user writes: the public API or layer that emits the op (paddle.geometric,
paddle.vision.ops, paddle.nn.functional, paddle.incubate, paddle.sparse, paddle.distributed,
paddle.nn.quant), LoD inputs fed as a LoDTensor (`paddle.static.data` + a feed whose
recursive sequence lengths are set) where the kernel reads a LoD, and every output fetched
with `return_numpy=False` (a LoD output is then fetched, not refused). Ops with no public
API, or that are plainly GPU / XPU / distributed only, are still tried: their generated
`paddle._C_ops.NAME` (or the old-IR translator, as the fixture builders use it) in a static
program on the CPU place, with operands shaped from the op definition, and the exception
kept as the evidence.

    /tmp/pd331/bin/python tools/paddle_oracle/reexamine_unbuildable.py
    /tmp/pd300/bin/python tools/paddle_oracle/reexamine_unbuildable.py [--ops pd_op.X ...]

Every op of results/unbuildable_ops.json (the records docs/COVERAGE.md held as not buildable
at any PIR version before this second attempt; tests/unit/test_coverage_doc.py fails when one
that the release defines has no result here) that the release defines is tried, by its OPS
entry or its family's template (FAMILIES), in its own child process, forked from a parent that
imported Paddle once (a crash kills the child only: its exit code and the last line Paddle
logged are the evidence; a child past TIMEOUT seconds is killed). Per op the results record
the API tried, whether the program built, whether the op is in it, whether the CPU executor
ran it, the fetched outputs (shape, dtype, LoD), and the exception of the failing step.
Writes tools/paddle_oracle/results/reexamine_unbuildable.VER.json (sorted, deterministic
apart from the date).
"""
import argparse
import json
import multiprocessing as mp
import os
import re
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results")
TIMEOUT = 90

# --- the attempts, as data ----------------------------------------------------------------------
# An attempt is (api, snippet): `api` says what a user would call; `snippet` is Python run in
# a static program on the CPU place with these names bound (see Harness.namespace):
#   d(name, shape, dtype, lo=, hi=, value=)   a dense feed;  lod(name, shape, lens, ...)  a feed
#   with one LoD level (sequence lengths `lens`; a list of lists for two levels);
#   generic(fn=None)   `fn` (default paddle._C_ops.OP) on operands shaped from the op definition
#   (float32 [2, 3] tensors; attributes at their defaults);  old(type, ins, outs, attrs)  the
#   fluid op through the old-IR translator (op_builders' old_ir_op), its results;
#   C = paddle._C_ops, F = paddle.nn.functional, I = paddle.incubate.nn.functional,
#   V = paddle.vision.ops, G = paddle.geometric, S = paddle.sparse, Q = paddle.nn.quant.
# The snippet sets `out` (a value or a list of values to fetch).
#
# FAMILIES hold one template for many ops ({op}: the short name, {fn}: the public function's
# name, derived by the family's `fn` rule); OPS hold the ops that need their own snippet.

# paddle.static has no CSR constructor (Tensor.to_sparse_csr is eager-only; dense_to_csr_sp
# segfaults in PIR InferMeta), so a CSR attempt is a `#jit` snippet: `fn` is converted by
# paddle.jit.to_static(full_graph=True) and called on `args` (eager CSR tensors), as a user
# converts a dynamic-graph model that takes a CSR input.
CSR = "#jit\nx = d('x', [3, 4], value=SPARSE_34).to_sparse_csr()\nargs = [x]\n"
COO = "x = coo()\n"

FAMILIES = {
    "csr unary": dict(
        api="paddle.sparse.{fn} (else paddle.sparse.nn.functional.{fn}, else "
            "paddle._C_ops.sparse_{fn}) on a CSR input, under paddle.jit.to_static",
        snippet=CSR + "def fn(x):\n    return CSR_FN('{fn}')(x, *CSR_ARGS.get('{fn}', ())).to_dense()",
        fn=lambda s: s[:-len("_csr_sp")]),
    "csr binary": dict(
        api="paddle.sparse.{fn}(x, y) on CSR inputs, under paddle.jit.to_static",
        snippet=CSR + "args.append(d('y', [3, 4], value=SPARSE_34).to_sparse_csr())\n"
                      "def fn(x, y):\n    return S.{fn}(x, y).to_dense()",
        fn=lambda s: s.split("_csr")[0]),
    "csr matmul": dict(
        api="paddle.sparse.{fn} with a CSR input, under paddle.jit.to_static",
        snippet=CSR + "def fn(x):\n    return CSR_MATMUL['{op}'](x)",
        fn=lambda s: s.split("_")[0]),
    "coo": dict(
        api="paddle.sparse.{fn} on a COO tensor (paddle.sparse.sparse_coo_tensor)",
        snippet=COO + "out = COO_CALL['{op}'](x)",
        fn=lambda s: re.split(r"_coo|_sp", s)[0]),
    "selected rows": dict(
        api="paddle.{fn} (else paddle._C_ops.{fn}) on a SelectedRows value: the sparse "
            "gradient of paddle.nn.Embedding(sparse=True) in a static training program",
        snippet="emb = paddle.nn.Embedding(6, 3, sparse=True)\n"
                "ids = d('ids', [4, 1], 'int64', lo=0, hi=6)\n"
                "loss = paddle.mean(emb(ids))\n"
                "grads = paddle.static.append_backward(loss)\n"
                "g = [gv for _, gv in grads][0]\n"
                "out = SR_CALL['{op}'](g)",
        fn=lambda s: re.sub(r"_sr_?$", "", s)),
    "xpu": dict(
        api="paddle._C_ops.{op} in a static program on the CPU place (made on XPU by the "
            "XPU fusion passes; no public API)",
        snippet="out = generic()", fn=lambda s: s),
    "distributed": dict(
        api="paddle._C_ops.{op} in a static program on the CPU place, no process group "
            "(made by paddle.distributed / fleet collective and parameter-server programs)",
        snippet="out = generic()", fn=lambda s: s),
    "distributed api": dict(
        api="paddle.distributed.{fn} in a static program on the CPU place, no process group",
        snippet="x = d('x', [2, 3])\nout = DIST_CALL['{op}'](x)", fn=lambda s: s.rstrip("_")),
    "incubate": dict(
        api="paddle.incubate.nn.functional.{fn} on float32 operands on the CPU place (its "
            "tensor arguments; else paddle._C_ops.{op} with the definition's attributes)",
        snippet="try:\n    out = generic(getattr(I, '{fn}'))\n"
                "except TypeError as e:\n"
                "    if 'required positional' not in str(e):\n        raise\n"
                "    out = generic()  # the API wants more than tensors: the op's own builder",
        fn=lambda s: s.rstrip("_")),
    "generic": dict(
        api="paddle._C_ops.{op} in a static program on the CPU place (no public API)",
        snippet="out = generic()", fn=lambda s: s),
}

LOD_NOTE = " with a LoD feed (lod_level=1 data, recursive sequence lengths set)"

OPS = {
    # -- LoD / sequence ops: the public paddle.static.nn.sequence_* layers refuse PIR mode
    # ("sequence layer is not supported in pir mode"), so the op's generated builder is used
    "sequence_pool": ("paddle._C_ops.sequence_pool (paddle.static.nn.sequence_pool's op)" + LOD_NOTE,
                      "x = lod('x', [5, 3], [2, 3])\n"
                      "out = [C.sequence_pool(x, True, 'AVERAGE', 0.0), C.sequence_pool(x, True, 'MAX', 0.0)]"),
    "sequence_softmax": ("paddle._C_ops.sequence_softmax" + LOD_NOTE,
                         "out = C.sequence_softmax(lod('x', [5, 1], [2, 3]))"),
    "sequence_conv": ("paddle._C_ops.sequence_conv (paddle.static.nn.sequence_conv's op)" + LOD_NOTE,
                      "out = C.sequence_conv(lod('x', [5, 2], [2, 3]), None, d('w', [6, 3]), 3, False, -1, 1)"),
    "sequence_expand": ("paddle._C_ops.sequence_expand" + LOD_NOTE + " on y",
                        "out = C.sequence_expand(d('x', [2, 2]), lod('y', [5, 2], [2, 3]), -1)"),
    "lod_reset": ("fluid lod_reset through the old-IR translator" + LOD_NOTE,
                  "out = old('lod_reset', {'X': [lod('x', [4, 3], [1, 3])]}, {'Out': 1}, "
                  "{'target_lod': [0, 2, 4], 'append': False})"),
    "lod_reset_": ("fluid lod_reset (output = input) through the old-IR translator" + LOD_NOTE,
                   "x = paddle.scale(lod('x', [4, 3], [1, 3]), 1.0)\n"
                   "out = old('lod_reset', {'X': [x]}, {'Out': 1}, {'target_lod': [0, 2, 4], "
                   "'append': False}, inplace={'Out': 'X'})"),
    "gru": ("paddle._C_ops.gru (the fluid dynamic_gru's op)" + LOD_NOTE,
            "out = C.gru(lod('x', [5, 6], [2, 3]), None, d('w', [2, 6]), d('b', [1, 6]), "
            "'tanh', 'sigmoid', False, False, True)[-1]"),
    "lstm": ("paddle._C_ops.lstm (the fluid dynamic_lstm's op)" + LOD_NOTE,
             "out = list(C.lstm(lod('x', [5, 8], [2, 3]), None, None, d('w', [2, 8]), d('b', [1, 8]), "
             "False, False, True, 'sigmoid', 'tanh', 'tanh'))[:2]"),
    "attention_lstm": ("paddle._C_ops.attention_lstm" + LOD_NOTE,
                       "out = list(C.attention_lstm(lod('x', [5, 3], [2, 3]), d('c0', [2, 2]), None, "
                       "d('aw', [5, 1]), None, None, None, d('lw', [5, 8]), d('lb', [1, 8]), "
                       "'sigmoid', 'tanh', 'tanh'))[:2]"),
    "fusion_gru": ("paddle._C_ops.fusion_gru (made from gru by the CPU fuse passes)" + LOD_NOTE,
                   "out = C.fusion_gru(lod('x', [5, 3], [2, 3]), None, d('wx', [3, 6]), d('wh', [2, 6]), "
                   "d('b', [1, 6]), 'tanh', 'sigmoid', False, False, False, False)[-1]"),
    "fusion_lstm": ("fluid fusion_lstm through the old-IR translator" + LOD_NOTE,
                    "o = old('fusion_lstm', {'X': [lod('x', [5, 3], [2, 3])], 'WeightX': [d('wx', [3, 8])], "
                    "'WeightH': [d('wh', [2, 8])], 'Bias': [d('b', [1, 8])]}, {'Hidden': 1, 'Cell': 1, "
                    "'XX': 1, 'BatchedInput': 1, 'BatchedHidden': 1, 'BatchedCell': 1, 'ReorderedH0': 1, "
                    "'ReorderedC0': 1, 'CheckedCell': 1}, {'use_peepholes': False, 'is_reverse': False, "
                    "'use_seq': True})\nout = o[:2]"),
    "fused_embedding_fc_lstm": ("fluid fused_embedding_fc_lstm through the old-IR translator" + LOD_NOTE,
                                "o = old('fused_embedding_fc_lstm', {'Ids': [lod('ids', [5, 1], [2, 3], 'int64', lo=0, hi=6)], "
                                "'Embeddings': [d('emb', [6, 8])], 'WeightH': [d('wh', [2, 8])], 'Bias': [d('b', [1, 8])]}, "
                                "{'Hidden': 1, 'Cell': 1, 'XX': 1, 'BatchedInput': 1, 'BatchedHidden': 1, "
                                "'BatchedCell': 1, 'ReorderedH0': 1, 'ReorderedC0': 1}, "
                                "{'use_peepholes': False, 'use_seq': True})\nout = o[:2]"),
    "fusion_seqconv_eltadd_relu": ("paddle._C_ops.fusion_seqconv_eltadd_relu" + LOD_NOTE,
                                   "out = C.fusion_seqconv_eltadd_relu(lod('x', [5, 3], [2, 3]), d('w', [9, 4]), "
                                   "d('b', [1, 4]), 3, -1, 1)[0]"),
    "fusion_seqpool_concat": ("paddle._C_ops.fusion_seqpool_concat" + LOD_NOTE,
                              "out = C.fusion_seqpool_concat([lod('x0', [4, 3], [1, 3]), lod('x1', [4, 3], [2, 2])], "
                              "'SUM', 1)"),
    "fusion_seqpool_cvm_concat": ("fluid fusion_seqpool_cvm_concat through the old-IR translator" + LOD_NOTE,
                                  "out = old('fusion_seqpool_cvm_concat', {'X': [lod('x0', [4, 3], [1, 3]), "
                                  "lod('x1', [4, 3], [2, 2])], 'CVM': [d('cvm', [2, 2])]}, {'Out': 1}, "
                                  "{'pooltype': 'SUM', 'use_cvm': True, 'axis': 1})"),
    "fused_seqpool_cvm": ("fluid fused_seqpool_cvm through the old-IR translator" + LOD_NOTE,
                          "out = old('fused_seqpool_cvm', {'X': [lod('x0', [4, 3], [1, 3]), lod('x1', [4, 3], [2, 2])], "
                          "'CVM': [d('cvm', [2, 2])]}, {'Out': 2}, {'pooltype': 'SUM', 'use_cvm': True, "
                          "'cvm_offset': 2}, assign=True)"),
    "match_matrix_tensor": ("fluid match_matrix_tensor through the old-IR translator" + LOD_NOTE + " on x and y",
                            "out = old('match_matrix_tensor', {'X': [lod('x', [3, 2], [1, 2])], "
                            "'Y': [lod('y', [4, 2], [3, 1])], 'W': [d('w', [2, 2, 2])]}, "
                            "{'Out': 1, 'Tmp': 1}, {'dim_t': 2})[:1]"),
    "pyramid_hash": ("paddle._C_ops.pyramid_hash" + LOD_NOTE,
                     "out = list(C.pyramid_hash(lod('x', [4, 1], [2, 2], 'int32', lo=0, hi=20), "
                     "d('w', [20, 1]), d('wl', [0, 1]), d('bl', [0, 1]), 4, 16, 2, 4, 0.0, 0, False, 0, 0, "
                     "0, 0.0, ''))[:1]"),
    "box_clip": ("paddle._C_ops.box_clip (the detection API's op)" + LOD_NOTE + " on the boxes (one sequence per image)",
                 "b = lod('b', [6, 4], [3, 3], value=RNG.random([6, 4]).astype('float32') * 20)\n"
                 "im = d('im', [2, 3], value=np.array([[10, 12, 1.0], [20, 16, 2.0]], 'float32'))\n"
                 "out = C.box_clip(b, im)"),
    "im2sequence": ("paddle._C_ops.im2sequence (OCR's image-to-sequence op), fetched with return_numpy=False",
                    "x = d('x', [2, 2, 4, 5])\n"
                    "out = [C.im2sequence(x, None, [2, 2], [1, 1], [0, 0, 0, 0], [1, 1]), "
                    "C.im2sequence(x, None, [3, 2], [2, 1], [1, 0, 1, 1], [1, 1])]"),
    "beam_search": ("paddle._C_ops.beam_search with two-level LoD feeds (sentences, beams)",
                    "pre_ids = lod('pre_ids', [2, 1], [[1, 1], [1, 1]], 'int64', value=np.array([[1], [2]], 'int64'))\n"
                    "pre_sc = lod('pre_sc', [2, 1], [[1, 1], [1, 1]], value=np.array([[0.1], [0.2]], 'float32'))\n"
                    "ids = lod('ids', [2, 3], [[1, 1], [1, 1]], 'int64', lo=0, hi=9)\n"
                    "sc = lod('sc', [2, 3], [[1, 1], [1, 1]])\n"
                    "out = list(C.beam_search(pre_ids, pre_sc, ids, sc, 0, 2, 0, True))[:2]"),
    "beam_search_decode": ("paddle._C_ops.beam_search_decode on tensor arrays written from LoD feeds",
                           "ids = lod('ids', [2, 1], [[1, 1], [1, 1]], 'int64', value=np.array([[1], [2]], 'int64'))\n"
                           "sc = lod('sc', [2, 1], [[1, 1], [1, 1]], value=np.array([[0.1], [0.2]], 'float32'))\n"
                           "ia, sa = paddle.tensor.create_array('int64'), paddle.tensor.create_array('float32')\n"
                           "i0 = paddle.zeros([1], 'int64')\n"
                           "paddle.tensor.array_write(ids, i0, ia); paddle.tensor.array_write(sc, i0, sa)\n"
                           "out = list(C.beam_search_decode(ia, sa, 2, 0))"),
    "distribute_fpn_proposals": ("paddle.vision.ops.distribute_fpn_proposals, fetched with return_numpy=False",
                                 "r = np.sort(RNG.random([6, 4]).astype('float32') * 150, axis=1)[:, [0, 2, 1, 3]]\n"
                                 "r = np.concatenate([np.minimum(r[:, :2], r[:, 2:]), np.maximum(r[:, :2], r[:, 2:])], 1)\n"
                                 "multi, restore, nums = V.distribute_fpn_proposals(d('rois', [6, 4], value=r), 2, 5, 4, 224, "
                                 "rois_num=d('num', [2], 'int32', value=np.array([4, 2], 'int32')))\n"
                                 "out = list(multi) + [restore] + list(nums)"),
    # -- public APIs that emit the op
    "send_u_recv": ("paddle.geometric.send_u_recv (graph message passing)",
                    "out = G.send_u_recv(d('x', [4, 3]), d('s', [5], 'int32', lo=0, hi=4), "
                    "d('t', [5], 'int32', lo=0, hi=4), 'sum')"),
    "send_ue_recv": ("paddle.geometric.send_ue_recv",
                     "out = G.send_ue_recv(d('x', [4, 3]), d('e', [5, 3]), d('s', [5], 'int32', lo=0, hi=4), "
                     "d('t', [5], 'int32', lo=0, hi=4), 'add', 'sum')"),
    "send_uv": ("paddle.geometric.send_uv",
                "out = G.send_uv(d('x', [4, 3]), d('y', [4, 3]), d('s', [5], 'int32', lo=0, hi=4), "
                "d('t', [5], 'int32', lo=0, hi=4), 'mul')"),
    "hsigmoid_loss": ("paddle.nn.functional.hsigmoid_loss (paddle.nn.HSigmoidLoss's op)",
                      "out = F.hsigmoid_loss(d('x', [4, 3]), d('l', [4, 1], 'int64', lo=0, hi=6), 6, "
                      "d('w', [5, 3]), d('b', [5, 1]))"),
    "yolo_loss": ("paddle.vision.ops.yolo_loss (YOLOv3's training loss)",
                  "out = V.yolo_loss(d('x', [1, 14, 4, 4]), d('gb', [1, 3, 4], value=RNG.random([1, 3, 4]).astype('float32') * 0.5), "
                  "d('gl', [1, 3], 'int32', lo=0, hi=2), anchors=[10, 13, 16, 30], anchor_mask=[0, 1], "
                  "class_num=2, ignore_thresh=0.7, downsample_ratio=32)"),
    "lrn": ("paddle.nn.LocalResponseNorm, then the fluid lrn op through the old-IR translator",
            "x = d('x', [2, 6, 4, 4])\nref = paddle.nn.LocalResponseNorm(3)(x)\n"
            "out = [old('lrn', {'X': [x]}, {'Out': 1, 'MidOut': 1}, {'n': 3, 'k': 1.0, 'alpha': 1e-4, "
            "'beta': 0.75})[0]]"),
    "soft_relu": ("fluid soft_relu through the old-IR translator",
                  "out = old('soft_relu', {'X': [d('x', [2, 3])]}, {'Out': 1}, {'threshold': 40.0})"),
    "legacy_matmul": ("fluid matmul (v1) through the old-IR translator",
                      "out = old('matmul', {'X': [d('x', [2, 3])], 'Y': [d('y', [3, 4])]}, {'Out': 1}, "
                      "{'alpha': 2.0})"),
    "ones": ("paddle.ones (emits pd_op.full), then paddle._C_ops.ones", "paddle.ones([2, 3])\nout = C.ones([2, 3], paddle.float32, paddle.CPUPlace())"),
    "zeros": ("paddle.zeros (emits pd_op.full), then paddle._C_ops.zeros", "paddle.zeros([2, 3])\nout = C.zeros([2, 3], paddle.float32, paddle.CPUPlace())"),
    "ones_like": ("paddle.ones_like (emits pd_op.full_like), then paddle._C_ops.ones_like",
                  "x = d('x', [2, 3])\npaddle.ones_like(x)\nout = C.ones_like(x, paddle.float32, paddle.CPUPlace())"),
    "zeros_like": ("paddle.zeros_like (emits pd_op.full_like), then paddle._C_ops.zeros_like",
                   "x = d('x', [2, 3])\npaddle.zeros_like(x)\nout = C.zeros_like(x, paddle.float32, paddle.CPUPlace())"),
    "as_strided": ("paddle.as_strided", "out = paddle.as_strided(d('x', [2, 3]), [3, 2], [1, 3])"),
    "view_dtype": ("paddle.view (Tensor.view with a dtype)", "out = paddle.view(d('x', [2, 4]), 'int32')"),
    "index_select_strided": ("paddle._C_ops.index_select_strided (Tensor indexing in stride mode)",
                             "out = C.index_select_strided(d('x', [3, 4]), 1, 0)"),
    "top_p_sampling": ("paddle.tensor.top_p_sampling",
                       "out = list(paddle.tensor.top_p_sampling(F.softmax(d('x', [2, 6])), "
                       "d('ps', [2, 1], value=np.full([2, 1], 0.8, 'float32')), seed=1))"),
    "weight_only_linear": ("paddle.nn.quant.weight_only_linear on weight_quantize's int8 weight (float32 input)",
                           "w, s = Q.weight_quantize(d('w', [64, 32]), algo='weight_only_int8')\n"
                           "out = Q.weight_only_linear(d('x', [2, 64]), w, weight_scale=s, weight_dtype='int8')"),
    "weight_dequantize": ("paddle.nn.quant.weight_dequantize on weight_quantize's int8 weight",
                          "w, s = Q.weight_quantize(d('w', [64, 32]), algo='weight_only_int8')\n"
                          "out = Q.weight_dequantize(w, s, algo='weight_only_int8', out_dtype='float32')"),
    "llm_int8_linear": ("paddle.nn.quant.llm_int8_linear on weight_quantize's int8 weight",
                        "w, s = Q.weight_quantize(d('w', [64, 32]), algo='llm.int8')\n"
                        "out = Q.llm_int8_linear(d('x', [2, 64]), w, weight_scale=s, threshold=6.0)"),
    "apply_per_channel_scale": ("paddle.nn.quant.apply_per_channel_scale (float32)",
                                "out = Q.apply_per_channel_scale(d('x', [2, 4]), d('s', [4]))"),
    "sync_batch_norm_": ("paddle.nn.SyncBatchNorm in a static program on the CPU place",
                         "out = paddle.nn.SyncBatchNorm(3)(d('x', [2, 3, 4, 4]))"),
    "margin_cross_entropy": ("paddle.nn.functional.margin_cross_entropy",
                             "out = F.margin_cross_entropy(F.normalize(d('x', [4, 5])), d('l', [4], 'int64', lo=0, hi=5))"),
    "fused_softmax_mask_upper_triangle": ("paddle.incubate.softmax_mask_fuse_upper_triangle",
                                          "out = paddle.incubate.softmax_mask_fuse_upper_triangle(d('x', [1, 2, 4, 4]))"),
    "fused_feedforward": ("paddle.incubate.nn.functional.fused_feedforward",
                          "out = I.fused_feedforward(d('x', [2, 3, 4]), d('w1', [4, 8]), d('w2', [8, 4]), "
                          "dropout1_rate=0.0, dropout2_rate=0.0)"),
    "fused_attention": ("paddle.incubate.nn.functional.fused_multi_head_attention",
                        "out = I.fused_multi_head_attention(d('x', [2, 3, 8]), d('qkv', [3, 2, 4, 8]), "
                        "d('lw', [8, 8]), dropout_rate=0.0, attn_dropout_rate=0.0)"),
    "fused_gemm_epilogue": ("paddle.incubate.nn.functional.fused_linear",
                            "out = I.fused_linear(d('x', [2, 3]), d('w', [3, 4]), d('b', [4]))"),
    "gemm_epilogue": ("paddle.incubate.nn.functional.fused_linear_activation",
                      "out = I.fused_linear_activation(d('x', [2, 3]), d('w', [3, 4]), d('b', [4]), activation='relu')"),
    "fused_dropout_add": ("paddle.incubate.nn.functional.fused_dropout_add",
                          "out = I.fused_dropout_add(d('x', [2, 3]), d('y', [2, 3]), p=0.0)"),
    "fused_bias_dropout_residual_layer_norm": ("paddle.incubate.nn.functional.fused_bias_dropout_residual_layer_norm",
                                               "out = I.fused_bias_dropout_residual_layer_norm(d('x', [2, 3, 4]), "
                                               "d('r', [2, 3, 4]), dropout_rate=0.0)"),
    "fused_rotary_position_embedding": ("paddle.incubate.nn.functional.fused_rotary_position_embedding",
                                        "out = I.fused_rotary_position_embedding(d('q', [1, 4, 2, 8]))[0]"),
    "fused_bias_act": ("paddle.incubate.nn.functional.fused_bias_act",
                       "out = I.fused_bias_act(d('x', [2, 8]), d('b', [8]), act_method='gelu')"),
    "flash_attn": ("paddle.nn.functional.flash_attention.flash_attention",
                   "from paddle.nn.functional.flash_attention import flash_attention\n"
                   "q = d('q', [1, 4, 2, 8])\nout = flash_attention(q, q, q)[0]"),
    "flash_attn_qkvpacked": ("paddle.nn.functional.flash_attention.flash_attn_qkvpacked",
                             "from paddle.nn.functional.flash_attention import flash_attn_qkvpacked\n"
                             "out = flash_attn_qkvpacked(d('qkv', [1, 4, 3, 2, 8]))[0]"),
    "flashmask_attention": ("paddle.nn.functional.flashmask_attention",
                            "q = d('q', [1, 4, 2, 8])\n"
                            "out = F.flashmask_attention(q, q, q, d('m', [1, 1, 4, 1], 'int32', lo=2, hi=4), causal=True)"),
    "memory_efficient_attention": ("paddle.incubate.nn.memory_efficient_attention.memory_efficient_attention",
                                   "from paddle.incubate.nn.memory_efficient_attention import memory_efficient_attention\n"
                                   "q = d('q', [1, 4, 2, 8])\nout = memory_efficient_attention(q, q, q, training=False)"),
    "fused_dot_product_attention": ("paddle.incubate.nn.functional.fused_dot_product_attention",
                                    "q = d('q', [1, 4, 2, 8])\nout = I.fused_dot_product_attention(q, q, q)"),
    "variable_length_memory_efficient_attention": (
        "paddle.incubate.nn.functional.variable_length_memory_efficient_attention",
        "q = d('q', [1, 2, 4, 8])\nlens = d('lens', [1, 1], 'int32', value=np.array([[4]], 'int32'))\n"
        "out = I.variable_length_memory_efficient_attention(q, q, q, lens, lens)"),
    "int_bincount": ("paddle.incubate.nn.functional.int_bincount",
                     "out = I.int_bincount(d('x', [6], 'int64', lo=0, hi=4), 0, 4, 'int64')"),
    "copy_to": ("Tensor.to / paddle._C_ops.copy_to to the CPU place",
                "out = C.copy_to(d('x', [2, 3]), paddle.CPUPlace(), True)"),
    "decode_jpeg": ("paddle.vision.ops.decode_jpeg on a uint8 byte tensor",
                    "out = V.decode_jpeg(d('x', [16], 'uint8', lo=0, hi=255))"),
    "read_file": ("paddle.vision.ops.read_file on a path that does not exist",
                  "out = V.read_file('/nonexistent.jpg')"),
    "seed": ("paddle._C_ops.seed (dropout's seed op) in a static program",
             "out = C.seed(1, False, '', False)"),
    "nop": ("paddle._C_ops.nop on a computed value", "x = d('x', [2, 3])\nout = paddle.scale(C.nop(x), 1.0)"),
    "depend": ("paddle._C_ops.depend (the scheduler's ordering op) on computed values",
               "x, y = d('x', [2, 3]), d('y', [2, 3])\nout = C.depend(paddle.scale(x, 2.0), [y])"),
    "share_var": ("paddle._C_ops.share_var", "x = d('x', [2, 3])\nout = C.share_var([x, paddle.scale(x, 1.0)])"),
    "write_to_array": ("paddle.tensor.array_write (in PIR it emits pd_op.array_write_)",
                       "a = paddle.tensor.create_array('float32')\n"
                       "paddle.tensor.array_write(d('x', [2, 3]), paddle.zeros([1], 'int64'), a)\n"
                       "out = paddle.tensor.array_read(a, paddle.zeros([1], 'int64'))"),
    "lod_array_length": ("paddle.tensor.array_length (in PIR it emits pd_op.array_length)",
                         "a = paddle.tensor.create_array('float32')\n"
                         "paddle.tensor.array_write(d('x', [2, 3]), paddle.zeros([1], 'int64'), a)\n"
                         "out = paddle.tensor.array_length(a)"),
    # paddle.static.nn.cond emits pd_op.if under PIR; an old model's conditional blocks
    # carry the fluid select_input / select_output, which the translator keeps
    "select_input": ("fluid select_input (an old-IR conditional block's merge) through the old-IR translator",
                     "m = d('m', [1], 'int32', value=np.array([1], 'int32'))\n"
                     "out = old('select_input', {'X': [d('a', [2, 3]), d('b', [2, 3])], 'Mask': [m]}, {'Out': 1})"),
    "select_output": ("fluid select_output (an old-IR conditional block's split) through the old-IR translator",
                      "m = d('m', [1], 'int32', value=np.array([1], 'int32'))\n"
                      "out = old('select_output', {'X': [d('a', [2, 3])], 'Mask': [m]}, {'Out': 2})[1:]"),
    "max_pool2d_v2": ("paddle.nn.functional.max_pool2d (oneDNN's max_pool2d_v2 has no other entry)",
                      "out = F.max_pool2d(d('x', [1, 2, 4, 4]), 2)"),
    "correlation": ("paddle._C_ops.correlation (PWC-Net's cost volume; no public API)",
                    "x = d('x', [1, 2, 5, 5])\nout = C.correlation(x, d('y', [1, 2, 5, 5]), 1, 1, 1, 1, 1, 0)"),
    "faster_tokenizer": ("fluid faster_tokenizer through the old-IR translator (string inputs cannot be fed)",
                         "out = old('faster_tokenizer', {'Vocab': [d('vocab', [4], 'int64', lo=0, hi=4)], "
                         "'Text': [d('text', [2], 'int64', lo=0, hi=4)]}, {'InputIds': 1, 'SegmentIds': 1}, "
                         "{'do_lower_case': False, 'max_seq_len': 8})"),
    "rnn_": ("paddle.nn.LSTM in a static program (emits pd_op.rnn; rnn_ has no builder)",
             "out = list(paddle.nn.LSTM(3, 4)(d('x', [2, 5, 3]))[:1])"),
    "cudnn_lstm": ("paddle._C_ops.cudnn_lstm (paddle.nn.LSTM's GPU op)",
                   "x, h, c = d('x', [3, 2, 4]), d('h', [1, 2, 5]), d('c', [1, 2, 5])\n"
                   "ws = [d('wih', [20, 4]), d('whh', [20, 5]), d('bih', [20]), d('bhh', [20])]\n"
                   "out = list(C.cudnn_lstm(x, h, c, None, ws, None, 0.0, False, 5, 1, True, 0))[:3]"),
}

# ops of the public paddle.distributed API (the rest of the family has none)
DIST_API = {"all_gather", "all_reduce", "all_reduce_", "all_to_all", "barrier", "broadcast",
            "broadcast_", "reduce", "reduce_", "reduce_scatter", "send_v2", "recv_v2"}


def family_of(short, defs_entry, category):
    """The family whose template tries op `short` (when OPS has no entry of its own)."""
    if short.endswith("_sp") and ("csr" in short or short in ("masked_matmul_sp", "fused_attention_sp")):
        if short.startswith(("matmul_", "addmm_", "mv_", "masked_matmul", "fused_attention",
                             "coo_to_csr", "dense_to_csr", "mask_as", "csr_to_", "values_")):
            return "csr matmul"
        if re.match(r"(add|subtract|multiply|divide)_csr_csr_sp$", short):
            return "csr binary"
        return "csr unary"
    if short.endswith(("_sp", "_sp_")):
        return "coo"
    if short.endswith(("_sr", "_sr_")) or any("SelectedRows" in i["type"] for i in defs_entry["inputs"]):
        return "selected rows"
    if short.endswith(("_xpu", "_xpu_")) or category.startswith("XPU-only"):
        return "xpu"
    if short in DIST_API:
        return "distributed api"
    if category.startswith("distributed"):
        return "distributed"
    import paddle.incubate.nn.functional as I
    if hasattr(I, short.rstrip("_")):
        return "incubate"
    return "generic"


# --- the child: build, run, fetch -----------------------------------------------------------------

SPARSE_34 = [[0, 1.5, 0, 0], [2, 0, 0, -1], [0, 0, 3, 0]]


def synth_operands(defs_entry, data):
    """Operands of a generic attempt, in the definition's order: float32 [2, 3] tensors for
    the inputs (a list of two for a vector input; None for an optional one), then each
    attribute's default (survey_ops.attr_value)."""
    import survey_ops
    args = []
    for i, inp in enumerate(defs_entry["inputs"]):
        if inp.get("optional"):
            args.append(None)
        elif "VectorType" in inp["type"]:
            args.append([data(f"in{i}_{j}", [2, 3]) for j in range(2)])
        else:
            args.append(data(f"in{i}", [2, 3]))
    return args + [survey_ops.attr_value(a) for a in defs_entry["attributes"]]


def first_words(e):
    """An exception as evidence: its type and Paddle's summary lines (no C++ stack)."""
    msg = str(e).strip()
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    if lines and lines[0].startswith(("In transformed code", "In user code")):
        # dy2static's and static mode's wrapping: the user's stack, then Paddle's message
        lines = [ln for ln in lines if not ln.startswith(("File ", "In ", "~", "@"))
                 and "<--- HERE" not in ln][-3:]
    keep = [ln for ln in lines if re.match(r"^\(?[A-Z][a-zA-Z]+(Error|Exception)", ln)
            or "Error" in ln[:40] or ln.startswith("[Hint")]
    text = " | ".join((keep or lines)[:3])
    name = type(e).__name__
    return (text if text.startswith(name) else f"{name}: {text}")[:700]


def attempt(op, snippet, defs_entry):
    """Run one attempt in this (child) process; returns the record."""
    import numpy as np
    import paddle
    from paddle.base import core
    sys.path.insert(0, HERE)
    rec = {"built": False, "emitted": False, "ran": False, "fetched": False}
    rng = np.random.default_rng(sum(map(ord, op)))
    feed = {}

    jit = snippet.startswith("#jit")

    def d(name, shape, dtype="float32", lo=None, hi=None, value=None):
        if value is None:
            value = (rng.integers(lo, hi, shape) if lo is not None
                     else rng.standard_normal(shape)).astype(dtype)
        value = np.asarray(value, dtype)
        if paddle.in_dynamic_mode():
            return paddle.to_tensor(value)
        feed[name] = value
        return paddle.static.data(name, list(value.shape), dtype)

    def coo(a=None, sparse_dim=None, tag="c"):
        """A COO tensor of a's non-zeros (SPARSE_34 by default; the first `sparse_dim` dims
        sparse) built in the program by paddle.sparse.sparse_coo_tensor."""
        a = np.array(SPARSE_34 if a is None else a, "float32")
        sd = a.ndim if sparse_dim is None else sparse_dim
        nz = np.array(np.nonzero(np.abs(a).reshape(a.shape[:sd] + (-1,)).sum(-1)))
        idx = nz.astype("int64")
        val = a[tuple(idx)]
        return S.sparse_coo_tensor(d(tag + "i", idx.shape, "int64", value=idx),
                                   d(tag + "v", val.shape, value=val), list(a.shape))

    def lod(name, shape, lens, dtype="float32", lo=None, hi=None, value=None):
        levels = lens if lens and isinstance(lens[0], list) else [lens]
        v = d(name, shape, dtype, lo, hi, value)
        t = core.LoDTensor()
        t.set(feed[name], core.CPUPlace())
        t.set_recursive_sequence_lengths(levels)
        feed[name] = t
        return v

    def generic(fn=None):
        fn = fn or getattr(paddle._C_ops, op[len("pd_op."):], None)
        if fn is None:
            raise AttributeError(f"paddle._C_ops has no {op[len('pd_op.'):]}")
        if fn is getattr(paddle._C_ops, op[len("pd_op."):], None):
            return fn(*synth_operands(defs_entry, d))
        tensors = [d(f"in{i}", [2, 3]) for i, inp in enumerate(defs_entry["inputs"])
                   if not inp.get("optional") and "Tensor" in inp["type"]]
        return fn(*tensors)

    def old(op_type, ins, outs, attrs=None, **kw):
        from old_ir_op import old_ir_op, results
        o = old_ir_op(op_type, ins, outs, attrs, **kw)
        return o if isinstance(o, list) else results(o)

    S = paddle.sparse
    if not jit:
        paddle.enable_static()
    ns = dict(coo=coo, paddle=paddle, np=np, C=paddle._C_ops, F=paddle.nn.functional,
              I=paddle.incubate.nn.functional, V=paddle.vision.ops, G=paddle.geometric, S=S,
              Q=paddle.nn.quant, d=d, lod=lod, generic=generic, old=old, RNG=rng,
              SPARSE_34=np.array(SPARSE_34, "float32"),
              CSR_MATMUL={
                  "matmul_csr_dense_sp": lambda x: S.matmul(x, d("y", [4, 2])),
                  "matmul_csr_csr_sp": lambda x: S.matmul(x, ns["CSR_T"]).to_dense(),
                  "addmm_csr_dense_sp": lambda x: S.addmm(d("i", [3, 2]), x, d("y", [4, 2])),
                  "addmm_csr_csr_sp": lambda x: S.addmm(ns["CSR_EYE"], x, ns["CSR_T"]).to_dense(),
                  "mv_csr_sp": lambda x: S.mv(x, d("v", [4])),
                  "masked_matmul_sp": lambda x: S.masked_matmul(d("a", [3, 5]), d("b", [5, 4]), x).to_dense(),
                  "fused_attention_sp": lambda x: S.nn.functional.attention(
                      d("q", [1, 1, 3, 4]), d("k", [1, 1, 3, 4]), d("v", [1, 1, 3, 4]), ns["CSR_ONES"]),
                  "coo_to_csr_sp": lambda x: x.to_sparse_coo(2).to_sparse_csr().to_dense(),
                  "dense_to_csr_sp": lambda x: x.to_dense(),
                  "csr_to_dense_sp": lambda x: x.to_dense(),
                  "csr_to_coo_sp": lambda x: x.to_sparse_coo(2).to_dense(),
                  "values_csr_sp": lambda x: x.values(),
                  "mask_as_csr_sp": lambda x: S.mask_as(d("z", [3, 4]), x).to_dense(),
              },
              COO_CALL={
                  "acos_coo_sp": lambda x: paddle._C_ops.sparse_acos(x).to_dense(),
                  "acosh_coo_sp": lambda x: paddle._C_ops.sparse_acosh(x).to_dense(),
                  "matmul_coo_coo_sp": lambda x: S.matmul(x, coo(np.array(SPARSE_34).T, tag="y")).to_dense(),
                  "matmul_coo_dense_sp": lambda x: S.matmul(x, d("y", [4, 2])),
                  "addmm_coo_coo_sp": lambda x: S.addmm(coo(np.eye(3), tag="i"), x, coo(np.array(SPARSE_34).T, tag="y")).to_dense(),
                  "addmm_coo_dense_sp": lambda x: S.addmm(d("i", [3, 2]), x, d("y", [4, 2])),
                  "mv_coo_sp": lambda x: S.mv(x, d("v", [4])),
                  "conv3d_implicit_gemm_sp": lambda x: S.nn.functional.subm_conv3d_igemm(
                      coo(np.ones([1, 2, 2, 2, 1]), 4, "g"), d("w", [1, 1, 1, 1, 2])).to_dense(),
                  "sync_batch_norm_sp_": lambda x: S.nn.SyncBatchNorm(1)(
                      coo(np.ones([1, 2, 2, 2, 1]), 4, "g")).to_dense(),
              },
              SR_CALL={},
              DIST_CALL={
                  "all_gather": lambda x: paddle.distributed.all_gather([], x) or x,
                  "all_reduce": lambda x: paddle.distributed.all_reduce(x) or x,
                  "all_reduce_": lambda x: paddle.distributed.all_reduce(x) or x,
                  "all_to_all": lambda x: paddle.distributed.alltoall([x], [x]) or x,
                  "barrier": lambda x: paddle.distributed.barrier() or x,
                  "broadcast": lambda x: paddle.distributed.broadcast(x, 0) or x,
                  "broadcast_": lambda x: paddle.distributed.broadcast(x, 0) or x,
                  "reduce": lambda x: paddle.distributed.reduce(x, 0) or x,
                  "reduce_": lambda x: paddle.distributed.reduce(x, 0) or x,
                  "reduce_scatter": lambda x: paddle.distributed.reduce_scatter(x, [x, x]) or x,
                  "send_v2": lambda x: paddle.distributed.send(x, 0) or x,
                  "recv_v2": lambda x: paddle.distributed.recv(x, 0) or x,
              })
    short = op[len("pd_op."):]
    if jit:
        ns["CSR_T"] = paddle.to_tensor(np.array(SPARSE_34, "float32").T).to_sparse_csr()
        ns["CSR_EYE"] = paddle.to_tensor(np.eye(3, dtype="float32")).to_sparse_csr()
        ns["CSR_ONES"] = paddle.to_tensor(np.ones([3, 3], "float32")).to_sparse_csr()
    ns["CSR_FN"] = lambda f: (getattr(S, f, None) or getattr(S.nn.functional, f, None)
                              or getattr(paddle._C_ops, "sparse_" + f))
    ns["CSR_ARGS"] = {"pow": (2.0,), "reshape": ([4, 3],), "slice": ([0], [0], [2]),
                      "transpose": ([1, 0],), "scale": (2.0, 0.0, True),
                      "divide_scalar": (2.0,), "full_like": (1.0, paddle.float32),
                      "cast": ("int64", "float64"), "leaky_relu": (0.1,)}
    base = re.sub(r"_sr_?$", "", short)
    def sr_call(g):
        fn = getattr(paddle, base, None) or getattr(paddle._C_ops, base)
        return fn(g, g) if base == "multiply" else fn(g)
    ns["SR_CALL"] = {short: sr_call}
    if jit:
        return attempt_jit(op, snippet, ns, rec)
    main, start = paddle.static.Program(), paddle.static.Program()
    stage = "build"
    try:
        with paddle.static.program_guard(main, start):
            exec(snippet, ns)
            out = ns["out"]
        outs = [o for o in (out if isinstance(out, (list, tuple)) else [out])
                if isinstance(o, paddle.pir.Value)]
        rec["built"] = True
        names = set()
        for blk in [main.global_block()]:
            for o in blk.ops:
                names.add(o.name())
                for r in o.regions() if hasattr(o, "regions") else ():
                    for b in r.blocks() if hasattr(r, "blocks") else ():
                        names.update(x.name() for x in b.ops)
        rec["ops"] = sorted(names)
        rec["emitted"] = op in names
        stage = "run"
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        res = exe.run(main, feed=feed, fetch_list=outs, return_numpy=False)
        rec["ran"] = True
        rec["lod_feed"] = any(isinstance(v, core.LoDTensor) for v in feed.values())
        stage = "fetch"
        rec["outputs"] = []
        for t in res:
            a = np.array(t)
            m = {"shape": list(a.shape), "dtype": str(a.dtype)}
            lod_ = t.lod() if hasattr(t, "lod") else []
            if lod_:
                m["lod"] = [list(map(int, lv)) for lv in lod_]
            rec["outputs"].append(m)
        rec["fetched"] = bool(outs)
        if not outs:
            rec["error"] = ("the program built and ran, but the attempt left nothing to fetch"
                            + (" (the op has no result, so a saved program prunes it)"
                               if rec["emitted"] else ""))
    except BaseException as e:  # noqa: BLE001 (the exception is the evidence)
        rec["failed_at"] = stage
        rec["error"] = first_words(e)
        rec["traceback_tail"] = clean(traceback.format_exc())[-600:]
    return rec


def attempt_jit(op, snippet, ns, rec):
    """A `#jit` snippet: paddle.jit.to_static(fn, full_graph=True)(*args) in dynamic mode."""
    import numpy as np
    import paddle
    stage = "build"
    try:
        # to_static reads fn's source: the snippet goes through a file
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
            fh.write(snippet)
        exec(compile(snippet, fh.name, "exec"), ns)
        sf = paddle.jit.to_static(ns["fn"], full_graph=True)
        res = sf(*ns["args"])
        rec["built"] = rec["ran"] = True
        prog = sf.concrete_program.main_program
        rec["ops"] = sorted({o.name() for o in prog.global_block().ops})
        rec["emitted"] = op in rec["ops"]
        stage = "fetch"
        rec["outputs"] = [{"shape": list(np.array(t).shape), "dtype": str(np.array(t).dtype)}
                          for t in (res if isinstance(res, (list, tuple)) else [res])]
        rec["fetched"] = True
    except BaseException as e:  # noqa: BLE001 (the exception is the evidence)
        rec["failed_at"] = stage
        rec["error"] = first_words(e)
        rec["traceback_tail"] = clean(traceback.format_exc())[-600:]
    return rec


def _child(conn, op, snippet, defs_entry, errpath):
    fd = os.open(errpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 2)
    os.dup2(fd, 1)
    try:
        rec = attempt(op, snippet, defs_entry)
    except BaseException as e:  # noqa: BLE001
        rec = {"built": False, "error": first_words(e)}
    conn.send(rec)
    conn.close()


def stderr_tail(path):
    with open(path, errors="replace") as fh:
        lines = [ln.strip() for ln in fh.read().splitlines()]
    lines = [re.sub(r"^[IWE]\d{4} [\d:.]+ +\d+ [\w.]+:\d+\] ", "", ln) for ln in lines]
    lines = [ln for ln in lines if ln and "ccache" not in ln and not ln.startswith("warnings.")]
    return lines[-1][:300] if lines else ""


_MACHINE = [  # what names the machine or the run, not Paddle's answer
    (re.compile(re.escape(ROOT) + "/"), ""),
    (re.compile(r"/[^\s\"']*/site-packages/"), "site-packages/"),
    (re.compile(r"/tmp/[\w.-]+\.py"), "<snippet>"),
    (re.compile(r"(PID|TID|pid|tid) (0x)?[0-9a-fA-F]+"), r"\1 N"),
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "0xN"),
    (re.compile(r"@0x[0-9a-fA-F]+"), "@0xN"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}\.\d+"), "HH:MM:SS"),
]


def clean(v):
    """Strings of a record with this machine's paths, process ids and times taken out."""
    if isinstance(v, str):
        for rx, rep in _MACHINE:
            v = rx.sub(rep, v)
        return v
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


def run_one(op, api, snippet, defs_entry):
    ctx = mp.get_context("fork")
    rd, wr = ctx.Pipe(duplex=False)
    with tempfile.NamedTemporaryFile(suffix=".log", delete=False) as tmp:
        errpath = tmp.name
    p = ctx.Process(target=_child, args=(wr, op, snippet, defs_entry, errpath))
    p.start()
    wr.close()
    rec = None
    if rd.poll(TIMEOUT):
        try:
            rec = rd.recv()
        except EOFError:
            rec = None
    p.join(5)
    if p.is_alive():
        p.kill()
        p.join()
    if rec is None:
        code = p.exitcode
        sig = {-11: " (SIGSEGV)", -6: " (SIGABRT)", -9: " (killed: past the timeout)"}.get(code, "")
        tail = stderr_tail(errpath)
        rec = {"built": False, "emitted": False, "ran": False, "fetched": False,
               "failed_at": "crash" if code != -9 else "timeout",
               "error": f"the process died, exit {code}{sig}" + (f", after '{tail}'" if tail else "")}
    os.remove(errpath)
    rec["api"] = api
    rec["status"] = ("builds and runs" if rec.get("emitted") and rec.get("fetched")
                     and not rec.get("error") else
                     "runs, but the API does not emit the op" if rec.get("fetched") and not rec.get("error")
                     else "fails")
    rec.pop("traceback_tail", None) if rec["status"] != "fails" else None
    return rec


def run_with_fallback(op, api, snippet, defs_entry):
    """The attempt; when the API runs without emitting the op (it emits another form), the
    op's generated builder is tried too and its record kept as `fallback`: the op is
    buildable only when one of them emits and runs it."""
    rec = run_one(op, api, snippet, defs_entry)
    if rec["status"].startswith("runs, but"):
        short = op[len("pd_op."):]
        fb = run_one(op, f"paddle._C_ops.{short} in a static program on the CPU place",
                     "out = generic()", defs_entry)
        rec["fallback"] = {k: fb[k] for k in ("api", "status", "error", "failed_at", "ops")
                           if k in fb}
        if fb["status"] == "builds and runs":
            rec["status"] = "builds and runs"
    return rec


def attempt_for(op, defs_entry, category):
    short = op[len("pd_op."):]
    if short in OPS:
        api, snippet = OPS[short]
        return "own", api, snippet
    fam = family_of(short, defs_entry, category)
    f = FAMILIES[fam]
    fn = f["fn"](short)
    return fam, f["api"].format(op=short, fn=fn), f["snippet"].format(op=short, fn=fn)


def unbuildable_ops(ver):
    """Ops to try: those results/unbuildable_ops.json lists (the records docs/COVERAGE.md held
    as not buildable at any PIR version before this second attempt, with their reason) that
    the release defines."""
    with open(os.path.join(ROOT, "tools", "opdefs", f"opdefs-{ver}.json")) as fh:
        defs = json.load(fh)
    with open(os.path.join(ROOT, "tools", "paddle_oracle", "results", "unbuildable_ops.json")) as fh:
        listed = json.load(fh)["ops"]
    return {op: (defs[op], rec["reason"]) for op, rec in listed.items() if op in defs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", nargs="*", help="only these (pd_op.NAME)")
    args = ap.parse_args()
    import paddle  # noqa: F401  (imported once; each attempt forks from here)
    ver = paddle.__version__
    todo = unbuildable_ops(ver)
    if args.ops:
        todo = {k: v for k, v in todo.items() if k in args.ops}
    path = os.path.join(RESULTS, f"reexamine_unbuildable.{ver}.json")
    done = {}
    if args.ops and os.path.exists(path):
        with open(path) as fh:
            done = json.load(fh)["ops"]
    t0 = time.time()
    for i, (op, (entry, cat)) in enumerate(sorted(todo.items())):
        fam, api, snippet = attempt_for(op, entry, cat)
        rec = run_with_fallback(op, api, snippet, entry)
        rec["family"] = fam
        done[op] = clean(rec)
        print(f"[{i + 1}/{len(todo)} {time.time() - t0:.0f}s] {op}: {rec['status']} "
              f"{rec.get('error', '')[:150]}", flush=True)
    doc = {"paddle_version": ver, "date_utc": time.strftime("%Y-%m-%d", time.gmtime()),
           "note": "second attempt at each op docs/COVERAGE.md records not buildable on CPU "
                   "(tools/paddle_oracle/reexamine_unbuildable.py)",
           "ops": dict(sorted(done.items()))}
    with open(path + ".tmp", "w") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    main()
