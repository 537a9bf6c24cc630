"""Building pipelines: named ones from pipelines/*.yaml, explicit lists with options, and
every error a user can make, each naming what to change (pirc.passes.infra.pipeline)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pirc.passes import PircPass, PipelineError, all_passes, build_pipeline, register_pass


@register_pass
@dataclass(frozen=True)
class _WithOptions(PircPass):
    """A test pass with typed options."""

    name = "test-options"
    max_iterations: int = 1
    scale: float = 0.5
    aggressive: bool = False

    def run(self, pc):
        pass


@register_pass
@dataclass(frozen=True)
class _NeedsCse(PircPass):
    """A test pass that requires cse."""

    name = "test-needs-cse"
    requires = ("cse",)

    def run(self, pc):
        pass


@register_pass
@dataclass(frozen=True)
class _CycleA(PircPass):
    name = "test-cycle-a"
    requires = ("test-cycle-b",)

    def run(self, pc):
        pass


@register_pass
@dataclass(frozen=True)
class _CycleB(PircPass):
    name = "test-cycle-b"
    requires = ("test-cycle-a",)

    def run(self, pc):
        pass


def test_the_default_pipeline_is_data():
    pipeline = build_pipeline("default")
    assert pipeline.name == "default" and pipeline.version == 3
    assert [p.name for p in pipeline.passes] == [
        "canonicalize", "const-fold", "conv-bn-fold", "param-fold", "cse", "dce"]


def test_passes_are_found_by_scanning_the_package():
    assert {"canonicalize", "const-fold", "cse", "dce"} <= set(all_passes())


def test_an_explicit_list_with_options():
    pipeline = build_pipeline("test-options{max-iterations=3 scale=2 aggressive=true},dce")
    first = pipeline.passes[0]
    assert (first.max_iterations, first.scale, first.aggressive) == (3, 2.0, True)
    assert pipeline.text() == "test-options{max-iterations=3 scale=2.0 aggressive=true},dce"
    assert build_pipeline(pipeline.text()).passes == pipeline.passes


def test_a_named_pipeline_inside_a_list():
    assert [p.name for p in build_pipeline("default,dce").passes] == [
        "canonicalize", "const-fold", "conv-bn-fold", "param-fold", "cse", "dce", "dce"]


@pytest.mark.parametrize("spec, message", [
    ("dec", "unknown pass 'dec' (did you mean 'dce'?)"),
    ("defualt", "unknown pass 'defualt' (did you mean 'default'?)"),
    ("test-options{max-iteration=2}", "has no option 'max-iteration' (did you mean 'max-iterations'?)"),
    ("cse{x=1}", "pass 'cse' has no option 'x' (it takes none)"),
    ("test-options{max-iterations=two}", "option 'max-iterations': expected an integer, got 'two'"),
    ("test-options{aggressive=1}", "option 'aggressive': expected true or false, got 1"),
    ("test-needs-cse", "pass 'test-needs-cse' requires 'cse', which the pipeline lacks: add 'cse' before"),
    ("test-needs-cse,cse", "requires 'cse' to run before it, but 'cse' comes later"),
    ("test-cycle-a", "passes require each other in a cycle: test-cycle-a -> test-cycle-b -> test-cycle-a"),
    ("", "empty pipeline"),
    ("cse{", "pipeline 'cse{': at column 5: Expected argument name here"),
])
def test_errors_say_what_to_change(spec, message):
    with pytest.raises(PipelineError) as e:
        build_pipeline(spec)
    assert message in str(e.value)


def test_requires_satisfied_in_order():
    assert [p.name for p in build_pipeline("cse,test-needs-cse").passes] == ["cse", "test-needs-cse"]
