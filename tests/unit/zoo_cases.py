"""The development zoos' cases (tests/fixtures/zoo/ and tests/fixtures/zoo2/, made by
tools/paddle_oracle/gen_zoo.py [--zoo zoo2]).

Per model and release VER: VER/MODEL.VER.json (what paddle.jit.save wrote), VER/MODEL.VER.io.npz
(in__<feed>, out__<i>: the saved program's outputs in Paddle), VER/MODEL.VER.constants.npz where
the forward builds tensors eagerly (see `params`), gen_log.VER.json (the sha256 of
the .pdiparams Paddle wrote, among others); crossload/MODEL.3.0.0-loaded-in-3.3.1.{json,out.npz}
(the 3.0.0 file loaded by Paddle 3.3.1, written back, and its outputs there). Parameters are
not committed: `params(program)` rebuilds them from tools/zoo_weights.py, the function
gen_zoo.py set them with. Tolerances: ZOO/parity.yaml. A model may have more input sets,
VER/MODEL.VER.io.LABEL.npz (the second zoo's branches and loop counts): each is a case of its own
(`label`), and crossload/MODEL.3.0.0-loaded-in-3.3.1.LABEL.out.npz holds 3.3.1's outputs for it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

import pirc
from pirc.ir.types import ELEMENT_TYPE_NAMES
from pirc.runtime.params import DTYPES, ELEMENT_CODES, parameter_types
from tools.zoo_weights import value

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "fixtures" / "zoo"
ZOO2 = ROOT / "tests" / "fixtures" / "zoo2"
RELEASES = ("3.3.1", "3.0.0")


@dataclass(frozen=True)
class ZooCase:
    model: str
    release: str
    program: Path  # the JSON to run
    outputs: Path  # npz with out__<i>: Paddle's outputs for it
    inputs: Path  # npz with in__<feed>
    zoo: Path = ZOO
    label: str = ""  # "" for MODEL.VER.io.npz, else the extra input set's name

    def __str__(self) -> str:
        return f"{self.model}.{self.release}" + (f"[{self.label}]" if self.label else "")


def _labels(npz_dir: Path, stem: str) -> list[str]:
    """The extra input sets beside STEM.io.npz: STEM.io.LABEL.npz."""
    return sorted(p.name[len(stem) + 4:-4] for p in npz_dir.glob(f"{stem}.io.*.npz"))


def saved_cases(zoo: Path = ZOO, labelled: bool = False) -> list[ZooCase]:
    """Every model as each release saved it; with `labelled`, each extra input set too."""
    cases = []
    for release in RELEASES:
        for program in sorted((zoo / release).glob(f"*.{release}.json")):
            model = program.name[: -len(f".{release}.json")]
            npz = program.with_name(f"{model}.{release}.io.npz")
            if npz.exists():
                cases.append(ZooCase(model, release, program, npz, npz, zoo))
                for label in _labels(program.parent, f"{model}.{release}") if labelled else ():
                    extra = program.with_name(f"{model}.{release}.io.{label}.npz")
                    cases.append(ZooCase(model, release, program, extra, extra, zoo, label))
    return cases


def crossload_cases(zoo: Path = ZOO, labelled: bool = False) -> list[ZooCase]:
    """Every 3.0.0 file with what Paddle 3.3.1 wrote after loading it (program = the 3.3.1 JSON,
    outputs = 3.3.1's outputs of it, inputs = the 3.0.0 fixture's)."""
    cases = []
    for expected in sorted((zoo / "crossload").glob("*.3.0.0-loaded-in-3.3.1.json")):
        model = expected.name[: -len(".3.0.0-loaded-in-3.3.1.json")]
        source = zoo / "3.0.0" / f"{model}.3.0.0.io.npz"
        out = expected.with_name(expected.name.replace(".json", ".out.npz"))
        if source.exists() and out.exists():
            cases.append(ZooCase(model, "3.0.0", expected, out, source, zoo))
            for label in _labels(zoo / "3.0.0", f"{model}.3.0.0") if labelled else ():
                out = expected.with_name(expected.name.replace(".json", f".{label}.out.npz"))
                if out.exists():
                    cases.append(ZooCase(model, "3.0.0", expected, out,
                                         zoo / "3.0.0" / f"{model}.3.0.0.io.{label}.npz", zoo, label))
    return cases


def source_of(case: ZooCase) -> Path:
    return case.zoo / case.release / f"{case.model}.{case.release}.json"


def gen_log(release: str, zoo: Path = ZOO) -> dict:
    return _gen_log(release, zoo)


@lru_cache(maxsize=None)
def _gen_log(release: str, zoo: Path) -> dict:
    return json.loads((zoo / release / f"gen_log.{release}.json").read_text())["models"]


@lru_cache(maxsize=8)
def load(path) -> pirc.Program:
    """A zoo program, read once per test session (several tests run each one)."""
    return pirc.load(str(path))


@lru_cache(maxsize=4)
def upgraded(path) -> pirc.Program:
    """A 3.0.0 zoo program after pirc's upgrade, made once per test session."""
    program = pirc.load(str(path))
    pirc.upgrade(program)
    return program


def params(program, case: ZooCase) -> dict[str, np.ndarray]:
    """Every builtin.parameter of the program: the model's constants (MODEL.VER.constants.npz:
    tensors its forward built eagerly, which jit.save made parameters named eager_tmp_N), the
    rest rebuilt from tools/zoo_weights.value."""
    constants = case.zoo / case.release / f"{case.model}.{case.release}.constants.npz"
    fixed = {}
    if constants.exists():
        with np.load(constants) as data:
            fixed = {k: data[k] for k in data.files}
    out = {}
    for name, type_ in parameter_types(program).items():
        if name in fixed:
            out[name] = fixed[name]
            continue
        dtype = DTYPES[ELEMENT_CODES[ELEMENT_TYPE_NAMES[type_.dtype]]][0]
        out[name] = value(name, type_.shape, dtype)
    return out


def assert_params_rebuilt(program, case: ZooCase, path: Path) -> None:
    """tools/zoo_weights.py + pirc.write_params rebuild the .pdiparams Paddle wrote (gen_log's
    size and sha256), byte for byte: `path` is a scratch file."""
    log = gen_log(case.release, case.zoo)[case.model]
    pirc.write_params(str(path), params(program, case), program)
    data = path.read_bytes()
    assert len(data) == log["pdiparams_bytes"]
    assert hashlib.sha256(data).hexdigest() == log["pdiparams_sha256"]


def inputs(case: ZooCase) -> dict[str, np.ndarray]:
    with np.load(case.inputs) as data:
        return {k: data[k] for k in data.files if k.startswith("in__")}


def expected(case: ZooCase) -> list[np.ndarray]:
    with np.load(case.outputs) as data:
        keys = sorted((k for k in data.files if k.startswith("out__")), key=lambda k: int(k[5:]))
        return [data[k] for k in keys]


@lru_cache(maxsize=None)
def tolerances(zoo: Path = ZOO) -> dict:
    return yaml.safe_load((zoo / "parity.yaml").read_text())


def tolerance(model: str, zoo: Path = ZOO) -> dict:
    table = tolerances(zoo)
    return {**table["default"], **table.get("models", {}).get(model, {})}


def assert_close(got: list, want: list, model: str, what: str, zoo: Path = ZOO) -> list[tuple[float, float]]:
    """Each output within the model's tolerance: |got - want| <= atol + rtol * |want|, the same
    shape and dtype, exact for integer and bool outputs. Returns (max abs err, max rel err)."""
    tol = tolerance(model, zoo)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, Paddle has {len(want)}"
    errors = []
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, \
            f"{what} output {i}: {g.shape} {g.dtype}, Paddle: {w.shape} {w.dtype}"
        if w.dtype.kind not in "fc":
            assert np.array_equal(g, w), f"{what} output {i} differs (exact dtype {w.dtype})"
            errors.append((0.0, 0.0))
            continue
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        # the same inf, or NaN in both, is equal (an NMS decay or a log of 0 gives them as Paddle does)
        same = (np.isnan(g) & np.isnan(w)) | (np.isinf(w) & (g == w))
        diff[same] = 0.0
        bound = tol["atol"] + tol["rtol"] * np.abs(w.astype(np.float64))
        worst = float(np.max(diff / bound)) if diff.size else 0.0
        abs_err = float(diff.max()) if diff.size else 0.0
        rel_err = abs_err / max(float(np.abs(w).max()), 1e-30) if diff.size else 0.0
        assert worst <= 1.0, (f"{what} output {i}: max abs error {abs_err:.3g} (relative to max |ref| "
                              f"{rel_err:.3g}) exceeds atol {tol['atol']} + rtol {tol['rtol']} * |ref|")
        errors.append((abs_err, rel_err))
    return errors
