"""The compiled form of `attr_patches` and `type_patches`: kind-wide renames.

An attribute-kind rename (`pir::FloatAttribute` -> `pir::DoubleAttribute`)
converts every attribute of that kind the op holds, including elements of
arrays at any depth and block-argument attributes; a type-kind rename
(`pir::Float32Type` -> `pir::Float64Type`) changes every type of the op's
results and of its regions' block arguments, including `vec[...]` elements,
the dtype of tensor-like types and types held in TypeAttribute values.
Paddle reaches only the top level of each (its nested parsers never see the
patch: notes/paddle-pir-source.md 2.7); pirc reaches everything, so a
program never holds a kind its version no longer has.

Operand types need no action: an operand is a use of a result or block
argument, which the rename reaches where it is defined.  Complex element
types (`c64` is its own kind, `pir::Complex64Type`) are not entered when
renaming Float32Type, as in Paddle, where `t_c64` is a separate id.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

from ..ir import attrs as A
from ..ir import types as T
from ..ir.ops import BLOCK_ARG_ATTRS
from .op_actions import OpAction
from .paddle_kinds import convert_attr


class AttrKindRename(OpAction):
    action = "attr_patches modify_name"

    def __init__(self, from_kind: str, to_kind: str, source: str = "", label: str = ""):
        super().__init__(source)
        self.from_kind = from_kind
        self.to_kind = to_kind
        self.label = label or f"{from_kind} -> {to_kind}"

    def describe(self) -> str:
        return f"{self.action} {self.label}"

    def apply(self, op, ctx) -> bool:
        changed = False
        attributes = op.attributes
        for name, value in list(attributes.items()):
            new = self._convert(value, op, ctx)
            if new is not value:
                attributes[name] = new
                changed = True
        arg_attrs = op.properties.get(BLOCK_ARG_ATTRS)
        if arg_attrs is not None:
            new = self._convert(arg_attrs, op, ctx)
            if new is not arg_attrs:
                op.properties[BLOCK_ARG_ATTRS] = new
                changed = True
        return changed

    def _convert(self, value, op, ctx):
        if isinstance(value, ArrayAttr):
            items = tuple(self._convert(v, op, ctx) for v in value.data)
            if all(a is b for a, b in zip(items, value.data)):
                return value
            return ArrayAttr(items)
        if isinstance(value, DictionaryAttr):
            items = {k: self._convert(v, op, ctx) for k, v in value.data.items()}
            if all(items[k] is value.data[k] for k in items):
                return value
            return DictionaryAttr(items)
        try:
            kind = A.attr_kind(value)
        except TypeError:
            return value
        if kind != self.from_kind:
            return value
        try:
            return convert_attr(value, self.to_kind)
        except (ValueError, TypeError) as e:
            ctx.refuse(op, self, str(e))
            return value


class AttrKindPresent(OpAction):
    """attr_patches delete_attr (Paddle: the kind no longer exists, a file holding it fails
    to load): an op holding an attribute of the kind is refused, naming it."""

    action = "attr_patches delete_attr"

    def __init__(self, kind: str, reason: str, source: str = "", label: str = ""):
        super().__init__(source)
        self.kind = kind
        self.reason = reason
        self.label = label or kind

    def describe(self) -> str:
        return f"{self.action} {self.label}"

    def apply(self, op, ctx) -> bool:
        for name, value in op.attributes.items():
            if _holds_kind(value, self.kind):
                ctx.refuse(op, self, f"attribute {name}: {self.reason}")
                break
        return False


class TypeKindRename(OpAction):
    """Rename a type kind: `mapping` maps an element type to another (f32 -> f64), or
    `container` maps one tensor-like class to another with the same parameters."""

    action = "type_patches modify_name"

    def __init__(self, element_from=None, element_to=None, container_from=None, container_to=None,
                 source: str = "", label: str = ""):
        super().__init__(source)
        self.element_from = element_from
        self.element_to = element_to
        self.container_from = container_from
        self.container_to = container_to
        self.label = label
        self._memo: dict = {}

    def describe(self) -> str:
        return f"{self.action} {self.label}"

    def apply(self, op, ctx) -> bool:
        changed = False
        for result in op.results:
            new = self.map_type(result.type)
            if new is not result.type:
                result._type = new  # in place: uses see the new type
                changed = True
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    new = self.map_type(arg.type)
                    if new is not arg.type:
                        arg._type = new
                        changed = True
        for name, value in list(op.attributes.items()):
            new = self._map_attr(value)
            if new is not value:
                op.attributes[name] = new
                changed = True
        return changed

    def _map_attr(self, value):
        if isinstance(value, A.TypeAttr):
            new = self.map_type(value.type)
            return value if new is value.type else A.TypeAttr(new)
        if isinstance(value, ArrayAttr):
            items = tuple(self._map_attr(v) for v in value.data)
            return value if all(a is b for a, b in zip(items, value.data)) else ArrayAttr(items)
        return value

    def map_type(self, t):
        memo = self._memo
        new = memo.get(t)
        if new is None:
            new = memo[t] = self._map(t)
        return new

    def _map(self, t):
        if self.element_from is not None and t == self.element_from:
            return self.element_to
        cls = type(t)
        if cls in (T.DenseTensorType, T.SelectedRowsType):
            dtype = self.map_type(t.dtype)
            target = cls
            if self.container_from is cls:
                target = self.container_to
            if dtype is t.dtype and target is cls:
                return t
            return target(dtype, t.dims, t.layout, t.lod, t.offset)
        if cls is T.DenseTensorArrayType:
            dtype = self.map_type(t.dtype)
            return t if dtype is t.dtype else T.DenseTensorArrayType(dtype, t.dims, t.layout)
        if cls is T.VectorType:
            items = tuple(self.map_type(e) for e in t.types)
            if all(a is b for a, b in zip(items, t.types)):
                return t
            return T.VectorType.make(items)
        return t


class TypeKindPresent(OpAction):
    """type_patches delete_type: an op whose results or block arguments hold the type kind
    is refused (Paddle fails to load such a file)."""

    action = "type_patches delete_type"

    def __init__(self, probe: TypeKindRename, reason: str, source: str = "", label: str = ""):
        super().__init__(source)
        self.probe = probe  # a rename to a marker: "holds the kind" = "the rename would change it"
        self.reason = reason
        self.label = label

    def describe(self) -> str:
        return f"{self.action} {self.label}"

    def apply(self, op, ctx) -> bool:
        if op_holds_type(op, self.probe):
            ctx.refuse(op, self, self.reason)
        return False


def op_holds_type(op, rename: TypeKindRename) -> bool:
    """Whether applying `rename` would change any type of `op`."""
    for result in op.results:
        if rename.map_type(result.type) is not result.type:
            return True
    for region in op.regions:
        for block in region.blocks:
            for arg in block.args:
                if rename.map_type(arg.type) is not arg.type:
                    return True
    return any(rename._map_attr(v) is not v for v in op.attributes.values())


def _holds_kind(value, kind: str) -> bool:
    if isinstance(value, ArrayAttr):
        return any(_holds_kind(v, kind) for v in value.data)
    try:
        return A.attr_kind(value) == kind
    except TypeError:
        return False


def op_holds_attr_kind(op, kind: str) -> bool:
    return any(_holds_kind(v, kind) for v in op.attributes.values())
