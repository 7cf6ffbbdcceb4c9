"""Quantized tensor types (!quant.uniform, issue 10): parsing and printing,
uniform_quantize / uniform_dequantize, and ops on quantized operands as the
spec's dequantize_op_quantize, per tensor and per axis, on both backends.
"""
import numpy as np
import pytest

import xjit.stablehlo

BACKENDS = ["cpu", "reference"]
PER_AXIS = "!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>"
PER_AXIS_2 = "!quant.uniform<i8:f32:0, {0.1:-20,0.2:-30}>"


def _params(scales, zps, ndim, axis):
    """Scales and zero points as float32, laid along ``axis`` (per-axis types)."""
    s, z = np.asarray(scales, np.float32), np.asarray(zps, np.float32)
    if axis is not None:
        shape = [1] * ndim
        shape[axis] = -1
        s, z = s.reshape(shape), z.reshape(shape)
    return s, z


def quantize(x, scales, zps, lo=-128, hi=127, axis=None):
    x = np.asarray(x, np.float32)
    s, z = _params(scales, zps, x.ndim, axis)
    return np.clip(np.round(x / s) + z, lo, hi).astype(np.int8)


def dequantize(q, scales, zps, axis=None):
    q = np.asarray(q).astype(np.float32)
    s, z = _params(scales, zps, q.ndim, axis)
    return (q - z) * s


@pytest.mark.parametrize("device", BACKENDS)
def test_spec_examples_quantize_and_dequantize(device):
    text = f"""
func.func @main(%x: tensor<2xf32>, %q: tensor<2x{PER_AXIS}>) -> (tensor<2x{PER_AXIS}>, tensor<2xf32>, tensor<2x{PER_AXIS_2}>) {{
  %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{PER_AXIS}>
  %1 = stablehlo.uniform_dequantize %q : (tensor<2x{PER_AXIS}>) -> tensor<2xf32>
  %2 = stablehlo.uniform_quantize %q : (tensor<2x{PER_AXIS}>) -> tensor<2x{PER_AXIS_2}>
  return %0, %1, %2 : tensor<2x{PER_AXIS}>, tensor<2xf32>, tensor<2x{PER_AXIS_2}>
}}
"""
    q, d, r = xjit.stablehlo.run(text, np.float32([4.0, 15.0]), np.int8([10, 10]), device=device)
    np.testing.assert_array_equal(np.asarray(q), np.int8([10, 10]))  # the spec's example
    np.testing.assert_allclose(np.asarray(d), [4.0, 15.0], rtol=1e-6)
    want = quantize(dequantize([10, 10], [0.1, 0.5], [-30, -20], 0), [0.1, 0.2], [-20, -30], axis=0)
    np.testing.assert_array_equal(np.asarray(r), want)
    assert np.asarray(q).dtype == np.int8


@pytest.mark.parametrize("device", BACKENDS)
def test_ops_on_quantized_operands_dequantize_compute_and_quantize(device):
    a_t = "!quant.uniform<i8:f32, 0.25:3>"
    b_t = "!quant.uniform<i8<-100:100>:f32, 0.5:-2>"
    r_t = "!quant.uniform<i8:f32, 0.125>"
    text = f"""
func.func @main(%a: tensor<2x3x{a_t}>, %b: tensor<2x3x{b_t}>) -> (tensor<2x3x{r_t}>, tensor<3x2x{a_t}>, tensor<2x3xi1>, tensor<2x2x{r_t}>) {{
  %0 = stablehlo.add %a, %b : (tensor<2x3x{a_t}>, tensor<2x3x{b_t}>) -> tensor<2x3x{r_t}>
  %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x{a_t}>) -> tensor<3x2x{a_t}>
  %2 = stablehlo.compare LT, %a, %b : (tensor<2x3x{a_t}>, tensor<2x3x{b_t}>) -> tensor<2x3xi1>
  %3 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<2x3x{a_t}>, tensor<2x3x{b_t}>) -> tensor<2x2x{r_t}>
  return %0, %1, %2, %3 : tensor<2x3x{r_t}>, tensor<3x2x{a_t}>, tensor<2x3xi1>, tensor<2x2x{r_t}>
}}
"""
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (2, 3)).astype(np.int8)
    b = rng.integers(-100, 101, (2, 3)).astype(np.int8)
    s, t, c, d = xjit.stablehlo.run(text, a, b, device=device)
    fa, fb = dequantize(a, 0.25, 3), dequantize(b, 0.5, -2)
    np.testing.assert_array_equal(np.asarray(s), quantize(fa + fb, 0.125, 0))
    np.testing.assert_array_equal(np.asarray(t), a.T)
    np.testing.assert_array_equal(np.asarray(c), fa < fb)
    np.testing.assert_array_equal(np.asarray(d), quantize(fa @ fb.T, 0.125, 0))


@pytest.mark.parametrize("device", BACKENDS)
def test_storage_range_clamps(device):
    q_t = "!quant.uniform<i8<-10:10>:f32, 1.0>"
    text = f"""
func.func @main(%x: tensor<4xf32>) -> tensor<4x{q_t}> {{
  %0 = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{q_t}>
  return %0 : tensor<4x{q_t}>
}}
"""
    (q,) = xjit.stablehlo.run(text, np.float32([-50, -2.5, 3.5, 50]), device=device)
    np.testing.assert_array_equal(np.asarray(q), np.int8([-10, -2, 4, 10]))


def test_types_print_and_parse_back():
    text = f"""
func.func @main(%q: tensor<2x{PER_AXIS}>) -> tensor<2x{PER_AXIS}> {{
  %c = stablehlo.constant dense<[1, -2]> : tensor<2x{PER_AXIS}>
  %0 = stablehlo.add %q, %c : tensor<2x{PER_AXIS}>
  %1 = stablehlo.uniform_dequantize %0 : (tensor<2x{PER_AXIS}>) -> tensor<2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8<-127:127>:f32, 0.5:3>>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x!quant.uniform<i8<-127:127>:f32, 0.5:3>>) -> tensor<2x{PER_AXIS}>
  return %3 : tensor<2x{PER_AXIS}>
}}
"""
    printed = xjit.stablehlo.parse(text).as_text()
    assert PER_AXIS in printed and "!quant.uniform<i8<-127:127>:f32, 0.5:3>" in printed
    assert xjit.stablehlo.parse(printed).as_text() == printed
    module = xjit.stablehlo.parse(text)
    assert module.in_avals[0].dtype == np.int8
    (out,) = xjit.stablehlo.run(text, np.int8([5, 7]))
    dq = dequantize(np.int8([5, 7]).astype(np.int32) + 0, [0.1, 0.5], [-30, -20], 0)
    c = dequantize(np.int8([1, -2]), [0.1, 0.5], [-30, -20], 0)
    s = quantize(dq + c, [0.1, 0.5], [-30, -20], axis=0)
    h = quantize(dequantize(s, [0.1, 0.5], [-30, -20], 0), 0.5, 3, lo=-127, hi=127)
    np.testing.assert_array_equal(np.asarray(out),
                                  quantize(dequantize(h, 0.5, 3), [0.1, 0.5], [-30, -20], axis=0))


@pytest.mark.parametrize("bad, message", [
    ("!quant.uniform<i8:f32, 0.5:200>", "zero point 200 lies outside the storage range"),
    ("!quant.uniform<i8:f32:0, {0.1:1,0.2:2,0.3:3}>", "3 scales for a dimension of size 2"),
    ("!quant.uniform<f32:f32, 0.5>", "integer storage type"),
    ("!quant.uniform<i8:f32, -0.5>", "positive"),
    ("!quant.uniform<i8<5:1>:f32, 0.5>", "storage range"),
    ("!quant.uniform<i8:f32:3, {0.5}>", "quantized dimension 3"),
    ("!quant.uniform<i8:f32 0.5>", "expected"),
])
def test_bad_quantized_types_are_rejected(bad, message):
    text = f"""
func.func @main(%q: tensor<2x{bad}>) -> tensor<2x{bad}> {{
  return %q : tensor<2x{bad}>
}}
"""
    with pytest.raises(ValueError, match=message):
        xjit.stablehlo.parse(text)


def test_ops_without_a_quantized_reading_say_so():
    q_t = "!quant.uniform<i8:f32, 0.5>"
    text = f"""
func.func @main(%q: tensor<4x{q_t}>) -> tensor<{q_t}> {{
  %z = stablehlo.constant dense<0> : tensor<{q_t}>
  %0 = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x{q_t}>, tensor<{q_t}>) -> tensor<{q_t}>
  return %0 : tensor<{q_t}>
}}
"""
    with pytest.raises(NotImplementedError, match="reduce: quantized operands or results of an op with regions"):
        xjit.stablehlo.parse(text)
    with pytest.raises(Exception, match="uniform_dequantize: operand must be a quantized tensor"):
        xjit.stablehlo.parse("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.uniform_dequantize %x : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
