"""Sequence models of the second zoo: paddle.nn LSTM / GRU / SimpleRNN layers (bidirectional,
multi-layer, with sequence_length, time-major, initial states as inputs), paddlenlp's BiGRU-CRF
lexical-analysis tagger with Viterbi decoding, a CRNN OCR recogniser with greedy CTC decoding
in the graph, and a GRUCell / LSTMCell stepped in a to_static loop (a `while` carrying states).

Widths are small (features 8, hidden 16); batch and sequence dims are -1 where the model allows
(the CRNN's image height is 32: the backbone pools it to 1). `cases` cover other batch sizes and
lengths, padding through sequence_length, and length-1 sequences (for the loops: 1 and many
iterations, and 0 where the model defines it).

paddlenlp (2.8.1, installed --no-deps) is imported as zoo/nlp.py does: `paddlenlp` registered as
a bare package; the tagger's taskflow module is loaded the same way (paddlenlp.taskflow and
paddlenlp.taskflow.models as bare packages), so none of taskflow's heavy imports run.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types

import numpy as np
import paddle
from paddle import nn

from zoo.common import Model, image, rng, token_ids

FEATURES, HIDDEN, CLASSES = 8, 16, 5


def _lengths(model, feed, batch, steps):
    """Lengths in [1, steps] with the first row full (Paddle's rnn pads to the longest)."""
    out = rng(model, feed).integers(1, steps + 1, batch).astype("int64")
    out[0] = steps
    return out


def _seq(model, batch, steps, feed="x", features=FEATURES):
    return rng(model, feed).standard_normal((batch, steps, features)).astype("float32")


# ---------------------------------------------------------------- paddle.nn recurrent layers


class TaggerHead(nn.Layer):
    """A recurrent encoder (with sequence_length) and a per-step Linear head; returns the
    logits and the final states."""

    def __init__(self, rnn, out_features, time_major=False):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Linear(out_features, CLASSES)
        self.time_major = time_major

    def forward(self, x, lengths):
        out, state = self.rnn(x, sequence_length=lengths)
        states = state if isinstance(state, (tuple, list)) else (state,)
        return (self.head(out), *states)


def _rnn_cases(name, time_major=False):
    """Other batch sizes and lengths, padding, length-1 sequences."""
    def feeds(batch, steps, lengths, tag):
        x = _seq(name, batch, steps, f"x/{tag}")
        if time_major:
            x = np.ascontiguousarray(x.transpose(1, 0, 2))
        return {"x": x, "lengths": np.asarray(lengths, "int64")}
    return {
        "b1_t1": feeds(1, 1, [1], "b1_t1"),
        "b3_full": feeds(3, 6, [6, 6, 6], "b3_full"),
        "b4_padded": feeds(4, 9, [9, 4, 1, 7], "b4_padded"),
        "b2_len1": feeds(2, 5, [5, 1], "b2_len1"),
        "b3_len0": feeds(3, 5, [5, 0, 2], "b3_len0"),  # an empty row: zeros out, h0 kept
        "b5_t12": feeds(5, 12, _lengths(name, "lengths/b5", 5, 12), "b5_t12"),
    }


def _rnn_model(name, rnn, out_features, notes, time_major=False):
    dims = [-1, -1, FEATURES]
    specs = [paddle.static.InputSpec(dims, "float32", "x"), paddle.static.InputSpec([-1], "int64", "lengths")]
    x = _seq(name, 3, 7)
    if time_major:
        x = np.ascontiguousarray(x.transpose(1, 0, 2))
    inputs = {"x": x, "lengths": np.array([7, 5, 2], "int64")}
    return Model(TaggerHead(rnn, out_features, time_major), specs, inputs, notes,
                 _rnn_cases(name, time_major))


def lstm_bidir(name):
    """paddle.nn.LSTM, 2 layers, bidirectional, with sequence_length; Linear head."""
    rnn = nn.LSTM(FEATURES, HIDDEN, num_layers=2, direction="bidirect")
    return _rnn_model(name, rnn, 2 * HIDDEN, {"outputs": "logits [b, t, 5], h and c [4, b, 16]"})


def gru_bidir(name):
    """paddle.nn.GRU, 2 layers, bidirectional, with sequence_length; Linear head."""
    rnn = nn.GRU(FEATURES, HIDDEN, num_layers=2, direction="bidirectional")
    return _rnn_model(name, rnn, 2 * HIDDEN, {"outputs": "logits [b, t, 5], h [4, b, 16]"})


def gru_time_major(name):
    """paddle.nn.GRU bidirectional, time_major=True: x is [t, b, 8] (no transposes around rnn)."""
    rnn = nn.GRU(FEATURES, HIDDEN, num_layers=1, direction="bidirect", time_major=True)
    model = _rnn_model(name, rnn, 2 * HIDDEN, {"outputs": "logits [t, b, 5], h [2, b, 16]",
                                               "layout": "time-major x [t, b, 8]"}, time_major=True)
    return model


class StatesAndLengths(nn.Layer):
    """An LSTM run from initial states given as inputs, with sequence_length: the reverse
    direction of a padded row starts from h0 / c0 at the row's last valid step."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Linear(2 * HIDDEN, CLASSES)

    def forward(self, x, h0, c0, lengths):
        out, (h, c) = self.rnn(x, initial_states=(h0, c0), sequence_length=lengths)
        return self.head(out), h, c


def lstm_states(name):
    """paddle.nn.LSTM bidirectional, 2 layers, initial h0 / c0 as inputs and sequence_length."""
    rnn = nn.LSTM(FEATURES, HIDDEN, num_layers=2, direction="bidirect")
    specs = [paddle.static.InputSpec([-1, -1, FEATURES], "float32", "x"),
             paddle.static.InputSpec([4, -1, HIDDEN], "float32", "h0"),
             paddle.static.InputSpec([4, -1, HIDDEN], "float32", "c0"),
             paddle.static.InputSpec([-1], "int64", "lengths")]

    def feeds(batch, steps, lengths, tag):
        states = rng(name, f"states/{tag}").standard_normal((2, 4, batch, HIDDEN)).astype("float32")
        return {"x": _seq(name, batch, steps, f"x/{tag}"), "h0": 0.5 * states[0], "c0": states[1],
                "lengths": np.asarray(lengths, "int64")}
    cases = {"b1_t1": feeds(1, 1, [1], "b1_t1"), "b4_padded": feeds(4, 9, [9, 4, 1, 7], "b4_padded"),
             "b3_len0": feeds(3, 5, [5, 0, 2], "b3_len0"),
             "b5_t12": feeds(5, 12, _lengths(name, "lengths/b5", 5, 12), "b5_t12")}
    return Model(StatesAndLengths(rnn), specs, feeds(3, 7, [7, 5, 2], "main"),
                 {"outputs": "logits [b, t, 5], h and c [4, b, 16]"}, cases)


class WithInitialStates(nn.Layer):
    """A forward-only SimpleRNN run from initial states given as an input."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x, h0):
        out, h = self.rnn(x, initial_states=h0)
        return self.head(out), h


def _simple_rnn(name, activation, layers):
    rnn = nn.SimpleRNN(FEATURES, HIDDEN, num_layers=layers, activation=activation)
    specs = [paddle.static.InputSpec([-1, -1, FEATURES], "float32", "x"),
             paddle.static.InputSpec([layers, -1, HIDDEN], "float32", "h0")]

    def feeds(batch, steps, tag):
        return {"x": _seq(name, batch, steps, f"x/{tag}"),
                "h0": (0.5 * rng(name, f"h0/{tag}").standard_normal((layers, batch, HIDDEN))).astype("float32")}
    cases = {"b1_t1": feeds(1, 1, "b1_t1"), "b4_t10": feeds(4, 10, "b4_t10"),
             "zero_h0": {**feeds(2, 5, "zero_h0"), "h0": np.zeros((layers, 2, HIDDEN), "float32")}}
    return Model(WithInitialStates(rnn), specs, feeds(3, 6, "main"),
                 {"outputs": f"logits [b, t, 5], h [{layers}, b, 16]"}, cases)


def simple_rnn(name):
    """paddle.nn.SimpleRNN (tanh), 1 layer, forward-only, initial states as input."""
    return _simple_rnn(name, "tanh", 1)


def simple_rnn_relu(name):
    """paddle.nn.SimpleRNN (relu), 2 layers, forward-only, initial states as input."""
    return _simple_rnn(name, "relu", 2)


# ---------------------------------------------------------------- paddlenlp BiGRU-CRF tagger


def _import_lexical_analysis():
    """paddlenlp.taskflow.models.lexical_analysis_model without taskflow's own imports."""
    name = "paddlenlp.taskflow.models.lexical_analysis_model"
    if name in sys.modules:
        return sys.modules[name]
    importlib.import_module("zoo.nlp")  # registers the bare `paddlenlp` package
    root = os.path.dirname(importlib.util.find_spec("paddlenlp.layers").origin)
    root = os.path.dirname(root)
    for pkg in ("paddlenlp.taskflow", "paddlenlp.taskflow.models"):
        if pkg not in sys.modules:
            module = types.ModuleType(pkg)
            module.__path__ = [os.path.join(root, *pkg.split(".")[1:])]
            sys.modules[pkg] = module
    return importlib.import_module(name)


TAG_VOCAB, TAGS, EMB = 50, 6, 16


class TaggerScoresAndPaths(nn.Layer):
    """taskflow's BiGruCrf forward (embedding -> 2-layer BiGRU with sequence_length -> Linear
    emissions -> paddle.text.ViterbiDecoder on the CRF's transitions), returning the Viterbi
    scores too (BiGruCrf.forward drops them)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, inputs, lengths):
        m = self.model
        emission = m.fc(m.gru(m.word_embedding(inputs), sequence_length=lengths)[0])
        scores, paths = m.viterbi_decoder(emission, lengths)
        return scores, paths


def bigru_crf(name, with_start_stop_tag=True):
    """paddlenlp's lexical-analysis BiGRU-CRF (taskflow BiGruCrf), with start/stop tags."""
    lac = _import_lexical_analysis()
    model = lac.BiGruCrf(EMB, HIDDEN, TAG_VOCAB, TAGS, with_start_stop_tag=with_start_stop_tag)
    specs = [paddle.static.InputSpec([-1, -1], "int64", "inputs"),
             paddle.static.InputSpec([-1], "int64", "lengths")]

    def feeds(batch, steps, lengths, tag):
        return {"inputs": token_ids(name, [batch, steps], TAG_VOCAB, f"inputs/{tag}"),
                "lengths": np.asarray(lengths, "int64")}
    cases = {"b1_t1": feeds(1, 1, [1], "b1_t1"), "b3_full": feeds(3, 6, [6, 6, 6], "b3_full"),
             "b4_padded": feeds(4, 9, [9, 4, 1, 7], "b4_padded"),
             "b2_len1": feeds(2, 5, [5, 1], "b2_len1"),
             "b6_t15": feeds(6, 15, _lengths(name, "lengths/b6", 6, 15), "b6_t15")}
    return Model(TaggerScoresAndPaths(model), specs, feeds(3, 8, [8, 5, 3], "main"),
                 {"from": "paddlenlp.taskflow.models.lexical_analysis_model.BiGruCrf",
                  "outputs": "Viterbi scores [b] float32, paths [b, t] int64 (exact)"}, cases)


def bigru_crf_plain(name):
    """The same tagger without start/stop tags (viterbi_decode include_bos_eos_tag=False)."""
    return bigru_crf(name, with_start_stop_tag=False)


# ---------------------------------------------------------------- CRNN OCR recogniser


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2D(cin, cout, 3, padding=1, bias_attr=False), nn.BatchNorm2D(cout), nn.ReLU())


class CRNN(nn.Layer):
    """PaddleOCR's CRNN recogniser in small: conv backbone pooling height 32 -> 1 and width by 4,
    the column features as a sequence through a 2-layer BiLSTM, per-step logits, and greedy CTC
    decoding in the graph: argmax, a step kept where it is not blank (0) and differs from the
    step before; the kept ids moved to the front (stable argsort) and the rest -1."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            ConvBNReLU(3, 8), nn.MaxPool2D(2, 2),            # 16 x W/2
            ConvBNReLU(8, 16), nn.MaxPool2D(2, 2),           # 8 x W/4
            ConvBNReLU(16, 16), nn.MaxPool2D((2, 1), (2, 1)),  # 4 x W/4
            ConvBNReLU(16, 16), nn.MaxPool2D((4, 1), (4, 1)),  # 1 x W/4
        )
        self.lstm = nn.LSTM(16, HIDDEN, num_layers=2, direction="bidirect")
        self.fc = nn.Linear(2 * HIDDEN, 11)  # blank + 10 characters

    def forward(self, x):
        f = self.backbone(x).squeeze(2).transpose([0, 2, 1])  # [b, w/4, 16]
        seq, _ = self.lstm(f)
        logits = self.fc(seq)
        ids = paddle.argmax(logits, axis=-1)  # [b, t]
        prev = paddle.concat([paddle.full_like(ids[:, :1], -1), ids[:, :-1]], axis=1)
        keep = paddle.logical_and(ids != 0, ids != prev)
        order = paddle.argsort(paddle.cast(paddle.logical_not(keep), "int32"), axis=1, stable=True)
        kept = paddle.take_along_axis(paddle.cast(keep, "int64"), order, axis=1)
        decoded = paddle.take_along_axis(ids, order, axis=1) * kept - (1 - kept)
        return logits, decoded, paddle.sum(kept, axis=1)


def crnn_ocr(name):
    """A CRNN text recogniser over [-1, 3, 32, -1] images with greedy CTC decoding."""
    specs = [paddle.static.InputSpec([-1, 3, 32, -1], "float32", "x")]
    cases = {"b1_w4": {"x": image(name, [1, 3, 32, 4], "x/b1_w4")},  # one step
             "b3_w100": {"x": image(name, [3, 3, 32, 100], "x/b3_w100")},
             "b1_w320": {"x": image(name, [1, 3, 32, 320], "x/b1_w320")}}
    return Model(CRNN(), specs, {"x": image(name, [2, 3, 32, 64])},
                 {"fixed": "image height 32 (the backbone pools it to 1)",
                  "outputs": "logits [b, w/4, 11], decoded ids [b, w/4] int64 (-1 padded), lengths [b] int64"},
                 cases)


class CRNNEval(nn.Layer):
    """The CRNN with the CTC loss of its logits against labels, per sample
    (paddle.nn.functional.ctc_loss, reduction none: the warpctc op), as its evaluation
    computes it. (paddle.nn.functional.loss.edit_distance, the other number an OCR evaluation
    reports, has no PIR static path in 3.3.1: its static branch appends an old-IR op, which
    to_static refuses: "The type of '%Hyps' in operator edit_distance should be one of [str,
    bytes, Variable]".)"""

    def __init__(self):
        super().__init__()
        self.crnn = CRNN()

    def forward(self, x, labels, label_lengths):
        logits, decoded, lengths = self.crnn(x)
        steps = paddle.ones_like(lengths) * paddle.shape(logits)[1]
        loss = nn.functional.ctc_loss(logits.transpose([1, 0, 2]), labels, steps, label_lengths,
                                      blank=0, reduction="none")
        return logits, decoded, loss


def crnn_ctc_eval(name):
    """The CRNN recogniser with its CTC loss against int32 labels."""
    specs = [paddle.static.InputSpec([-1, 3, 32, -1], "float32", "x"),
             paddle.static.InputSpec([-1, -1], "int32", "labels"),
             paddle.static.InputSpec([-1], "int64", "label_lengths")]

    def feeds(batch, width, label_lengths, tag):
        top = max(label_lengths)
        labels = rng(name, f"labels/{tag}").integers(1, 11, (batch, top)).astype("int32")
        for row, n in enumerate(label_lengths):
            labels[row, n:] = 0
        return {"x": image(name, [batch, 3, 32, width], f"x/{tag}"), "labels": labels,
                "label_lengths": np.asarray(label_lengths, "int64")}
    cases = {"b1_w8_len1": feeds(1, 8, [1], "b1"), "b3_w100": feeds(3, 100, [10, 3, 7], "b3"),
             "b2_w64_equal": feeds(2, 64, [5, 5], "b2"),
             # 2 steps cannot emit 3 labels: no alignment, the loss is warpctc's "infinite" value
             "b2_w8_infeasible": feeds(2, 8, [3, 1], "b2_inf")}
    return Model(CRNNEval(), specs, feeds(2, 64, [6, 4], "main"),
                 {"fixed": "image height 32",
                  "outputs": "logits [b, w/4, 11], decoded ids [b, w/4], CTC loss [b, 1]"}, cases)


# ---------------------------------------------------------------- cells stepped in a loop


class CellLoop(nn.Layer):
    """A GRUCell and an LSTMCell stacked, stepped over the time axis by a to_static `for`
    (a `while` on the dynamic length carrying h1, h2, c2 and a running sum and max of the
    top states); outputs the final states, the mean and the max over time."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRUCell(FEATURES, HIDDEN)
        self.lstm = nn.LSTMCell(HIDDEN, HIDDEN)

    def forward(self, x):
        batch = paddle.shape(x)[0]
        steps = paddle.shape(x)[1]
        h1 = paddle.zeros([batch, HIDDEN], "float32")
        h2 = paddle.zeros([batch, HIDDEN], "float32")
        c2 = paddle.zeros([batch, HIDDEN], "float32")
        total = paddle.zeros([batch, HIDDEN], "float32")
        best = paddle.full([batch, HIDDEN], -1e9, "float32")
        for t in range(steps):
            h1, _ = self.gru(x[:, t], h1)
            h2, (h2, c2) = self.lstm(h1, (h2, c2))
            total = total + h2
            best = paddle.maximum(best, h2)
        mean = total / paddle.cast(paddle.maximum(steps, paddle.ones_like(steps)), "float32")
        return h1, h2, c2, mean, best


def cell_loop(name):
    """GRUCell -> LSTMCell stepped over time in a to_static loop (a `while` carrying states)."""
    specs = [paddle.static.InputSpec([-1, -1, FEATURES], "float32", "x")]
    cases = {"one_step": {"x": _seq(name, 2, 1, "x/one")},
             "zero_steps": {"x": np.zeros((2, 0, FEATURES), "float32")},
             "b5_t16": {"x": _seq(name, 5, 16, "x/b5")}}
    return Model(CellLoop(), specs, {"x": _seq(name, 3, 6)},
                 {"outputs": "h1, h2, c2 [b, 16], mean and max over time of h2 [b, 16]",
                  "loop": "for t in range(steps) -> pd_op.while (0, 1 and many iterations)"}, cases)


class CellLoopOutputs(nn.Layer):
    """An LSTMCell stepped by a to_static `for` whose per-step outputs are appended to a list
    and stacked after the loop (a tensor array created before the `while`, written in it)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(FEATURES, HIDDEN)
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        batch = paddle.shape(x)[0]
        h = paddle.zeros([batch, HIDDEN], "float32")
        c = paddle.zeros([batch, HIDDEN], "float32")
        outs = []
        for t in range(paddle.shape(x)[1]):
            y, (h, c) = self.cell(x[:, t], (h, c))
            outs.append(self.head(y))
        return paddle.stack(outs, axis=1), h, c


def cell_loop_outputs(name):
    """LSTMCell stepped over time, per-step logits collected in a list (a tensor array)."""
    specs = [paddle.static.InputSpec([-1, -1, FEATURES], "float32", "x")]
    cases = {"one_step": {"x": _seq(name, 2, 1, "x/one")}, "b5_t16": {"x": _seq(name, 5, 16, "x/b5")}}
    return Model(CellLoopOutputs(), specs, {"x": _seq(name, 3, 6)},
                 {"outputs": "logits [b, t, 5], h, c [b, 16]",
                  "loop": "for over range(t) appending to a list -> while writing a tensor array"}, cases)


class BiRNNCells(nn.Layer):
    """paddle.nn.BiRNN over two LSTMCells with sequence_length:
    under to_static, paddle.nn.RNN steps the cell in a `while` (rnn.py _rnn_static_graph) with
    the inputs, states and outputs in tensor arrays created before the loop."""

    def __init__(self):
        super().__init__()
        self.birnn = nn.BiRNN(nn.LSTMCell(FEATURES, HIDDEN), nn.LSTMCell(FEATURES, HIDDEN))
        self.head = nn.Linear(2 * HIDDEN, CLASSES)

    def forward(self, x, lengths):
        out, (fw, bw) = self.birnn(x, sequence_length=lengths)
        return self.head(out), fw[0], fw[1], bw[0], bw[1]


def birnn_cells(name):
    """paddle.nn.BiRNN(LSTMCell, LSTMCell) with sequence_length: a `while` over tensor arrays."""
    specs = [paddle.static.InputSpec([-1, -1, FEATURES], "float32", "x"),
             paddle.static.InputSpec([-1], "int64", "lengths")]
    inputs = {"x": _seq(name, 3, 7), "lengths": np.array([7, 5, 2], "int64")}
    return Model(BiRNNCells(), specs, inputs,
                 {"outputs": "logits [b, t, 5], forward h, c and backward h, c [b, 16]"}, _rnn_cases(name))


def _uncached_viterbi_decoder():
    """paddlenlp.layers.ViterbiDecoder without its per-instance caches: it keeps the initial
    alpha and the batch index as Tensor attributes from one call to the next, which the eager
    run leaves behind and to_static then refuses to assign ("assignment to parameter
    '_initial_alpha' should be of type Parameter"); the values are built the same way."""
    from paddlenlp.layers import ViterbiDecoder

    class Uncached(ViterbiDecoder):
        def _initialize_alpha(self, batch_size):
            initial_alpha = paddle.full([batch_size, self.num_tags - 1], dtype="float32", fill_value=-10000.0)
            alpha_start = paddle.full([batch_size, 1], dtype="float32", fill_value=0.0)
            return paddle.concat([initial_alpha, alpha_start], axis=1)

        def _get_batch_index(self, batch_size):
            return paddle.arange(end=batch_size, dtype="int64")
    return Uncached


class CrfLoopTagger(nn.Layer):
    """A BiLSTM emission layer and paddlenlp.layers.LinearChainCrf's transitions decoded by
    paddlenlp.layers.ViterbiDecoder, which walks the steps in Python: under to_static a
    `while` over the first max(lengths) steps appending argmaxes to a list (a tensor array),
    an `if max_seq_len == 1`, and a second `while` tracing the path back."""

    def __init__(self):
        super().__init__()
        from paddlenlp.layers import LinearChainCrf
        self.embedding = nn.Embedding(TAG_VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HIDDEN, direction="bidirect")
        self.fc = nn.Linear(2 * HIDDEN, TAGS + 2)
        self.crf = LinearChainCrf(TAGS, with_start_stop_tag=True)
        self.decoder = _uncached_viterbi_decoder()(self.crf.transitions, with_start_stop_tag=True)

    def forward(self, inputs, lengths):
        emission = self.fc(self.lstm(self.embedding(inputs), sequence_length=lengths)[0])
        return self.decoder(emission, lengths)


def crf_loop_decoder(name):
    """BiLSTM emissions + paddlenlp.layers ViterbiDecoder (Python loops -> while, arrays, if)."""
    importlib.import_module("zoo.nlp")  # registers the bare `paddlenlp` package
    specs = [paddle.static.InputSpec([-1, -1], "int64", "inputs"),
             paddle.static.InputSpec([-1], "int64", "lengths")]

    def feeds(batch, steps, lengths, tag):
        return {"inputs": token_ids(name, [batch, steps], TAG_VOCAB, f"inputs/{tag}"),
                "lengths": np.asarray(lengths, "int64")}
    cases = {"all_len1": feeds(2, 1, [1, 1], "all_len1"), "b3_full": feeds(3, 6, [6, 6, 6], "b3_full"),
             "b4_padded": feeds(4, 9, [9, 4, 1, 7], "b4_padded"),
             "b6_t15": feeds(6, 15, _lengths(name, "lengths/b6", 6, 15), "b6_t15")}
    return Model(CrfLoopTagger(), specs, feeds(3, 8, [8, 5, 3], "main"),
                 {"from": "paddlenlp.layers.crf.ViterbiDecoder",
                  "outputs": "Viterbi scores [b] float32, paths [b, t] int64 (exact)"}, cases)


MODELS = {f.__name__: f for f in (lstm_bidir, lstm_states, gru_bidir, gru_time_major, simple_rnn,
                                  simple_rnn_relu, bigru_crf, bigru_crf_plain, crnn_ocr, crnn_ctc_eval, cell_loop,
                                  cell_loop_outputs, birnn_cells)}

# Tried, not saved: what Paddle 3.3.1 raised (the builder stays for a later paddlenlp or Paddle).
NOT_EXPORTED = {
    "crf_loop_decoder": (crf_loop_decoder, "to_static: paddlenlp.layers.ViterbiDecoder.forward returns early "
                         "under `if max_seq_len == 1` with a tensor while the other branch goes on with a list "
                         "(a tensor array): 'The output[4] of true_block&false_block must be dense tensor type'"),
}
