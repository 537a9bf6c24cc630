"""The versioned op registry: one test per rule ("deprecate, never delete")."""

import pytest

from pirc.errors import LoweringError
from pirc.runtime.registry import REGISTRY, Behaviour, OpRegistry, RegistryError


def v1(x):
    return "v1"


def v4(x):
    return "v4"


@pytest.fixture
def reg():
    r = OpRegistry()
    r.register("pd_op.leaky_relu", since=1, until=4, flags=Behaviour(notes="f32 slope"))(v1)
    r.register("pd_op.leaky_relu", since=4)(v4)
    return r


def test_register_returns_the_function_unchanged():
    r = OpRegistry()
    assert r.register("pd_op.relu")(v1) is v1


def test_resolve_picks_the_range_holding_the_version(reg):
    assert [reg.resolve("pd_op.leaky_relu", v).fn for v in (1, 2, 3, 4)] == [v1, v1, v1, v4]
    e = reg.resolve("pd_op.leaky_relu", 2)
    assert (e.name, e.since, e.until, e.flags.notes, e.deprecated) == ("pd_op.leaky_relu", 1, 4, "f32 slope", False)


def test_develop_version_resolves_like_the_newest_release(reg):
    assert reg.resolve("pd_op.leaky_relu", 0).fn is v4


def test_open_ended_range_covers_later_versions(reg):
    assert reg.resolve("pd_op.leaky_relu", 9).fn is v4


@pytest.mark.parametrize("since, until", [(1, None), (3, 5), (2, 3), (1, 2), (5, None)])
def test_overlapping_ranges_are_rejected_at_registration(reg, since, until):
    with pytest.raises(RegistryError, match="overlap"):
        reg.register("pd_op.leaky_relu", since=since, until=until)(v1)
    # the failed registration changed nothing
    assert [e.since for e in reg.entries("pd_op.leaky_relu")] == [1, 4]


def test_adjacent_ranges_do_not_overlap():
    r = OpRegistry()
    r.register("pd_op.x", since=1, until=2)(v1)
    r.register("pd_op.x", since=2, until=3)(v4)
    r.register("pd_op.x", since=3)(v1)
    assert [r.resolve("pd_op.x", v).fn for v in (1, 2, 3)] == [v1, v4, v1]


@pytest.mark.parametrize("since, until", [(0, None), (3, 3), (4, 2), ("1", None)])
def test_bad_bounds_are_rejected(since, until):
    with pytest.raises(RegistryError):
        OpRegistry().register("pd_op.x", since=since, until=until)(v1)


def test_resolving_nothing_names_op_version_and_ranges():
    r = OpRegistry()
    r.register("pd_op.maximum", since=2, until=4)(v1)
    with pytest.raises(LoweringError) as e:
        r.resolve("pd_op.maximum", 1)
    msg = str(e.value)
    assert "pd_op.maximum" in msg and "PIR version 1" in msg and "[2, 4)" in msg
    with pytest.raises(LoweringError, match=r"pd_op.nothing has no lowering \(program PIR version 3\); "
                                            "no version range is registered"):
        r.resolve("pd_op.nothing", 3)


def test_deprecate_keeps_the_old_entry_resolvable(reg):
    entry = reg.deprecate("pd_op.leaky_relu", 2)
    assert entry.deprecated and entry.fn is v1
    assert reg.resolve("pd_op.leaky_relu", 1).fn is v1  # old programs keep their semantics
    assert reg.resolve("pd_op.leaky_relu", 1).deprecated
    assert not reg.resolve("pd_op.leaky_relu", 4).deprecated
    assert len(reg.entries("pd_op.leaky_relu")) == 2
    assert "[1, 4) (deprecated)" in reg.missing_message("pd_op.leaky_relu", 9)


def test_deprecate_of_an_uncovered_version_is_an_error(reg):
    with pytest.raises(RegistryError):
        reg.deprecate("pd_op.relu", 1)


def test_registered_deprecated_flag_and_listing():
    r = OpRegistry()
    r.register("pd_op.b", since=1, deprecated=True)(v1)
    r.register("pd_op.a", since=1)(v1)
    assert r.names() == ["pd_op.a", "pd_op.b"]
    assert r.resolve("pd_op.b", 1).deprecated
    assert "pd_op.a" in r and "pd_op.c" not in r


def test_kernel_modules_register_into_the_shared_registry():
    import pirc.lower.kernels.elementwise  # noqa: F401  (registers at import)

    assert REGISTRY.resolve("pd_op.add", 1).fn.__module__ == "pirc.lower.kernels.elementwise"


def test_inplace_ops_share_their_twin_kernel_where_the_specs_agree():
    from pirc.lower.kernels.inplace import register_inplace_aliases

    r = OpRegistry()
    flags = Behaviour(notes="kept")

    @r.register("pd_op.leaky_relu", since=1, flags=flags)
    def leaky(x, *, negative_slope=0.02):
        return x

    @r.register("pd_op.matmul", since=1)
    def matmul(x, y, *, transpose_x=False, transpose_y=False):
        return x

    @r.register("pd_op.batch_norm", since=1)
    def batch_norm(*args, **kwargs):
        return args[0]

    @r.register("pd_op.batch_norm_", since=1)
    def batch_norm_(*args, **kwargs):
        return args[0]

    assert register_inplace_aliases(r) == ["pd_op.leaky_relu_"]
    for version in (1, 2, 3, 4):
        entry = r.resolve("pd_op.leaky_relu_", version)
        assert entry.fn is leaky and entry.flags is flags
    assert "pd_op.matmul_" not in r  # no such op in any release
    assert r.resolve("pd_op.batch_norm_", 4).fn is batch_norm_  # its own kernel wins


def test_the_real_registry_lowers_inplace_activations():
    import pirc.lower.kernels as kernels

    assert {"pd_op.leaky_relu_", "pd_op.logit_", "pd_op.relu_"} <= set(kernels.INPLACE_ALIASES)
    assert REGISTRY.resolve("pd_op.logit_", 1).fn is REGISTRY.resolve("pd_op.logit", 1).fn
