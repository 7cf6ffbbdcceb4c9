"""custom_call from Python (xjit._src.lax.custom_call): the op as traced and
printed, its attribute dictionary, and its errors. Running registered targets
is tested where targets are registered (the LAPACK factorizations, xjit.ffi,
host callbacks) and in tests/cc/custom_call_test.cc."""
import numpy as np
import pytest

import xjit
from xjit import stablehlo
from xjit._src.core import ShapeDtypeStruct
from xjit._src.lax.custom_call import custom_call, format_attribute_dictionary


def _lowered(f, *args):
    return xjit.jit(f).lower(*args).as_text()


def test_traced_custom_call_prints_in_jax_form_and_parses_back():
    def f(x):
        (y,) = custom_call("my_target", [x], [ShapeDtypeStruct((3,), np.float32)],
                           backend_config={"scale": 2.5, "n": 3, "flag": True, "name": "a\"b",
                                           "dims": np.array([1, 2], np.int32)},
                           has_side_effect=True)
        return y
    text = _lowered(f, np.ones(3, np.float32))
    config = ('mhlo.backend_config = {scale = 2.5 : f64, n = 3 : i64, flag = true, '
              'name = "a\\"b", dims = array<i32: 1, 2>}')
    assert ('"stablehlo.custom_call"(%arg0) {call_target_name = "my_target", has_side_effect '
            f'= true, {config}}} : (tensor<3xf32>) -> tensor<3xf32>' in text), text
    pretty = stablehlo.parse(text).as_text(pretty=True)
    assert (f'stablehlo.custom_call @my_target(%arg0) {{has_side_effect = true, {config}}} : '
            '(tensor<3xf32>) -> tensor<3xf32>' in pretty), pretty
    assert stablehlo.parse(pretty).as_text(pretty=True) == pretty


def test_several_results_and_layouts():
    def f(x):
        a, b = custom_call("t2", [x], [ShapeDtypeStruct((2, 3), np.float32),
                                       ShapeDtypeStruct((), np.int32)],
                           backend_config="opaque", operand_layouts=[(0, 1)],
                           result_layouts=[(0, 1), ()])
        return a, b
    text = _lowered(f, np.ones((2, 3), np.float32))
    assert 'backend_config = "opaque"' in text
    assert "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]" in text
    assert "-> (tensor<2x3xf32>, tensor<i32>)" in text


def test_unknown_target_is_a_clear_error_on_every_backend(default_platform):
    x = np.ones(3, np.float32)
    f = xjit.jit(lambda x: custom_call("no_such_target_xyz", [x],
                                       [ShapeDtypeStruct((3,), np.float32)])[0])
    with pytest.raises(RuntimeError, match="no target named 'no_such_target_xyz'"):
        np.asarray(f(x))


def test_bad_arguments():
    x = np.ones(3, np.float32)
    aval = ShapeDtypeStruct((3,), np.float32)
    with pytest.raises(TypeError, match="call_target_name"):
        custom_call("", [x], [aval])
    with pytest.raises(TypeError, match="shape and .dtype"):
        custom_call("t", [x], [3])
    with pytest.raises(TypeError, match="backend_config must be a str or a dict"):
        custom_call("t", [x], [aval], backend_config=3)
    with pytest.raises(TypeError, match="must be a scalar, a string or a 1-D array"):
        format_attribute_dictionary({"a": np.ones((2, 2))})
    with pytest.raises(TypeError, match="must be a bool, int, float"):
        format_attribute_dictionary({"a": object()})
    with pytest.raises(TypeError, match="layouts|permutation"):
        xjit.jit(lambda x: custom_call("t", [x], [aval], operand_layouts=[(1,)])[0]).lower(x)


def test_attribute_dictionary_spelling():
    assert format_attribute_dictionary({}) == "{}"
    assert format_attribute_dictionary({"u": np.uint8(76)}) == "{u = 76 : ui8}"
    assert format_attribute_dictionary({"f": np.float32(0.5)}) == "{f = 0.5 : f32}"
    assert format_attribute_dictionary({"i": float("inf")}) == "{i = 0x7FF0000000000000 : f64}"
    assert format_attribute_dictionary({"e": np.zeros(0, np.int64)}) == "{e = array<i64>}"
    assert format_attribute_dictionary({"odd name": 1}) == '{"odd name" = 1 : i64}'
