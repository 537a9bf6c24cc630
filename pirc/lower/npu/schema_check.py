"""The committed torch_npu op schemas (schemas/torch_npu-<version>.txt) and call checking.

A schema line is torch's function-schema syntax: `name[.overload](ARGS) -> RETURNS`, arguments
`Type name[=default]`, with `*` starting the keyword-only ones. `check_call` binds a call's
positional and keyword arguments to a schema the way torch's dispatcher does and returns the
problems (unknown name, unknown keyword, too many positionals, keyword-only passed by position,
required argument missing, argument given twice).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    has_default: bool
    keyword_only: bool


@dataclass(frozen=True)
class Schema:
    name: str
    overload: str
    arguments: tuple[Argument, ...]
    text: str


def _split_top(text: str) -> list[str]:
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_schema(line: str) -> Schema:
    head, rest = line.split("(", 1)
    depth, end = 1, 0
    for i, ch in enumerate(rest):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            end = i
            break
    name, _, overload = head.partition(".")
    args, keyword_only = [], False
    for part in _split_top(rest[:end]):
        if part == "*":
            keyword_only = True
            continue
        decl, eq, _default = part.partition("=")
        arg_type, _, arg_name = decl.strip().rpartition(" ")
        args.append(Argument(arg_name, arg_type, bool(eq), keyword_only))
    return Schema(name, overload, tuple(args), line)


def load_schemas(version: str) -> dict[str, list[Schema]]:
    """name -> its overloads, from schemas/torch_npu-<version>.txt."""
    text = resources.files(__package__).joinpath("schemas", f"torch_npu-{version}.txt").read_text()
    table: dict[str, list[Schema]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            schema = parse_schema(line)
            table.setdefault(schema.name, []).append(schema)
    return table


def bind_problems(schema: Schema, n_positional: int, keywords) -> list[str]:
    problems = []
    positional = [a for a in schema.arguments if not a.keyword_only]
    if n_positional > len(positional):
        problems.append(f"{n_positional} positional arguments, schema takes {len(positional)}")
    given = {a.name for a in positional[:n_positional]}
    names = {a.name for a in schema.arguments}
    for kw in keywords:
        if kw not in names:
            problems.append(f"no argument named '{kw}'")
        elif kw in given:
            problems.append(f"argument '{kw}' given twice")
    supplied = given | set(keywords)
    for a in schema.arguments:
        if not a.has_default and a.name not in supplied:
            problems.append(f"required argument '{a.name}' missing")
    return problems


def check_call(schemas: dict[str, list[Schema]], name: str, n_positional: int,
               keywords) -> list[str]:
    """Problems of calling torch_npu.<name>(n_positional args, **keywords); [] if some overload fits."""
    overloads = schemas.get(name)
    if not overloads:
        return [f"torch_npu has no op '{name}'"]
    attempts = [bind_problems(s, n_positional, keywords) for s in overloads]
    if any(not p for p in attempts):
        return []
    return [f"{name}: " + "; ".join(p) for p in attempts]
