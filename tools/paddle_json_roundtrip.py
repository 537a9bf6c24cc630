"""Time Paddle's own C++ load and save of a saved-program JSON (the reference for pirc-opt).

Run with a Python that has paddlepaddle (never pirc's venv; e.g.
`python3 -m venv /work/venv-paddle && /work/venv-paddle/bin/pip install paddlepaddle==3.3.1`):

    /work/venv-paddle/bin/python tools/paddle_json_roundtrip.py IN.json OUT.json

Prints one JSON line: {"load_s": ..., "save_s": ..., "load_cpu_s": ..., "save_cpu_s": ...,
"ops": ..., "paddle": "3.3.1"} (wall and CPU seconds; the op count Paddle read).  Only the two C++
calls are timed (`core.deserialize_pir_program`, `core.serialize_pir_program`, what
`paddle.static.load_inference_model` / `save_inference_model` use for the program), not
Paddle's import (~2-4 s) nor the process's exit: the figure is Paddle's C++ at its best.
tools/bench_frontend.py --paddle-python runs it beside pirc-opt.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    src, out = sys.argv[1], sys.argv[2]
    import paddle
    from paddle.base import core

    paddle.enable_static()
    program = paddle.static.Program()
    t0, c0 = time.perf_counter(), time.process_time()
    core.deserialize_pir_program(src, program, -1)
    t1, c1 = time.perf_counter(), time.process_time()
    core.serialize_pir_program(program, out, True, False, True)  # overwrite, compact, trainable
    t2, c2 = time.perf_counter(), time.process_time()
    print(json.dumps({"load_s": round(t1 - t0, 3), "save_s": round(t2 - t1, 3),
                      "load_cpu_s": round(c1 - c0, 3), "save_cpu_s": round(c2 - c1, 3),
                      "ops": len(program.global_block().ops), "paddle": paddle.__version__}),
          flush=True)


if __name__ == "__main__":
    main()
