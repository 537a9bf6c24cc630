"""Time reading and writing a large Paddle JSON program.

The program is made by repeating the real ops of the corpus models (with
control flow) until it has N ops, shifting value ids so each copy is a
well-formed program of its own:

    python tools/bench_json.py [--ops 100000] [--repeat 3] [--save FILE]

Timings are wall-clock, best of --repeat; on a loaded machine they vary a lot.
"""

from __future__ import annotations

import argparse
import gc
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pirc.paddle_json.equality import documents_equal  # noqa: E402
from pirc.paddle_json.reader import read_program  # noqa: E402
from pirc.paddle_json.writer import write_program  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus" / "3.3.1"
MODELS = ("transformer", "cnn", "control_flow", "mlp")


def _count(ops) -> int:
    n = 0
    for op in ops:
        n += 1
        for r in op.get("regions", ()):
            for b in r["blocks"]:
                n += _count(b["ops"])
    return n


def _shift(obj, pos: int, neg: int):
    """Shift every value id (results, operands, block args) of a JSON fragment."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k == "%" and isinstance(v, int):
                out[k] = v + pos if v > 0 else v - neg if v < 0 else 0
            elif k == "#" and isinstance(v, int):  # block argument id
                out[k] = v - neg
            elif k in ("AT", "TT"):
                out[k] = v
            else:
                out[k] = _shift(v, pos, neg)
        return out
    if isinstance(obj, list):
        return [_shift(x, pos, neg) for x in obj]
    return obj


def _id_span(ops) -> tuple[int, int]:
    text = json.dumps(ops)
    doc = json.loads(text)
    pos, neg = 0, 0

    def walk(o):
        nonlocal pos, neg
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "%" and isinstance(v, int):
                    pos = max(pos, v)
                elif k == "#" and isinstance(v, int):
                    neg = max(neg, -v)
                elif k not in ("AT", "TT"):
                    walk(v)
        elif isinstance(o, list):
            for x in o:
                walk(x)

    walk(doc)
    return pos, neg


def make_program(n_ops: int, models=MODELS) -> dict:
    units = []
    for m in models:
        doc = json.loads((CORPUS / f"{m}.3.3.1.json").read_text())
        ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
        units.append((ops, _count(ops), *_id_span(ops)))
    base = json.loads((CORPUS / "transformer.3.3.1.json").read_text())
    out_ops: list = []
    total, pos, neg, i = 0, 0, 0, 0
    while total < n_ops:
        ops, count, span_pos, span_neg = units[i % len(units)]
        out_ops.extend(_shift(ops, pos, neg))  # _shift copies what it changes
        total += count
        pos += span_pos
        neg += span_neg
        i += 1
    base["program"]["regions"][0]["blocks"][0]["ops"] = out_ops
    return base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default=",".join(MODELS),
                    help="corpus models to repeat (default: %(default)s)")
    ap.add_argument("--save", help="also write the generated JSON here")
    args = ap.parse_args()

    text = json.dumps(make_program(args.ops, args.models.split(",")), separators=(",", ":"))
    if args.save:
        pathlib.Path(args.save).write_text(text)
    print(f"program: {len(text) / 1e6:.1f} MB")

    loads, reads, writes = [], [], []
    out = ""
    for _ in range(args.repeat):
        gc.collect()
        gc.disable()  # as read_program does: measure the parser, not the collector
        t0 = time.perf_counter()
        json.loads(text)
        t1 = time.perf_counter()
        gc.enable()
        gc.collect()
        t1b = time.perf_counter()
        program = read_program(text)
        t2 = time.perf_counter()
        out = write_program(program)
        t3 = time.perf_counter()
        loads.append(t1 - t0)
        reads.append(t2 - t1b)
        writes.append(t3 - t2)
        del program
    program = read_program(text)
    print(f"ops: {program.op_count()}")
    print(f"json.loads alone (GC paused): {min(loads):.3f} s")
    print(f"read_program (incl. loads):   {min(reads):.3f} s   (best of {args.repeat})")
    print(f"write_program:                {min(writes):.3f} s")
    # The copies keep their original region/block names, so the first write
    # renames them; after that, writing is a fixed point.
    again = write_program(read_program(out))
    print(f"write(read(out)) == out: {again == out}")
    diffs = documents_equal(text, out)
    print(f"documents_equal(input, output): {'equal' if not diffs else diffs[:3]}")


if __name__ == "__main__":
    main()
