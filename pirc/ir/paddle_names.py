"""Names Paddle gives to its enums, as its printers spell them.

Kept as data so every front and back end agrees on one spelling.
"""

from __future__ import annotations

import re

# phi::DataType as `operator<<` prints it (the text printers).  JSON uses
# DataTypeToString, which differs only for UNDEFINED (see paddle_json.codes).
DTYPE_NAMES = (
    "Undefined", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
    "int64", "uint64", "bfloat16", "float16", "float32", "float64",
    "complex64", "complex128", "pstring", "float8_e4m3fn", "float8_e5m2",
)

# phi::AllocationType values and the names Place::DebugString prints, as
# observed in Paddle 3.3.1 (tools/paddle_oracle/FINDINGS.md).  A custom device
# (type 9) prints its device type instead: `Place(npu:0)` is [9, 0, "npu"].
# Paddle 3.3.1 cannot print types 6 and 8; pirc prints them by number.
ALLOC_TYPES = {
    0: "undefined",
    1: "cpu",
    2: "gpu",
    3: "gpu_pinned",
    4: "xpu",
    5: "xpu_pinned",
    7: "ipu",
}
ALLOC_TYPE_BY_NAME = {name: number for number, name in ALLOC_TYPES.items()}
CUSTOM_ALLOC_TYPE = 9
# Places printed without a device id: `Place(cpu)`.
PLACES_WITHOUT_DEVICE = frozenset({1, 3, 5})

# phi::DataLayout names.
LAYOUT_NAMES = ("NCHW", "NHWC", "NCDHW", "NDHWC", "ONEDNN", "SPARSE_COO", "SPARSE_CSR",
                "PSTRING_UNION", "STRIDED", "Undefined(AnyLayout)", "ANY", "kNCHW", "kNHWC")


def place_text(alloc_type: int, device_id: int, device_type: str) -> str:
    """`Place(cpu)`, `Place(undefined:0)`, `Place(gpu:1)`, `Place(npu:0)` (custom)."""
    if alloc_type == CUSTOM_ALLOC_TYPE and device_type:
        name = device_type
    else:
        name = ALLOC_TYPES.get(alloc_type, str(alloc_type))
    if alloc_type in PLACES_WITHOUT_DEVICE:
        return f"Place({name})"
    return f"Place({name}:{device_id})"


def lossless_place_text(alloc_type: int, device_id: int, device_type: str) -> str | None:
    """place_text() when it reads back as this place, else `Place(TYPE:ID:DEVICE_TYPE)` by
    number (a device id Paddle does not print, a device type on a non-custom place); None
    for a device type that is not an identifier (no text form can hold it)."""
    text = place_text(alloc_type, device_id, device_type)
    try:
        if parse_place_text(text) == (alloc_type, device_id, device_type):
            return text
    except ValueError:
        pass
    if device_type and not _DEVICE_TYPE.fullmatch(device_type):
        return None
    return f"Place({alloc_type}:{device_id}:{device_type})"


_DEVICE_TYPE = re.compile(r"[A-Za-z0-9_]+")
_NUMBER = re.compile(r"-?\d+")


def parse_place_text(text: str) -> tuple[int, int, str]:
    """Inverse of place_text and lossless_place_text.  Raises ValueError on an unknown form."""
    if not (text.startswith("Place(") and text.endswith(")")):
        raise ValueError(f"not a place: {text}")
    parts = text[6:-1].split(":")
    if len(parts) == 3 and all(_NUMBER.fullmatch(p) for p in parts[:2]) \
            and (parts[2] == "" or _DEVICE_TYPE.fullmatch(parts[2])):
        return int(parts[0]), int(parts[1]), parts[2]
    if len(parts) > 2 or (len(parts) == 2 and not _NUMBER.fullmatch(parts[1])):
        raise ValueError(f"not a place: {text}")
    name = parts[0]
    device_id = int(parts[1]) if len(parts) == 2 else 0
    if name in ALLOC_TYPE_BY_NAME:
        return ALLOC_TYPE_BY_NAME[name], device_id, ""
    if _NUMBER.fullmatch(name):
        return int(name), device_id, ""
    if _DEVICE_TYPE.fullmatch(name):
        return CUSTOM_ALLOC_TYPE, device_id, name
    raise ValueError(f"not a place: {text}")
