"""Model builders of the second development zoo (gen_zoo.py --zoo zoo2, tests/fixtures/zoo2):
what the first zoo lacks. `sequence` (paddle.nn LSTM / GRU / SimpleRNN, a CRF tagger, an OCR
recogniser), `decoding` (paddle.jit.to_static greedy and beam-search loops over a small
paddlenlp LM, `cond` on tensor values, nested loops, tensor arrays) and `detection`
(detection / OCR heads around paddle.vision.ops and Paddle's detection ops). Each module's
MODELS maps a model name to a builder returning a zoo.common.Model, whose `cases` hold the
extra input sets that take each branch of every `if` and loops of 0, 1 and many iterations."""

FAMILIES = ("sequence", "decoding", "detection")
