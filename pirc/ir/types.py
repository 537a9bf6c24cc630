"""PIR types on xDSL.

Element types reuse xDSL's builtin types where the meaning is identical (f32 is
`Float32Type`, PIR's bool `b` is `i1`, u8 is an unsigned 8-bit integer, c64 is
`complex<f32>`); the tensor-like container types PIR adds are parametrized
attributes of the `pir` namespace.  Every type carries exactly what Paddle's
JSON stores for it, so no printer has to guess (layout, lod and offset of a
dense tensor survive a round trip even though Paddle's text hides them).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class UndefinedType(ParametrizedAttribute, TypeAttribute):
    """PIR's `undefined` element type (a dtype not yet inferred)."""

    name = "pir.undefined"


@irdl_attr_definition
class NullType(ParametrizedAttribute, TypeAttribute):
    """The type of an absent optional value: `<<NULL TYPE>>`."""

    name = "pir.null"


# Element type spellings in Paddle's text (and pirc's canonical text).
ELEMENT_TYPES: dict[str, Attribute] = {
    "f16": Float16Type(),
    "bf16": BFloat16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
    "b": IntegerType(1),
    "i8": IntegerType(8),
    "u8": IntegerType(8, Signedness.UNSIGNED),
    "i16": IntegerType(16),
    "i32": IntegerType(32),
    "i64": IntegerType(64),
    "index": IndexType(),
    "c64": ComplexType(Float32Type()),
    "c128": ComplexType(Float64Type()),
    "f8e4m3fn": Float8E4M3FNType(),
    "f8e5m2": Float8E5M2Type(),
    "undefined": UndefinedType(),
}
ELEMENT_TYPE_NAMES: dict[Attribute, str] = {t: n for n, t in ELEMENT_TYPES.items()}

DEFAULT_LAYOUT = "NCHW"
# The layout Paddle writes for a sparse tensor's unset indices / values types.
SPARSE_PART_LAYOUT = "Undefined(AnyLayout)"


def _ints(values) -> ArrayAttr:
    return ArrayAttr(tuple(IntAttr(v) for v in values))


def _lod(levels) -> ArrayAttr:
    return ArrayAttr(tuple(_ints(level) for level in levels))


class _TensorLike:
    """Accessors shared by the dense-tensor-shaped types (plain Python values)."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.dims.data)

    @property
    def layout_name(self) -> str:
        return self.layout.data

    def has_default_layout(self) -> bool:
        return self.layout.data == DEFAULT_LAYOUT


class _LodTensorLike(_TensorLike):
    """Types with Paddle's five dense-tensor fields: dtype, dims, layout, lod, offset."""

    @classmethod
    def make(cls, dtype: Attribute, dims, layout: str = DEFAULT_LAYOUT, lod=(), offset: int = 0):
        return cls(dtype, _ints(dims), StringAttr(layout), _lod(lod), IntAttr(offset))

    @property
    def lod_levels(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(i.data for i in level.data) for level in self.lod.data)


@irdl_attr_definition
class DenseTensorType(_LodTensorLike, ParametrizedAttribute, TypeAttribute):
    """`tensor<2x-1xf32>`: Paddle's DenseTensorType (JSON `0.t_dtensor`).

    dims use -1 for a dynamic size, as Paddle does; a 0-d tensor has no dims.
    """

    name = "pir.tensor"
    dtype: Attribute
    dims: ArrayAttr[IntAttr]
    layout: StringAttr
    lod: ArrayAttr[ArrayAttr[IntAttr]]
    offset: IntAttr

    def is_plain(self) -> bool:
        """True when Paddle's text shows everything this type holds."""
        return self.layout.data == DEFAULT_LAYOUT and not self.lod.data and self.offset.data == 0


@irdl_attr_definition
class SelectedRowsType(_LodTensorLike, ParametrizedAttribute, TypeAttribute):
    """Paddle's SelectedRowsType (JSON `1.t_selected_rows`), same fields as a dense tensor."""

    name = "pir.selected_rows"
    dtype: Attribute
    dims: ArrayAttr[IntAttr]
    layout: StringAttr
    lod: ArrayAttr[ArrayAttr[IntAttr]]
    offset: IntAttr


@irdl_attr_definition
class SparseCooTensorType(_TensorLike, ParametrizedAttribute, TypeAttribute):
    """Paddle's SparseCooTensorType (JSON `1.t_sparse_coo_tensor`).

    Fields in the order of Paddle's JSON: dtype, dims, non-zero dims, layout and the dense
    types of its indices and values.  Paddle's text shows only dims and dtype
    (`pd_op.sparsecootensor<4x3xf32>`); its InferMeta leaves the indices / values types
    unset (0-d, `Undefined(AnyLayout)`, the tensor's dtype), which pirc takes as the default.
    """

    name = "pir.sparse_coo_tensor"
    dtype: Attribute
    dims: ArrayAttr[IntAttr]
    non_zero_dims: ArrayAttr[IntAttr]
    layout: StringAttr
    indices: Attribute
    values: Attribute

    @staticmethod
    def default_part(dtype: Attribute) -> "DenseTensorType":
        return DenseTensorType.make(dtype, (), SPARSE_PART_LAYOUT)

    @staticmethod
    def make(dtype: Attribute, dims, non_zero_dims=(), layout: str = DEFAULT_LAYOUT,
             indices=None, values=None):
        return SparseCooTensorType(
            dtype, _ints(dims), _ints(non_zero_dims), StringAttr(layout),
            indices or SparseCooTensorType.default_part(dtype),
            values or SparseCooTensorType.default_part(dtype))

    @property
    def non_zero_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.non_zero_dims.data)


@irdl_attr_definition
class DenseTensorArrayType(_TensorLike, ParametrizedAttribute, TypeAttribute):
    """Paddle's DenseTensorArrayType (JSON `1.t_dense_tensor_array`): dtype, dims, layout."""

    name = "pir.tensor_array"
    dtype: Attribute
    dims: ArrayAttr[IntAttr]
    layout: StringAttr

    @staticmethod
    def make(dtype: Attribute, dims=(), layout: str = DEFAULT_LAYOUT):
        return DenseTensorArrayType(dtype, _ints(dims), StringAttr(layout))


@irdl_attr_definition
class VectorType(ParametrizedAttribute, TypeAttribute):
    """`vec[T, ...]`: Paddle's pir::VectorType (JSON `0.t_vec`)."""

    name = "pir.vec"
    elements: ArrayAttr[Attribute]

    @staticmethod
    def make(elements) -> "VectorType":
        return VectorType(ArrayAttr(tuple(elements)))

    @property
    def types(self) -> tuple[Attribute, ...]:
        return self.elements.data


NULL_TYPE = NullType()

PIR_TYPE_CLASSES = (
    UndefinedType,
    NullType,
    DenseTensorType,
    SelectedRowsType,
    DenseTensorArrayType,
    VectorType,
)
