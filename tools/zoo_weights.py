"""Deterministic weights for the development zoo (tests/fixtures/zoo/), numpy only.

`value(name, shape, dtype)` is a parameter's value from its name alone: the generator
(tools/paddle_oracle/gen_zoo.py, run with a Paddle venv's python) sets every parameter of a
model to it before saving, and the tests (tests/unit/test_zoo.py) rebuild the same values from
the saved program's `builtin.parameter` ops, so the large `.pdiparams` files are not committed.

The seed is the first 8 bytes of sha256(name); the draw is a standard normal scaled like a
sensible initialisation, chosen by Paddle's parameter naming (`LAYER_N.w_K` / `LAYER_N.b_K`):
- batch-norm statistics (`batch_norm*` / `*norm*` names, 1-D): `.w_1` (running mean) 0.1 * N,
  `.w_2` (running variance) uniform in [0.5, 1.5), always positive;
- other 1-D `.w_*` (norm scales, e.g. batch_norm / layer_norm / RMSNorm weights): 1 + 0.1 * N;
- biases (`.b_*`, any rank) 0.05 * N;
- 2-D weights (Paddle's Linear is [in, out]; embeddings [vocab, hidden]): N / sqrt(shape[0]);
- convolution kernels ([out, in/groups, k...]): N / sqrt(prod(shape[1:]));
- integer and bool parameters: zeros.
The values are drawn in float64 and rounded once to the parameter's dtype.

`zoo_params(program, constants)` is every parameter of a zoo program: these values, except the
tensors the model's forward built eagerly, which gen_zoo.py saved as MODEL.VER.constants.npz.

`materialise(DEST)` (or `python -m tools.zoo_weights materialise DEST [--names bert,gpt]
[--releases 3.0.0] [--zoos zoo2]`) writes the dev zoos as a folder of saved models, the way a
user's model store holds them: DEST/ZOO/RELEASE/MODEL.RELEASE.json (the committed program, as
Paddle saved it), MODEL.RELEASE.pdiparams (zoo_params, written by pirc.write_params: the bytes
Paddle's own file had, tests/unit/test_zoo.py checks them against gen_log's sha256; none for a
model without parameters, as Paddle writes none) and
MODEL.RELEASE.io.npz (the recorded inputs and outputs, copied).  pirc-migrate's tests and its
benchmark run on such a folder.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import shutil
import sys

import numpy as np

ZOOS = ("zoo", "zoo2")
RELEASES = ("3.0.0", "3.3.1")


def seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def _kind(name: str, ndim: int) -> str:
    suffix = name.rsplit(".", 1)[-1]
    if suffix.startswith("b_"):
        return "bias"
    if ndim == 1:
        stat = "norm" in name or name.startswith("bn") or "batch_norm" in name
        if stat and suffix == "w_1":
            return "mean"
        if stat and suffix == "w_2":
            return "variance"
        return "scale"
    if ndim == 0:
        return "scale"
    return "weight"


def value(name: str, shape, dtype="float32") -> np.ndarray:
    """The parameter `name` of `shape` and `dtype`, the same on every machine."""
    shape = tuple(int(d) for d in shape)
    dtype = np.dtype("float32" if dtype == "bfloat16" else dtype)
    if dtype.kind not in "fc":
        return np.zeros(shape, dtype)
    rng = np.random.default_rng(seed(name))
    kind = _kind(name, len(shape))
    if kind == "variance":
        draw = rng.uniform(0.5, 1.5, shape)
    else:
        normal = rng.standard_normal(shape)
        if kind == "mean":
            draw = 0.1 * normal
        elif kind == "scale":
            draw = 1.0 + 0.1 * normal
        elif kind == "bias":
            draw = 0.05 * normal
        else:
            fan_in = shape[0] if len(shape) == 2 else math.prod(shape[1:])
            draw = normal / math.sqrt(max(fan_in, 1))
    return draw.astype(dtype)



def zoo_params(program, constants=None):
    """Every builtin.parameter of the program: the model's constants (the MODEL.VER.constants.npz
    path `constants`, where the forward built tensors eagerly), the rest rebuilt by `value`."""
    from pirc.ir.types import ELEMENT_TYPE_NAMES
    from pirc.runtime.params import DTYPES, ELEMENT_CODES, parameter_types

    fixed = {}
    if constants and os.path.exists(constants):
        with np.load(constants) as d:
            fixed = {k: d[k] for k in d.files}
    return {name: fixed[name] if name in fixed else
            value(name, t.shape, DTYPES[ELEMENT_CODES[ELEMENT_TYPE_NAMES[t.dtype]]][0])
            for name, t in parameter_types(program).items()}


def materialise(dest, releases=RELEASES, zoos=ZOOS, names=None) -> list[str]:
    """Write the zoos' models (those with recorded inputs, as tools/bench_run.zoo_models lists
    them; `names`: only these models) under `dest` as ZOO/RELEASE/MODEL.RELEASE.json, .pdiparams
    and .io.npz; returns the programs' paths relative to `dest`, sorted."""
    import pirc
    from pirc.runtime.persistence import persisted_names
    from tools.bench_run import ZOOS as FOLDERS, zoo_models

    written = []
    for zoo in zoos:
        for release in releases:
            models = zoo_models(release, FOLDERS[zoo], names)
            if not models:
                continue
            folder = os.path.join(dest, zoo, release)
            os.makedirs(folder, exist_ok=True)
            for model in models:
                stem = model.program[:-len(".json")]
                out = os.path.join(folder, os.path.basename(stem))
                program = pirc.load(model.program)
                shutil.copyfile(model.program, out + ".json")
                if persisted_names(program):  # Paddle writes no file for a model without any
                    pirc.write_params(out + ".pdiparams",
                                      zoo_params(program, stem + ".constants.npz"), program)
                shutil.copyfile(model.io, out + ".io.npz")
                written.append(f"{zoo}/{release}/{os.path.basename(stem)}.json")
    return sorted(written)


def _names(text: str) -> list[str]:
    return [n for n in text.split(",") if n]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.zoo_weights",
                                     description="Write the dev zoos with their weights.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("materialise", help="DEST/ZOO/RELEASE/MODEL.RELEASE.{json,pdiparams,io.npz}")
    m.add_argument("dest")
    m.add_argument("--names", type=_names, default=None, help="models, comma-separated (default: all)")
    m.add_argument("--releases", type=_names, default=list(RELEASES))
    m.add_argument("--zoos", type=_names, default=list(ZOOS))
    args = parser.parse_args(argv)
    unknown = sorted(set(args.zoos) - set(ZOOS))
    if unknown:
        parser.error(f"--zoos: no zoo {', '.join(unknown)} (the zoos: {', '.join(ZOOS)})")
    written = materialise(args.dest, tuple(args.releases), tuple(args.zoos), args.names)
    if not written:
        print(f"no zoo model matches --names {','.join(args.names or [])} in "
              f"{','.join(args.zoos)} {','.join(args.releases)}", file=sys.stderr)
        return 1
    print(f"{len(written)} model{'' if len(written) == 1 else 's'} written under {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
