"""What Paddle's scale kernel gives an integer tensor for a non-finite or out-of-range factor
or bias (issue 20 item 7): tests/fixtures/paddle_checks/scale_int_cast.json.

    /work/venvs/pd331/bin/python tools/paddle_oracle/gen_scale_int_cast.py \
        --out tests/fixtures/paddle_checks/scale_int_cast.json        # ~10 s, CPU wheel

Paddle casts scale and bias to the tensor's integer type (Scalar::to<T>, a C++ static_cast)
before computing; on x86-64 that cast turns NaN, inf and out-of-range values into INT_MIN.
Each case runs twice: in dygraph (scale an attribute) and in a static PIR program with the
factor a float32 `full` tensor (what a saved program holds); both are recorded.
"""

import argparse
import json

import numpy as np
import paddle

NAN, INF = float("nan"), float("inf")
X = [1, 2, 3, -4, 0, 100]
SCALES = [NAN, INF, -INF, 2.0, 2.7, 300.0, 3e9, -3e9, 1e19]
BIASES = [0.0, 1.0, -1.9, NAN, INF]
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def spell(v: float):
    return v if np.isfinite(v) else str(v)  # JSON has no NaN / inf


def dygraph(x, dtype, s, b, after):
    return paddle.scale(paddle.to_tensor(x.astype(dtype)), scale=s, bias=b,
                        bias_after_scale=after).numpy().tolist()


def static(x, dtype, s, b, after):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xv = paddle.static.data("x", [len(X)], dtype)
        y = paddle.scale(xv, scale=paddle.full([1], s, "float32"), bias=b, bias_after_scale=after)
    out, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x.astype(dtype)},
                                                          fetch_list=[y])
    return out.tolist()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    x = np.array(X)
    cases = []
    for dtype in DTYPES:
        for s in SCALES:
            for b in BIASES:
                for after in (True, False):
                    cases.append({"dtype": dtype, "scale": spell(s), "bias": spell(b),
                                  "bias_after_scale": after, "dygraph": dygraph(x, dtype, s, b, after)})
    paddle.enable_static()
    for case in cases:
        s, b = float(case["scale"]), float(case["bias"])
        case["static_f32_scale"] = static(x, case["dtype"], s, b, case["bias_after_scale"])
    doc = {"paddle": paddle.__version__, "x": X, "cases": cases}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(cases)} cases -> {args.out}")


if __name__ == "__main__":
    main()
