"""Pipelines: a named pipeline (`pipelines/NAME.yaml`) or an explicit list of passes with
options in mlir-opt / xdsl-opt syntax (`cse,dce`, `const-fold{max-iterations=2},dce`).

Building a pipeline checks it whole before anything runs: an unknown pass or option names
the closest valid one, an option of the wrong type says the expected type, a pass whose
`requires` is missing (or comes later) names both passes, and a cycle of `requires` is
named in full.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from dataclasses import dataclass
from pathlib import Path

from xdsl.utils.arg_spec import PipelineLexer, SpecTokenKind
from xdsl.utils.arg_spec import parse_pipeline as xdsl_parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from ...errors import PircError
from ...package_data import data_dir
from .registry import all_passes, get_pass


class PipelineError(PircError):
    """A pipeline that cannot run: the message says what to change."""


@dataclass(frozen=True)
class Pipeline:
    spec: str                 # as given: a name or a list
    passes: tuple             # PircPass instances, in order
    name: str | None = None   # the named pipeline's name
    version: int | None = None
    device: str | None = None  # the device a named pipeline is for (`npu`), None: any

    def text(self) -> str:
        """The explicit form, every option spelled: what a reproducer replays."""
        return ",".join(pass_text(p) for p in self.passes)


def pipelines_dir() -> Path:
    return data_dir("pirc.pipelines", "default.yaml", Path(__file__).resolve().parents[3] / "pipelines")


def named_pipelines() -> dict[str, Path]:
    return {p.stem: p for p in sorted(pipelines_dir().glob("*.yaml"))}


def build_pipeline(spec: str) -> Pipeline:
    """The pipeline `spec` names or lists, checked; PipelineError saying what is wrong."""
    spec = spec.strip()
    named = named_pipelines()
    if spec in named and get_pass(spec) is None:
        entries, version = read_named(named[spec])
        passes = tuple(p for entry in entries for p in _parse_list(entry, named, {spec}))
        _check_requires(passes)
        return Pipeline(spec, passes, spec, version, pipeline_device(named[spec]))
    passes = tuple(_parse_list(spec, named, set()))
    _check_requires(passes)
    return Pipeline(spec, passes)


def read_named(path: Path) -> tuple[list[str], int]:
    data = _named_data(path)
    entries = data.get("passes")
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise PipelineError("`passes` is a list of pass specs (`- dce`, `- const-fold{...}`)").in_file(str(path))
    return entries, int(data.get("version", 1))


def pipeline_device(path: Path) -> str | None:
    """A named pipeline's `device:` (the pipeline implies `--device`), None if it has none."""
    device = _named_data(path).get("device")
    if device is not None and device not in ("cpu", "npu"):
        raise PipelineError(f"`device` is cpu or npu, got {device!r}").in_file(str(path))
    return device


def _named_data(path: Path) -> dict:
    """A named pipeline's file, parsed (through the user cache: PyYAML's import and parse were
    a third of what building `default` cost)."""
    from ... import user_cache

    return user_cache.yaml_data(path, f"pipeline-{path.stem}") or {}


def resolve_device(pipeline: Pipeline, device: str | None) -> str:
    """The device a run optimises for: the one asked for, else the pipeline's, else cpu; a
    device that contradicts the pipeline's is an error."""
    if device is not None and pipeline.device is not None and device != pipeline.device:
        raise PipelineError(f"pipeline {pipeline.name!r} is for device {pipeline.device}; "
                            f"device {device} contradicts it (drop --device or pick another pipeline)")
    return device or pipeline.device or "cpu"


def _parse_list(spec: str, named: dict, expanding: set):
    if not spec:
        raise PipelineError("empty pipeline: name passes (`cse,dce`) or a pipeline (`default`)")
    _check_digits(spec)
    try:
        arg_specs = list(xdsl_parse_pipeline(spec))
    except ArgSpecParseError as e:
        raise PipelineError(f"pipeline {spec!r}: {_one_line(e)}") from None
    except ValueError as e:  # what xDSL's literal conversion raises past _check_digits
        raise PipelineError(f"pipeline {_clipped(spec)}: {e}") from None
    _check_repeated_options(spec)
    for arg in arg_specs:
        cls = get_pass(arg.name)  # imports that pass's module alone (pirc.passes.infra.registry)
        if cls is None and arg.name in named and not arg.parameters:
            if arg.name in expanding:
                raise PipelineError(f"pipeline {arg.name!r} includes itself")
            entries, _ = read_named(named[arg.name])
            for entry in entries:
                yield from _parse_list(entry, named, expanding | {arg.name})
            continue
        if cls is None:
            raise unknown_pass(arg.name, named)
        yield _instantiate(cls, arg)


def unknown_pass(name: str, named: dict | None = None) -> PipelineError:
    """The error for a pass name no pass has (nor, when given, a named pipeline)."""
    known = [*all_passes(), *(named or ())]
    return PipelineError(f"unknown pass {name!r}{closest_hint(name, known)}; "
                         "`pirc-opt --list-passes` lists them")


def _check_repeated_options(spec: str) -> None:
    """An option given twice in one pass's braces (`cse{x=1 x=2}`): xDSL's parser keeps the
    last silently; here it is an error.  The spec parsed already, so its tokens are sound:
    inside braces, a name at the start of an element is an option."""
    pass_name, keys, inside, at_key = None, set(), False, False
    for token in _tokens(spec):
        kind = token.kind
        if kind is SpecTokenKind.L_BRACE:
            inside, at_key, keys = True, True, set()
        elif kind is SpecTokenKind.R_BRACE:
            inside = False
        elif not inside:
            if kind is SpecTokenKind.IDENT:
                pass_name = token.span.text
        elif kind is SpecTokenKind.SPACE:
            at_key = True
        elif kind is SpecTokenKind.IDENT and at_key:
            at_key = False
            key = token.span.text
            if key in keys:
                raise PipelineError(f"pipeline {spec!r}: at column {token.span.start + 1}: pass "
                                    f"{pass_name!r}: option {key!r} is given twice in one {{...}}; "
                                    "give it once")
            keys.add(key)
        else:
            at_key = False


def _tokens(spec: str):
    lexer = PipelineLexer(spec)
    while True:
        token = lexer.lex()
        if token.kind is SpecTokenKind.EOF:
            return
        yield token


# A run of digits outside a quoted string; quoted strings are skipped whole.
_QUOTED_OR_DIGITS = re.compile(r'"(?:[^"\\]|\\.)*"|\d+')


def _check_digits(spec: str) -> None:
    """An option's number past the integer literal limit (pirc/limits.py) is refused before
    xDSL converts it: Python's int() stops at 4,300 digits with a ValueError."""
    from ... import limits

    cap = limits.MAX_INT_DIGITS.value()
    for m in _QUOTED_OR_DIGITS.finditer(spec):
        if m.group().isdigit() and len(m.group()) > cap:
            raise PipelineError(f"pipeline {_clipped(spec)}: the number at column {m.start() + 1}: "
                                f"{limits.MAX_INT_DIGITS.message(len(m.group()))}")


def _clipped(spec: str, keep: int = 80) -> str:
    """A spec as an error quotes it: a 5,000-digit option is not printed whole."""
    return repr(spec) if len(spec) <= keep else repr(spec[:keep]) + f" (+{len(spec) - keep} characters)"


def _instantiate(cls, arg):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    # the options' types, only when options are given: evaluating every annotation of the
    # class (its ClassVars too) was a third of building `default`
    hints = typing.get_type_hints(cls) if arg.parameters else {}
    values = {}
    for raw_name, raw in arg.parameters.items():
        field_name = raw_name.replace("-", "_")
        if field_name in values:  # `max-iterations=2 max_iterations=3`: one option twice
            raise PipelineError(f"pass {cls.name!r}: option {raw_name!r} is given twice in one "
                                f"{{...}} (as {field_name.replace('_', '-')!r} too); give it once")
        if field_name not in fields:
            options = [f.replace("_", "-") for f in fields]
            raise PipelineError(f"pass {cls.name!r} has no option {raw_name!r}"
                                f"{closest_hint(raw_name, options) if options else ' (it takes none)'}")
        values[field_name] = _convert(cls.name, raw_name, raw, hints[field_name])
    return cls(**values)


_SCALARS = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def _convert(pass_name: str, option: str, raw: list, expected):
    want = _SCALARS.get(expected, str(expected))
    if len(raw) != 1:
        raise PipelineError(f"pass {pass_name!r}, option {option!r}: expected {want}, "
                            f"got {len(raw)} values")
    value = raw[0]
    if expected is float and type(value) is int:
        return float(value)
    if type(value) is not expected:
        raise PipelineError(f"pass {pass_name!r}, option {option!r}: expected {want}, got {value!r}")
    return value


def _check_requires(passes: tuple) -> None:
    _check_cycles([p.name for p in passes])
    seen: list[str] = []
    names = [p.name for p in passes]
    for p in passes:
        for needed in type(p).requires:
            if needed in seen:
                continue
            if needed in names:
                raise PipelineError(f"pass {p.name!r} requires {needed!r} to run before it, but "
                                    f"{needed!r} comes later in the pipeline: move it before {p.name!r}")
            raise PipelineError(f"pass {p.name!r} requires {needed!r}, which the pipeline lacks: "
                                f"add {needed!r} before {p.name!r}")
        seen.append(p.name)


def _check_cycles(roots: list[str]) -> None:
    """Passes whose `requires` form a cycle can never be ordered: name the cycle (among the
    passes the pipeline names and what they require)."""
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for needed in getattr(get_pass(name), "requires", ()):
            if state.get(needed) == 1:
                cycle = path[path.index(needed):] + [needed] if needed in path else [name, needed]
                raise PipelineError("passes require each other in a cycle: " + " -> ".join(cycle))
            if state.get(needed) is None and get_pass(needed) is not None:
                visit(needed, path + [needed])
        state[name] = 2

    for name in roots:
        if state.get(name) is None:
            visit(name, [name])


def _one_line(error: ArgSpecParseError) -> str:
    """xDSL's message spans four lines (a header, `pass-pipeline:LINE:COL`, the spec and a
    caret, the problem): one line, `at column N: problem`."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    where = re.search(r":(\d+):(\d+)$", lines[1]) if len(lines) > 1 else None
    problem = lines[-1] if lines else "invalid pipeline"
    return f"at column {where.group(2)}: {problem}" if where else problem


def closest_hint(name: str, known) -> str:
    """` (did you mean 'x'?)` for the name of `known` most like `name`, or nothing."""
    import difflib  # for errors only: its import is a millisecond of every run

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def closest_first(name: str, known) -> list[str]:
    """`known`, the names most like `name` first (then the rest in their own order): what
    an error about an unknown name lists, so the likely fix is read first."""
    import difflib

    known = list(known)
    close = difflib.get_close_matches(name, known, n=len(known), cutoff=0.5)
    return close + [k for k in known if k not in close]


def pass_text(p) -> str:
    options = []
    for f in dataclasses.fields(p):
        value = getattr(p, f.name)
        text = str(value).lower() if type(value) is bool else (f'"{value}"' if type(value) is str else str(value))
        options.append(f"{f.name.replace('_', '-')}={text}")
    return p.name + ("{" + " ".join(options) + "}" if options else "")
