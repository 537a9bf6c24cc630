"""Every kernel accepts what the graph builder hands it at every PIR version its registry entry
covers: the operands of that version's op definition positionally and each of its attributes
by name. A kernel written against one release's definition and registered for another would
otherwise fail only when a program with that op and version is run."""

import inspect
import keyword

import pytest

from pirc.ir.program import LATEST_VERSION
from pirc.ir.specs import get_spec
from pirc.lower.lower import load_kernels
from pirc.runtime.registry import REGISTRY

load_kernels()


def _cases():
    for name in REGISTRY.names():
        for entry in REGISTRY.entries(name):
            last = LATEST_VERSION if entry.until is None else entry.until - 1
            for v in range(entry.since, last + 1):
                spec = get_spec(name, v)
                if spec is not None:
                    yield name, v, entry.fn, spec


CASES = list(_cases())


def _accepts(fn, spec):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    problems = []
    if not spec.variadic_operands and not var_pos and len(spec.operands) > len(positional):
        problems.append(f"{len(spec.operands)} operands, kernel takes {len(positional)} positionally")
    for a in spec.attributes:
        key = a.name + "_" if keyword.iskeyword(a.name) else a.name
        if key not in named and not var_kw:
            problems.append(f"attribute {a.name!r} is no parameter")
    return problems


def test_there_are_kernels_to_check():
    assert len({c[0] for c in CASES}) > 400


@pytest.mark.parametrize("name,version,fn,spec", CASES, ids=[f"{c[0]}@{c[1]}" for c in CASES])
def test_kernel_takes_the_operands_and_attributes_of_its_versions(name, version, fn, spec):
    problems = _accepts(fn, spec)
    assert not problems, f"{name} at PIR {version} ({fn.__module__}.{fn.__name__}): " + "; ".join(problems)


def test_a_kernel_missing_an_attribute_is_caught():
    spec = get_spec("pd_op.leaky_relu", LATEST_VERSION)

    def wrong(x, *, slope=0.02):
        return x

    assert _accepts(wrong, spec) == ["attribute 'negative_slope' is no parameter"]
