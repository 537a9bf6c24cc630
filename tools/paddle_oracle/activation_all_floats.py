#!/usr/bin/env python3
"""Paddle's silu and exact gelu against pirc's candidates on every float32 bit pattern (2^32
inputs), and on 4M float64 inputs.

Paddle's CPU SiluFunctor is x / (1 + exp(-x)) with Eigen's vectorised exp; torch has no call
with Eigen's exp, so pirc cannot give Paddle's bits.  This counts how far each candidate is:

- silu `composition`: x / (1 + torch.exp(-x)), the operations of Paddle's functor with torch's
  exp (pirc's pd_op.silu kernel until 2026-12-05: four torch calls);
- silu `F.silu`: torch's silu kernel (one call; pirc's float32 / float64 kernel from
  2026-12-05);
- silu `x * sigmoid(x)`: for reference;
- gelu `gelu_erf`: pirc's pd_op.gelu kernel and, from 2026-12-05, npu_gelu's CPU reference
  (pirc/lower/gelu_erf.py: Paddle's MKLML order with torch.erf);
- gelu `F.gelu`: torch's gelu (npu_gelu's CPU reference until 2026-12-05).

Run by hand from the repo root with pirc's Python (paddlepaddle lives in a scratch venv):

    python tools/paddle_oracle/activation_all_floats.py --paddle /tmp/pd331/bin/python \\
        [--log tools/paddle_oracle/activation_all_floats.log]

The Paddle child computes both ops over the patterns in chunks and writes its outputs'
bytes to a pipe; nothing is written to disk.  float64 (2^64 patterns are out of reach): 2M
standard normals times 4, 1M uniform in [-800, 800] and 1M random bit patterns, seeded.  Per
candidate: inputs whose output bits differ from Paddle's, NaN where Paddle has none (or the
reverse), and the largest difference in ulp (the distance between the two floats' positions
on the ordered float line).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

CHUNK = 1 << 26
OPS = ("silu", "gelu")

CHILD = r"""
import sys, numpy as np, paddle, paddle.nn.functional as F
paddle.set_device("cpu")
chunk = int(sys.argv[1])
ops = (F.silu, F.gelu)
out = sys.stdout.buffer
# the float64 inputs first (the parent writes them all, then reads), their outputs last
x64 = paddle.to_tensor(np.frombuffer(sys.stdin.buffer.read(), np.float64))
y64 = [op(x64).numpy() for op in ops]
for start in range(0, 1 << 32, chunk):
    x = paddle.to_tensor(
        np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32))
    for op in ops:
        out.write(op(x).numpy().tobytes())
for y in y64:
    out.write(y.tobytes())
out.flush()
print(paddle.__version__, file=sys.stderr)
"""


def ordered(bits: np.ndarray) -> np.ndarray:
    """float32 bit patterns as positions on the ordered float line (int64)."""
    b = bits.astype(np.int64)
    return np.where(b >= 1 << 31, (1 << 31) - b, b)


def ordered64(values: np.ndarray) -> np.ndarray:
    """float64 values as positions on the ordered float line (object ints: no overflow)."""
    b = values.view(np.int64).astype(object)
    return np.where(b < 0, -(2 ** 63) - b, b)


def float64_inputs() -> np.ndarray:
    rng = np.random.default_rng(1)
    return np.concatenate([rng.standard_normal(2_000_000) * 4,
                           rng.uniform(-800, 800, 1_000_000),
                           rng.integers(0, 2 ** 63, 1_000_000, dtype=np.int64).view(np.float64)])


def candidates() -> dict:
    import torch
    import torch.nn.functional as F

    from pirc.lower.gelu_erf import gelu_erf

    return {
        "silu": {"composition": lambda x: x / (1 + torch.exp(-x)), "F.silu": F.silu,
                 "x * sigmoid(x)": lambda x: x * torch.sigmoid(x)},
        "gelu": {"gelu_erf": gelu_erf, "F.gelu": F.gelu},
    }


def tally(stats: dict, got: np.ndarray, want: np.ndarray, pos) -> None:
    """Add one chunk's comparison of `got` against Paddle's `want` to `stats`."""
    got_nan, want_nan = np.isnan(got), np.isnan(want)
    stats["nan_mismatch"] += int(np.count_nonzero(got_nan != want_nan))
    both = ~(got_nan | want_nan)
    ulp = np.abs(pos(got[both]) - pos(want[both]))
    stats["differ"] += int(np.count_nonzero(ulp))
    stats["over_1ulp"] += int(np.count_nonzero(ulp > 1))
    stats["max_ulp"] = max(stats["max_ulp"], int(ulp.max(initial=0)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--paddle", required=True, help="python of a venv with paddlepaddle")
    ap.add_argument("--log", help="write the summary here too")
    args = ap.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    cands = candidates()

    def fresh():
        return {op: {k: {"differ": 0, "nan_mismatch": 0, "max_ulp": 0, "over_1ulp": 0}
                     for k in cands[op]} for op in OPS}

    stats, stats64 = fresh(), fresh()
    t0 = time.time()
    child = subprocess.Popen([args.paddle, "-c", CHILD, str(CHUNK)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    x64 = float64_inputs()
    child.stdin.write(x64.tobytes())
    child.stdin.close()
    f32 = lambda v: ordered(v.view(np.uint32))   # noqa: E731
    with torch.no_grad():
        for start in range(0, 1 << 32, CHUNK):
            x = torch.from_numpy(np.arange(start, start + CHUNK, dtype=np.uint64)
                                 .astype(np.uint32).view(np.float32))
            for op in OPS:
                raw = child.stdout.read(CHUNK * 4)
                if len(raw) != CHUNK * 4:
                    sys.exit(f"paddle child stopped at pattern {start}: "
                             f"{child.stderr.read().decode()}")
                want = np.frombuffer(raw, np.float32)
                for name, fn in cands[op].items():
                    tally(stats[op][name], fn(x).numpy(), want, f32)
        for op in OPS:
            want64 = np.frombuffer(child.stdout.read(x64.size * 8), np.float64)
            for name, fn in cands[op].items():
                tally(stats64[op][name], fn(torch.from_numpy(x64)).numpy(), want64, ordered64)
    child.wait()
    version = child.stderr.read().decode().strip().splitlines()[-1]
    header = ("op | candidate | outputs differing from Paddle's | of them > 1 ulp | max ulp | "
              "NaN where Paddle has none (or the reverse)")
    lines = [f"Paddle {version}, torch {torch.__version__} "
             f"({torch.backends.cpu.get_cpu_capability()}), {time.time() - t0:.0f} s"]
    for label, table, n in (("float32, every bit pattern (2^32 inputs)", stats, 2 ** 32),
                            (f"float64, {x64.size} inputs (normal, uniform, bit patterns)",
                             stats64, x64.size)):
        lines += ["", label, header]
        for op in OPS:
            for name, s in table[op].items():
                lines.append(f"{op} | {name} | {s['differ']} ({100 * s['differ'] / n:.2f}%) | "
                             f"{s['over_1ulp']} | {s['max_ulp']} | {s['nan_mismatch']}")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.log:
        with open(args.log, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
