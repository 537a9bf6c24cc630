"""numerical_diff: output comparison and bisection to the first diverging op.

The programs run through a small numpy interpreter of the ops used here (`np_run`), so the
bisection logic is tested independently of the torch lowering; one test also runs pirc.run.
"""

import numpy as np
import pytest

import pirc
from pirc.lower.values import python_value
from pirc.testing import compare_arrays, numerical_diff
from pirc.testing.numerical_diff import DiffError

_UNARY = {"pd_op.relu": lambda x: np.maximum(x, 0), "pd_op.tanh": np.tanh, "pd_op.exp": np.exp,
          "pd_op.abs": np.abs, "pd_op.sigmoid": lambda x: 1 / (1 + np.exp(-x))}
_BINARY = {"pd_op.add": np.add, "pd_op.subtract": np.subtract, "pd_op.multiply": np.multiply,
           "pd_op.maximum": np.maximum, "pd_op.minimum": np.minimum, "pd_op.matmul": np.matmul}
_REDUCE = {"pd_op.sum": np.sum, "pd_op.mean": np.mean, "pd_op.max": np.max}


def np_run(program, inputs, params=None, device="cpu"):
    """Evaluate a straight-line program of the ops above; outputs as pirc.run names them."""
    env, outs = {}, {}
    ops = list(program.block.ops)
    for op in ops:
        a = {k: python_value(v) for k, v in op.attributes.items()}
        x = [env.get(v) for v in op.operands]
        n = op.name
        if n == "pd_op.data":
            r = np.asarray(inputs[a["name"]])
        elif n == "pd_op.full":
            r = np.full(a["shape"], a["value"], dtype=str(a["dtype"]).replace("torch.", ""))
        elif n == "pd_op.full_int_array":
            r = np.asarray(a["value"], np.int64)
        elif n in _UNARY:
            r = _UNARY[n](x[0])
        elif n in _BINARY:
            r = _BINARY[n](x[0], x[1])
        elif n == "pd_op.scale":
            r = x[0] * x[1] + a["bias"] if a["bias_after_scale"] else (x[0] + a["bias"]) * x[1]
            r = r.astype(x[0].dtype)
        elif n in _REDUCE:
            r = _REDUCE[n](x[0], axis=tuple(x[1]), keepdims=a["keepdim"])
        elif n == "pd_op.reshape":
            r = x[0].reshape(x[1])
        elif n == "pd_op.transpose":
            r = np.transpose(x[0], a["perm"])
        elif n == "pd_op.fetch":
            outs[a["name"]] = x[0]
            continue
        else:
            raise NotImplementedError(n)
        env[op.results[0]] = np.asarray(r)
    if not outs:  # the pirc.run rule: every top-block value no op uses, in op order
        k = 0
        for op in ops:
            for v in op.results:
                if v.first_use is None:
                    outs[f"out{k}"] = env[v]
                    k += 1
    return outs


def _chain(bias2, relu_or_tanh="pd_op.relu"):
    return f"""{{
    (%0) = "pd_op.data" () {{dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]}} : () -> tensor<2x3xf32>
    (%1) = "pd_op.full" () {{dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2}} : () -> tensor<1xf32>
    (%2) = "pd_op.scale" (%0, %1) {{bias:1,bias_after_scale:true,stop_gradient:[true]}} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%3) = "{relu_or_tanh}" (%2) {{stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%4) = "pd_op.scale" (%3, %1) {{bias:{bias2},bias_after_scale:true,stop_gradient:[true]}} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    (%5) = "pd_op.exp" (%4) {{stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%6) = "pd_op.multiply" (%5, %0) {{stop_gradient:[true]}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%7) = "pd_op.fetch" (%6) {{col:0,name:"y",persistable:[true],stop_gradient:[true]}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}}
"""


X = {"x": np.array([[0.5, -1.0, 2.0], [-0.25, 0.0, 1.5]], np.float32)}


def prog(text):
    return pirc.parse(text, from_version=4)


def test_equal_programs_report_equal():
    r = numerical_diff(prog(_chain(0)), prog(_chain(0)), X, runner=np_run)
    assert r.equal and r.divergence is None
    assert [name for name, _ in r.outputs] == ["y"]


def test_bisects_to_changed_attribute():
    r = numerical_diff(prog(_chain(0)), prog(_chain(0.5)), X, runner=np_run)
    assert not r.equal
    d = r.divergence
    assert (d.op_name, d.position_a, d.position_b, d.result_index) == ("pd_op.scale", 4, 4, 0)
    assert d.diff.max_abs == pytest.approx(0.5)   # the bias is added after scaling
    assert d.diff.frac_out == 1.0
    assert "pd_op.scale" in str(r) and "op #4" in str(r)


def test_bisects_to_replaced_op():
    r = numerical_diff(prog(_chain(0)), prog(_chain(0, "pd_op.tanh")), X, runner=np_run)
    d = r.divergence
    # relu and tanh do not align by name; the first paired op after them diverges
    assert d.op_name == "pd_op.scale" and d.position_a == 4
    assert 0 < d.diff.frac_out <= 1.0


def test_tolerance_is_respected():
    r = numerical_diff(prog(_chain(0)), prog(_chain(1e-7)), X, atol=1e-5, rtol=1e-4,
                       runner=np_run)
    assert r.equal
    r = numerical_diff(prog(_chain(0)), prog(_chain(1e-7)), X, atol=0, rtol=0, runner=np_run)
    assert not r.equal


def test_output_count_mismatch_is_an_error():
    one = _chain(0)
    two = one.replace('    (%7)', '    (%8) = "pd_op.fetch" (%5) {col:1,name:"z",'
                      'persistable:[true],stop_gradient:[true]} : (tensor<2x3xf32>) -> '
                      'tensor<2x3xf32>\n    (%7)')
    with pytest.raises(DiffError):
        numerical_diff(prog(one), prog(two), X, runner=np_run)


def test_compare_arrays_rules():
    a = np.array([1.0, np.nan, np.inf, 2.0], np.float32)
    assert compare_arrays(a, a.copy(), 0, 0).ok                     # nan == nan, inf == inf
    b = np.array([1.0, 0.0, np.inf, 2.0], np.float32)
    d = compare_arrays(a, b, 0, 0)
    assert d.frac_out == 0.25 and d.max_abs == np.inf
    d = compare_arrays(np.array([1.0, 2.0]), np.array([1.0, 2.5]), 0.1, 0)
    assert d.max_abs == 0.5 and d.max_rel == pytest.approx(0.2) and d.frac_out == 0.5
    assert compare_arrays(np.zeros(2, np.float32), np.zeros(2, np.float64), 1, 1).shape_or_dtype
    assert compare_arrays(np.zeros((2, 3)), np.zeros((3, 2)), 1, 1).frac_out == 1.0
    assert compare_arrays(np.array([True, False]), np.array([True, True]), 1, 1).frac_out == 0.5
    assert compare_arrays(np.array([3], np.int32), np.array([4], np.int32), 1, 0).ok


def test_with_pirc_run():
    if not hasattr(pirc, "run"):
        pytest.xfail("pirc.run (the lowering) is not there yet")
    r = numerical_diff(prog(_chain(0)), prog(_chain(0.5)), X)
    assert not r.equal and r.divergence.position_a == 4


def test_upgrade_keeps_the_numbers_of_a_corpus_model():
    import copy
    import os

    root = os.path.join(os.path.dirname(__file__), "..", "fixtures", "corpus", "3.0.0")
    old = pirc.load(os.path.join(root, "cnn.3.0.0.json"))
    new = pirc.upgrade(copy.deepcopy(old))
    assert new.version > old.version
    io = np.load(os.path.join(root, "cnn.3.0.0.io.npz"))
    r = numerical_diff(old, new, {"img": io["in__img"]}, atol=0, rtol=0,
                       params=os.path.join(root, "cnn.3.0.0.pdiparams"))
    assert r.equal, str(r)


def test_bisects_past_ops_the_change_does_not_reach():
    # cnn: after its first pool2d come ops that only read parameters (full_int_array,
    # reshape of a bias), which agree although the pool2d differs; bisection must still
    # stop at the pool2d.
    import os

    from xdsl.dialects.builtin import StringAttr

    root = os.path.join(os.path.dirname(__file__), "..", "fixtures", "corpus", "3.3.1")
    a = pirc.load(os.path.join(root, "cnn.3.3.1.json"))
    b = pirc.load(os.path.join(root, "cnn.3.3.1.json"))
    pool = next(i for i, op in enumerate(b.block.ops) if op.name == "pd_op.pool2d")
    list(b.block.ops)[pool].attributes["pooling_type"] = StringAttr("avg")
    io = np.load(os.path.join(root, "cnn.3.3.1.io.npz"))
    r = numerical_diff(a, b, {"img": io["in__img"]},
                       params=os.path.join(root, "cnn.3.3.1.pdiparams"))
    assert not r.equal
    assert (r.divergence.op_name, r.divergence.position_a) == ("pd_op.pool2d", pool)
    assert 0 < r.divergence.diff.frac_out < 1


def test_rtol_relative_to_the_largest_value_accepts_rounding_carried_to_small_elements():
    from pirc.testing.numerical_diff import compare_arrays

    want = np.array([100.0, 0.001, -50.0], dtype=np.float32)
    got = want + np.array([0.0, 3e-5, 0.0], dtype=np.float32)   # 3% of the small element
    assert not compare_arrays(got, want, 1e-5, 1e-4).ok                 # per element
    assert compare_arrays(got, want, 1e-5, 1e-4, scale="max").ok        # 1e-5 + 1e-4 * 100
    far = want + np.array([0.0, 0.02, 0.0], dtype=np.float32)
    assert not compare_arrays(far, want, 1e-5, 1e-4, scale="max").ok
    inf = np.array([np.inf, 1.0], dtype=np.float32)
    assert not compare_arrays(np.array([1e30, 1.0], np.float32), inf, 1e-5, 1e-4, scale="max").ok
