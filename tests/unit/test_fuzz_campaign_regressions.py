"""Inputs a full fuzz campaign found after the smoke's seeds were clean (tools/fuzz, seed 1),
one per class, checked with the fuzzer's own properties in every write order: pirc reads each
one or refuses it with its own error, and whatever it writes reads back to the same program.

| input | what was wrong |
|---|---|
| if-with-one-region.json | canonical text read a generic one-region pd_op.if as Paddle's if (added an else) |
| dim-beyond-int64.json, fetch-dim-beyond-int64.json, offset-beyond-int64.json | JSON took dims / offsets no int64 holds; the text reader refused what pirc printed |
| float-from-huge-integer.json | a 400-digit integer as a float attribute: OverflowError |
| value-used-outside-its-region.json | printers named a value outside the region defining it (text did not read back) |
| parameter-without-is-distributed.pir | JSON's compact parameter form gave an absent flag a value |
| bare-vec-type-attribute.pir | Paddle text printed a type attribute pirc cannot read back |
| da-list-with-entries.json | canonical text dropped a JSON DA list |
| unknown-key-on-parameter.json | program equality compared JSON keys Paddle ignores |
| bad-layout-name.json | JSON took a layout name the text forms cannot spell |
| int-array-beyond-int64.json | JSON took IntArray elements no int64 holds |
| empty-layout-attribute.json | JSON took a DataLayout attribute canonical text printed as nothing |
| keyword-layout-attribute.json | JSON took a DataLayout attribute named `nan`, which text reads as a number |
| later-version-op-upgraded.json | an op unknown at version 1 but known at 4 was upgraded into the later op (did not verify) |
| negative-zero-in-int-array.pir | Paddle text read `-0` in an IntArray as the integer 0 (print not a fixpoint) |
| region-without-blocks.json | canonical text wrote a block-less region as one with an empty block |
| control-character-in-attribute-name.pir | a raw tab in a quoted attribute name: JSONDecodeError from the text reader |
| bad-escape-in-graph-tag.pir | `\\q` in a graph tag's name: JSONDecodeError from the text reader |
| double-from-huge-integer.yaml | a 300-digit integer as a patch's DoubleAttribute data: OverflowError |
| add-output-dim-beyond-int64.yaml | a patch added an output with a dim no int64 holds (JSON did not read back) |
| aliases-expanding-to-millions.yaml | six lines of YAML aliases expanding to a million nodes: a hang |
"""

import json
from pathlib import Path

import pytest

from tools.fuzz.cases import Case
from tools.fuzz.checks import check_case

ROOT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "fuzz_crashes" / "campaign"
INPUTS = sorted(p for p in ROOT.iterdir() if p.suffix in (".json", ".pir", ".yaml"))
# Paddle text inputs and the version they were read at (the rest carry theirs).
FROM_VERSION = {"parameter-without-is-distributed.pir": 4, "negative-zero-in-int-array.pir": 2,
                "control-character-in-attribute-name.pir": 4}
# Patches: the N of N.yaml they were read as, and the program they upgrade.
PATCHED = {
    "double-from-huge-integer.yaml": (4, "tests/fixtures/patchops/3.2.2/bicubic_interp.3.2.2.json"),
    "add-output-dim-beyond-int64.yaml": (2, "tests/fixtures/migrations/leaky_relu_grad_.3.0.0.json"),
    "aliases-expanding-to-millions.yaml": (3, "tests/fixtures/patchops/3.1.1/p_norm.3.1.1.json"),
}
_FRONT = {".json": "json", ".pir": "text", ".yaml": "yaml"}


def test_every_listed_input_is_here():
    assert len(INPUTS) == 22
    assert set(PATCHED) == {p.name for p in INPUTS if p.suffix == ".yaml"}


@pytest.mark.parametrize("order", [0, 1, 2])
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_campaign_input_gets_a_clean_answer(path, order):
    patch_version, program = PATCHED.get(path.name, (None, None))
    case = Case(_FRONT[path.suffix], path.read_text(), from_version=FROM_VERSION.get(path.name),
                patch_version=patch_version, program=program, write_order=order)
    check_case(case)  # raises PropertyFailure, or any exception that is not a PircError
