"""Turn op_dump.cc's raw dump plus the header scan into opdefs-<release>.json records.

Raw dump (one entry per registered op, see op_dump.cc):

    {"name", "dialect", "registered_attributes": [...],
     "op_info": null | {"inputs", "attributes", "outputs", "infer_meta", "kernel", "inplace"}}

Record (tools/opdefs/README.md documents the schema):

* op-info ops (`source` "OpYamlInfoInterface::GetOpInfo"): inputs / attributes / outputs as
  Paddle's op-info record gives them; boolean flags written only when true
  (`mutable_attribute`, `no_need_buffer`, `intermediate`), `data_type` only when non-empty,
  `inplace` only when non-empty; attribute `default` is the C++ default expression of the
  same-named `Build(...)` parameter in the op's header; `registered_attributes_name` is
  added when the registered attribute names differ from the op-info attribute list.
* ops without op info (`source` NO_OP_INFO): registered attribute names, typed by the
  same-named `Build` parameter's C++ type (else "unknown"); operands / results from the
  header's `operand_source(i)` / `result(i)` accessors with type pir::Value and optional null;
  `inputs_variadic` / `outputs_variadic` when the class walks num_operands() / num_results().
* `header` (relative to include/paddle) whenever a shipped header declares the op class.

The file is `json.dumps(records, indent=1, sort_keys=True)` without a trailing newline.
"""

from __future__ import annotations

import json

from cpp_headers import OpClass, value_type

OP_INFO = "OpYamlInfoInterface::GetOpInfo"
NO_OP_INFO = "runtime attributes_name + header accessors (no OpYamlInfo)"


def op_info_record(raw: dict, op_class: OpClass | None) -> dict:
    info = raw["op_info"]
    record: dict = {"dialect": raw["dialect"], "source": OP_INFO}
    inputs = []
    for item in info["inputs"]:
        entry = {"name": item["name"], "type": item["type"], "optional": item["optional"]}
        if item["mutable_attribute"]:
            entry["mutable_attribute"] = True
        if item["no_need_buffer"]:
            entry["no_need_buffer"] = True
        inputs.append(entry)
    attributes = []
    for item in info["attributes"]:
        entry = {"name": item["name"], "type": item["type"]}
        if item["data_type"]:
            entry["data_type"] = item["data_type"]
        default = op_class.default_of(item["name"]) if op_class else None
        if default is not None:
            entry["default"] = default
        attributes.append(entry)
    outputs = []
    for item in info["outputs"]:
        entry = {"name": item["name"], "type": item["type"], "optional": item["optional"]}
        if item["intermediate"]:
            entry["intermediate"] = True
        outputs.append(entry)
    record.update(inputs=inputs, attributes=attributes, outputs=outputs,
                  infer_meta=info["infer_meta"], kernel=info["kernel"])
    if info["inplace"]:
        record["inplace"] = [list(pair) for pair in info["inplace"]]
    if raw["registered_attributes"] != [a["name"] for a in info["attributes"]]:
        record["registered_attributes_name"] = list(raw["registered_attributes"])
    return record


def _value(name: str) -> dict:
    """An accessor-derived operand or result: any value, optionality unknown."""
    return {"name": name, "type": "pir::Value", "optional": None}


def header_only_record(raw: dict, op_class: OpClass | None) -> dict:
    record: dict = {"dialect": raw["dialect"], "source": NO_OP_INFO}
    attributes = []
    for name in raw["registered_attributes"]:
        param = op_class.build_param(name) if op_class else None
        entry = {"name": name, "type": value_type(param.type) if param else "unknown"}
        default = op_class.default_of(name) if op_class else None
        if default is not None:
            entry["default"] = default
        attributes.append(entry)
    record["inputs"] = [_value(n) for n in op_class.operands] if op_class else []
    record["attributes"] = attributes
    record["outputs"] = [_value(n) for n in op_class.results] if op_class else []
    if op_class and op_class.variadic_operands:
        record["inputs_variadic"] = True
    if op_class and op_class.variadic_results:
        record["outputs_variadic"] = True
    return record


def build_records(raw_ops: list[dict], op_classes: dict[str, OpClass]) -> dict[str, dict]:
    """{op name: record} for every op of the raw dump."""
    records = {}
    for raw in raw_ops:
        op_class = op_classes.get(raw["name"])
        if raw["op_info"] is not None:
            if "error" in raw["op_info"]:
                raise SystemExit(f"extract: GetOpInfo of {raw['name']} failed: "
                                 f"{raw['op_info']['error']}")
            record = op_info_record(raw, op_class)
        else:
            record = header_only_record(raw, op_class)
        if op_class is not None:
            record["header"] = op_class.header
        records[raw["name"]] = record
    return records


def dumps(records: dict[str, dict]) -> str:
    """The opdefs file text: the format the committed opdefs-*.json files use."""
    return json.dumps(records, indent=1, sort_keys=True)
