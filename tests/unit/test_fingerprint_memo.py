"""The program fingerprint a pass manager re-takes after each pass (reusing the hashes of ops
that did not change) equals the fingerprint of the same program taken afresh."""

from pathlib import Path

import pirc
from pirc.passes.infra.fingerprint import Fingerprinter, program_fingerprint

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus" / "3.3.1"


def test_an_operand_rewired_to_an_unchanged_value_is_hashed_again():
    program = pirc.load(str(CORPUS / "mlp.3.3.1.json"))
    ops = list(program.block.ops)
    names = [op.name for op in ops]
    softmax, matmul = ops[names.index("pd_op.softmax")], ops[names.index("pd_op.matmul", 6)]
    fingerprinter = Fingerprinter(program.version)
    before = fingerprinter.program(program)
    assert fingerprinter.program(program) == before == program_fingerprint(program)
    # softmax(add(matmul(...), bias)) becomes softmax(matmul(...)): a different computation,
    # although no op's attributes changed and the new producer is an op hashed before.
    softmax.operands = [matmul.results[0]]
    after = fingerprinter.program(program)
    assert after != before
    assert after == program_fingerprint(program)


def test_the_graph_tags_after_cse_are_fresh_fingerprints():
    program = pirc.load(str(CORPUS / "transformer.3.3.1.json"))
    pirc.run_pipeline(program, "cse")
    tag = program.graph_tags[-1]
    assert tag.pass_name == "cse" and tag.before != tag.after
    assert tag.after == program_fingerprint(program)
