"""The alias model (pirc.ir.aliasing, dialects/aliasing.yaml): what each op does to storage,
and the whole-program analysis the passes and the lowering ask."""

import pytest

import pirc
from pirc.errors import VerifyError
from pirc.ir.aliasing import AliasAnalysis, op_aliasing, table_entry, _table
from pirc.ir.specs import SPEC_VERSIONS, get_spec, op_names


def _parse(body: str):
    return pirc.parse("{\n" + body + "\n}", from_version=4)


def _ops(program, name):
    return [op for op in program.walk() if op.name == name]


DATA = '(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>'
FETCH = '"pd_op.fetch" ({v}) {{col:{c},name:"{n}",persistable:[true],stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>'


def test_spec_inplace_maps_are_the_model():
    a = op_aliasing("pd_op.relu_", 4)
    assert a.inplace == ((0, 0),) and a.writes == frozenset({0}) and a.views == ()
    assert op_aliasing("pd_op.relu", 4).writes == frozenset()
    # assign_out_(x, output): writes its second operand
    assert op_aliasing("pd_op.assign_out_", 4).inplace == ((0, 1),)


def test_in_place_ops_without_a_map_come_from_the_table():
    bn = op_aliasing("pd_op.batch_norm_", 4)
    assert bn.inplace == ((1, 1), (2, 2)) and bn.writes == frozenset({1, 2})
    assert bn.preserves_values == frozenset({1, 2}) and bn.source
    for name in ("pd_op.rnn_", "pd_op.fused_batch_norm_act_", "pd_op.fused_bn_add_activation_"):
        assert op_aliasing(name, 4).writes, name
    # add_n_: Paddle 3.3.1 registers no in-place or view pair for it and runs it out of place
    assert op_aliasing("pd_op.add_n_", 4).writes == frozenset()
    assert table_entry("pd_op.add_n_")[0] == "copies"


def test_every_trailing_underscore_op_of_every_release_is_in_the_model():
    # in-place by its spec map or the table, or recorded as a copy with the evidence
    for version in SPEC_VERSIONS:
        for name in op_names(version):
            if name.endswith("_") and get_spec(name, version) is not None:
                entry = table_entry(name)
                assert op_aliasing(name, version).writes or entry[0] == "copies", (name, version)


def test_every_table_entry_cites_its_source_and_fits_the_specs():
    data = _table()
    for section in ("inplace", "views", "copies"):
        for name, entry in data[section].items():
            assert entry["source"].strip(), name
            for version in entry.get("versions", SPEC_VERSIONS):
                if get_spec(name, version) is not None:
                    op_aliasing(name, version)  # raises on a name the spec does not have
    assert table_entry("pd_op.reshape")[0] == "copies"  # ops.yaml `view:`, a copy in static Paddle
    assert op_aliasing("pd_op.reshape", 4).views == ()
    assert op_aliasing("pd_op.share_data", 4).views == ((0, 0),)


BN = """
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[1,2,1,1],stop_gradient:[true]} : () -> tensor<1x2x1x1xf32>
    (%1) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"m",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<2xf32>
    (%2) = "builtin.parameter" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:"v",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<2xf32>
    (%3, %4, %5, %6, %7, %8) = "pd_op.batch_norm_" (%0, %1, %2, <<NULL VALUE>>, <<NULL VALUE>>) {data_format:"NCHW",epsilon:1e-05,is_test:IS_TEST,momentum:0.9,stop_gradient:[false,false,false,false,false,false],trainable_statistics:false,use_global_stats:false} : (tensor<1x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, <<NULL TYPE>>, <<NULL TYPE>>) -> tensor<1x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<-1xu8>
"""


@pytest.mark.parametrize("is_test, written", [("true", False), ("false", True)])
def test_an_inference_batch_norm_writes_its_statistics_without_changing_them(is_test, written):
    program = _parse(BN.replace("IS_TEST", is_test))
    aliases = AliasAnalysis(program)
    (bn,) = _ops(program, "pd_op.batch_norm_")
    mean = bn.operands[1]
    assert aliases.buffer_of(bn.results[1]) == aliases.buffer_of(mean)
    assert aliases.names(mean) == (mean, bn.results[1])
    assert aliases.is_written(mean) is written
    assert aliases.is_written(bn.operands[0]) is False


def test_names_and_writers_of_a_buffer_in_program_order():
    program = _parse(f"""
    {DATA}
    (%1) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],value:0}} : () -> tensor<3xf32>
    (%2) = "pd_op.exp" (%1) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "pd_op.assign_value_" (%1) {{dtype:float32,place:Place(cpu),shape:[3],stop_gradient:[true],values:[(Double)1,(Double)2,(Double)3]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%4) = "pd_op.share_data" (%3) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%5) = "pd_op.abs_" (%4) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%6) = "pd_op.full_int_array" () {{dtype:int64,place:Place(cpu),stop_gradient:[true],value:[3]}} : () -> tensor<1xi64>
    (%7) = "pd_op.reshape" (%1, %6) {{stop_gradient:[true]}} : (tensor<3xf32>, tensor<1xi64>) -> tensor<3xf32>
    (%8) = {FETCH.format(v="%7", c=0, n="y")}""")
    aliases = AliasAnalysis(program)
    full, exp, assign, share, abs_, _, reshape, _ = list(program.block.ops)[1:]
    buf = full.results[0]
    assert aliases.names(buf) == (buf, assign.results[0], share.results[0], abs_.results[0])
    assert aliases.writers(share.results[0]) == (assign, abs_)
    assert aliases.buffer_of(reshape.results[0]) != aliases.buffer_of(buf)  # a copy
    assert not aliases.is_written(exp.results[0]) and not aliases.is_written(reshape.results[0])
    assert aliases.written_after(buf, exp) and not aliases.written_after(buf, abs_)
    assert aliases.written_between(buf, exp, reshape) and not aliases.written_between(buf, full, exp)


def test_combine_split_and_tensor_arrays():
    program = _parse(f"""
    {DATA}
    (%1) = "pd_op.exp" (%0) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%2) = "pd_op.exp" (%0) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%3) = "builtin.combine" (%1, %2) {{}} : (tensor<3xf32>, tensor<3xf32>) -> vec[tensor<3xf32>,tensor<3xf32>]
    (%4, %5) = "builtin.split" (%3) {{}} : (vec[tensor<3xf32>,tensor<3xf32>]) -> tensor<3xf32>, tensor<3xf32>
    (%6) = "pd_op.relu_" (%5) {{stop_gradient:[true]}} : (tensor<3xf32>) -> tensor<3xf32>
    (%7) = "pd_op.create_array" () {{dtype:float32,stop_gradient:[true]}} : () -> pd_op.tensor_array<f32>
    (%8) = "pd_op.full" () {{dtype:int64,place:Place(cpu),shape:[1],stop_gradient:[true],value:0}} : () -> tensor<1xi64>
    (%9) = "pd_op.array_write_" (%7, %1, %8) {{stop_gradient:[true]}} : (pd_op.tensor_array<f32>, tensor<3xf32>, tensor<1xi64>) -> pd_op.tensor_array<f32>
    (%10) = "pd_op.array_read" (%9, %8) {{stop_gradient:[true]}} : (pd_op.tensor_array<f32>, tensor<1xi64>) -> tensor<3xf32>""")
    aliases = AliasAnalysis(program)
    ops = list(program.block.ops)
    e1, e2, split = ops[1], ops[2], ops[4]
    assert aliases.buffer_of(split.results[0]) == aliases.buffer_of(e1.results[0])
    assert aliases.buffer_of(split.results[1]) == aliases.buffer_of(e2.results[0])
    assert aliases.is_written(e2.results[0]) and not aliases.is_written(e1.results[0])
    array, write, read = ops[6], ops[8], ops[9]
    assert aliases.writers(array.results[0]) == (write,)
    # array_write_ copies x in, array_read copies out (phi's array kernels)
    assert aliases.buffer_of(read.results[0]) != aliases.buffer_of(e1.results[0])
    assert not aliases.is_written(read.results[0])


def test_reading_a_name_after_an_in_place_reshape_is_a_verifier_error():
    text = f"""
    {DATA.replace('shape:[3]', 'shape:[2,3]').replace('tensor<3xf32>', 'tensor<2x3xf32>')}
    (%1) = "pd_op.assign" (%0) {{stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = "pd_op.transpose_" (%1) {{perm:[1,0],stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    (%3) = "pd_op.exp" (%1) {{stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<2x3xf32>"""
    with pytest.raises(VerifyError, match=r"op #3 pd_op.exp: operand 0 is read after op #2 "
                                          r"\(pd_op.transpose_\) changed its buffer in place to "
                                          r"tensor<3x2xf32>.*read op #2's result instead$"):
        pirc.verify(_parse(text))
    # reading the in-place result is the program Paddle means
    pirc.verify(_parse(_shape_kept(text)))


def _shape_kept(text: str) -> str:
    lines = text.rstrip().splitlines()
    lines[-1] = '    (%3) = "pd_op.exp" (%2) {stop_gradient:[true]} : (tensor<3x2xf32>) -> tensor<3x2xf32>'
    return "\n".join(lines)


def test_the_dev_zoo_models_analyse_and_only_the_known_buffers_are_written():
    import glob

    written_by = {}
    for path in sorted(glob.glob("tests/fixtures/zoo/3.3.1/*.json")):
        try:
            program = pirc.load(path)
        except pirc.PircError:
            continue
        aliases = AliasAnalysis(program)
        ops = {w.name for op in program.walk() for r in op.results
               if aliases.knows(r) for w in aliases.writers(r)}
        if ops:
            written_by[path.split("/")[-1]] = sorted(ops)
    # batch_norm_ in every CNN writes its statistics without changing them: not a writer
    assert written_by == {"bloom.3.3.1.json": ["pd_op.set_value_with_tensor_"],
                          "llama.3.3.1.json": ["pd_op.assign_value_"],
                          "llama_gqa.3.3.1.json": ["pd_op.assign_value_"]}


def test_regions_results_yields_and_loop_values_are_one_buffer_per_position():
    program = pirc.load("tests/fixtures/corpus/3.3.1/control_flow.3.3.1.pir.txt", from_version=4)
    aliases = AliasAnalysis(program)
    (if_op,) = _ops(program, "pd_op.if")
    (loop,) = _ops(program, "pd_op.while")
    for region in if_op.regions:
        yielded = region.block.last_op.operands
        for result, value in zip(if_op.results, yielded):
            assert aliases.buffer_of(result) == aliases.buffer_of(value)
    body = loop.regions[0].block
    for carried, arg, nxt, result in zip(loop.operands[1:], body.args, body.last_op.operands[1:],
                                         loop.results):
        ids = {aliases.buffer_of(v) for v in (carried, arg, nxt, result)}
        assert len(ids) == 1
        # each iteration carries new values into them: written, and again after any body op
        assert loop in aliases.writers(carried)
        assert aliases.written_after(arg, body.first_op)


def test_an_array_written_in_a_while_body_and_an_if_branch_is_written_for_what_follows():
    """Issue 21: the enclosing block's tensor array is written by the array_write_ ops inside
    the while body and the if branch; a read before the loop and the same read after it (or
    after the if) have a write between them, and a read in the body sees the next iteration's
    write (tests/fixtures/aliasing/array_written_in_regions: Paddle gives 1, 4 and 5
    elements)."""
    program = pirc.load("tests/fixtures/aliasing/array_written_in_regions.pir.txt", from_version=4)
    aliases = AliasAnalysis(program)
    (array,) = [op.results[0] for op in _ops(program, "pd_op.create_array")]
    writes = _ops(program, "pd_op.array_write_")
    assert len(writes) == 4 and aliases.writers(array) == tuple(writes)
    assert all(aliases.buffer_of(w.results[0]) == aliases.buffer_of(array) for w in writes)
    before, in_body, after_while, in_branch, after_if = _ops(program, "pd_op.array_length")
    (loop,) = _ops(program, "pd_op.while")
    (if_op,) = _ops(program, "pd_op.if")
    assert aliases.loops_of(in_body) == (loop,) and aliases.loops_of(in_branch) == ()
    assert aliases.written_between(array, before, after_while)
    assert aliases.written_between(array, after_while, after_if)
    assert aliases.written_after(array, in_body)  # the next iteration appends again
    assert aliases.written_before(array, in_branch)
    assert not aliases.written_after(array, after_if)
    # the branch's write is the if's (inside it, in program order between the two reads)
    assert writes[-1].parent_op() is if_op
    assert aliases.order(after_while) < aliases.order(writes[-1]) < aliases.order(after_if)
