"""Rollout files: each pass's rollout state, as YAML.

    passes:
      cse: {state: canary, fraction: 0.1}
      dce: {state: allowlist, programs: [mlp, "pfp1:0123..."]}
      fold-constants: {state: disabled}
      canonicalize: {state: enabled}

A pass the file does not name is `enabled`.  The file is read with marks
(pirc.versioning.located_yaml), so every mistake is reported at once, each as
`FILE:LINE:COL: error: ...` saying what was expected there.  Imported only when a rollout
file is named: a run without one never loads the YAML library.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import limits
from ...errors import ErrorList, PircError
from ...limits import LimitError
from ...versioning.located_yaml import LocatedYaml, describe, is_scalar
from .rollout import ALLOWLIST, CANARY, DISABLED, ENABLED, STATES

# The keys each state takes besides `state`.
STATE_KEYS = {DISABLED: (), ALLOWLIST: ("programs",), CANARY: ("fraction",), ENABLED: ()}


class RolloutError(PircError):
    """A rollout file that cannot be read, or one that says something pirc cannot do."""

    def __init__(self, message: str, filename: str | None = None, line: int = 0, column: int = 0):
        super().__init__(message)
        self.message = message
        self.filename, self.line, self.column = filename, line, column

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class PassRollout:
    """One pass's entry: its state, and the canary's fraction or the allowlist's programs."""

    state: str
    fraction: float = 1.0
    programs: tuple[str, ...] = ()


class _RolloutYaml(LocatedYaml):
    """LocatedYaml whose errors carry the column too (a rollout entry is often one line)."""

    def error(self, at, message: str) -> None:
        if isinstance(at, int):
            self.errors.append(RolloutError(message, self.filename, at))
        else:
            mark = at.start_mark
            self.errors.append(RolloutError(message, self.filename, mark.line + 1, mark.column + 1))


def read_rollout_file(path: str, source: str = "--rollout") -> dict[str, PassRollout]:
    """The entries of the rollout file at `path` (named by `source`: the flag or the
    variable), by pass name; RolloutError (one, or an ErrorList of all) when it cannot be
    read or is not a rollout file."""
    try:
        # bounded: a FIFO that never ends or a sparse file of a terabyte is refused at the
        # rollout file limit (pirc/limits.py), not read into memory
        text = limits.read_bounded(path, limits.MAX_ROLLOUT_BYTES, f"the rollout file {source} names"
                                   ).decode("utf-8")
    except LimitError as e:
        raise RolloutError(e.bare_message, path) from None
    except FileNotFoundError:
        raise RolloutError(f"the rollout file {source} names does not exist", path) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RolloutError(f"cannot read the rollout file {source} names: {e}", path) from None
    return parse_rollout(text, path)


def parse_rollout(text: str, filename: str) -> dict[str, PassRollout]:
    from .kill_switch import unknown_pass
    from .registry import all_passes

    doc = _RolloutYaml(text, filename)
    root = doc.compose()
    entries: dict[str, PassRollout] = {}
    if root is None and not doc.errors:
        doc.error(1, "empty rollout file: expected `passes: {NAME: {state: ...}}`")
    if root is not None:
        passes = _passes_node(doc, root)
        known = all_passes()
        for item in (doc.mapping(passes, "`passes`") or ()) if passes is not None else ():
            cls = known.get(item.key)
            if cls is None:
                doc.error(item.key_node, unknown_pass(item.key, "the passes a rollout sets"))
                continue
            entry = _entry(doc, item.key, item.value)
            if entry is None:
                continue
            if cls.correctness and entry.state != ENABLED:
                doc.error(item.key_node, f"{item.key!r} is needed for a correct program: its state "
                                         "is always enabled (remove it from the rollout file)")
                continue
            entries[item.key] = entry
    if doc.errors:
        # compose() reports YAML syntax as PatchError: the same location, as a RolloutError
        errors = [e if isinstance(e, RolloutError) else
                  RolloutError(e.message, e.filename, e.line, e.column) for e in doc.errors]
        errors.sort(key=lambda e: (e.line, e.column))
        raise errors[0] if len(errors) == 1 else ErrorList(errors)
    return entries


def _passes_node(doc, root):
    top = doc.mapping(root, "a rollout file")
    if top is None:
        return None
    found = None
    for item in top:
        if item.key == "passes":
            found = item.value
        else:
            doc.error(item.key_node, f"unknown key `{item.key}` in a rollout file (expected `passes`)")
    if found is None and not doc.errors:
        doc.error(root, "a rollout file needs `passes: {NAME: {state: ...}}`")
    return found


def _entry(doc, name: str, node) -> PassRollout | None:
    items = doc.mapping(node, f"pass `{name}`'s entry (`{{state: ...}}`)")
    if items is None:
        return None
    found = {item.key: item for item in items}
    if "state" not in found:
        doc.error(node, f"pass `{name}`: expected `state: {' | '.join(STATES)}`")
        return None
    state_node = found["state"].value
    state = state_node.value if is_scalar(state_node) else None
    if state not in STATES:
        doc.error(state_node, f"pass `{name}`: `state` must be one of {', '.join(STATES)}, "
                              f"got {describe(state_node)}")
        return None
    ok = True
    for item in items:
        if item.key != "state" and item.key not in STATE_KEYS[state]:
            takes = " and ".join(f"`{k}`" for k in STATE_KEYS[state])
            doc.error(item.key_node, f"pass `{name}`: state {state} takes "
                                     f"{takes or 'no other key'}, not `{item.key}`")
            ok = False
    for key in STATE_KEYS[state]:
        if key not in found:
            doc.error(node, f"pass `{name}`: state {state} needs `{key}`"
                            f" ({'a number from 0 to 1' if key == 'fraction' else 'a list of program names or fingerprints'})")
            ok = False
    if state == CANARY and "fraction" in found:
        fraction = _fraction(doc, name, found["fraction"].value)
        ok = ok and fraction is not None
    if not ok:
        return None
    if state == CANARY:
        return PassRollout(state, fraction=fraction)
    if state == ALLOWLIST:
        programs = _programs(doc, name, found["programs"].value)
        return None if programs is None else PassRollout(state, programs=programs)
    return PassRollout(state)


def _fraction(doc, name: str, node) -> float | None:
    value = doc.value(node) if is_scalar(node) else None
    if type(value) not in (int, float) or not 0 <= value <= 1:
        doc.error(node, f"pass `{name}`: `fraction` must be a number from 0 to 1, got {describe(node)}")
        return None
    return float(value)


def _programs(doc, name: str, node) -> tuple[str, ...] | None:
    items = doc.sequence(node, f"pass `{name}`: `programs`")
    if items is None:
        return None
    programs = []
    for item in items:
        value = doc.value(item) if is_scalar(item) else None
        if not isinstance(value, str) or not value:
            doc.error(item, f"pass `{name}`: each of `programs` is a program name (its file's stem) "
                            f"or a pfp1: fingerprint, got {describe(item)}")
            return None
        programs.append(value)
    return tuple(programs)
