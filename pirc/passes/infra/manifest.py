"""The version manifest an optimised program carries, and conservative mode.

After a pipeline the program's manifest says what made it: the pirc version, the PIR
version, the digest of the op-version set (pirc.runtime.op_versions) and the pipeline with
its version.  A program read with a manifest or graph tags from another pirc (another
version, another op-version set, or passes this pirc does not know at those versions) is
optimised in conservative mode: only passes declared safe for it run, and the report says
why.
"""

from __future__ import annotations

from ...ir.program import Manifest
from ...runtime.op_versions import digest


def make_manifest(program, pipeline) -> Manifest:
    from ... import __version__

    return Manifest(__version__, program.version, digest(), pipeline.text(), pipeline.version)


def conservative_reason(program) -> str | None:
    """Why `program` must be optimised conservatively, or None."""
    from ... import __version__
    from .registry import get_pass

    m = program.manifest
    if m is not None:
        if m.pirc_version != __version__:
            return f"the program was optimised by pirc {m.pirc_version}, this is pirc {__version__}"
        if m.op_versions != digest():
            return f"the program was optimised against another op-version set ({m.op_versions})"
    for tag in program.graph_tags:
        cls = get_pass(tag.pass_name)
        if cls is None:
            return f"its graph tags name a pass this pirc does not have ({tag.pass_name})"
        if cls.version != tag.pass_version:
            return (f"its graph tags name {tag.pass_name} version {tag.pass_version}, "
                    f"this pirc has version {cls.version}")
    if program.graph_tags and m is None:
        return "it carries graph tags but no manifest"
    return None
