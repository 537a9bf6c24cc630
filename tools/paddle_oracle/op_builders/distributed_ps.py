"""Builders of the parameter-server ops (push_dense, send_and_recv, PIR 1 only) and of
faster_tokenizer, whose inputs are a vocabulary map and string tensors. None has a PIR Python
builder; each is tried through the old-IR translator and records what Paddle raises."""
import numpy as np
import paddle

from old_ir_op import old_ir_op, results

from . import op


@op("push_dense", expect="distributed: pushes dense gradients to a parameter server; it has "
                         "no result, so no saved program keeps it (save_inference_model: "
                         "nothing fetched needs it), and 3.3.1 no longer registers the fluid op")
def _push_dense(f):
    x = f("x", [2, 3])
    old_ir_op("push_dense", {"Ids": [x]}, {}, {"TableId": 0, "ScaleDataNorm": -1.0,
                                              "InputNames": ["x"]})
    # nothing to fetch but the op itself, which has no result: the program saves nothing
    return [], {}


def _send_and_recv(f, recv, inplace=None):
    x = f("x", [2, 3])
    return results(old_ir_op("send_and_recv", {"X": [x]}, {"Out": 1},
                             {"message_name": "m", "mode": "forward", "send_var_name": ["x"],
                              "recv_var_name": [recv], "next_endpoints": [],
                              "previous_endpoints": [], "trainer_id": 0, "op_device": "cpu",
                              "endpoints": ["127.0.0.1:0"]}, inplace=inplace)), {}


@op("send_and_recv", expect="distributed: sends to and receives from a parameter server "
                            "(a heter / PS communicator the CPU wheel's executor does not have)")
def _send_and_recv_op(f):
    return _send_and_recv(f, "out")


@op("send_and_recv_", expect="distributed: the in-place form of send_and_recv, which no "
                             "Python entry builds (the translator emits send_and_recv)")
def _send_and_recv_inplace(f):
    return _send_and_recv(f, "x", {"Out": "X"})


@op("faster_tokenizer", expect="needs a vocabulary map and string tensors, which a fed PIR "
                               "program cannot carry (paddle.static.data has no string type)")
def _faster_tokenizer(f):
    vocab = f("vocab", [4], "int64", value=np.arange(4, dtype="int64"))
    text = f("text", [2], "int64", value=np.array([1, 2], "int64"))
    return results(old_ir_op("faster_tokenizer", {"Vocab": [vocab], "Text": [text]},
                             {"InputIds": 1, "SegmentIds": 1},
                             {"do_lower_case": False, "max_seq_len": 8})), {}


# The embedding tables of BoxPS, GPUPS and the fleet parameter server (PIR 1 only): a pull
# reads rows of a remote table, a push sends their gradients back. Their fluid ops are tried
# through the translator; what Paddle 3.0.0 raises is the evidence.
_PS = "distributed: reads or writes an embedding table of a parameter server ({})"


def _pull(f, op_type, attrs, ids_slot="Ids"):
    ids = f("ids", [4, 1], "int64", value=np.array([[0], [5], [2], [5]], "int64"))
    w = f("w", [6, 3])
    return results(old_ir_op(op_type, {ids_slot: [ids], "W": [w]}, {"Out": 1}, attrs)), {}


def _push(f, op_type, attrs, inplace=None):
    ids = f("ids", [4, 1], "int64", value=np.array([[0], [5], [2], [5]], "int64"))
    g = f("g", [4, 3])
    return results(old_ir_op(op_type, {"Ids": [ids], "Out@GRAD": [g]}, {"Out@GRAD": 1}, attrs,
                             inplace=inplace)), {}


@op("pull_box_sparse", expect=_PS.format("BoxPS"))
def _pull_box_sparse(f):
    return _pull(f, "pull_box_sparse", {"size": 3, "is_sparse": False, "is_distributed": False})


@op("pull_gpups_sparse", expect=_PS.format("GPUPS"))
def _pull_gpups_sparse(f):
    return _pull(f, "pull_gpups_sparse", {"size": [3], "is_sparse": False,
                                          "is_distributed": False})


@op("pull_sparse_v2", expect=_PS.format("the fleet parameter server"))
def _pull_sparse_v2(f):
    return _pull(f, "pull_sparse_v2", {"EmbeddingDim": 3, "TableId": 0, "AccessorClass": "",
                                       "CtrLabelName": "", "PaddingId": 0, "ScaleSparseGrad": True,
                                       "InputNames": ["ids"], "is_distributed": True})


@op("push_box_sparse", expect=_PS.format("BoxPS"))
def _push_box_sparse(f):
    return _push(f, "push_box_sparse", {"size": 3, "is_sparse": False, "is_distributed": False})


@op("push_box_sparse_", expect=_PS.format("BoxPS") + "; the in-place form")
def _push_box_sparse_inplace(f):
    return _push(f, "push_box_sparse", {"size": 3, "is_sparse": False, "is_distributed": False},
                 inplace={"Out@GRAD": "Out@GRAD"})


@op("push_gpups_sparse", expect=_PS.format("GPUPS"))
def _push_gpups_sparse(f):
    return _push(f, "push_gpups_sparse", {"size": [3], "is_sparse": False,
                                          "is_distributed": False})


@op("push_gpups_sparse_", expect=_PS.format("GPUPS") + "; the in-place form")
def _push_gpups_sparse_inplace(f):
    return _push(f, "push_gpups_sparse", {"size": [3], "is_sparse": False,
                                          "is_distributed": False},
                 inplace={"Out@GRAD": "Out@GRAD"})


@op("push_sparse_v2", expect=_PS.format("the fleet parameter server"))
def _push_sparse_v2(f):
    return _push(f, "push_sparse_v2", {"EmbeddingDim": 3, "TableId": 0, "AccessorClass": "",
                                       "CtrLabelName": "", "PaddingId": 0,
                                       "ScaleSparseGrad": True, "InputNames": ["ids"],
                                       "is_distributed": True})


@op("push_sparse_v2_", expect=_PS.format("the fleet parameter server") + "; the in-place form")
def _push_sparse_v2_inplace(f):
    return _push(f, "push_sparse_v2", {"EmbeddingDim": 3, "TableId": 0, "AccessorClass": "",
                                       "CtrLabelName": "", "PaddingId": 0,
                                       "ScaleSparseGrad": True, "InputNames": ["ids"],
                                       "is_distributed": True}, inplace={"Out@GRAD": "Out@GRAD"})
