"""Op classes keyed by (op name, PIR version).

One class per op name and spec revision: `op_class("pd_op.leaky_relu", 1)` and
`op_class("pd_op.leaky_relu", 4)` are different classes because the op's definition changed
at version 4, while versions 1-3 share one.  A name can even mean a different op at another
version (3.0.0's `pd_op.rms_norm` is 3.3.1's `pd_op.fused_rms_norm_quant`), so passes and
lowerings dispatch on the class, never on the name alone.

Classes are plain `PirOp` subclasses made with `type()`: re-running `irdl_op_definition` per
op would cost ~1 ms each, and the structure it would check is the verifier's job
(pirc.ir.verifier).  They are generated on first use and cached.  Each carries `name`, `spec`
(its OpSpec) and `pir_version` (the revision's `since`), plus a read-only property per
operand, result and attribute of the spec:

* an operand property returns the value, None for a `<<NULL VALUE>>`, a tuple if variadic;
* a result property returns the result (a tuple if variadic);
* an attribute property returns the attribute, None if the op lacks it.

A spec name that clashes with an attribute of `PirOp` / `Operation` (`name`, `parent`,
`results`, `regions`, ...) or with a Python keyword gets a trailing underscore.
"""

from __future__ import annotations

import dataclasses
import keyword

from xdsl.ir import OpTraits

from .effects import traits_for
from .op_names import check_op_name
from .ops import PirOp, is_null_value
from .specs import OpSpec, get_spec

_GENERIC: dict[str, type] = {}
_BY_REVISION: dict[tuple[str, int], type] = {}

_RESERVED = frozenset(dir(PirOp)) | {f.name for f in dataclasses.fields(PirOp)}


def op_class(name: str, version: int) -> type[PirOp]:
    """The op class for `name` at PIR `version` (a generic class if no spec knows it)."""
    spec = get_spec(name, version)
    if spec is None:
        return generic_class(name)
    cls = _BY_REVISION.get((name, spec.since))
    if cls is None:
        cls = _BY_REVISION[(name, spec.since)] = _make_class(spec)
    return cls


def generic_class(name: str) -> type[PirOp]:
    """The class of an op no spec knows: kept as is, structure unchecked.

    Raises OpNameError for a name outside the `dialect.name` rule (pirc.ir.op_names): every
    op class is made here or from a spec, so no front end or rewrite can create such an op.
    """
    cls = _GENERIC.get(name)
    if cls is None:
        check_op_name(name)
        cls = _GENERIC[name] = type(_class_name(name), (PirOp,),
                                    {"name": name, "spec": None, "pir_version": None,
                                     "__module__": __name__})
    return cls


def is_known(name: str, version: int) -> bool:
    return get_spec(name, version) is not None


def accessor_name(name: str) -> str:
    """The property name generated for a spec name (`name` -> `name_`)."""
    while name in _RESERVED or keyword.iskeyword(name):
        name += "_"
    return name


# -- class generation --------------------------------------------------------------------


def _make_class(spec: OpSpec) -> type[PirOp]:
    # Effects as traits (pirc.ir.effects), resolved when a pass first asks: not at start-up.
    traits = OpTraits(lambda: traits_for(spec))
    namespace: dict = {"name": spec.name, "spec": spec, "pir_version": spec.since,
                       "traits": traits, "__module__": __name__, "__doc__": _doc(spec)}
    used: set[str] = set()

    def add(spec_name: str, prop: property) -> None:
        attr = accessor_name(spec_name)
        while attr in used:  # an operand and a result of the same name: keep both
            attr += "_"
        used.add(attr)
        namespace[attr] = prop

    for spec_name, prop in _positional(spec.operands, _operand, _variadic_operands):
        add(spec_name, prop)
    for a in spec.attributes:
        add(a.name, _attribute(a.name))
    for spec_name, prop in _positional(spec.results, _result, _variadic_results):
        add(spec_name, prop)
    return type(f"{_class_name(spec.name)}V{spec.since}", (PirOp,), namespace)


def _positional(items, single, variadic):
    """(name, property) per item; items after a variadic one are indexed from the end."""
    v = next((i for i, item in enumerate(items) if item.variadic), None)
    for i, item in enumerate(items):
        if v is None or i < v:
            yield item.name, single(i)
        elif i == v:
            yield item.name, variadic(i, len(items) - i - 1)
        else:
            yield item.name, single(i - len(items))


def _operand(index: int) -> property:
    def get(self):
        operands = self.operands
        if not -len(operands) <= index < len(operands):
            return None
        value = operands[index]
        return None if is_null_value(value) else value
    return property(get)


def _variadic_operands(start: int, after: int) -> property:
    def get(self):
        operands = self.operands
        return tuple(operands[start:len(operands) - after])
    return property(get)


def _result(index: int) -> property:
    def get(self):
        results = self.results
        return results[index] if -len(results) <= index < len(results) else None
    return property(get)


def _variadic_results(start: int, after: int) -> property:
    def get(self):
        results = self.results
        return tuple(results[start:len(results) - after])
    return property(get)


def _attribute(name: str) -> property:
    return property(lambda self: self.attributes.get(name))


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.replace(".", "_").split("_")) + "Op"


def _doc(spec: OpSpec) -> str:
    operands = ", ".join(o.name + ("..." if o.variadic else "") for o in spec.operands)
    results = ", ".join(r.name + ("..." if r.variadic else "") for r in spec.results)
    return f"{spec.name} ({operands}) -> ({results}), PIR version {spec.since} on."
