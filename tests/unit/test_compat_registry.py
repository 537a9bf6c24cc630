"""The compat registry's rules (issue 4 item 4), one test per rule, and pirc-compat."""

import subprocess
import sys
from pathlib import Path

import pytest

from pirc.compat.registry import CompatError, CompatRegistry

REPO = Path(__file__).resolve().parents[2]


def reg(current=(2, 14), minimum=(2, 13)):
    return CompatRegistry(minimum=minimum, current=current)


def fn_in(module: str, name: str = "side", value=None):
    def f():
        return value if value is not None else name
    f.__module__ = module
    f.__qualname__ = name
    return f


def add(r, key="k", module="m", value=None, **cond):
    return r.compat_impl(key=key, **cond)(fn_in(module, value=value))


# -- the decorator -------------------------------------------------------------------------

def test_decorator_returns_the_function_unchanged_and_does_not_call_it():
    r = reg()
    calls = []
    def side():
        calls.append(1)
    assert r.compat_impl(key="k", ge=(2, 14))(side) is side
    assert calls == []


def test_resolve_returns_matching_side_without_calling_it():
    r = reg(current=(2, 14))
    new = add(r, ge=(2, 14), value="new")
    old = add(r, lt=(2, 14), value="old")
    assert r["k"].resolve() is new
    r2 = reg(current=(2, 13))
    new2 = add(r2, ge=(2, 14))
    old2 = add(r2, lt=(2, 14))
    assert r2["k"].resolve() is old2 and old is not new2


def test_ge_is_inclusive_and_lt_exclusive_at_the_threshold():
    for current, expected in (((2, 14), "ge"), ((2, 15), "ge"), ((2, 13), "lt"), ((3, 0), "ge")):
        r = reg(current=current)
        add(r, ge=(2, 14), value="ge")
        add(r, lt=(2, 14), value="lt")
        assert r["k"].apply() == expected, current


def test_resolve_raises_when_no_side_matches():
    r = reg(current=(2, 13))
    add(r, ge=(2, 14))
    with pytest.raises(CompatError, match="no side for torch 2.13"):
        r["k"].resolve()


def test_apply_calls_zero_argument_side_and_returns_its_value():
    r = reg(current=(2, 15))
    add(r, ge=(2, 14), value=42)
    assert r["k"].apply() == 42


def test_apply_does_nothing_when_no_side_matches():
    r = reg(current=(2, 13))
    add(r, ge=(2, 14), value=42)
    assert r["k"].apply() is None


def test_judgement_selects_the_true_side():
    r = reg()
    add(r, judgement=False, value="no")
    add(r, judgement=True, value="yes")
    assert r["k"].apply() == "yes"


def test_unknown_key_is_an_error_naming_known_keys():
    r = reg()
    add(r, key="present", ge=(2, 14))
    with pytest.raises(CompatError, match="present"):
        r["absent"]


# -- registration rules, one by one ----------------------------------------------------------

@pytest.mark.parametrize("key", ["", "   ", None, 3])
def test_rejects_empty_key(key):
    with pytest.raises(CompatError, match="non-empty string"):
        reg().compat_impl(key=key, ge=(2, 14))(fn_in("m"))


@pytest.mark.parametrize("cond", [{}, {"ge": (2, 14), "lt": (2, 14)},
                                  {"ge": (2, 14), "judgement": True},
                                  {"lt": (2, 14), "judgement": False}])
def test_rejects_not_exactly_one_condition(cond):
    with pytest.raises(CompatError, match="exactly one of ge, lt, judgement"):
        add(reg(), **cond)


@pytest.mark.parametrize("bad", [[2, 14], (2,), (2, 14, 0), ("2", "14"), (2.0, 14), (True, 14),
                                 "2.14", 2])
def test_rejects_threshold_that_is_not_two_ints(bad):
    with pytest.raises(CompatError, match=r"\(major, minor\) tuple of two ints"):
        add(reg(), ge=bad)
    with pytest.raises(CompatError, match=r"\(major, minor\) tuple of two ints"):
        add(reg(), lt=bad)


@pytest.mark.parametrize("threshold", [(2, 13), (2, 12), (1, 99)])
def test_rejects_threshold_at_or_below_minimum_as_stale(threshold):
    with pytest.raises(CompatError, match="stale"):
        add(reg(minimum=(2, 13)), ge=threshold)
    with pytest.raises(CompatError, match="stale"):
        add(reg(minimum=(2, 13)), lt=threshold)


def test_threshold_just_above_minimum_is_accepted():
    add(reg(minimum=(2, 13)), ge=(2, 14))


def test_rejects_more_than_two_sides():
    r = reg()
    add(r, ge=(2, 14))
    add(r, lt=(2, 14))
    with pytest.raises(CompatError, match="at most two sides"):
        add(r, ge=(2, 15))
    r = reg()
    add(r, judgement=False)
    add(r, judgement=False)
    with pytest.raises(CompatError, match="at most two sides"):
        add(r, judgement=True)


@pytest.mark.parametrize("first,second", [({"ge": (2, 14)}, {"ge": (2, 15)}),
                                          ({"lt": (2, 14)}, {"lt": (2, 14)}),
                                          ({"ge": (2, 14)}, {"lt": (2, 15)}),
                                          ({"lt": (2, 15)}, {"ge": (2, 14)})])
def test_rejects_two_sides_not_one_ge_one_lt_with_same_threshold(first, second):
    r = reg()
    add(r, **first)
    with pytest.raises(CompatError, match="one ge and one lt with the same threshold"):
        add(r, **second)


@pytest.mark.parametrize("first,second", [({"ge": (2, 14)}, {"judgement": True}),
                                          ({"judgement": False}, {"lt": (2, 14)})])
def test_rejects_mixing_versions_with_judgement(first, second):
    r = reg()
    add(r, **first)
    with pytest.raises(CompatError, match="cannot mix"):
        add(r, **second)


def test_rejects_more_than_one_true_judgement():
    r = reg()
    add(r, judgement=True)
    with pytest.raises(CompatError, match="more than one judgement side is True"):
        add(r, judgement=True)


def test_rejects_non_bool_judgement():
    with pytest.raises(CompatError, match="judgement must be a bool"):
        add(reg(), judgement=1)


def test_rejects_sides_of_one_key_in_different_modules():
    r = reg()
    add(r, module="pirc.a", ge=(2, 14))
    with pytest.raises(CompatError, match="defined in pirc.a and again in pirc.b"):
        add(r, module="pirc.b", lt=(2, 14))


def test_errors_are_pirc_errors():
    from pirc.errors import PircError
    assert issubclass(CompatError, PircError)


# -- the real keys ---------------------------------------------------------------------------

def test_compat_modules_list_every_module_that_registers_keys():
    from pirc.cli.compat import PACKAGE_ROOT, decorated_sides
    from pirc.compat import COMPAT_MODULES
    found = set()
    for path in PACKAGE_ROOT.rglob("*.py"):
        if any(True for _ in decorated_sides(path)) and path.name != "registry.py":
            rel = path.relative_to(PACKAGE_ROOT.parent).with_suffix("")
            found.add(".".join(rel.parts))
    assert found == set(COMPAT_MODULES)


def test_npu_default_generator_key_resolves_on_this_torch():
    import importlib
    from pirc.compat import compat_impl_container
    importlib.import_module("pirc.lower.npu.generators")
    point = compat_impl_container["npu_default_generator"]
    assert {s.condition() for s in point.sides} == {"ge=2.14", "lt=2.14"}
    fn = point.resolve()
    expected = "accelerator" if compat_impl_container.current >= (2, 14) else "npu_module"
    assert expected in fn.__name__


# -- pirc-compat ------------------------------------------------------------------------------

def run_cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "pirc.cli.compat", *args], cwd=REPO,
                          capture_output=True, text=True, **kw)


def test_cli_list_shows_keys_sides_and_active_side():
    r = run_cli("list")
    assert r.returncode == 0, r.stderr
    assert "npu_default_generator:" in r.stdout
    assert sum(line.lstrip().startswith("*") for line in r.stdout.splitlines()) == 1


def test_cli_check_does_not_import_torch_and_finds_nothing_stale():
    code = ("import sys; from pirc.cli.compat import main; rc = main(['check']); "
            "print('TORCH' if 'torch' in sys.modules else 'NOTORCH'); sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "NOTORCH" in r.stdout and "0 stale" in r.stdout


def test_cli_check_lists_every_stale_side_at_once(tmp_path):
    src = tmp_path / "sides.py"
    src.write_text("from pirc.compat import compat_impl\n"
                   "@compat_impl(key='a', ge=(2, 12))\ndef a_new(): pass\n"
                   "@compat_impl(key='a', lt=(2, 12))\ndef a_old(): pass\n"
                   "@compat_impl(key='b', ge=(2, 20))\ndef b_new(): pass\n"
                   "@compat_impl(key='c', judgement=True)\ndef c(): pass\n")
    r = run_cli("check", str(src))
    assert r.returncode == 1
    stale = [l for l in r.stderr.splitlines() if "stale compat side" in l]
    assert len(stale) == 2 and all("key 'a'" in l for l in stale)
    assert f"{src}:2:" in r.stderr and f"{src}:4:" in r.stderr
    assert "3 version sides checked" in r.stdout
