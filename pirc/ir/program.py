"""`Program`: a PIR program with its version and graph tags."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block

from ..versioning import policy as _policy
from .ops import ProgramModuleOp, new_module

# PIR versions pirc knows.  1 = Paddle 3.0, 2 = 3.1, 3 = 3.2, 4 = 3.3;
# 0 = an unreleased develop build.  The numbers come from the version policy
# (patches/versions.yaml, read by pirc.versioning.policy): 1 .. its release.
KNOWN_VERSIONS = _policy.KNOWN_VERSIONS
LATEST_VERSION = _policy.RELEASE_VERSION
DEVELOP_VERSION = _policy.DEVELOP_VERSION


FINGERPRINT_PREFIX = "pfp1:"   # a subgraph fingerprint (pirc.passes.infra.fingerprint)


def is_fingerprint(text) -> bool:
    """`pfp1:` followed by 64 lowercase hex digits."""
    return (isinstance(text, str) and len(text) == len(FINGERPRINT_PREFIX) + 64
            and text.startswith(FINGERPRINT_PREFIX)
            and all(c in "0123456789abcdef" for c in text[len(FINGERPRINT_PREFIX):]))


@dataclass(frozen=True)
class GraphTag:
    """One entry of a program's graph tags: a pass that changed the program."""

    pass_name: str
    pass_version: int
    rollout: str
    before: str | None = None   # the program's fingerprint (pfp1:...) before the pass
    after: str | None = None    # and after it


@dataclass(frozen=True)
class Manifest:
    """What an optimised program was made by and against (pirc.passes.infra.manifest)."""

    pirc_version: str
    pir_version: int
    op_versions: str            # digest of the op-version set (pirc.runtime.op_versions)
    pipeline: str               # the pipeline spec, every option spelled
    pipeline_version: int | None = None   # a named pipeline's version


@dataclass
class Program:
    """A PIR program: the `builtin.module` op, its PIR version and graph tags.

    `trainable` mirrors JSON `base_code.trainable` (whether result attributes
    were saved).  `extra` keeps JSON keys pirc does not interpret
    (`{"base_code": {...}, "top": {...}}`) so that writing the program back
    loses nothing.
    """

    module: ProgramModuleOp = field(default_factory=new_module)
    version: int = LATEST_VERSION
    graph_tags: list[GraphTag] = field(default_factory=list)
    trainable: bool = True
    manifest: Manifest | None = None
    extra: dict = field(default_factory=dict)
    # Where each op came from in a text input: op -> (line, column).  Filled by
    # the text parser so that verification problems point at source lines.
    locations: dict = field(default_factory=dict, repr=False, compare=False)

    def __repr__(self) -> str:
        # The dataclass repr would print the whole xDSL module, recursively: unbounded for a
        # real model (and hypothesis pretty-prints failing examples through it).
        return f"<Program version {self.version}, {self.op_count()} ops>"

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis / IPython pretty printers
        from ..text.canonical_printer import print_canonical

        printer.text(repr(self) + "\n" + print_canonical(self))

    @property
    def block(self) -> Block:
        return self.module.body.block

    def walk(self):
        """Every op of the program, nested ones included, in print order."""
        yield from self.module.walk()

    def clone(self) -> "Program":
        """A deep copy of the IR with the same version, tags, manifest and extra keys (not
        the source locations): what a pass can rewrite while the original stays as it was."""
        return Program(self.module.clone(), self.version, list(self.graph_tags), self.trainable,
                       self.manifest, dict(self.extra))

    def op_count(self) -> int:
        return sum(1 for _ in self.module.walk()) - 1
