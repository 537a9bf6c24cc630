"""The pass layer's other inputs, fuzzed through the commands a user runs (in process):

  spec       `pirc-opt P -p SPEC`: pipeline spec strings (pass names, `{opt=value}` options
             with odd values, `builtin.module(...)`, --print-ir-before/after names);
  rollout    `pirc-opt P -p default --rollout FILE`: rollout YAML;
  repro      `pirc-opt --run-reproducer FILE`: crash / bisection reproducers (header lines
             `// pipeline:` and `// bisect-limit:` over canonical IR);
  tags-text  `pirc-opt FILE.pir -p cse,dce`: the `pir.graph_tags` / `pir.manifest` header lines;
  tags-json  `pirc-opt FILE.json -p cse,dce`: the same under JSON `base_code.pirc`;
  inputs     `pirc-run P --inputs FILE`: .npz files (member names, dtypes, byte orders,
             shapes, 0-D, headers, corrupt zips, a plain .npy);
  params     `pirc-run P --params FILE` and `pirc-opt P -p default --params FILE --params-out`:
             .pdiparams streams (dims, dtype codes, sizes, truncation, byte noise).

The property: the command ends with pirc's own error (exit 1, a PircError under --debug),
an argparse usage error (2) or success; anything else (an exception escaping, exit 70) is a
finding, classified by its signature.  Programs are generated aliasing programs (a pool of
64, with their parameters and feeds), written once per worker.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import struct
import tempfile
import warnings
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from pirc.errors import PircError

from .checks import Outcome
from .mutators import chars

POOL = 64
SURFACE_OPS = 5  # the programs' size matters little to these surfaces; small ones run faster
_ODD_INTS = ["0", "1", "-1", "10", "2147483648", "9223372036854775808", "-9223372036854775809",
             "1e3", "0x10", "1_000", "+4", "-0", "١٢", "²", "٣", "1.5", "nan", "inf", "", " 3 ",
             "true", "false", "'a'", '"x"', "\ud800", "９"]


def _huge(rng: random.Random) -> str:
    return rng.choice(["9", "1", "0"]) * rng.choice([19, 20, 100, 4301, 5000])


def _value(rng: random.Random) -> str:
    return _huge(rng) if rng.random() < 0.1 else rng.choice(_ODD_INTS)


# -- the programs the surfaces apply to -----------------------------------------------------

_DIR: Path | None = None
_DIR_PID = 0
_WRITTEN: dict[int, tuple[str, str, str]] = {}


def _workdir() -> Path:
    """This process's folder: workers forked from one parent must not share their files."""
    global _DIR, _DIR_PID
    if _DIR is None or _DIR_PID != os.getpid() or not _DIR.exists():
        _DIR, _DIR_PID = Path(tempfile.mkdtemp(prefix="pirc-fuzz-surfaces-")), os.getpid()
        _WRITTEN.clear()
    return _DIR


def program_files(n: int) -> tuple[str, str, str]:
    """(program .pir, its .pdiparams or '', its inputs .npz) of pool program n."""
    _workdir()
    if n in _WRITTEN and Path(_WRITTEN[n][0]).exists():
        return _WRITTEN[n]
    import pirc
    from .differential import synth_arrays
    from .generate import generated_aliasing_program

    text = generated_aliasing_program(n, SURFACE_OPS)
    d = _workdir()
    prog = d / f"p{n}.pir"
    prog.write_text(text)
    program = pirc.parse(text, from_version=4)
    inputs, params = synth_arrays(program, f"pool/{n}")
    npz = d / f"p{n}.npz"
    np.savez(npz, **inputs)
    pdi = ""
    if params:
        pdi = str(d / f"p{n}.pdiparams")
        pirc.write_params(pdi, params, program)
    _WRITTEN[n] = (str(prog), pdi, str(npz))
    return _WRITTEN[n]


def _out(name: str) -> str:
    return str(_workdir() / name)


def warm(front: str) -> None:
    """Fill the per-process caches a front end's inputs are made from (in the parent, before
    the workers fork, so that each worker does not build all 64 programs again)."""
    from .generate import generated_aliasing_program

    for n in range(POOL):
        generated_aliasing_program(n, SURFACE_OPS)
        if front == "repro":
            _canonical(n)
        elif front == "tags-text":
            _canonical(n, "default")
        elif front == "tags-json":
            _optimised_json(n)
        elif front == "inputs":
            _program_feeds(n)
        elif front == "params":
            _param_types(n)


# -- running a command in process -------------------------------------------------------------


def run_command(which: str, argv: list[str]) -> Outcome:
    """`pirc-opt` / `pirc-run` with `argv` (and --debug, so an internal error raises here
    with its traceback instead of becoming exit 70)."""
    if which == "opt":
        from pirc.cli.opt import run
    else:
        from pirc.cli.run import run
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            status = run(argv + ["--debug"])
        except PircError as e:
            return Outcome(note=e.render())
        except SystemExit as e:  # argparse: a usage error is exit 2 with its message
            if e.code in (0, 2, None):
                return Outcome(note=sink.getvalue()[-500:])
            raise
    if status not in (0, 1):
        raise RuntimeError(f"exit {status} from {which} {' '.join(argv)}:\n{sink.getvalue()[-2000:]}")
    return Outcome(status == 0, status == 0)


def _write_case_file(case, name: str) -> str:
    path = _out(name)
    if case.front in BINARY:
        Path(path).write_bytes(case.data.encode("latin-1"))
    else:
        Path(path).write_text(case.data, encoding="utf-8", errors="surrogatepass")
    return path


BINARY = ("inputs", "params")


def check_surface_case(case) -> Outcome:
    prog, pdi, npz = program_files(case.pool_index or 0)
    args = list(case.args or [])
    if case.front == "spec":
        return run_command("opt", [prog, "--from-version=4", "-p", case.data, "-o", _out("o.pir")]
                           + (["--params", pdi] if pdi and "params" in args else [])
                           + [a for a in args if a != "params"])
    if case.front == "rollout":
        f = _write_case_file(case, "r.yaml")
        return run_command("opt", [prog, "--from-version=4", "-p", "default", "--rollout", f,
                                   "-o", _out("o.pir")])
    if case.front == "repro":
        f = _write_case_file(case, "r.pir")
        return run_command("opt", ["--run-reproducer", f, "-o", _out("o.pir")])
    if case.front == "tags-text":
        f = _write_case_file(case, "t.pir")
        return run_command("opt", [f, "-p", "cse,dce", "-o", _out("o." + (args or ["pir"])[0])])
    if case.front == "tags-json":
        f = _write_case_file(case, "t.json")
        return run_command("opt", [f, "-p", "cse,dce", "-o", _out("o." + (args or ["json"])[0])])
    if case.front == "inputs":
        f = _write_case_file(case, "in.npy" if "npy" in args else "in.npz")
        return run_command("run", [prog, "--from-version=4", "--inputs", f, "--outputs", _out("o.npz")]
                           + (["--params", pdi] if pdi else []))
    if case.front == "params":
        f = _write_case_file(case, "w.pdiparams")
        if "opt" in args:
            return run_command("opt", [prog, "--from-version=4", "-p", "default", "--params", f,
                                       "--params-out", _out("o.pdiparams"), "-o", _out("o.pir")])
        return run_command("run", [prog, "--from-version=4", "--inputs", npz, "--params", f,
                                   "--outputs", _out("o.npz")])
    raise ValueError(f"unknown front end {case.front!r}")


# -- making the inputs ------------------------------------------------------------------------

PASS_NAMES = ("cse", "dce", "canonicalize", "const-fold", "param-fold", "conv-bn-fold", "upgrade",
              "default", "inference")
OPTIONS = ("max-iterations", "max-elements", "target-version", "patch-dir", "allow-downgrade")


def make_surface_case(front: str, rng: random.Random, origin: dict):
    from .cases import Case

    n = rng.randrange(POOL)
    makers = {"spec": _spec, "rollout": _rollout, "repro": _repro, "tags-text": _tags_text,
              "tags-json": _tags_json, "inputs": _inputs, "params": _params}
    data, args, applied = makers[front](rng, n)
    if front not in BINARY and rng.random() < 0.25:
        for _ in range(rng.choice([1, 1, 2])):
            data, name = chars.mutate(rng, data, data)
            applied.append(name)
    origin["seed_file"] = f"<surfaces pool #{n}>"
    origin["mutators"] = applied
    return Case(front, data, from_version=4, pool_index=n, args=args, origin=origin)


_VALID_OPTIONS = {"canonicalize": ["max-iterations=3"], "const-fold": ["max-iterations=2", "max-elements=16"],
                  "upgrade": ["target-version=4"]}


def _valid_spec(rng: random.Random) -> str:
    """A spec pirc runs: real passes, options of the right kind."""
    names = rng.sample(PASS_NAMES[:6], rng.randrange(1, 5)) if rng.random() < 0.8 else \
        [rng.choice(["default", "inference"])]
    out = []
    for name in names:
        opts = _VALID_OPTIONS.get(name)
        out.append(name + ("{" + rng.choice(opts) + "}" if opts and rng.random() < 0.5 else ""))
    return ",".join(out)


def _spec_text(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return _valid_spec(rng)
    parts = []
    for _ in range(rng.choice([1, 1, 2, 3, 6])):
        name = rng.choice(PASS_NAMES) if rng.random() < 0.9 else rng.choice(["bogus", "CSE", "", "cse ", "-",
                                                                              "cse\ud800", "dce}"])
        if rng.random() < 0.45:
            opts = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                key = rng.choice(OPTIONS) if rng.random() < 0.9 else rng.choice(["", "x", "max-iterations="])
                opts.append(f"{key}={_value(rng)}" if rng.random() < 0.9 else key)
            name += "{" + rng.choice([" ", ",", "  "]).join(opts) + ("}" if rng.random() < 0.95 else "")
        parts.append(name)
    spec = rng.choice([",", ", ", ",,"] if rng.random() < 0.1 else [","]).join(parts)
    if rng.random() < 0.15:
        spec = f"builtin.module({spec})"
    return spec


def _spec(rng, n):
    args = []
    if rng.random() < 0.3:
        args.append("params")
    if rng.random() < 0.2:
        args += [rng.choice(["--print-ir-before", "--print-ir-after"]),
                 rng.choice(list(PASS_NAMES) + ["bogus", "", "cse,bogus", "all"])]
    if rng.random() < 0.1:
        args += ["--bisect-limit", _value(rng)]
    return _spec_text(rng), args, ["spec-grammar"]


def _rollout(rng, n):
    import yaml

    states = ["enabled", "disabled", "canary", "allowlist", "bogus", "", "CANARY"]
    passes = {}
    for _ in range(rng.choice([0, 1, 2, 3])):
        name = rng.choice(PASS_NAMES + ("fold-constants", "x", ""))
        entry = {"state": rng.choice(states)}
        if rng.random() < 0.6:
            entry["fraction"] = rng.choice([0.1, 0, 1, -1, 2, "0.5", None, 1e309, float("nan"), [0.1], 10**30])
        if rng.random() < 0.5:
            entry["programs"] = rng.choice([["mlp"], [], "mlp", [1, None], ["pfp1:" + "0" * 64],
                                            ["pfp1:zz"], [["x"]], {"a": 1}])
        if rng.random() < 0.1:
            entry = rng.choice([None, "enabled", [], 3])
        passes[name] = entry
    if rng.random() < 0.35:  # a file pirc takes: the pipeline then runs as it says
        passes = {name: rng.choice([{"state": "enabled"}, {"state": "disabled"},
                                    {"state": "canary", "fraction": rng.choice([0.0, 0.5, 1.0])},
                                    {"state": "allowlist", "programs": rng.choice([["p"], []])}])
                  for name in rng.sample(PASS_NAMES[:6], rng.randrange(1, 4))}
    doc = {"passes": passes}
    if rng.random() < 0.1:
        doc = rng.choice([None, [], "passes", {"passes": None}, {"passes": []}, {"other": 1}])
    text = yaml.safe_dump(doc, allow_unicode=True) if rng.random() < 0.9 else \
        "passes:\n  cse: {state: canary, fraction: " + _value(rng) + "}\n"
    if rng.random() < 0.05:
        text = "a: &a [*a]\n" if rng.random() < 0.5 else "passes: " + "[" * 5000
    return text, [], ["rollout-grammar"]


@lru_cache(maxsize=2 * POOL)
def _canonical(n: int, pipeline: str | None = None) -> str:
    import pirc
    from .generate import generated_aliasing_program

    program = pirc.parse(generated_aliasing_program(n, SURFACE_OPS), from_version=4)
    if pipeline:
        try:
            pirc.run_pipeline(program, pipeline)
        except PircError:
            pass
    return pirc.to_text(program, "pir")


def _repro(rng, n):
    ir = _canonical(n)
    header = ["// pirc crash reproducer, written by pirc 0.1.0"]
    if rng.random() < 0.95:
        header.append(f"// pipeline: {_spec_text(rng)}")
    if rng.random() < 0.6:
        header.append(f"// bisect-limit: {_value(rng) if rng.random() < 0.5 else rng.randrange(0, 8)}")
    if rng.random() < 0.1:
        header.append(rng.choice(header))
    rng.shuffle(header)
    return "\n".join(header) + "\n" + ir, [], ["repro-header"]


_TAG_LINE = re.compile(r"^pir\.graph_tags .*$", re.M)
_MANIFEST_LINE = re.compile(r"^pir\.manifest .*$", re.M)


def _odd_string(rng) -> str:
    return rng.choice(["cse", "", "\\ud800", "dce\\udc00x", "é", "\\u0000", "a\\\"b", "x" * 300,
                       "pfp1:" + "0" * 64, "pfp1:", "ovs1:zz", "\\n"])


def _tags_text(rng, n):
    text = _canonical(n, "default")
    if rng.random() < 0.6:
        tags = []
        for _ in range(rng.choice([0, 1, 2, 3])):
            fields = [f'"{_odd_string(rng)}"' if rng.random() < 0.5 else f'"{rng.choice(PASS_NAMES)}"',
                      _value(rng) if rng.random() < 0.4 else "1",
                      f'"{rng.choice(["enabled", "canary", "disabled", "x", ""])}"']
            if rng.random() < 0.7:
                fields += [f'"pfp1:{"%064x" % rng.getrandbits(256)}"'] * 2
            if rng.random() < 0.2:
                fields = fields[:rng.randrange(len(fields) + 1)]
            tags.append("(" + ", ".join(fields) + ")")
        line = "pir.graph_tags [" + ", ".join(tags) + "]"
        text = _TAG_LINE.sub(lambda m: line, text, count=1) if _TAG_LINE.search(text) else \
            text.replace("pir.version 4\n", "pir.version 4\n" + line + "\n", 1)
    if rng.random() < 0.6:
        keys = ["pirc_version", "pir_version", "op_versions", "pipeline", "pipeline_version", "bogus"]
        items = []
        for key in rng.sample(keys, rng.randrange(1, len(keys) + 1)):
            v = rng.choice([f'"{_odd_string(rng)}"', _value(rng), "4", '"cse,dce"', "[]"])
            items.append(f"{key}: {v}")
        line = "pir.manifest {" + ", ".join(items) + "}"
        text = _MANIFEST_LINE.sub(lambda m: line, text, count=1) if _MANIFEST_LINE.search(text) else \
            text.replace("pir.version 4\n", "pir.version 4\n" + line + "\n", 1)
    return text, [rng.choice(["pir", "json"])], ["tags-text"]


def _odd_json(rng):
    return rng.choice([None, True, 0, -1, 10**rng.choice([19, 30, 400]), 1.5, float("inf"), "x", "\ud800",
                       "cse", "", [], {}, ["cse", 1, "enabled"], "pfp1:" + "0" * 64, "ovs1:zz", 4,
                       "١", "²"])


@lru_cache(maxsize=POOL)
def _optimised_json(n: int) -> str:
    import pirc

    return pirc.to_text(pirc.parse(_canonical(n, "default")), "json")


def _tags_json(rng, n):
    doc = json.loads(_optimised_json(n))
    pirc_key = doc.setdefault("base_code", {}).setdefault("pirc", {})
    for _ in range(rng.choice([0, 1, 1, 2, 3])):  # 0: the tags a real run wrote
        roll = rng.random()
        tags = pirc_key.get("graph_tags")
        if roll < 0.4 and isinstance(tags, list) and tags and isinstance(tags[0], list) and tags[0]:
            t = rng.choice(tags)
            if isinstance(t, list) and t:
                t[rng.randrange(len(t))] = _odd_json(rng)
        elif roll < 0.7 and isinstance(pirc_key.get("manifest"), dict):
            m = pirc_key["manifest"]
            key = rng.choice(list(m) + ["bogus"])
            m[key] = _odd_json(rng)
        elif roll < 0.8:
            pirc_key["graph_tags"] = _odd_json(rng)
        elif roll < 0.9:
            pirc_key["manifest"] = _odd_json(rng)
        else:
            doc["base_code"]["pirc"] = _odd_json(rng)
            break
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.8, allow_nan=True) \
        if rng.random() < 0.9 else json.dumps(doc).replace('"graph_tags"', '"graph_tags": 1, "x"', 1)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(doc, ensure_ascii=True, allow_nan=True)
    return text, [rng.choice(["json", "pir"])], ["tags-json"]


# -- binary surfaces --------------------------------------------------------------------------

_NPZ_DTYPES = ["<f4", "<f8", ">f4", ">f8", "<f2", "<i4", "<i8", ">i8", "|b1", "|u1", "<c8", "<U3", "|S2",
               "<M8[s]", "|V4", "<u8"]


@lru_cache(maxsize=POOL)
def _program_feeds(n: int) -> dict:
    import pirc
    from .generate import generated_aliasing_program

    program = pirc.parse(generated_aliasing_program(n, SURFACE_OPS), from_version=4)
    return {op.attributes["name"].data: tuple(int(d.data) for d in op.results[0].type.dims.data)
            for op in program.block.ops if op.name == "pd_op.data"}


def _npy_bytes(rng, shape) -> bytes:
    buf = io.BytesIO()
    dtype = "<f4" if rng.random() < 0.5 else rng.choice(_NPZ_DTYPES)
    roll = rng.random()
    if roll < 0.15:
        shape = rng.choice([(), (0,), (1,), (10**6,), tuple(s + 1 for s in shape), (2,) * 7])
        shape = tuple(min(s, 4096) for s in shape) if len(shape) < 7 else shape
    arr = np.zeros(shape, dtype=np.dtype(dtype)) if np.prod(shape) <= 10**6 else np.zeros((1,), dtype)
    if arr.dtype.kind == "f":
        arr = np.asarray(np.random.default_rng(rng.randrange(2**32)).standard_normal(arr.shape)).astype(dtype)
    if rng.random() < 0.1:
        arr = np.asfortranarray(arr)
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    data = buf.getvalue()
    if rng.random() < 0.15:  # an edited header: a claimed shape, descr or order
        head_end = data.index(b"\n") + 1
        header = data[:head_end].decode("latin-1")
        header = re.sub(r"'shape': \([^)]*\)", "'shape': " + rng.choice(
            ["(1000000000000,)", "(-1,)", "(2, 3)", "()", "(10**3,)", "(99999999999999999999,)"]), header)
        if rng.random() < 0.3:
            header = header.replace("'descr': '", "'descr': '" + rng.choice([">", "|", "O", "x"]), 1)
        data = header.encode("latin-1") + data[head_end:]
    return data


def _inputs(rng, n):
    feeds = _program_feeds(n)
    if rng.random() < 0.05:
        return _npy_bytes(rng, next(iter(feeds.values()), (3,))).decode("latin-1"), ["npy"], ["plain-npy"]
    buf = io.BytesIO()
    compression = zipfile.ZIP_DEFLATED if rng.random() < 0.3 else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", compression) as z, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a name twice is part of the input, not news
        for name, shape in feeds.items():
            if rng.random() < 0.08:
                continue  # a feed missing
            key = rng.choice([name, "in__" + name]) if rng.random() < 0.95 else rng.choice(["", "x/y", "é"])
            suffix = ".npy" if rng.random() < 0.97 or not key else ""
            z.writestr(key + suffix, _npy_bytes(rng, shape))
        if rng.random() < 0.1:
            z.writestr(rng.choice(["extra.npy", "in__nope.npy", "notes.txt"]), _npy_bytes(rng, (2,)))
    data = bytearray(buf.getvalue())
    applied = ["npz"]
    if rng.random() < 0.15:
        data = _byte_noise(rng, data)
        applied.append("bytes")
    if rng.random() < 0.02:
        data = bytearray()
        applied.append("empty")
    return bytes(data).decode("latin-1"), [], applied


def _byte_noise(rng, data: bytearray) -> bytearray:
    for _ in range(rng.choice([1, 1, 2, 4])):
        roll = rng.random()
        if not data:
            break
        i = rng.randrange(len(data))
        if roll < 0.4:
            data[i] = rng.randrange(256)
        elif roll < 0.6:
            del data[i:]
        elif roll < 0.8:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.choice([1, 4, 8])))
        else:
            data[i:i + 8] = struct.pack("<q", rng.choice([-1, 2**62, 2**31, 0, 10**12]))
    return data


def _desc(rng, code, shape) -> bytes:
    from pirc.runtime.params import _varint_bytes

    fields = [b"\x08" + _varint_bytes(code)]
    dims = list(shape)
    if rng.random() < 0.3:
        dims = rng.choice([[2**62, 2**62], [-1], [2**63 - 1], [10**12], [0], [], [1] * 70, [3, -2],
                           [2**64 - 1]])
    if rng.random() < 0.5:
        fields += [b"\x10" + _varint_bytes(d) for d in dims]
    else:  # packed
        packed = b"".join(_varint_bytes(d) for d in dims)
        fields.append(b"\x12" + _varint_bytes(len(packed)) + packed)
    if rng.random() < 0.05:
        fields.append(rng.choice([b"\x1d\x00\x00\x00\x00", b"\x0f", b"\x80"]))
    return b"".join(fields)


@lru_cache(maxsize=POOL)
def _param_types(n: int) -> tuple:
    """(name, shape, Paddle dtype code) of pool program n's parameters, sorted by name."""
    import pirc
    from pirc.runtime.params import parameter_types
    from .generate import generated_aliasing_program

    types = parameter_types(pirc.parse(generated_aliasing_program(n, SURFACE_OPS), from_version=4))
    return tuple((name, tuple(int(d.data) for d in types[name].dims.data),
                  5 if types[name].dtype.__class__.__name__ == "Float32Type" else 6)
                 for name in sorted(types))


def _params(rng, n):
    from pirc.runtime.params import DTYPES

    out = bytearray()
    for name, shape, code in _param_types(n):
        if rng.random() < 0.15:
            code = rng.choice(list(DTYPES) + [99, -1, 2**40])
        lod = 0 if rng.random() < 0.95 else rng.choice([1, 65, 2**63])
        desc = _desc(rng, code, shape) if rng.random() < 0.5 else \
            _desc(random.Random(0), code, shape)
        size = len(desc) if rng.random() < 0.95 else rng.choice([-1, 2**31 - 1, 0, len(desc) + 5])
        count = int(np.prod(shape)) if shape else 1
        itemsize = 4 if code == 5 else 8
        out += struct.pack("<IQ", 0 if rng.random() < 0.97 else 1, lod)
        if lod and lod < 64:
            out += struct.pack("<Q", 8) + b"\x00" * 8
        out += struct.pack("<Ii", 0, size) + desc + bytes(count * itemsize)
    applied = ["pdiparams"]
    if rng.random() < 0.3:
        out = _byte_noise(rng, out)
        applied.append("bytes")
    if rng.random() < 0.05:
        out += bytes(rng.randrange(256) for _ in range(rng.choice([1, 8, 100])))
        applied.append("trailing")
    return bytes(out).decode("latin-1"), ["opt"] if rng.random() < 0.4 else [], applied


