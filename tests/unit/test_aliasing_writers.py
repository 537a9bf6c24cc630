"""The alias model's write queries are one lookup in a table of the written names
(pirc.ir.aliasing.AliasAnalysis._writes): every name of a written buffer, every vector (a
vector is written when a tensor it gathers is, a vector it gathers included, whatever its
own buffer's writers), and nothing else -- a value the model does not know included."""

import pirc
from pirc.ir.aliasing import AliasAnalysis

DATA = '(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>'
T = "tensor<3xf32>"
VEC = f"vec[{T},{T}]"


def _parse(body: str):
    return pirc.parse("{\n" + body + "\n}", from_version=4)


def _program():
    return _parse("\n".join((
        DATA,
        f'(%1) = "pd_op.exp" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}',
        f'(%2) = "pd_op.exp" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}',
        f'(%3) = "builtin.combine" (%1, %2) {{}} : ({T}, {T}) -> {VEC}',
        f'(%4) = "builtin.combine" (%1, %1) {{}} : ({T}, {T}) -> {VEC}',
        f'(%5) = "pd_op.relu_" (%2) {{stop_gradient:[true]}} : ({T}) -> {T}',
        f'(%6) = "pd_op.exp" (%5) {{stop_gradient:[true]}} : ({T}) -> {T}',
        f'(%7) = "pd_op.tanh_" (%5) {{stop_gradient:[true]}} : ({T}) -> {T}',
    )))


def test_every_name_of_a_written_buffer_and_every_vector_gathering_one_is_written():
    program = _program()
    data, e1, e2, both, twice, relu_, e3, tanh_ = program.block.ops
    aliases = AliasAnalysis(program)
    for value in (e2.results[0], relu_.results[0], tanh_.results[0], both.results[0]):
        assert aliases.writers(value) == (relu_, tanh_) and aliases.is_written(value)
    for value in (data.results[0], e1.results[0], twice.results[0], e3.results[0]):
        assert aliases.writers(value) == () and not aliases.is_written(value)
    assert aliases.written_between(both.results[0], e1, e3) and not aliases.written_between(e2.results[0], both, twice)
    assert aliases.written_after(both.results[0], e3) and not aliases.written_before(e1.results[0], e3)


def test_a_vector_gathering_a_vector_is_written_when_a_tensor_inside_is():
    program = _parse("\n".join((
        DATA,
        f'(%1) = "pd_op.exp" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}',
        f'(%2) = "builtin.combine" (%1, %0) {{}} : ({T}, {T}) -> {VEC}',
        f'(%3) = "builtin.combine" (%2, %1) {{}} : ({VEC}, {T}) -> vec[{VEC},{T}]',
        f'(%4) = "pd_op.relu_" (%0) {{stop_gradient:[true]}} : ({T}) -> {T}',
    )))
    data, e1, inner, outer, relu_ = program.block.ops
    aliases = AliasAnalysis(program)
    assert aliases.writers(outer.results[0]) == aliases.writers(inner.results[0]) == (relu_,)
    assert aliases.writers(e1.results[0]) == ()


def test_a_value_made_after_the_build_has_no_writers_even_where_ids_are_reused():
    program = _program()
    aliases = AliasAnalysis(program)
    aliases.writers(program.block.ops.first.results[0])  # the table is made
    for _ in range(200):  # fresh values: none can take the id of one the model holds
        fresh = _program()
        for op in fresh.block.ops:
            for r in op.results:
                assert not aliases.knows(r) and aliases.writers(r) == () and not aliases.is_written(r)
            assert not aliases.knows_op(op) and aliases.loops_of(op) == ()


def _batch_norms(variants) -> str:
    lines = ['(%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[1,2,1,1],stop_gradient:[true]} : () -> tensor<1x2x1x1xf32>']
    param = ('(%{n}) = "builtin.parameter" () {{is_distributed:[false],is_parameter:[true],need_clip:[true],'
             'parameter_name:"{name}",persistable:[true],stop_gradient:[false],trainable:[true]}} : () -> tensor<2xf32>')
    n = 1
    for i, attrs in enumerate(variants):
        lines += [param.format(n=n, name=f"m{i}"), param.format(n=n + 1, name=f"v{i}")]
        out = ", ".join(f"%{k}" for k in range(n + 2, n + 8))
        lines.append(
            f'({out}) = "pd_op.batch_norm_" (%0, %{n}, %{n + 1}, <<NULL VALUE>>, <<NULL VALUE>>) '
            f'{{data_format:"NCHW",epsilon:1e-05,{attrs}momentum:0.9,stop_gradient:[false,false,false,false,false,false]}} '
            ': (tensor<1x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, <<NULL TYPE>>, <<NULL TYPE>>) -> '
            'tensor<1x2x1x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<-1xu8>')
        n += 8
    return "\n".join(lines)


def test_batch_norms_sharing_attributes_keep_each_their_own_condition():
    # the kernel keeps the running statistics when use_global_stats, or is_test and not
    # trainable_statistics (dialects/aliasing.yaml); ops with equal attributes share the
    # worked-out answer, others do not; trainable_statistics left out has no spec default,
    # so the condition does not hold (the statistics count as changed)
    variants = [
        ("is_test:true,trainable_statistics:false,use_global_stats:false,", False),
        ("is_test:false,trainable_statistics:false,use_global_stats:false,", True),
        ("is_test:true,trainable_statistics:true,use_global_stats:false,", True),
        ("is_test:false,trainable_statistics:false,use_global_stats:true,", False),
        ("is_test:true,trainable_statistics:false,use_global_stats:false,", False),
        ("is_test:false,trainable_statistics:false,use_global_stats:false,", True),
        ("is_test:true,use_global_stats:false,", True),
        ("is_test:false,", True),
    ]
    program = _parse(_batch_norms([attrs for attrs, _ in variants]))
    aliases = AliasAnalysis(program)
    norms = [op for op in program.block.ops if op.name == "pd_op.batch_norm_"]
    assert len(norms) == len(variants)
    for bn, (attrs, written) in zip(norms, variants):
        for statistic in bn.operands[1:3]:
            assert aliases.writers(statistic) == ((bn,) if written else ()), attrs
