#!/usr/bin/env python3
"""How far each decision of the decoding zoo's models is from a tie (zoo2/decoding.py).

A loop count or branch that a float32 rounding could flip would make pirc's outputs differ from
Paddle's on another CPU (another summation order) by a whole token or a whole branch. This
replays every input set of the models (primary and `cases`) eagerly in Paddle, with the zoo's
weights, and records per input set the smallest margin of its decisions:
- gpt_greedy: best minus second-best logit of each unfinished sequence at each step;
- gpt_cached: the same, replayed without the cache (the replay's ids must equal the layer's);
- gpt_beam: the K-th minus the (K+1)-th candidate score of each step's topk, and the smallest
  gap between the K chosen ones (their order is an output); the replay's histories must equal
  the layer's;
- cond_model: |value - threshold| of every `if` and `cond` predicate taken;
- nested_loops: |change - tol| / tol of every inner-loop test.
Writes tools/paddle_oracle/results/decoding_margins.VER.json; run from the repo root:

    /tmp/pd331/bin/python tools/paddle_oracle/check_decoding_margins.py
"""
import importlib.metadata
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE)))  # tools/: zoo_weights
os.environ["PIRC_ZOO_PACKAGE"] = "zoo2"

import numpy as np  # noqa: E402
import paddle  # noqa: E402
import paddle.nn.functional as F  # noqa: E402

from gen_zoo import set_weights  # noqa: E402
from zoo2 import decoding as d  # noqa: E402


def model(name):
    paddle.seed(0)
    m = d.MODELS[name](name)
    set_weights(m.layer)
    m.layer.eval()
    return m, [("primary", m.inputs), *m.cases.items()]


def last_logits(lm, ids):
    return lm(paddle.to_tensor(ids), use_cache=False, return_dict=False)[:, -1, :]


def greedy(m, f):
    ids, eos = f["input_ids"], int(f["eos_id"][0])
    finished, gaps = np.zeros(len(ids), bool), []
    for _ in range(int(f["max_len"][0])):
        logits = np.sort(last_logits(m.layer.lm, ids).numpy(), -1)
        gaps += list((logits[:, -1] - logits[:, -2])[~finished])
        token = np.where(finished, eos, last_logits(m.layer.lm, ids).numpy().argmax(-1))
        ids = np.concatenate([ids, token[:, None]], 1)
        finished |= token == eos
        if finished.all():
            break
    return gaps


def cached(m, f):
    """The same decisions as the cached loop makes, recomputed over the whole sequence."""
    ids, gaps = f["input_ids"], []
    for _ in range(max(int(f["max_len"][0]), 1)):
        logits = last_logits(m.layer.lm, ids).numpy()
        top = np.sort(logits, -1)
        gaps += list(top[:, -1] - top[:, -2])
        ids = np.concatenate([ids, logits.argmax(-1)[:, None]], 1)
    out = m.layer(*[paddle.to_tensor(f[k]) for k in ("input_ids", "max_len")])
    if not np.array_equal(out[0].numpy(), ids):
        raise AssertionError("the replay's ids differ from the cached loop's")
    return gaps


def beam(m, f):
    K, V = d.BEAM, d.VOCAB
    prompt, eos, B = f["input_ids"], int(f["eos_id"][0]), len(f["input_ids"])
    ids = np.repeat(prompt, K, 0)
    scores = np.full((B, K), -1e9, np.float32)
    scores[:, 0] = 0
    finished, gaps, step = np.zeros((B, K), bool), [], 0
    stay = np.where(np.arange(V) == eos, 0, -1e9).astype(np.float32)
    while step < int(f["max_len"][0]) and not finished.all():
        logp = F.log_softmax(last_logits(m.layer.lm, ids), -1).numpy().reshape(B, K, V)
        total = (scores[..., None] + np.where(finished[..., None], stay, logp)).reshape(B, -1)
        order = np.argsort(-total, -1, kind="stable")
        ranked = np.take_along_axis(total, order, -1)
        gaps += list(ranked[:, K - 1] - ranked[:, K]) + list(np.abs(np.diff(ranked[:, :K], axis=-1)).ravel())
        scores, parent, token = ranked[:, :K], order[:, :K] // V, order[:, :K] % V
        finished = np.take_along_axis(finished, parent, 1) | (token == eos)
        ids = ids[np.arange(B * K) // K * K + parent.reshape(-1)]
        ids = np.concatenate([ids, token.reshape(-1, 1)], 1)
        step += 1
    out = m.layer(*[paddle.to_tensor(f[k]) for k in ("input_ids", "max_len", "eos_id")])
    if not np.array_equal(out[0].numpy(), ids):
        raise AssertionError("the beam replay's histories differ from the layer's")
    return gaps


def cond(m, f):
    gate, x, margins = m.layer, paddle.to_tensor(f["x"]), []
    margins.append(float(x.mean()))
    y = gate.wide(x) if float(x.mean()) > 0 else gate.narrow(x) * 2.0
    margins.append(float(y.mean()))
    if float(y.mean()) > 0:
        margins.append(float(y.max()) - 2.0)
        z = gate.up(y) if float(y.max()) > 2.0 else y - 1.0
    else:
        z = gate.down(y)
    margins.append(float(z.abs().mean()) - 0.5)
    z = z * 0.5 if float(z.abs().mean()) > 0.5 else z + 0.25
    for _ in range(int(f["n"][0])):
        margins.append(float(z.mean()))
        z = z - 0.3 if float(z.mean()) > 0 else paddle.tanh(gate.up(z)) + 0.2
    return [abs(v) for v in margins]


def nested(m, f):
    refine, h, tol, margins = m.layer, paddle.to_tensor(f["x"]), float(f["tol"][0]), []
    for _ in range(int(f["outer_n"][0])):
        z, j, delta = h, 0, 1e9
        while j < int(f["inner_max"][0]) and delta > tol:
            z_next = paddle.tanh(0.5 * refine.w(z) + h)
            delta = float((z_next - z).abs().max())
            margins.append(abs(delta - tol) / tol)
            z, j = z_next, j + 1
        h = refine.out(z) + 0.5 * h
    return margins


CHECKS = {"gpt_greedy": greedy, "gpt_cached": cached, "gpt_beam": beam, "cond_model": cond, "nested_loops": nested}


def margins_of(name):
    m, sets = model(name)
    with paddle.no_grad():
        return {label: (float(min(v)) if v else None)
                for label, v in ((label, CHECKS[name](m, feeds)) for label, feeds in sets)}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":  # a child: one model, printed as JSON
        print("MARGINS " + json.dumps(margins_of(sys.argv[2])))
        return
    version = importlib.metadata.version("paddlepaddle")
    results = {}
    for name in CHECKS:
        # each model in its own process, as gen_zoo builds it: Paddle names parameters
        # (linear_N.w_0) by creation order in the process, and zoo_weights draws by name
        run = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name],
                             capture_output=True, text=True, check=True)
        line = next(x for x in run.stdout.splitlines() if x.startswith("MARGINS "))
        results[name] = json.loads(line[len("MARGINS "):])
        print(name, json.dumps(results[name]))
    with open(os.path.join(HERE, "results", f"decoding_margins.{version}.json"), "w") as f:
        json.dump({"paddle_version": version, "what": "smallest margin from a tie per input set "
                   "(check_decoding_margins.py docstring); None: no decision taken",
                   "models": results}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
