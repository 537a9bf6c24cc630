#!/usr/bin/env python3
"""Generate dialects/{pd_op,builtin,cf}.yaml from Paddle's op definitions.

Input: tools/opdefs/opdefs-<release>.json (one per Paddle release listed, with its PIR
version, in tools/opdefs/releases.yaml; see tools/opdefs/README.md) and
dialects/handwritten.yaml (ops that have no op-info record in Paddle).  Output: one YAML file
per dialect in which every op is a list of revisions; a revision is written only when the
op's definition changed, so `since:` records the PIR version each change arrived in
(dialects/README.md documents the format).

    python tools/gen_dialects.py            # rewrite dialects/*.yaml
    python tools/gen_dialects.py --check    # exit 1 if they are out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pirc.versioning.paddle_kinds import ATTRIBUTE_KINDS  # noqa: E402 - after the path
OPDEFS = ROOT / "tools" / "opdefs"
DIALECTS = ROOT / "dialects"
HANDWRITTEN = DIALECTS / "handwritten.yaml"

RELEASES_FILE = OPDEFS / "releases.yaml"


def load_releases(path: Path = RELEASES_FILE) -> dict[str, int]:
    """Paddle release -> PIR version of the programs it writes (tools/opdefs/releases.yaml)."""
    entries = yaml.safe_load(path.read_text())["releases"]
    releases = {str(e["paddle"]): int(e["pir_version"]) for e in entries}
    versions = list(releases.values())
    if len(releases) != len(entries) or versions != sorted(set(versions)):
        raise SystemExit(f"gen_dialects: {path}: releases must be distinct, with strictly "
                         "increasing PIR versions")
    return releases


RELEASES = load_releases()

# Dialects pirc specifies, by op-name prefix (the opdefs' own `dialect` field files
# cf.has_elements under pd_op; the name is what programs carry).
GENERATED_DIALECTS = ("pd_op", "builtin", "cf")

# -- Paddle type names -> pirc's vocabulary (dialects/README.md) ------------------------------

VALUE_TYPES = {
    "paddle::dialect::DenseTensorType": "tensor",
    "pir::VectorType<paddle::dialect::DenseTensorType>": "vec<tensor>",
    "paddle::dialect::SelectedRowsType": "selected_rows",
    "paddle::dialect::DenseTensorArrayType": "tensor_array",
    "pir::VectorType<paddle::dialect::DenseTensorArrayType>": "vec<tensor_array>",
    "paddle::dialect::SparseCooTensorType": "sparse_coo",
    "paddle::dialect::SparseCsrTensorType": "sparse_csr",
    "pir::Value": "any",
}

# Mutable attributes: declared as attributes in Paddle's op YAML, fed as tensor operands in PIR.
MUTABLE_ATTR_INPUTS = {
    "paddle::dialect::IntArrayAttribute": "int_array",
    "paddle::dialect::ScalarAttribute": "scalar",
}

# Paddle's C++ attribute class -> pirc's attribute kind: pirc's own table, so that what the
# generator writes is what the verifier and the patch schema read.  Records without op-info
# give no C++ attribute class: `int` is the C++ parameter type of an Int32Attribute;
# `Attribute` / `unknown` can be anything.  The hand-written specs replace all of these; the
# extra entries only matter if a new release adds such an op.
ATTR_TYPES = {**ATTRIBUTE_KINDS, "int": "int32", "Attribute": "any", "unknown": "any"}

# `data_type` of a Scalar attribute: the scalar kind Paddle builds for it.
SCALAR_DATA_TYPES = {"float": "float", "double": "double", "int64_t": "int64", "int": "int32",
                     "bool": "bool"}

# phi::DataType enumerators -> the names Paddle prints (DataTypeToString).
DTYPE_NAMES = {
    "UNDEFINED": "Undefined", "BOOL": "bool", "INT8": "int8", "UINT8": "uint8",
    "INT16": "int16", "UINT16": "uint16", "INT32": "int32", "UINT32": "uint32",
    "INT64": "int64", "UINT64": "uint64", "FLOAT16": "float16", "BFLOAT16": "bfloat16",
    "FLOAT32": "float32", "FLOAT64": "float64", "COMPLEX64": "complex64",
    "COMPLEX128": "complex128", "PSTRING": "pstring", "FLOAT8_E4M3FN": "float8_e4m3fn",
    "FLOAT8_E5M2": "float8_e5m2",
}

# phi::DataLayout enumerators -> the names Paddle prints (DataLayoutToString).
LAYOUT_NAMES = {
    "NCHW": "NCHW", "kNCHW": "NCHW", "NHWC": "NHWC", "kNHWC": "NHWC", "NCDHW": "NCDHW",
    "NDHWC": "NDHWC", "ANY": "Undefined(AnyLayout)", "kAnyLayout": "Undefined(AnyLayout)",
    "UNDEFINED": "Undefined(AnyLayout)", "ONEDNN": "ONEDNN", "kMKLDNN": "ONEDNN",
}

# Place constructors -> place names (dialects/README.md: undefined, cpu, gpu, ...).
PLACE_NAMES = {
    "{}": "undefined", "phi::Place()": "undefined", "Place()": "undefined",
    "phi::CPUPlace()": "cpu", "CPUPlace()": "cpu", "phi::GPUPlace()": "gpu",
    "phi::GPUPinnedPlace()": "gpu_pinned", "phi::XPUPlace()": "xpu",
}

INT_CONSTANTS = {
    "INT_MAX": 2**31 - 1, "INT32_MAX": 2**31 - 1, "INT_MIN": -(2**31), "INT32_MIN": -(2**31),
    "INT64_MAX": 2**63 - 1, "INT64_MIN": -(2**63),
}

_INT = re.compile(r"^[-+]?\d+(?:[uU]?[lL]{0,2})$")
_FLOAT = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?$")
_STR = re.compile(r'^"([^"\\]*(?:\\.[^"\\]*)*)"$')
_ENUM = re.compile(r"^(?:(?:phi|common|paddle)::)*(?:DataType|DataLayout)::(\w+)$")
_NO_VALUE = object()


# -- defaults ----------------------------------------------------------------------------------


def convert_default(cpp: str, attr_type: str):
    """The YAML value of a C++ default expression, or _NO_VALUE when it is not unambiguous."""
    text = cpp.strip()
    if attr_type.startswith("array<") or attr_type in ("array", "int_array"):
        element = attr_type[6:-1] if attr_type.startswith("array<") else "int64"
        if not (text.startswith("{") and text.endswith("}")):
            return _NO_VALUE
        items = _split_braced(text[1:-1])
        if items is None:
            return _NO_VALUE
        if attr_type == "array" and items:
            return _NO_VALUE  # element kind unknown
        values = [convert_default(item, element) for item in items]
        return _NO_VALUE if any(v is _NO_VALUE for v in values) else values
    if attr_type == "bool":
        return {"true": True, "false": False}.get(text, _NO_VALUE)
    if attr_type in ("int32", "int64", "index"):
        if _INT.match(text):
            return int(text.rstrip("uUlL"))
        return INT_CONSTANTS.get(text, _NO_VALUE)
    if attr_type in ("float", "double"):
        if _FLOAT.match(text) or _INT.match(text):
            return float(text.rstrip("fFlLuU"))
        return _NO_VALUE
    if attr_type == "scalar":
        if text in ("true", "false"):
            return text == "true"
        if _INT.match(text):
            return int(text.rstrip("uUlL"))
        if _FLOAT.match(text):
            return float(text.rstrip("fF"))
        return _NO_VALUE
    if attr_type == "str":
        m = _STR.match(text)
        return re.sub(r"\\(.)", r"\1", m.group(1)) if m else _NO_VALUE
    if attr_type == "dtype":
        m = _ENUM.match(text)
        return DTYPE_NAMES.get(m.group(1), _NO_VALUE) if m else _NO_VALUE
    if attr_type == "layout":
        m = _ENUM.match(text)
        return LAYOUT_NAMES.get(m.group(1), _NO_VALUE) if m else _NO_VALUE
    if attr_type == "place":
        return PLACE_NAMES.get(text, _NO_VALUE)
    return _NO_VALUE


def _split_braced(body: str) -> list[str] | None:
    """Split `a, "b,c", d` at top-level commas; None if it holds nested braces."""
    if "{" in body or "(" in body:
        return None
    items, current, quoted = [], "", False
    for ch in body:
        if ch == '"' and not current.endswith("\\"):
            quoted = not quoted
        if ch == "," and not quoted:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        items.append(current.strip())
    return items


# -- one opdefs record -> one definition ------------------------------------------------------


def attr_type_of(paddle_type: str) -> str:
    if paddle_type in ATTR_TYPES:
        return ATTR_TYPES[paddle_type]
    m = re.match(r"^pir::ArrayAttribute<(.+)>$", paddle_type)
    if m:
        return f"array<{attr_type_of(m.group(1))}>"
    raise SystemExit(f"gen_dialects: unknown attribute type {paddle_type!r}")


def definition(record: dict) -> dict:
    """The revision body (everything but `since`) for an opdefs record."""
    out: dict = {}
    operands = []
    for item in record["inputs"]:
        entry = {"name": item["name"]}
        if item["type"] in MUTABLE_ATTR_INPUTS:
            entry["type"] = "tensor"
            entry["from_attr"] = MUTABLE_ATTR_INPUTS[item["type"]]
        elif item["type"] in VALUE_TYPES:
            entry["type"] = VALUE_TYPES[item["type"]]
        else:
            raise SystemExit(f"gen_dialects: unknown operand type {item['type']!r}")
        if item.get("optional"):
            entry["optional"] = True
        operands.append(entry)
    if record.get("inputs_variadic"):
        operands.append({"name": "inputs", "type": "any", "variadic": True})
    if operands:
        out["operands"] = operands

    attributes = []
    for item in record["attributes"]:
        entry = {"name": item["name"], "type": attr_type_of(item["type"])}
        if entry["type"] == "scalar" and item.get("data_type") in SCALAR_DATA_TYPES:
            entry["data_type"] = SCALAR_DATA_TYPES[item["data_type"]]
        if "default" in item:
            value = convert_default(item["default"], entry["type"])
            if value is _NO_VALUE:
                entry["default_cpp"] = item["default"]
            else:
                entry["default"] = value
        attributes.append(entry)
    if attributes:
        out["attributes"] = attributes

    results = []
    for item in record["outputs"]:
        if item["type"] not in VALUE_TYPES:
            raise SystemExit(f"gen_dialects: unknown result type {item['type']!r}")
        entry = {"name": item["name"], "type": VALUE_TYPES[item["type"]]}
        if item.get("optional"):
            entry["optional"] = True
        if item.get("intermediate"):
            entry["intermediate"] = True
        results.append(entry)
    if record.get("outputs_variadic"):
        results.append({"name": "outputs", "type": "any", "variadic": True})
    if results:
        out["results"] = results

    # Cheap hints for lowering; they are part of the definition, so a kernel rename
    # between releases is a revision too.
    if record.get("kernel"):
        out["kernel"] = record["kernel"]
    if record.get("inplace"):
        out["inplace"] = {o: i for o, i in record["inplace"]}
    return out


# -- revisions ---------------------------------------------------------------------------------


def revisions(per_version: dict[int, dict | None]) -> list[dict]:
    """Collapse {version: definition or None} into the revision list (changes only)."""
    revs: list[dict] = []
    current = None
    for version in sorted(per_version):
        body = per_version[version]
        if body == current:
            continue
        if body is None:
            revs.append({"since": version, "removed": True})
        else:
            revs.append({"since": version, **body})
        current = body
    return revs


def load_opdefs() -> dict[int, dict[str, dict]]:
    by_version = {}
    for release, version in RELEASES.items():
        data = json.loads((OPDEFS / f"opdefs-{release}.json").read_text())
        by_version[version] = {
            name: record for name, record in data.items()
            if name.split(".", 1)[0] in GENERATED_DIALECTS
        }
    return by_version


def active(revs: list[dict], version: int) -> dict | None:
    current = None
    for rev in revs:
        if rev["since"] <= version:
            current = None if rev.get("removed") else rev
    return current


def check_handwritten(name: str, revs: list[dict], by_version: dict) -> None:
    """A hand-written op must exist exactly where Paddle has it and cover its attributes."""
    for version, ops in by_version.items():
        rev = active(revs, version)
        record = ops.get(name)
        if (rev is None) != (record is None):
            raise SystemExit(f"gen_dialects: handwritten {name} at PIR version {version}: "
                             f"{'missing' if rev is None else 'present'} but Paddle "
                             f"{'has' if record else 'lacks'} it")
        if record is None:
            continue
        names = {a["name"] for a in rev.get("attributes", [])}
        for attr in record["attributes"]:
            if attr["name"] not in names:
                raise SystemExit(f"gen_dialects: handwritten {name} lacks attribute "
                                 f"{attr['name']} registered by Paddle at version {version}")


def build() -> dict[str, dict[str, list[dict]]]:
    """{dialect: {short op name: revisions}}."""
    by_version = load_opdefs()
    handwritten = yaml.safe_load(HANDWRITTEN.read_text())["ops"]
    names = sorted(set().union(*(ops.keys() for ops in by_version.values())) | set(handwritten))
    dialects: dict[str, dict[str, list[dict]]] = {d: {} for d in GENERATED_DIALECTS}
    for name in names:
        dialect, short = name.split(".", 1)
        if name in handwritten:
            revs = handwritten[name]
            check_handwritten(name, revs, by_version)
        else:
            record_of = {v: ops.get(name) for v, ops in by_version.items()}
            if any(r is not None and not r["source"].startswith("OpYamlInfo")
                   for r in record_of.values()):
                raise SystemExit(f"gen_dialects: {name} has no op-info record; "
                                 "specify it in dialects/handwritten.yaml")
            revs = revisions({v: definition(r) if r else None for v, r in record_of.items()})
        dialects[dialect][short] = revs
    return dialects


# -- YAML output ---------------------------------------------------------------------------------


class _Flow(dict):
    """A mapping written on one line (operand, attribute and result entries)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    _Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data.items(),
                                               flow_style=True))


def _flowed(rev: dict) -> dict:
    out = {}
    for key, value in rev.items():
        if key in ("operands", "attributes", "results", "regions"):
            value = [_Flow(item) for item in value]
        elif key == "inplace":
            value = _Flow(value)
        out[key] = value
    return out


HEADER = """\
# GENERATED by tools/gen_dialects.py from tools/opdefs/opdefs-*.json and
# dialects/handwritten.yaml -- do not edit; edit those and re-run the generator.
# Format: dialects/README.md.  Each op is a list of revisions; the definition at PIR
# version v is the last revision with since <= v.
"""


def render(dialect: str, ops: dict[str, list[dict]]) -> str:
    doc = {"dialect": dialect, "ops": {name: [_flowed(r) for r in revs]
                                       for name, revs in ops.items()}}
    body = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, width=100000,
                     default_flow_style=False, allow_unicode=True)
    return HEADER + body


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the generated files differ from what is on disk")
    args = parser.parse_args(argv)
    stale = []
    for dialect, ops in build().items():
        path = DIALECTS / f"{dialect}.yaml"
        text = render(dialect, ops)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}: {len(ops)} ops")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run tools/gen_dialects.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
