"""The cheaper paths of canonicalize and dce (issue 24) answer as the paths they spare.

* `alone` (pirc.passes.infra.forwarding): a value whose definer and users the alias model's
  walk records nothing for gets, from its uses with no model, the answer the model gives to
  every forwarding query; checked on every value of the corpus, the dev zoo, the aliasing
  fixtures and the pass fuzzer's programs (which hold in-place ops, views, arrays, loops).
* canonicalize builds no alias model when each value it asks about is `alone`, and builds
  it (and refuses the forward) when one is written in place.
* dce's per-class memo of `would_be_trivially_dead` gives its answer on every op.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import pirc
from pirc.ir import aliasing
from pirc.ir.aliasing import AliasAnalysis
from pirc.passes import run_pipeline
from pirc.passes.dce import trivially_dead, would_be_trivially_dead
from pirc.passes.infra.forwarding import (alone, may_forward, may_forward_alone, may_reread, unwritten,
                                          written_after, written_between)
from pirc.text.parser import parse_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _programs():
    from corpus_files import all_jsons

    for path in all_jsons():
        yield path.name, pirc.load(str(path))
    for path in sorted((FIXTURES / "zoo" / "3.3.1").glob("*.json")):
        if not path.name.startswith("gen_log"):
            yield path.name, pirc.load(str(path))
    for folder in ("aliasing", "fuzz_passes"):
        for path in sorted((FIXTURES / folder).glob("*.pir.txt")):
            try:
                program = pirc.load(str(path), from_version=4)
            except Exception:   # noqa: BLE001 - a fuzzer's input that does not read: no values
                continue
            yield path.name, program


def test_alone_values_get_the_models_answers():
    seen = Counter()
    for name, program in _programs():
        model = AliasAnalysis(program)
        version = program.version
        for op in program.module.walk():
            for value in op.results:
                is_alone = alone(value, version)
                seen[is_alone] += 1
                if not is_alone or not model.knows(value):
                    continue
                assert model.writers(value) == () and model.names(value) == (value,), (name, op.name)
                assert unwritten(model, value) and unwritten(None, value), (name, op.name)
                for use in value.uses:
                    user = use.operation
                    assert not written_after(model, value, user) and not written_after(None, value, user)
                    assert not written_between(model, value, op, user)
                    assert not written_between(None, value, op, user)
                    assert may_reread(model, op, user, value) == may_reread(None, op, user, value)
                    for result in user.results[:1]:
                        if alone(result, version):
                            answer = may_forward(user, result, value, model)
                            assert answer == may_forward(user, result, value, None), (name, user.name)
                            assert answer == may_forward_alone(user, result, value), (name, user.name)
                            seen["forward", answer] += 1
                            # a producer the value passes through on its way to `user`
                            assert may_reread(None, op, user, value) or not alone(value, version)
    # the programs hold both kinds, and forwards both allowed and refused: the test can
    # fail either way
    assert seen[True] > 1000 and seen[False] > 100
    assert seen["forward", True] > 100 and seen["forward", False] > 10, seen


DATA = ('(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],'
        'stop_gradient:[true]} : () -> tensor<2x3xf32>')
DROPOUT = ('''
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0.5} : () -> tensor<1xf32>
    (%3, %4) = "pd_op.dropout" (%1, <<NULL VALUE>>, %2) {is_test:true,mode:"upscale_in_train",seed:0,fix_seed:false,stop_gradient:[true,true]} : (tensor<2x3xf32>, <<NULL TYPE>>, tensor<1xf32>) -> tensor<2x3xf32>, tensor<-1xu8>
    (%5) = "pd_op.{user}" (%3) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.fetch" (%5) {col:0,name:"out",persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>''')


@pytest.mark.parametrize("user,builds,forwarded", [("tanh", 0, True), ("relu_", 1, False),
                                                   ("share_data", 1, True)])
def test_canonicalize_builds_the_model_only_where_a_value_may_alias(monkeypatch, user, builds, forwarded):
    made = []
    build = aliasing.AliasAnalysis.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        build(self, *args, **kwargs)

    monkeypatch.setattr(aliasing.AliasAnalysis, "__init__", counted)
    program = parse_text("{\n    " + DATA + DROPOUT.replace("{user}", user) + "\n}\n", "t.pir", 4)
    record = run_pipeline(program, "canonicalize", verify_each=False).passes[0]
    assert len(made) == builds
    assert ("pd_op.dropout" not in [op.name for op in program.block.ops]) == forwarded
    assert (record.rewrites, len(record.skips)) == ((1, 0) if forwarded else (0, 1))


def test_dce_remembers_what_xdsl_answers_per_class():
    answers = set()
    for name, program in _programs():
        for op in program.module.walk():
            want = would_be_trivially_dead(op)
            assert trivially_dead(op) == want and trivially_dead(op) == want, (name, op.name)
            answers.add(want)
    assert answers == {True, False}
