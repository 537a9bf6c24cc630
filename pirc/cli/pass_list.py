"""`pirc-opt --list-passes`: every pass with what it declares, then the named pipelines."""

from __future__ import annotations

import dataclasses
import typing


def _options(cls) -> str:
    hints = typing.get_type_hints(cls)
    parts = []
    for f in dataclasses.fields(cls):
        kind = getattr(hints[f.name], "__name__", str(hints[f.name]))
        default = f.default if f.default is not dataclasses.MISSING else None
        text = str(default).lower() if type(default) is bool else repr(default) if type(default) is str else default
        parts.append(f"{f.name.replace('_', '-')}: {kind} = {text}")
    return ", ".join(parts) or "none"


def _rewrites(cls) -> str:
    """Each op the pass rewrites, with the semantic versions it was written for."""
    parts = []
    for op, use in sorted(cls.rewrites.items()):
        versions = use.semantic if use.semantic == "*" else ",".join(map(str, use.semantic))
        parts.append(f"{op}@{versions}" + (" (conservative)" if use.conservative else ""))
    return ", ".join(parts) or ("no op is gated (a correctness pass)" if cls.correctness else "none declared")


def print_pass_list(out=None) -> None:
    import sys

    from ..passes import all_passes
    from ..passes.infra.pipeline import read_named, named_pipelines

    out = out or sys.stdout
    print("Passes:", file=out)
    for name, cls in all_passes().items():
        low, high = cls.pir_versions
        print(f"  {name} (version {cls.version}): {cls.summary()}", file=out)
        print(f"    options: {_options(cls)}", file=out)
        print(f"    requires: {', '.join(cls.requires) or 'none'}", file=out)
        print(f"    invariants: {', '.join(cls.invariants) or 'none'}", file=out)
        print(f"    devices: {', '.join(cls.devices)}", file=out)
        print(f"    PIR versions: {low}-{high}", file=out)
        print(f"    rewrites: {_rewrites(cls)}", file=out)
        if cls.may_rewrite_after:
            print(f"    may rewrite the output of: {', '.join(cls.may_rewrite_after)}", file=out)
        print(f"    conservative mode: {'runs' if cls.conservative_safe else 'skipped'}"
              f"{'; needed for correctness, never disabled' if cls.correctness else ''}", file=out)
    print("Pipelines:", file=out)
    for name, path in named_pipelines().items():
        entries, version = read_named(path)
        print(f"  {name} (version {version}): {','.join(entries)}", file=out)
