"""Decoding loops and control flow written as Python and converted by paddle.jit.to_static
(full_graph=True: Python `while` / `if` on tensor values become pd_op.while / pd_op.if):

- gpt_greedy: greedy decoding over a tiny paddlenlp GPTForCausalLM; the carried ids tensor
  grows one token a step (concat) until max_len steps or every sequence has produced eos;
- gpt_cached: the same greedy loop as generation code writes it, feeding one token a step with
  the key/value caches the loop carries (they grow a position a step);
- gpt_beam: beam search (beam 3) over the same LM: topk over beam*vocab, beam histories
  gathered by parent, finished flags, a length penalty; each step's tokens and parents go to
  tensor arrays (create_array before the loop, array_write in it) that gather_tree backtracks;
- cond_model: a gate that takes one of two sub-networks by the input's mean, nested ifs,
  paddle.static.nn.cond, and an `if` inside a loop; it also returns the path it took;
- switch_for: paddle.static.nn.switch_case, a `for` over range(tensor) with continue and break,
  and the paddle.static.nn.while_loop API;
- nested_loops: an outer refinement loop around an inner fixed-point loop, both with trip
  counts from the feeds (counts and a tolerance);
- array_loop: a tensor array written in a while body (array_write_), read after the loop with
  tensor_array_to_tensor (stacked and concatenated), array_read and array_length.

Loop counts, eos and branch choices are feeds, so each model's `cases` drive loops of 0, 1 and
many iterations, early exits and each branch. The eos tokens of the early-exit cases are found
here by decoding eagerly with the zoo's weights (gen_zoo's set_weights, by parameter name)."""
from __future__ import annotations

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle import nn
from paddle.tensor.manipulation import tensor_array_to_tensor

from zoo.common import Model, image, token_ids
from zoo.nlp import T  # paddlenlp.transformers, imported as the first zoo does

VOCAB, HIDDEN, LAYERS, HEADS, INTERMEDIATE = 48, 32, 2, 2, 64
BATCH, PROMPT = 2, 5
BEAM = 3
NEVER = -1  # an eos id no token equals: the loop runs max_len steps
FEAT = 16


def _spec(shape, dtype, name):
    return paddle.static.InputSpec(shape, dtype, name)


def _scalar(v, dtype="int64"):
    return np.array([v], dtype=dtype)


def _lm():
    config = T.GPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                         num_attention_heads=HEADS, intermediate_size=INTERMEDIATE,
                         max_position_embeddings=64)
    return T.GPTForCausalLM(config)


def _set_weights(layer):
    """gen_zoo's set_weights (zoo_weights by parameter name), so that the builder can decode
    eagerly to find eos ids; gen_zoo sets the same values again afterwards."""
    from gen_zoo import set_weights
    set_weights(layer)


class Greedy(nn.Layer):
    """The early exit is a `break` (to_static turns it into a flag in the loop's condition); the
    per-step best logits go to a Python list, which to_static turns into a tensor array."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, max_len, eos_id):
        ids = input_ids
        finished = paddle.zeros_like(input_ids[:, 0]) > 0
        best = [paddle.zeros_like(input_ids[:, 0], "float32")]
        step = paddle.zeros([1], "int64")
        while step < max_len:
            logits = self.lm(ids, use_cache=False, return_dict=False)[:, -1, :]
            token = paddle.argmax(logits, axis=-1)
            token = paddle.where(finished, paddle.zeros_like(token) + eos_id, token)
            ids = paddle.concat([ids, token.unsqueeze(-1)], axis=1)
            best.append(paddle.max(logits, axis=-1))
            finished = paddle.logical_or(finished, token == eos_id)
            step = step + 1
            if paddle.all(finished):
                break
        return ids, paddle.stack(best), step


class CachedGreedy(nn.Layer):
    """Greedy decoding as generation code writes it: the prompt goes through the LM once, then
    each step feeds only the new token with the key/value caches of both layers, which the loop
    carries and GPT's attention grows by one position a step (concat inside the LM)."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids, max_len):
        logits, cache = self.lm(input_ids, use_cache=True, return_dict=False)[:2]
        token = paddle.argmax(logits[:, -1, :], axis=-1).unsqueeze(-1)
        ids = paddle.concat([input_ids, token], axis=1)
        (k0, v0), (k1, v1) = cache[0], cache[1]
        step = paddle.ones([1], "int64")  # the prompt's pass made the first token
        while step < max_len:
            logits, cache = self.lm(token, use_cache=True, past_key_values=((k0, v0), (k1, v1)),
                                    return_dict=False)[:2]
            (k0, v0), (k1, v1) = cache[0], cache[1]
            token = paddle.argmax(logits[:, -1, :], axis=-1).unsqueeze(-1)
            ids = paddle.concat([ids, token], axis=1)
            step = step + 1
        return ids, v1


class Beam(nn.Layer):
    """Beam search; `ids` carries each beam's whole history (re-gathered by parent each step),
    the tensor arrays carry the step tokens and parents that gather_tree backtracks: the two
    agree, and both are outputs."""

    def __init__(self, lm, beam=BEAM, vocab=VOCAB, alpha=0.6):
        super().__init__()
        self.lm, self.beam, self.vocab, self.alpha = lm, beam, vocab, alpha

    def forward(self, input_ids, max_len, eos_id):
        K, V = self.beam, self.vocab
        ids = paddle.repeat_interleave(input_ids, K, axis=0)  # [B*K, L]
        beam_no = paddle.arange(K, dtype="int64")
        zeros = paddle.zeros_like(input_ids[:, :1]) + beam_no  # [B, K] int64: 0 1 2 per row
        scores = paddle.where(zeros == 0, paddle.zeros_like(zeros, "float32"),
                              paddle.full_like(zeros, -1e9, "float32"))  # only beam 0 is live
        finished = zeros < 0
        length = paddle.zeros_like(scores)
        row_base = paddle.arange(paddle.shape(ids)[0], dtype="int64") // K * K  # [B*K]
        stay = paddle.where(paddle.arange(V, dtype="int64") == eos_id,
                            paddle.zeros([V], "float32"), paddle.full([V], -1e9, "float32"))
        tokens = paddle.tensor.create_array("int64")
        parents = paddle.tensor.create_array("int64")
        step = paddle.zeros([1], "int64")
        paddle.tensor.array_write(input_ids[:, -1:] + zeros * 0, step, tokens)
        paddle.tensor.array_write(zeros, step, parents)
        while step < max_len and not paddle.all(finished):
            logits = self.lm(ids, use_cache=False, return_dict=False)[:, -1, :]
            logp = F.log_softmax(logits, axis=-1).reshape([-1, K, V])
            # a finished beam only continues with eos, at no cost
            logp = paddle.where(finished.unsqueeze(-1), paddle.zeros_like(logp) + stay, logp)
            total = (scores.unsqueeze(-1) + logp).reshape([-1, K * V])
            scores, index = paddle.topk(total, K, axis=-1)
            parent, token = index // V, index % V
            was_finished = paddle.take_along_axis(finished.astype("int64"), parent, axis=1) > 0
            length = paddle.take_along_axis(length, parent, axis=1) + paddle.logical_not(was_finished).astype("float32")
            finished = paddle.logical_or(was_finished, token == eos_id)
            ids = paddle.gather(ids, row_base + parent.reshape([-1]), axis=0)
            ids = paddle.concat([ids, token.reshape([-1, 1])], axis=1)
            step = step + 1
            paddle.tensor.array_write(token, step, tokens)
            paddle.tensor.array_write(parent, step, parents)
        penalty = paddle.pow((5.0 + length) / 6.0, self.alpha)
        final = scores / penalty
        best = paddle.argmax(final, axis=-1)
        steps, _ = tensor_array_to_tensor(tokens, axis=0, use_stack=True)
        back, _ = tensor_array_to_tensor(parents, axis=0, use_stack=True)
        paths = F.gather_tree(steps, back)  # [steps + 1, B, K]
        return ids, paths, final, best, step


def _eager_decode(layer, feeds):
    with paddle.no_grad():
        out = layer(*[paddle.to_tensor(a) for a in feeds])
    return [o.numpy() for o in out]


def _early_exit(name, layer, max_len):
    """A prompt and the eos id with which every sequence (every beam) finishes in the fewest
    steps (>= 2) before max_len, found by eager decoding: the early-exit primary input. The
    prompts are drawn in turn (feeds input_ids, input_ids_1, ...) until one has such an eos."""
    for attempt in range(20):
        prompt = token_ids(name, [BATCH, PROMPT], VOCAB, "input_ids" + (f"_{attempt}" if attempt else ""))
        best = None
        for eos in range(1, VOCAB):
            steps = int(_eager_decode(layer, [prompt, _scalar(max_len), _scalar(eos)])[-1][0])
            if 2 <= steps < max_len and (best is None or steps < best[1]):
                best = (eos, steps)
        if best is not None:
            return prompt, best[0]
    raise RuntimeError("no prompt and eos id end every sequence early")


def _decoder(name, layer_cls, max_steps):
    lm = _lm()
    layer = layer_cls(lm)
    layer.eval()
    _set_weights(layer)
    specs = [_spec([-1, -1], "int64", "input_ids"), _spec([1], "int64", "max_len"),
             _spec([1], "int64", "eos_id")]
    prompt, eos = _early_exit(name, layer, max_steps)
    inputs = {"input_ids": prompt, "max_len": _scalar(max_steps), "eos_id": _scalar(eos)}
    cases = {
        "zero_steps": {**inputs, "max_len": _scalar(0)},
        "one_step": {**inputs, "max_len": _scalar(1), "eos_id": _scalar(NEVER)},
        "many_steps": {**inputs, "eos_id": _scalar(NEVER)},
        "b1_p3": {"input_ids": token_ids(name, [1, 3], VOCAB, "b1"), "max_len": _scalar(4),
                  "eos_id": _scalar(NEVER)},
        "b3_p7": {"input_ids": token_ids(name, [3, 7], VOCAB, "b3"), "max_len": _scalar(3),
                  "eos_id": _scalar(eos)},
    }
    notes = {"lm": f"paddlenlp GPTForCausalLM vocab {VOCAB}, hidden {HIDDEN}, {LAYERS} layers, "
                   f"{HEADS} heads",
             "primary": f"max_len {max_steps}, eos {eos}: every sequence ends early (eos chosen "
                        "by eager decoding with the zoo's weights)",
             "eos_id": f"{NEVER} in the zero/one/many-step cases: never produced"}
    return Model(layer, specs, inputs, notes, cases)


def gpt_greedy(name):
    return _decoder(name, Greedy, 12)


def gpt_cached(name):
    layer = CachedGreedy(_lm())
    specs = [_spec([-1, -1], "int64", "input_ids"), _spec([1], "int64", "max_len")]
    prompt = token_ids(name, [BATCH, PROMPT], VOCAB)
    cases = {"zero_steps": {"input_ids": prompt, "max_len": _scalar(1)},
             "one_step": {"input_ids": prompt, "max_len": _scalar(2)},
             "many_steps": {"input_ids": prompt, "max_len": _scalar(14)},
             "b1_p1": {"input_ids": token_ids(name, [1, 1], VOCAB, "b1"), "max_len": _scalar(5)},
             "b4_p9": {"input_ids": token_ids(name, [4, 9], VOCAB, "b4"), "max_len": _scalar(3)}}
    notes = {"max_len": "tokens generated, at least one (the prompt's pass): 1 runs the loop 0 times",
             "outputs": "the ids and layer 1's value cache [batch, prompt + tokens - 1, heads, head dim]"}
    return Model(layer, specs, {"input_ids": prompt, "max_len": _scalar(6)}, notes, cases)


def gpt_beam(name):
    return _decoder(name, Beam, 10)


class Gate(nn.Layer):
    """Which sub-network by the input's mean; nested ifs on the result; a static.nn.cond; an if
    in a loop of n steps. `path` records the branches taken (digits), so a case's branches are
    visible in its outputs and checked exactly."""

    def __init__(self):
        super().__init__()
        self.wide = nn.Sequential(nn.Linear(FEAT, 2 * FEAT), nn.ReLU(), nn.Linear(2 * FEAT, FEAT))
        self.narrow = nn.Sequential(nn.Linear(FEAT, FEAT), nn.Tanh())
        self.up = nn.Linear(FEAT, FEAT)
        self.down = nn.Linear(FEAT, FEAT)

    def forward(self, x, n):
        if x.mean() > 0:
            y = self.wide(x)
            path = paddle.full([1], 1, "int64")
        else:
            y = self.narrow(x) * 2.0
            path = paddle.full([1], 2, "int64")
        if y.mean() > 0:
            if y.max() > 2.0:
                z = self.up(y)
                path = path * 10 + 1
            else:
                z = y - 1.0
                path = path * 10 + 2
        else:
            z = self.down(y)
            path = path * 10 + 3
        z, path = paddle.static.nn.cond(z.abs().mean() > 0.5, lambda: (z * 0.5, path * 10 + 6),
                                        lambda: (z + 0.25, path * 10 + 7))
        i = paddle.zeros([1], "int64")
        while i < n:
            if z.mean() > 0:
                z = z - 0.3
                path = path * 10 + 4
            else:
                z = paddle.tanh(self.up(z)) + 0.2
                path = path * 10 + 5
            i = i + 1
        return z, path


def cond_model(name):
    specs = [_spec([-1, FEAT], "float32", "x"), _spec([1], "int64", "n")]
    x = image(name, [BATCH, FEAT])
    x = x - x.mean()

    def case(shift, n, batch=BATCH, scale=1.0):
        return {"x": (x[:1].repeat(batch, 0) if batch != BATCH else x) * scale + np.float32(shift),
                "n": _scalar(n)}
    # shifts and scales found by eager runs; the `path` output of each case shows its branches:
    # both first-level branches, the three nested ones, both of cond's, both in the loop, and
    # 0 / 1 / many loop steps
    cases = {"else_branch": case(-0.5, 3), "then_branch": case(0.5, 3), "zero_steps": case(0.3, 0),
             "one_step": case(-0.3, 1), "many_steps": case(1.5, 6), "b1_neg": case(-2.0, 2, 1),
             "b3_pos": case(3.0, 2, 3, 4.0), "down_branch": case(-6.0, 2, scale=0.1),
             "quarter_branch": case(-0.375, 2, scale=0.1)}
    notes = {"path": "second output: one digit per branch taken — first if 1 wide / 2 narrow; "
                     "nested 1 up / 2 minus one / 3 down; cond 6 halve / 7 plus a quarter; per loop step 4 minus / "
                     "5 tanh(up)"}
    return Model(Gate(), specs, case(0.2, 2), notes, cases)


class SwitchFor(nn.Layer):
    """paddle.static.nn.switch_case on a feed (three keyed branches and the default), a Python
    `for i in range(n)` over a tensor bound with `continue` and `break` (to_static makes it a
    while with flags), and the paddle.static.nn.while_loop API itself."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(FEAT, FEAT)
        self.b = nn.Linear(FEAT, FEAT)

    def forward(self, x, k, n):
        y = paddle.static.nn.switch_case(k, {0: lambda: self.a(x), 1: lambda: paddle.tanh(self.b(x)),
                                             3: lambda: x * 3.0}, default=lambda: x - 1.0)
        acc = paddle.zeros_like(y)
        for i in range(n[0]):  # i: a Python int in dygraph, an int64 tensor in the program
            if i % 3 == 1:
                continue
            if i == 8:  # not 7: 7 % 3 == 1 continues first, and the break would be dead code
                break
            acc = acc + y * paddle.cast(paddle.zeros([1], "int64") + i, "float32")
        # while_loop gets a copy: in dygraph it assigns the final values back into the tensors
        # it was given (acc would change), in the program it does not (FINDINGS.md i)
        rounds, halved = paddle.static.nn.while_loop(
            lambda j, a: j < n, lambda j, a: [j + 1, a * 0.5 + y], [paddle.zeros([1], "int64"), acc * 1.0])
        return y, acc, halved, rounds


def switch_for(name):
    specs = [_spec([-1, FEAT], "float32", "x"), _spec([1], "int64", "k"), _spec([1], "int64", "n")]
    x = image(name, [BATCH, FEAT])

    def case(k, n, batch=BATCH):
        return {"x": x if batch == BATCH else image(name, [batch, FEAT], f"x{batch}"),
                "k": _scalar(k), "n": _scalar(n)}
    cases = {"k0_zero_steps": case(0, 0), "k1_one_step": case(1, 1), "k3_many_steps": case(3, 6),
             "default_k2_break": case(2, 10), "default_k9_b3": case(9, 3, 3), "k1_b1": case(1, 8, 1)}
    notes = {"for": "i % 3 == 1 continues, i == 8 breaks: n 10 runs i = 0, 2, 3, 5, 6, skips 7, then breaks",
             "k": "switch_case keys 0, 1, 3; 2 and 9 take the default"}
    return Model(SwitchFor(), specs, case(0, 4), notes, cases)


class Refine(nn.Layer):
    """h <- out(z*) + h/2 for outer_n rounds, where z* is the fixed point of z = tanh(W z + h)
    iterated until the step changes z by at most tol or inner_max iterations."""

    def __init__(self):
        super().__init__()
        self.w = nn.Linear(FEAT, FEAT, bias_attr=False)
        self.out = nn.Linear(FEAT, FEAT)

    def forward(self, x, outer_n, inner_max, tol):
        h = x
        i = paddle.zeros([1], "int64")
        inner_total = paddle.zeros([1], "int64")
        while i < outer_n:
            z = h
            j = paddle.zeros([1], "int64")
            delta = paddle.full([1], 1e9, "float32")
            while j < inner_max and delta > tol:
                z_next = paddle.tanh(0.5 * self.w(z) + h)
                delta = (z_next - z).abs().max().reshape([1])
                z = z_next
                j = j + 1
            h = self.out(z) + 0.5 * h
            inner_total = inner_total + j
            i = i + 1
        return h, i, inner_total


def nested_loops(name):
    specs = [_spec([-1, FEAT], "float32", "x"), _spec([1], "int64", "outer_n"),
             _spec([1], "int64", "inner_max"), _spec([1], "float32", "tol")]
    x = image(name, [BATCH, FEAT])

    def case(outer, inner, tol, batch=BATCH):
        return {"x": x if batch == BATCH else image(name, [batch, FEAT], f"x{batch}"),
                "outer_n": _scalar(outer), "inner_max": _scalar(inner), "tol": _scalar(tol, "float32")}
    cases = {"outer_zero": case(0, 5, 1e-3), "outer_one_inner_zero": case(1, 0, 1e-3),
             "outer_one_inner_one": case(1, 1, 1e-3), "outer_many_inner_one": case(4, 30, 1e3),
             "outer_many_inner_many": case(3, 40, 1e-3), "b1": case(2, 6, 1e-2, 1),
             "b4": case(2, 50, 1e-4, 4)}
    notes = {"inner_total": "third output: inner iterations summed over the outer rounds "
                            "(tol 1e3 ends each inner loop after one step)"}
    return Model(Refine(), specs, case(3, 20, 1e-2), notes, cases)


class ArrayLoop(nn.Layer):
    """A tensor array created before the loop, written in its body (array_write_ on a value of the
    enclosing region), read after it."""

    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(FEAT, FEAT)

    def forward(self, x, n):
        states = paddle.tensor.create_array("float32")
        i = paddle.zeros([1], "int64")
        paddle.tensor.array_write(x, i, states)
        h = x
        while i < n:
            h = paddle.tanh(self.cell(h))
            i = i + 1
            paddle.tensor.array_write(h, i, states)
        stacked, _ = tensor_array_to_tensor(states, axis=0, use_stack=True)
        joined, sizes = tensor_array_to_tensor(states, axis=1)
        last = paddle.tensor.array_read(states, i)
        count = paddle.zeros([1], "int64") + paddle.tensor.array_length(states)  # an int in dygraph
        # the sizes are int32 in the static program, int64 in dygraph: int64 in both
        return stacked, joined, sizes.astype("int64"), last, count


def array_loop(name):
    specs = [_spec([-1, FEAT], "float32", "x"), _spec([1], "int64", "n")]
    x = image(name, [BATCH, FEAT])
    cases = {"zero_steps": {"x": x, "n": _scalar(0)}, "one_step": {"x": x, "n": _scalar(1)},
             "many_steps": {"x": x, "n": _scalar(7)},
             "b1": {"x": image(name, [1, FEAT], "x1"), "n": _scalar(2)},
             "b5": {"x": image(name, [5, FEAT], "x5"), "n": _scalar(4)}}
    return Model(ArrayLoop(), specs, {"x": x, "n": _scalar(3)}, {}, cases)


MODELS = {f.__name__: f for f in (gpt_greedy, gpt_cached, gpt_beam, cond_model, switch_for, nested_loops,
                                  array_loop)}
