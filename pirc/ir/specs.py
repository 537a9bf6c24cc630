"""Op specs per PIR version, read from the dialect YAML (`dialects/*.yaml`).

Each op has a list of revisions; the spec of an op at PIR version v is its last revision
with `since <= v` (dialects/README.md).  Version 0, an unreleased develop build, uses the
latest release's specs.

Loading is lazy and cached because every `pirc-opt` run pays it: parsing the YAML takes
~0.7 s even with libyaml, so the parsed data is kept as a marshal file under the user cache
directory, keyed by a checksum of the YAML files.  The file maps each op name to its own
marshalled revisions, decoded on first use: a run reads back only the ops its program names
(~1 ms for a small program, where decoding all 1,650 ops took ~20 ms).  OpSpec objects are
built only for the ops a program actually asks about.
"""

from __future__ import annotations

import marshal
import sys
import zlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .. import user_cache
from ..package_data import data_dir
from .ops import RESULT_ATTR_NAMES
from .program import DEVELOP_VERSION, KNOWN_VERSIONS, LATEST_VERSION

SPEC_VERSIONS = KNOWN_VERSIONS

# The dialect files: the generated ones (handwritten.yaml is generator input, not read here)
# and pirc's own `npu` dialect (hand-written: torch_npu's fused calls, docs/NPU.md).
DIALECTS = ("builtin", "cf", "pd_op", "npu")
# The dialects that are Paddle's: their definitions are what released PIR versions fix
# (pirc.versioning fingerprints and diffs them); pirc's own dialects are not versioned with them.
PADDLE_DIALECTS = ("builtin", "cf", "pd_op")

# Bump when the shape of the cached data changes.
_CACHE_FORMAT = 2


@dataclass(frozen=True)
class OperandSpec:
    name: str
    type: str  # tensor, vec<tensor>, selected_rows, tensor_array, ..., any
    optional: bool = False  # may be <<NULL VALUE>>
    variadic: bool = False  # stands for zero or more operands
    from_attr: str | None = None  # int_array / scalar: a mutable attribute fed as a tensor


@dataclass(frozen=True)
class ResultSpec:
    name: str
    type: str
    optional: bool = False
    variadic: bool = False
    intermediate: bool = False


@dataclass(frozen=True)
class AttrSpec:
    name: str
    type: str  # bool, float, double, int32, ..., array<T>, array, any
    default: object = None
    has_default: bool = False
    default_cpp: str | None = None  # the C++ default when it has no unambiguous value
    data_type: str | None = None  # scalar attributes: the kind Paddle builds
    optional: bool = False  # the op is valid without it


@dataclass(frozen=True)
class RegionSpec:
    name: str
    terminator: str | None = None  # every block must end in this op
    block_args: str | None = None  # block arguments mirror this operand group
    yields: tuple[str, ...] | str | None = None  # "results", or operand groups summed


@dataclass(frozen=True)
class OpSpec:
    name: str  # full name: "pd_op.matmul"
    dialect: str
    since: int  # the PIR version this revision arrived in
    operands: tuple[OperandSpec, ...] = ()
    attributes: tuple[AttrSpec, ...] = ()
    results: tuple[ResultSpec, ...] = ()
    regions: tuple[RegionSpec, ...] = ()
    kernel: str | None = None
    inplace: tuple[tuple[str, str], ...] = ()  # (result, operand) pairs

    @property
    def variadic_operands(self) -> bool:
        return any(o.variadic for o in self.operands)

    @property
    def variadic_results(self) -> bool:
        return any(r.variadic for r in self.results)

    @cached_property
    def attribute_map(self) -> dict[str, AttrSpec]:
        return {a.name: a for a in self.attributes}

    def attribute(self, name: str) -> AttrSpec | None:
        return self.attribute_map.get(name)


# Attributes any op may carry besides its spec's (dialects/README.md).
UNIVERSAL_ATTRIBUTES: dict[str, AttrSpec] = {
    a.name: a for a in (
        # Result attributes: one bool per result.
        *(AttrSpec(name, "array<bool>", optional=True) for name in RESULT_ATTR_NAMES),
        AttrSpec("struct_name", "str", optional=True),  # the nn.Layer an op came from
        AttrSpec("op_role", "int32", optional=True),  # forward / backward / optimize
        AttrSpec("op_dist_attr", "any", optional=True),  # auto-parallel placement
        AttrSpec("op_callstack", "array<str>", optional=True),  # Python stack at creation
        AttrSpec("sym_shape_str", "str", optional=True),  # symbolic shapes (CINN)
    )
}


# -- locating and loading the YAML ------------------------------------------------------


def dialects_dir() -> Path:
    """The folder holding the dialect YAML: package data when installed, else the source tree."""
    return data_dir("pirc.dialects", "pd_op.yaml", Path(__file__).resolve().parents[2] / "dialects")


def _parse(texts: dict[str, bytes]) -> dict[str, list[dict]]:
    import yaml  # only on a cache miss: importing yaml is ~10% of a small run's start-up

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    merged: dict[str, list[dict]] = {}
    for dialect, text in texts.items():
        doc = yaml.load(text, Loader=loader)
        for short, revisions in doc["ops"].items():
            merged[f"{dialect}.{short}"] = revisions
    return merged


class _Revisions:
    """Op name -> its revisions (a list of dicts), each op unmarshalled on first use."""

    __slots__ = ("_encoded", "_decoded")

    def __init__(self, encoded: dict[str, bytes]):
        self._encoded = encoded
        self._decoded: dict[str, list[dict]] = {}

    def get(self, name: str, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __getitem__(self, name: str) -> list[dict]:
        try:
            return self._decoded[name]
        except KeyError:
            revisions = self._decoded[name] = marshal.loads(self._encoded[name])
            return revisions

    def __contains__(self, name) -> bool:
        return name in self._encoded

    def __iter__(self):
        return iter(self._encoded)

    def __len__(self) -> int:
        return len(self._encoded)


def _load_raw() -> _Revisions:
    folder = dialects_dir()
    texts = {d: (folder / f"{d}.yaml").read_bytes() for d in DIALECTS}
    # A checksum, not a cryptographic hash: the key only has to change when a dialect file
    # does (hashlib's import and sha256 cost ~5 ms of a 0.25 s start-up).
    key = f"{_CACHE_FORMAT}:{sys.version_info[:2]}:{marshal.version}"
    for dialect, text in texts.items():
        key += f":{dialect}:{len(text)}:{zlib.crc32(text):08x}:{zlib.adler32(text):08x}"
    # The file holds the whole key: a file name shared by two keys only costs a parse.
    cache = user_cache.cache_dir() / f"specs-{zlib.crc32(key.encode()):08x}.marshal"
    encoded = user_cache.load(cache, key)
    if encoded is None:
        encoded = {name: marshal.dumps(revisions) for name, revisions in _parse(texts).items()}
        user_cache.store(cache, key, encoded)
    return _Revisions(encoded)


_RAW: _Revisions | None = None
_SPECS: dict[tuple[str, int], OpSpec] = {}  # (name, revision index) -> spec
_NAMES: dict[int, frozenset[str]] = {}


def _raw() -> _Revisions:
    global _RAW
    if _RAW is None:
        _RAW = _load_raw()
    return _RAW


def reload() -> None:
    """Forget everything loaded (tests that point pirc at other dialect files)."""
    global _RAW
    _RAW = None
    _SPECS.clear()
    _NAMES.clear()


# -- building OpSpecs ---------------------------------------------------------------------


def _spec_version(version: int) -> int:
    if version == DEVELOP_VERSION:
        return LATEST_VERSION
    if version not in SPEC_VERSIONS:
        raise ValueError(f"no op specs for PIR version {version} "
                         f"(known: {', '.join(map(str, SPEC_VERSIONS))}, 0 = develop)")
    return version


def _frozen(value):
    # Array defaults become tuples so that specs stay hashable and immutable.
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def _build(name: str, rev: dict) -> OpSpec:
    attrs = []
    for a in rev.get("attributes", ()):
        attrs.append(AttrSpec(
            name=a["name"], type=a["type"], default=_frozen(a.get("default")),
            has_default="default" in a, default_cpp=a.get("default_cpp"),
            data_type=a.get("data_type"), optional=a.get("optional", False)))
    regions = []
    for r in rev.get("regions", ()):
        yields = r.get("yields")
        regions.append(RegionSpec(
            name=r["name"], terminator=r.get("terminator"), block_args=r.get("block_args"),
            yields=tuple(yields) if isinstance(yields, list) else yields))
    return OpSpec(
        name=name,
        dialect=name.split(".", 1)[0],
        since=rev["since"],
        operands=tuple(OperandSpec(o["name"], o["type"], o.get("optional", False),
                                   o.get("variadic", False), o.get("from_attr"))
                       for o in rev.get("operands", ())),
        attributes=tuple(attrs),
        results=tuple(ResultSpec(r["name"], r["type"], r.get("optional", False),
                                 r.get("variadic", False), r.get("intermediate", False))
                      for r in rev.get("results", ())),
        regions=tuple(regions),
        kernel=rev.get("kernel"),
        inplace=tuple((rev.get("inplace") or {}).items()),
    )


def _revision_index(name: str, version: int) -> int | None:
    revisions = _raw().get(name)
    if revisions is None:
        return None
    found = None
    for i, rev in enumerate(revisions):
        if rev["since"] > version:
            break
        found = i
    if found is None or revisions[found].get("removed"):
        return None
    return found


def _spec_at(name: str, index: int) -> OpSpec:
    spec = _SPECS.get((name, index))
    if spec is None:
        spec = _SPECS[(name, index)] = _build(name, _raw()[name][index])
    return spec


# -- API ------------------------------------------------------------------------------------


def get_spec(name: str, version: int) -> OpSpec | None:
    """The spec of op `name` ("pd_op.matmul") at PIR `version`; None if no spec knows it there."""
    index = _revision_index(name, _spec_version(version))
    return None if index is None else _spec_at(name, index)


def revisions(name: str) -> list[OpSpec]:
    """Every definition `name` has had, oldest first (removals are not listed)."""
    return [_spec_at(name, i) for i, rev in enumerate(_raw().get(name, ()))
            if not rev.get("removed")]


def removed_since(name: str, version: int) -> int | None:
    """The version `name` was removed at, if it existed before `version` but not at it."""
    version = _spec_version(version)
    gone = None
    for rev in _raw().get(name, ()):
        if rev["since"] > version:
            break
        gone = rev["since"] if rev.get("removed") else None
    return gone


def op_names(version: int) -> frozenset[str]:
    """Every op name that has a spec at PIR `version`."""
    version = _spec_version(version)
    names = _NAMES.get(version)
    if names is None:
        names = _NAMES[version] = frozenset(
            n for n in _raw() if _revision_index(n, version) is not None)
    return names


def all_op_names() -> frozenset[str]:
    """Every op name any version has a spec for."""
    return frozenset(_raw())
