"""YAML read as nodes that know their line, with errors collected, not raised one by one.

Patch files and `versions.yaml` are checked strictly and every mistake is reported with
its line (`FILE:LINE: error: ...`), so they are read with yaml's compose API (nodes carry
marks) rather than `yaml.safe_load` (plain dicts, no lines, duplicate keys silently
merged).  Scalars are converted the way PyYAML's safe loader would, and keep their source
text: Paddle reads patch values with yaml-cpp, which converts a scalar by its text
(`data: "-1"` and `data: -1` mean the same there), and pirc does the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .. import limits
from ..errors import PatchError

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"


def line_of(node: Node) -> int:
    return node.start_mark.line + 1


@dataclass(frozen=True)
class Entry:
    """One `key: value` of a mapping, with the key's node (for its line)."""

    key: str
    key_node: Node
    value: Node


class LocatedYaml:
    """One YAML text, its nodes, and the errors found in it so far."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self.errors: list[PatchError] = []
        self._constructor = SafeConstructor()

    # -- reporting --------------------------------------------------------------

    def error(self, at: Node | int, message: str) -> None:
        line = at if isinstance(at, int) else line_of(at)
        self.errors.append(PatchError(message, self.filename, line))

    # -- reading -----------------------------------------------------------------

    def compose(self) -> Node | None:
        """The document's root node; None for an empty file or a syntax error (reported)."""
        try:
            root = yaml.compose(self.text, Loader=_LOADER)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            problem = e.problem or e.context or "invalid YAML"
            if e.context and e.problem:
                problem = f"{e.context}: {e.problem}" if "while" not in e.context else e.problem
            line = mark.line + 1 if mark else 0
            column = mark.column + 1 if mark else 0
            self.errors.append(PatchError(f"invalid YAML: {problem}", self.filename, line, column))
        except yaml.YAMLError as e:
            self.errors.append(PatchError(f"invalid YAML: {e}", self.filename))
        else:
            if root is None or self.within_limits(root):
                return root
        return None

    def within_limits(self, root: Node) -> bool:
        """Whether the node graph is a tree every reader here can walk: no alias to a node
        that contains it (a recursive anchor, `&a [*a]`), no nesting past the nesting limit,
        no integer or string past its limit, and no more nodes than the node limit once
        aliases are expanded (`&a [x, x]`, `&b [*a, *a]`, ... doubles with each line: the
        "billion laughs").  Errors are reported; checked once, iteratively, so that `value()`
        and the schema checks can recurse freely."""
        max_depth = limits.MAX_NESTING.value()
        max_nodes = limits.MAX_YAML_NODES.value()
        max_digits = limits.MAX_INT_DIGITS.value()
        max_string = limits.MAX_STRING_ATTR.value()
        # Post-order walk: a node's height (container levels in it, 0 for a scalar) once
        # its subtree is checked, so that a node reached again through an alias is checked
        # at its new depth without walking it again.
        heights: dict[int, int] = {}
        sizes: dict[int, int] = {}  # nodes in a subtree, aliases expanded
        open_: set[int] = set()    # containers on the path from the root
        stack: list[tuple[Node, int, bool]] = [(root, 1, False)]
        while stack:
            node, depth, leaving = stack.pop()
            if leaving:
                open_.discard(id(node))
                children = _children(node)
                heights[id(node)] = 1 + max((heights[id(c)] for c in children), default=0)
                size = sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
                if size > max_nodes:
                    self.error(node, limits.MAX_YAML_NODES.message(size))
                    return False
                continue
            if id(node) in open_:
                self.error(node, "a recursive anchor: the value anchored here contains an alias "
                                 "to itself (it would be infinite)")
                return False
            height = heights.get(id(node))
            if height is not None:
                if depth + height - 1 > max_depth:
                    self.error(node, limits.MAX_NESTING.message(depth + height - 1))
                    return False
                continue
            if isinstance(node, ScalarNode):
                if node.tag == _TAG + "int" and _digit_count(node.value) > max_digits:
                    self.error(node, limits.MAX_INT_DIGITS.message(_digit_count(node.value)))
                    return False
                if len(node.value) > max_string:
                    self.error(node, limits.MAX_STRING_ATTR.message(len(node.value)))
                    return False
                heights[id(node)] = 0
                sizes[id(node)] = 1
                continue
            if depth > max_depth:
                self.error(node, limits.MAX_NESTING.message())
                return False
            open_.add(id(node))
            stack.append((node, depth, True))
            stack.extend((child, depth + 1, False) for child in reversed(_children(node)))
        return True

    def mapping(self, node: Node, what: str) -> list[Entry] | None:
        """The entries of a mapping node, in order; reports non-mappings and repeated keys."""
        if not isinstance(node, MappingNode):
            self.error(node, f"{what} must be a mapping (`key: value` lines), got {describe(node)}")
            return None
        entries: list[Entry] = []
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.error(key_node, f"{what}: a key must be a plain name, got {describe(key_node)}")
                continue
            key = key_node.value
            if key in seen:
                self.error(key_node, f"{what}: key `{key}` appears twice (first at line {seen[key]})")
                continue
            seen[key] = line_of(key_node)
            entries.append(Entry(key, key_node, value_node))
        return entries

    def sequence(self, node: Node, what: str) -> list[Node] | None:
        if not isinstance(node, SequenceNode):
            self.error(node, f"{what} must be a list (`- ...` items), got {describe(node)}")
            return None
        return list(node.value)

    def value(self, node: Node):
        """The Python value PyYAML's safe loader gives a node (lists and dicts included)."""
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        if isinstance(node, SequenceNode):
            return [self.value(n) for n in node.value]
        return {k.value if isinstance(k, ScalarNode) else str(k.value): self.value(v)
                for k, v in node.value}

    def scalar(self, node: ScalarNode):
        tag = node.tag
        if tag == _TAG + "str":
            return node.value
        if tag == _TAG + "int":
            return self._constructor.construct_yaml_int(node)
        if tag == _TAG + "float":
            return self._constructor.construct_yaml_float(node)
        if tag == _TAG + "bool":
            return self._constructor.construct_yaml_bool(node)
        if tag == _TAG + "null":
            return None
        return node.value


def _children(node: Node) -> list[Node]:
    if isinstance(node, ScalarNode):
        return []
    if isinstance(node, SequenceNode):
        return node.value
    return [n for pair in node.value for n in pair]


def _digit_count(text: str) -> int:
    return sum(c.isdigit() for c in text) if len(text) < 4096 else len(text)


def is_scalar(node: Node) -> bool:
    return isinstance(node, ScalarNode)


def is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _TAG + "null"


def describe(node: Node) -> str:
    """A few words naming what a node is, for messages ("a list", "the text `abc`")."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if is_null(node):
        return "nothing"
    return f"`{node.value}`"
