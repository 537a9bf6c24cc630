"""The patch model: what a validated `patches/N.yaml` says, independent of YAML.

`pirc.versioning.schema` reads and validates a patch file into these classes;
`pirc.versioning.compiler` turns them into xDSL rewrite patterns.  Paddle's
schema (notes/paddle-pir-source.md sections 1-2) names types and attributes by
their C++ class (`pir::Int64Attribute`, `pir::Float32Type`); the model keeps
those names as written and resolves them in `paddle_kinds`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

@dataclass(frozen=True)
class AttrValue:
    """An attribute as a patch writes it: a Paddle C++ class name and optional data.

    For `pir::ArrayAttribute`, `elements` holds one AttrValue per element (the
    `data:` list); `pir::ArrayAttribute<pir::DoubleAttribute>` is the shorthand
    for "an array whose elements become DoubleAttribute, values kept".
    The schema stores the shorthand as type `pir::ArrayAttribute` with
    `element_type` `pir::DoubleAttribute` (and, with a `data:` list of plain values,
    one element per value).
    """

    type: str
    data: Any = None
    has_data: bool = False
    elements: tuple["AttrValue", ...] | None = None
    element_type: str | None = None  # from the `ArrayAttribute<X>` shorthand
    line: int = 0


@dataclass(frozen=True)
class Action:
    """One action of a patch entry.

    `object` is what the action applies to: an attribute name (attr actions),
    a result or operand index (add_output, delete_input, modify_output_type),
    `[producer output, consumer input]` (op-pair actions), a type parameter
    index (type-kind actions), or None (modify_name).  `new_name` is the target
    name of a rename; `value` the attribute or type the action writes.
    """

    action: str
    object: Any = None
    value: AttrValue | None = None
    type_name: str | None = None  # a type, for add_output / modify_output_type / add_value
    type_data: Any = None  # a DenseTensorType's [dtype, dims, layout, lod, offset]
    new_name: str | None = None
    line: int = 0
    index: int | None = None  # an operand index given in `data` (an attribute's new operand)
    # The file the action was read from, when it is not its PatchFile's own: a merged patch
    # (pirc.versioning.layers) holds actions of Paddle's file and of pirc's layer.
    path: str | None = None


def action_path(patch: "PatchFile", action: Action) -> str:
    """The file an action of `patch` came from (for FILE:LINE messages)."""
    return action.path or patch.path


@dataclass(frozen=True)
class OpPatch:
    op_name: str
    actions: tuple[Action, ...]
    line: int = 0


@dataclass(frozen=True)
class OpPairPatch:
    producer: str
    consumer: str
    actions: tuple[Action, ...]
    line: int = 0


@dataclass(frozen=True)
class AttrKindPatch:
    """attr_patches: acts on every attribute of a kind, e.g. Int32Attribute -> Int64Attribute."""

    attr_type: str
    actions: tuple[Action, ...]
    line: int = 0


@dataclass(frozen=True)
class TypeKindPatch:
    """type_patches: acts on every type of a kind, e.g. Float32Type -> Float64Type."""

    type_name: str
    actions: tuple[Action, ...]
    line: int = 0


@dataclass(frozen=True)
class PatchFile:
    """One validated patch file: the step from version `version - 1` to `version`.

    `version` is 0 for a develop build's 0.yaml, and -1 (schema.UNKNOWN_VERSION) for a
    file validated on its own whose name is not N.yaml.
    """

    path: str
    version: int
    op_patches: tuple[OpPatch, ...] = ()
    op_pair_patches: tuple[OpPairPatch, ...] = ()
    attr_patches: tuple[AttrKindPatch, ...] = ()
    type_patches: tuple[TypeKindPatch, ...] = ()

    def is_empty(self) -> bool:
        return not (self.op_patches or self.op_pair_patches or self.attr_patches or self.type_patches)


@dataclass
class PatchSet:
    """The patch files of one directory, by version, with its version policy."""

    directory: str
    release_version: int
    develop: bool
    files: dict[int, PatchFile] = field(default_factory=dict)
    # Before merging the folder's layer (pirc/N.yaml, pirc.versioning.layers): the files as
    # the folder holds them (Paddle's own, for pirc's folder).  Equal to `files` without a layer.
    base_files: dict[int, PatchFile] = field(default_factory=dict)
    layer_files: dict[int, PatchFile] = field(default_factory=dict)
    # The folder's unmigratable.yaml (pirc.versioning.unmigratable.Unmigratable entries).
    unmigratable: list = field(default_factory=list)
