"""Structural equality of two programs, with the differences spelled out.

xDSL's `is_structurally_equivalent` treats two `<<NULL VALUE>>` operands as
different values and 0.0 as equal to -0.0; pirc's round-trip guarantees are
stronger (exact float bits, NaN equal to NaN), so tests compare with this.
"""

from __future__ import annotations

import math
import struct

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr

from .ops import BLOCK_ARG_ATTRS, NullValueOp

# Properties that are not part of what a program computes: block-argument attributes are
# compared above, on their own; JSON keys Paddle does not know (and ignores on load) are kept
# for a JSON -> JSON round trip only, so two programs that differ in them are the same program
# (docs/PADDLE-JSON.md). Spelled here, not imported, to keep ir/ free of the JSON reader.
_NOT_COMPARED = frozenset({BLOCK_ARG_ATTRS, "pir.json_unknown_keys"})
# JSON dist / quant attribute lists: absent and empty say the same (nothing), as Paddle reads them.
_SIDE_LISTS = frozenset({"pir.json_da", "pir.json_qa"})


def _compared_properties(op) -> dict:
    return {k: v for k, v in op.properties.items() if k not in _NOT_COMPARED
            and not (k in _SIDE_LISTS and not getattr(v, "data", None))}


def program_differences(a, b, limit: int = 20) -> list[str]:
    """Differences between programs `a` and `b` (empty when they are equal)."""
    diffs: list[str] = []
    if a.version != b.version:
        diffs.append(f"version: {a.version} != {b.version}")
    if list(a.graph_tags) != list(b.graph_tags):
        diffs.append(f"graph tags: {a.graph_tags} != {b.graph_tags}")
    if a.manifest != b.manifest:
        diffs.append(f"manifest: {a.manifest} != {b.manifest}")
    _Compare(diffs, limit).blocks(a.module.regions[0].blocks, b.module.regions[0].blocks, "program")
    return diffs[:limit]


class _Compare:
    def __init__(self, diffs: list[str], limit: int):
        self.diffs = diffs
        self.limit = limit
        self.values: dict = {}  # value of a -> value of b
        self.op_index = 0

    def note(self, message: str) -> bool:
        self.diffs.append(message)
        return len(self.diffs) < self.limit

    def blocks(self, blocks_a, blocks_b, where: str) -> bool:
        blocks_a, blocks_b = list(blocks_a), list(blocks_b)
        if len(blocks_a) != len(blocks_b):
            return self.note(f"{where}: {len(blocks_a)} blocks != {len(blocks_b)}")
        for bi, (ba, bb) in enumerate(zip(blocks_a, blocks_b)):
            if len(ba.args) != len(bb.args):
                return self.note(f"{where} block {bi}: {len(ba.args)} arguments != {len(bb.args)}")
            for x, y in zip(ba.args, bb.args):
                if x.type != y.type:
                    if not self.note(f"{where} block {bi}: argument type {x.type} != {y.type}"):
                        return False
                self.values[x] = y
            ops_a, ops_b = list(ba.ops), list(bb.ops)
            if len(ops_a) != len(ops_b):
                return self.note(f"{where} block {bi}: {len(ops_a)} ops != {len(ops_b)}")
            for oa, ob in zip(ops_a, ops_b):
                if not self.op(oa, ob):
                    return False
        return True

    def op(self, a, b) -> bool:
        where = f"op #{self.op_index} {a.name}"
        self.op_index += 1
        if a.name != b.name:
            return self.note(f"{where}: name != {b.name}")
        if len(a.operands) != len(b.operands):
            return self.note(f"{where}: {len(a.operands)} operands != {len(b.operands)}")
        for i, (x, y) in enumerate(zip(a.operands, b.operands)):
            null_x, null_y = isinstance(x.owner, NullValueOp), isinstance(y.owner, NullValueOp)
            if null_x or null_y:
                same = null_x and null_y
            else:
                same = self.values.get(x) is y
            if not same and not self.note(f"{where}: operand {i} refers to a different value"):
                return False
        if [r.type for r in a.results] != [r.type for r in b.results]:
            if not self.note(f"{where}: result types {[str(r.type) for r in a.results]} != "
                             f"{[str(r.type) for r in b.results]}"):
                return False
        for x, y in zip(a.results, b.results):
            self.values[x] = y
        if _arg_attrs(a) != _arg_attrs(b):
            if not self.note(f"{where}: block argument attributes {_arg_attrs(a)} != {_arg_attrs(b)}"):
                return False
        props_a, props_b = _compared_properties(a), _compared_properties(b)
        for label, da, db in (("attribute", a.attributes, b.attributes),
                              ("property", props_a, props_b)):
            if set(da) != set(db):
                if not self.note(f"{where}: {label}s {sorted(da)} != {sorted(db)}"):
                    return False
                continue
            for k in da:
                if not attrs_equal(da[k], db[k]):
                    if not self.note(f"{where}: {label} {k}: {da[k]} != {db[k]}"):
                        return False
        if len(a.regions) != len(b.regions):
            return self.note(f"{where}: {len(a.regions)} regions != {len(b.regions)}")
        for ri, (ra, rb) in enumerate(zip(a.regions, b.regions)):
            if not self.blocks(ra.blocks, rb.blocks, f"{where} region {ri}"):
                return False
        return True


def _arg_attrs(op) -> dict:
    """Non-empty block-argument attribute dicts by (region, block, argument).

    A missing property and one holding only empty dicts mean the same: no
    block argument has attributes.
    """
    prop = op.properties.get(BLOCK_ARG_ATTRS)
    out = {}
    if prop is None:
        return out
    for ri, per_region in enumerate(prop.data):
        for bi, per_block in enumerate(per_region.data):
            for ai, d in enumerate(per_block.data):
                if d.data:
                    out[(ri, bi, ai)] = {k: str(v) for k, v in d.data.items()}
    return out


def _float_bits(value: float) -> bytes:
    return b"nan" if math.isnan(value) else struct.pack("<d", value)


def attrs_equal(a, b) -> bool:
    """Attribute equality with exact float bits (NaN equals NaN, 0.0 is not -0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, FloatAttr):
        return a.type == b.type and _float_bits(a.value.data) == _float_bits(b.value.data)
    if isinstance(a, ArrayAttr):
        return len(a.data) == len(b.data) and all(attrs_equal(x, y) for x, y in zip(a.data, b.data))
    if isinstance(a, DictionaryAttr):
        return a.data.keys() == b.data.keys() and all(attrs_equal(a.data[k], b.data[k]) for k in a.data)
    return a == b
