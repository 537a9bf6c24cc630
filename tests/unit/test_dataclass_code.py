"""Dataclasses defined with their methods' code from the cache (pirc.dataclass_code) are the
classes `exec` would have made: the same code for every generated method, the same
behaviour; a second run compiles nothing; a stale, foreign or broken cache only costs the
compile; the hook is gone after the block, whatever happened in it."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import FrozenInstanceError, InitVar, field
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pirc import dataclass_code, user_cache
from pirc.dataclass_code import compiled_dataclass_methods


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(dataclass_code, "_TABLES", {})   # each test reads its own file
    return tmp_path / "cache" / "pirc" / dataclass_code.CACHE_NAME


def _code_of(fn):
    code = fn.__code__
    return (code.co_code, code.co_consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_filename, code.co_name, code.co_flags, fn.__defaults__, fn.__kwdefaults__)


def _methods(cls) -> dict | str:
    if isinstance(cls, str):   # the error the combination gave
        return cls
    return {name: _code_of(value) for name, value in vars(cls).items()
            if callable(value) and hasattr(value, "__code__")}


_DEFAULTS = st.one_of(st.none(), st.integers(-3, 3), st.just("x"), st.just("factory"))
_FIELDS = st.lists(st.tuples(st.sampled_from(["int", "str", "list", "ClassVar[int]", "InitVar[int]"]),
                             _DEFAULTS, st.booleans(), st.booleans()), max_size=5)
_FLAGS = st.fixed_dictionaries({"frozen": st.booleans(), "eq": st.booleans(), "order": st.booleans(),
                                "unsafe_hash": st.booleans(), "kw_only": st.booleans(),
                                "slots": st.booleans(), "repr": st.booleans()})


def _make(fields, flags):
    """A dataclass with `fields` (annotation, default, repr, compare) and the decorator's
    `flags`, or the error of a combination @dataclass refuses."""
    flags = dict(flags, order=flags["order"] and flags["eq"])
    namespace, annotations, seen_default = {}, {}, False
    for i, (annotation, default, show, compare) in enumerate(fields):
        name = f"f{i}"
        annotations[name] = annotation   # strings, as under `from __future__ import annotations`
        if annotation.startswith("ClassVar"):
            namespace[name] = 0
            continue
        if default is None and seen_default and not flags["kw_only"]:
            default = 0   # a field without a default may not follow one with a default
        if default == "factory":
            namespace[name] = field(default_factory=list, repr=show, compare=compare)
        elif default is not None:
            namespace[name] = field(default=default, repr=show, compare=compare)
            seen_default = True
        else:
            namespace[name] = field(repr=show, compare=compare)
        seen_default = seen_default or default is not None
    namespace["__annotations__"] = annotations
    namespace["__module__"] = __name__
    cls = type("Made", (), namespace)
    try:
        return dataclasses.dataclass(**flags)(cls)
    except (TypeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"


@settings(max_examples=60, deadline=None)
@given(_FIELDS, _FLAGS)
def test_every_generated_method_has_the_code_exec_compiles(fields, flags):
    plain = _make(fields, flags)
    with compiled_dataclass_methods():
        first = _make(fields, flags)     # compiled and remembered
    dataclass_code._TABLES.clear()
    with compiled_dataclass_methods():
        cached = _make(fields, flags)    # from the stored table
    assert _methods(first) == _methods(plain)
    assert _methods(cached) == _methods(plain)


def _define_shape():
    @dataclasses.dataclass(frozen=True)
    class Shape:
        name: str
        dims: tuple = field(default_factory=tuple)
        tag: ClassVar[str] = "t"
        scale: InitVar[int] = 1

        def __post_init__(self, scale):
            object.__setattr__(self, "dims", tuple(d * scale for d in self.dims))

    return Shape


def _behaviour(Shape) -> list:
    a = Shape("a", (1, 2), scale=3)
    seen = [repr(a), a.dims, a == Shape("a", (3, 6)), a == Shape("b"), hash(Shape("x")) == hash(Shape("x")),
            [f.name for f in dataclasses.fields(Shape)], Shape.__match_args__]
    for attempt in (lambda: setattr(a, "name", "b"), lambda: delattr(a, "name"), lambda: Shape()):
        try:
            attempt()
        except (FrozenInstanceError, TypeError) as e:
            seen.append((type(e).__name__, str(e)))
    return seen


def test_classes_made_from_the_cache_behave_as_plain_ones():
    plain = _behaviour(_define_shape())
    for _ in range(2):   # the second time every method comes from the stored table
        dataclass_code._TABLES.clear()
        with compiled_dataclass_methods():
            shape = _define_shape()
        assert _behaviour(shape) == plain
        assert _methods(shape) == _methods(_define_shape())


def test_a_second_run_compiles_nothing(monkeypatch, cache_home):
    with compiled_dataclass_methods():
        dataclasses.make_dataclass("A", [("x", int), ("y", str, "s")], frozen=True)
    assert cache_home.is_file()

    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(dataclass_code, "compile", refuse, raising=False)
    dataclass_code._TABLES.clear()   # a new process: the table comes from the file
    with compiled_dataclass_methods():
        made = dataclasses.make_dataclass("A", [("x", int), ("y", str, "s")], frozen=True)
    assert repr(made(1)) == "A(x=1, y='s')"


@pytest.mark.parametrize("content", [b"\x00not a cache", None], ids=["broken", "foreign"])
def test_a_broken_or_foreign_cache_is_compiled_again(cache_home, content):
    cache_home.parent.mkdir(parents=True)
    if content is None:   # another interpreter's table: its code is not run here
        user_cache.store(cache_home, (1, 0, "cpython-00", 0), {"x": "not code"})
    else:
        cache_home.write_bytes(content)
    with compiled_dataclass_methods():
        made = dataclasses.make_dataclass("B", [("x", int)])
    assert made(2) == made(2) and repr(made(2)) == "B(x=2)"
    assert user_cache.load(cache_home, dataclass_code._key())   # written afresh


def test_the_hook_is_removed_after_the_block_even_on_error():
    with pytest.raises(RuntimeError):
        with compiled_dataclass_methods():
            assert "exec" in vars(dataclasses)
            with compiled_dataclass_methods():   # nested: the outer hook stays in place
                pass
            assert "exec" in vars(dataclasses)
            raise RuntimeError
    assert "exec" not in vars(dataclasses)


def test_exec_without_namespaces_uses_its_callers_like_exec(monkeypatch):
    table = dataclass_code._CodeTable({})

    def run():
        local = {}
        table.exec("result = caller_marker", None, local)
        return local["result"]

    monkeypatch.setitem(globals(), "caller_marker", 42)
    assert run() == 42
    shared = {}
    table.exec("y = 1", shared)
    assert shared["y"] == 1


def test_a_pirc_command_leaves_dataclasses_as_it_found_them(tmp_path):
    import subprocess

    code = ("import dataclasses, sys\n"
            "from pirc.cli.process import run_as_process\n"
            "def job():\n"
            "    dataclasses.make_dataclass('C', [('x', int)])\n"
            "    print('exec' in vars(dataclasses))\n"
            "    return 0\n"
            "import atexit\n"
            "atexit.register(lambda: print('exec' in vars(dataclasses)))\n"
            "run_as_process(job)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
                               "PYTHONPATH": ":".join(sys.path)})
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\nFalse\n", "")
    assert (tmp_path / "pirc" / dataclass_code.CACHE_NAME).is_file()


def test_importing_pirc_uses_the_table_and_leaves_dataclasses_alone(tmp_path):
    import subprocess

    code = ("import dataclasses, pirc\n"
            "[table] = pirc.dataclass_code._TABLES.values()\n"
            "print('exec' in vars(dataclasses), len(table.codes) > 100)\n")
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    for _ in range(2):   # cold: compiled and stored; warm: read back
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env=env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "False True\n", "")
        assert (tmp_path / "pirc" / dataclass_code.CACHE_NAME).is_file()
