"""Fuzz inputs ("cases") and how the k-th input of a run is made.

`make_case(front, seed, k)` is a pure function of its arguments: it seeds its own
random.Random from them, picks a seed file (or a generated program), and applies a few
mutators, structure-aware or character-level.  The same (seed, k) gives the same input on
any machine, whatever the number of workers, which is what makes a run reproducible and a
finding re-creatable from its index alone.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import asdict, dataclass, field

from . import seeds as S
from .mutators import chars, json_tree, patch_yaml, pir_text

FRONTS = ("text", "json", "yaml")
# The pass layer's fronts (differential.py, surfaces.py): `passes` is the differential mode.
SURFACES = ("spec", "rollout", "repro", "tags-text", "tags-json", "inputs", "params")
PASS_FRONTS = ("passes",) + SURFACES
# Differential fuzzing of the fusion passes (fusion.py): not in `pass-layer`, named alone.
FUSION_FRONTS = ("fusion",)
ALL_FRONTS = FRONTS + PASS_FRONTS + FUSION_FRONTS
EXTENSIONS = {"text": ".pir", "json": ".json", "yaml": ".yaml", "passes": ".pir", "spec": ".spec",
              "rollout": ".rollout.yaml", "repro": ".repro.pir", "tags-text": ".pir",
              "tags-json": ".json", "inputs": ".npz", "params": ".pdiparams", "fusion": ".pir"}
BINARY = ("inputs", "params")  # data holds bytes, one latin-1 character each

GENERATED_SHARE = 0.06      # inputs drawn from pirc.testing.strategies (then maybe mutated)
STRUCTURED_SHARE = 0.6      # of the mutations, the structure-aware ones


@dataclass
class Case:
    front: str                       # "text" | "json" | "yaml"
    data: str                        # the input itself
    from_version: int | None = None  # text: the --from-version it is read with
    patch_version: int | None = None  # yaml: N of N.yaml
    program: str | None = None       # yaml: the JSON seed (path) the patch upgrades
    write_order: int = 0             # which of the three formats checks.check_writes tries first
    origin: dict = field(default_factory=dict)  # seed file, index, mutators: for the report
    targets: list | None = None      # passes: the passes / pipelines compared before and after
    with_params: bool = True         # passes: whether the passes get the parameters
    pool_index: int | None = None    # surfaces: which generated program the input applies to
    args: list | None = None         # surfaces: extra command-line choices

    def options(self) -> dict:
        """Everything but the data: what case.json holds beside the input file."""
        d = asdict(self)
        del d["data"]
        return d

    @classmethod
    def from_options(cls, data: str, options: dict) -> "Case":
        known = {k: options[k] for k in ("front", "from_version", "patch_version", "program", "write_order",
                                         "origin", "targets", "with_params", "pool_index", "args")
                 if k in options}
        return cls(data=data, **known)


def _rng(front: str, seed: int, index: int) -> random.Random:
    return random.Random(f"pirc-fuzz/{front}/{seed}/{index}")


def _count(rng: random.Random) -> int:
    return rng.choice([1, 1, 1, 2, 2, 3, 4, 6])


def make_case(front: str, seed: int, index: int) -> Case:
    rng = _rng(front, seed, index)
    origin = {"seed": seed, "index": index}
    makers = {"text": _text_case, "json": _json_case, "yaml": _yaml_case}
    if front == "passes":
        from .differential import make_passes_case
        return make_passes_case(rng, origin)
    if front == "fusion":
        from .fusion import make_fusion_case
        return make_fusion_case(rng, origin)
    if front in SURFACES:
        from .surfaces import make_surface_case
        return make_surface_case(front, rng, origin)
    if front not in makers:
        raise ValueError(f"unknown front end {front!r}")
    case = makers[front](rng, origin)
    case.write_order = index % 3  # a failure in one format must not always hide the others
    return case


def _pick(rng: random.Random, pool):
    return pool[rng.randrange(len(pool))]


def _generated(rng: random.Random):
    from .generate import generated_program
    return generated_program(rng.randrange(2**32))


def _text_case(rng: random.Random, origin: dict) -> Case:
    pool = S.text_seeds()
    if rng.random() < GENERATED_SHARE:
        text, from_version = _generated(rng), 4
        origin["seed_file"] = "<pirc.testing.strategies.programs>"
    else:
        seed = _pick(rng, pool)
        text = seed.text
        from_version = None if seed.carries_version else (seed.version or rng.randint(1, 4))
        origin["seed_file"] = seed.path
    other = _pick(rng, pool).text
    applied = []
    n = 0 if origin["seed_file"].startswith("<") and rng.random() < 0.3 else _count(rng)
    for _ in range(n):
        if rng.random() < STRUCTURED_SHARE:
            text, name = pir_text.mutate(rng, text, other)
        else:
            text, name = chars.mutate(rng, text, other)
        applied.append(name)
    if rng.random() < 0.05:
        from_version = rng.choice([None, 0, 1, 2, 3, 4, 5])
        applied.append("from_version")
    origin["mutators"] = applied
    return Case("text", text, from_version=from_version, origin=origin)


def _json_case(rng: random.Random, origin: dict) -> Case:
    pool = S.json_seeds()
    if rng.random() < GENERATED_SHARE:
        from .generate import generated_json
        text = generated_json(rng.randrange(2**32))
        origin["seed_file"] = "<pirc.testing.strategies.programs>"
    else:
        seed = _pick(rng, pool)
        text = seed.text
        origin["seed_file"] = seed.path
    other_text = _pick(rng, pool).text
    applied = []
    if rng.random() < 0.75:
        doc = json.loads(text)
        other = json.loads(other_text)
        for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3, 5])):
            applied.append(json_tree.mutate(rng, doc, other))
        text = json_tree.dumps(rng, doc)
    for _ in range(rng.choice([0, 0, 0, 1]) if applied else _count(rng)):
        text, name = chars.mutate(rng, text, other_text)
        applied.append(name)
    origin["mutators"] = applied
    return Case("json", text, origin=origin)


def _yaml_case(rng: random.Random, origin: dict) -> Case:
    import yaml

    pool = S.yaml_seeds()
    programs = S.upgrade_programs()
    seed = _pick(rng, pool)
    version = seed.version if seed.version in (2, 3, 4) else rng.choice([2, 3, 4])
    program = _pick(rng, programs[version - 1]) if programs.get(version - 1) else None
    ops = S.program_ops(program) if program else []
    applied = []
    roll = rng.random()
    text = seed.text
    if roll < 0.35:
        doc = patch_yaml.generate(rng, ops)
        origin["seed_file"] = "<patch_yaml.generate>"
        applied.append("generate")
    else:
        origin["seed_file"] = seed.path
        try:
            doc = yaml.safe_load(seed.text)
        except yaml.YAMLError:
            doc = None
    if doc is not None and roll < 0.85:
        doc = copy.deepcopy(doc) if isinstance(doc, (dict, list)) else doc
        if not isinstance(doc, dict):
            doc = {"op_patches": []}
        for _ in range(_count(rng) - (1 if applied else 0)):
            applied.append(patch_yaml.mutate(rng, doc, ops))
        try:
            text = patch_yaml.dumps(rng, doc)
        except Exception:  # a structure PyYAML cannot write: keep the seed's text
            text = seed.text
    for _ in range(rng.choice([0, 0, 0, 1, 2]) if applied else _count(rng)):
        text, name = chars.mutate(rng, text, _pick(rng, pool).text)
        applied.append(name)
    origin["mutators"] = applied
    return Case("yaml", text, patch_version=version, program=program.path if program else None,
                origin=origin)
