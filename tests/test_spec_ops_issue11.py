"""The issue-11 spec ops besides fft (h-fft): optimization_barrier,
replica_id, partition_id, rng (lax.rng_uniform), composite, and the
dynamic-shape ops (dynamic_*, get/set_dimension_size), through StableHLO text
and the Python API, on both backends; their bad inputs."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax, stablehlo
from jax_checks import jax, need_jax

PLATFORMS = ("cpu", "reference")


def _module(body, args="", results="tensor<f32>"):
    return (f"module @m {{\nfunc.func public @main({args}) -> ({results}) {{\n{body}\n}}\n}}\n")


# ------------------------------------------------------------------ optimization_barrier

def test_barrier_is_identity_with_grad_and_vmap():
    x = np.arange(4, dtype=np.float32)
    y, i = lax.optimization_barrier((x * 2, np.int32(3)))
    np.testing.assert_array_equal(np.asarray(y), x * 2)
    assert int(i) == 3 and i.dtype == np.int32
    f = lambda v: jnp.sum(lax.optimization_barrier(jnp.sin(v)) ** 2)  # noqa: E731
    g = xjit.grad(f)(x)
    np.testing.assert_allclose(np.asarray(g), 2 * np.sin(x) * np.cos(x), rtol=1e-6)
    v = xjit.vmap(lambda r: lax.optimization_barrier(r * 3.0))(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(np.asarray(v), np.full((2, 3), 3.0, np.float32))
    np.testing.assert_array_equal(np.asarray(xjit.jit(f)(x)), np.asarray(f(x)))
    assert lax.optimization_barrier(()) == ()


def test_barrier_matches_jax():
    need_jax()
    f = lambda m, l: lambda v: m.sum(l.optimization_barrier(m.cos(v) * 2.0) * v)  # noqa: E731
    x = np.linspace(0, 1, 5).astype(np.float32)
    np.testing.assert_allclose(np.asarray(xjit.grad(f(jnp, lax))(x)),
                               np.asarray(jax.grad(f(jax.numpy, jax.lax))(x)), rtol=1e-6)


def test_barrier_survives_the_passes():
    def f(x):
        a = jnp.sin(x)
        b = lax.optimization_barrier(a)
        return jnp.sin(x) + b  # CSE would merge the two sines without the barrier in between
    graph = xjit.make_graph(f)(np.ones(3, np.float32))
    text = graph.module.optimized().as_text()
    assert "optimization_barrier" in text
    np.testing.assert_allclose(np.asarray(xjit.jit(f)(np.ones(3, np.float32))),
                               2 * np.sin(np.ones(3)), rtol=1e-6)


def test_barrier_bad_input():
    with pytest.raises(TypeError):
        lax.optimization_barrier(["not an array"])


# ----------------------------------------------------------------- replica_id, partition_id

@pytest.mark.parametrize("op", ["replica_id", "partition_id"])
def test_ids_are_zero(op):
    text = _module(f'  %r = "stablehlo.{op}"() : () -> tensor<ui32>\n  return %r : tensor<ui32>',
                   results="tensor<ui32>")
    for platform in PLATFORMS:
        (r,) = stablehlo.run(text, device=platform)
        assert np.asarray(r).dtype == np.uint32 and int(r) == 0


# -------------------------------------------------------------------------------- rng

def test_rng_uniform_range_and_dtypes():
    for dt, lo, hi in [(np.float32, -2.0, 5.0), (np.int32, -3, 4)]:
        r = np.asarray(lax.rng_uniform(dt(lo), dt(hi), (2000,)))
        assert r.dtype == dt and r.shape == (2000,)
        assert r.min() >= lo and r.max() < hi
        assert len(np.unique(r)) > (6 if dt == np.int32 else 1000)
    jitted = xjit.jit(lambda a: lax.rng_uniform(a, a + 1.0, (3, 4)))(np.float32(1.0))
    assert jitted.shape == (3, 4) and np.all((np.asarray(jitted) >= 1) & (np.asarray(jitted) < 2))
    with pytest.raises(TypeError):
        lax.rng_uniform(np.float32(0), np.int32(1), (2,))
    with pytest.raises(ValueError):
        lax.rng_uniform(np.float32(0), np.float32(1), (-1,))


@pytest.mark.parametrize("dist,dtype", [("UNIFORM", "f32"), ("NORMAL", "f64"), ("UNIFORM", "i64"),
                                        ("NORMAL", "f16"), ("UNIFORM", "bf16")])
def test_rng_op_agrees_across_backends(dist, dtype):
    t = f"tensor<{dtype}>"
    lo, hi = ("1", "9") if dtype.startswith("i") else ("1.0", "3.0")
    text = _module(
        f"  %a = stablehlo.constant dense<{lo}> : {t}\n"
        f"  %b = stablehlo.constant dense<{hi}> : {t}\n"
        "  %s = stablehlo.constant dense<[40, 50]> : tensor<2xi64>\n"
        f'  %r = "stablehlo.rng"(%a, %b, %s) {{rng_distribution = #stablehlo<rng_distribution '
        f"{dist}>}} : ({t}, {t}, tensor<2xi64>) -> tensor<40x50x{dtype}>\n"
        f"  return %r : tensor<40x50x{dtype}>", results=f"tensor<40x50x{dtype}>")
    cpu, = stablehlo.run(text, device="cpu")
    ref, = stablehlo.run(text, device="reference")
    c, r = np.asarray(cpu).astype(np.float64), np.asarray(ref).astype(np.float64)
    np.testing.assert_allclose(c, r, rtol=1e-2 if dtype in ("f16", "bf16") else 1e-6)
    if dist == "UNIFORM":
        # f16/bf16 are drawn in f32 and rounded, which may round up to b (as in JAX).
        assert c.min() >= float(lo)
        assert c.max() < float(hi) if dtype not in ("f16", "bf16") else c.max() <= float(hi)
    else:
        assert abs(c.mean() - 1.0) < 0.15 and abs(c.std() - 3.0) < 0.2


def test_rng_shape_operand_must_be_known():
    text = _module('  %r = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<'
                   "rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> "
                   "tensor<3xf32>\n  return %r : tensor<3xf32>",
                   "%a: tensor<f32>, %b: tensor<f32>, %s: tensor<1xi64>", "tensor<3xf32>")
    for platform in PLATFORMS:
        with pytest.raises(Exception, match="not known at compile time"):
            stablehlo.run(text, np.float32(0), np.float32(1), np.array([3]), device=platform)


def test_rng_bad_types():
    with pytest.raises(Exception, match="NORMAL takes floating-point"):
        stablehlo.parse(_module(
            "  %a = stablehlo.constant dense<1> : tensor<i32>\n"
            "  %s = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
            '  %r = "stablehlo.rng"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution '
            "NORMAL>} : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<3xi32>\n"
            "  return %r : tensor<3xi32>", results="tensor<3xi32>"))


# ---------------------------------------------------------------------------- composite

COMPOSITE = """module @m {
func.func public @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>) {
  %r = "stablehlo.composite"(%a, %b) {name = "my_namespace.my_op", composite_attributes = {my_attribute = "my_value", n = 2 : i64}, decomposition = @my_op, version = 1 : i32} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @my_op(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %y : tensor<3xf32>
  %1 = stablehlo.add %0, %x : tensor<3xf32>
  return %1 : tensor<3xf32>
}
}
"""


def test_composite_runs_its_decomposition_and_round_trips():
    a = np.array([1, 2, 3], np.float32)
    b = np.array([4, 5, 6], np.float32)
    module = stablehlo.parse(COMPOSITE)
    for platform in PLATFORMS:
        (r,) = stablehlo.run(module, a, b, device=platform)
        np.testing.assert_array_equal(np.asarray(r), a * b + a)
    text = module.as_text()
    for part in ['name = "my_namespace.my_op"', "my_attribute = \"my_value\"",
                 "decomposition = @my_op", "version = 1 : i32"]:
        assert part in text, text
    assert stablehlo.parse(text).as_text() == text


def test_composite_bad_attributes():
    with pytest.raises(Exception, match="decomposition"):
        stablehlo.parse(COMPOSITE.replace(", decomposition = @my_op", ""))
    with pytest.raises(Exception, match="name"):
        stablehlo.parse(COMPOSITE.replace('name = "my_namespace.my_op", ', ""))
    with pytest.raises(Exception, match="string"):
        stablehlo.parse(COMPOSITE.replace('"my_namespace.my_op"', "3 : i64"))


# --------------------------------------------------------------------- dynamic-shape ops

def test_dynamic_ops_with_folded_constant_shapes_match_static_ops():
    text = _module(
        "  %c = stablehlo.constant dense<[2, 3]> : tensor<2xi32>\n"
        "  %s = stablehlo.reverse %c, dims = [0] : tensor<2xi32>\n"   # folded: [3, 2]
        '  %r = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi32>) -> '
        "tensor<3x2xf32>\n"
        '  %d = "stablehlo.get_dimension_size"(%a) {dimension = 0 : i64} : (tensor<2x3xf32>) -> '
        "tensor<i32>\n"
        "  return %r, %d : tensor<3x2xf32>, tensor<i32>",
        "%a: tensor<2x3xf32>", "tensor<3x2xf32>, tensor<i32>")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for platform in PLATFORMS:
        r, d = stablehlo.run(text, x, device=platform)
        np.testing.assert_array_equal(np.asarray(r), x.reshape(3, 2))
        assert int(d) == 2


@pytest.mark.parametrize("op,body", [
    ("dynamic_reshape", '"stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) '
                        "-> tensor<3x2xf32>"),
    ("dynamic_broadcast_in_dim", '"stablehlo.dynamic_broadcast_in_dim"(%a, %s) '
                                 "{broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, "
                                 "tensor<2xi64>) -> tensor<2x3xf32>"),
])
def test_dynamic_ops_with_runtime_shapes_fail_clearly(op, body):
    result = "tensor<3x2xf32>" if op == "dynamic_reshape" else "tensor<2x3xf32>"
    text = _module(f"  %r = {body}\n  return %r : {result}",
                   "%a: tensor<2x3xf32>, %s: tensor<2xi64>", result)
    for platform in PLATFORMS:
        with pytest.raises(Exception, match=f"{op}: its shape operand .* not known at compile"):
            stablehlo.run(text, np.zeros((2, 3), np.float32), np.array([3, 2]), device=platform)


def test_dynamic_op_values_must_match_result_type():
    text = _module("  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
                   '  %r = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) '
                   "-> tensor<3x2xf32>\n  return %r : tensor<3x2xf32>",
                   "%a: tensor<2x3xf32>", "tensor<3x2xf32>")
    with pytest.raises(Exception, match="does not match the result type"):
        stablehlo.run(text, np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("text,match", [
    ('%r = "stablehlo.dynamic_reshape"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> '
     "tensor<3x2xf32>", "1-D integer"),
    ('%r = "stablehlo.dynamic_iota"(%s) {iota_dimension = 5 : i64} : (tensor<2xi64>) -> '
     "tensor<3x2xf32>", "iota"),
    ('%r = "stablehlo.get_dimension_size"(%a) {dimension = 2 : i64} : (tensor<2x3xf32>) -> '
     "tensor<i32>", "out of range"),
])
def test_dynamic_ops_bad_types_rejected_when_parsed(text, match):
    with pytest.raises(Exception, match=match):
        stablehlo.parse(_module(f"  {text}\n  return %r : tensor<3x2xf32>",
                                "%a: tensor<2x3xf32>, %s: tensor<2xi64>", "tensor<3x2xf32>"))


def test_set_dimension_size_only_to_the_static_size():
    def text(n):
        return _module(f"  %s = stablehlo.constant dense<{n}> : tensor<i32>\n"
                       '  %r = "stablehlo.set_dimension_size"(%a, %s) {dimension = 1 : i64} : '
                       "(tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>\n"
                       "  return %r : tensor<2x3xf32>", "%a: tensor<2x3xf32>", "tensor<2x3xf32>")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(np.asarray(stablehlo.run(text(3), x)[0]), x)
    with pytest.raises(Exception, match="static shapes only"):
        stablehlo.run(text(2), x)


def test_dynamic_conv_spec_example_with_its_dimension_numbers_fixed():
    # The spec's example repeats dimension 0 in its raw dimension numbers (a
    # defect); with the layout its convolution example uses, the values match.
    lhs = np.array([[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]],
                     [[12], [13], [16], [17]]]], np.int64)
    rhs = np.ones((3, 3, 1, 1), np.int64)
    text = _module(
        "  %p = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>\n"
        '  %r = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 4, 4>, '
        "lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, window_reversal = "
        "array<i1: false, false>, dimension_numbers = #stablehlo.conv<raw input_batch_dimension "
        "= 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], "
        "kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, "
        "kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
        "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, "
        "feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = "
        "[#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, "
        "tensor<3x3x1x1xi64>, tensor<2x2xi64>) -> tensor<1x2x2x1xi64>\n"
        "  return %r : tensor<1x2x2x1xi64>",
        "%a: tensor<1x4x4x1xi64>, %b: tensor<3x3x1x1xi64>", "tensor<1x2x2x1xi64>")
    for platform in PLATFORMS:
        (r,) = stablehlo.run(text, lhs, rhs, device=platform)
        np.testing.assert_array_equal(np.asarray(r).ravel(), [1, 5, 10, 14])
    with pytest.raises(Exception, match="raw form needs all nine fields"):
        stablehlo.parse(text.replace(", output_feature_dimension = 3", ""))


def test_conv_numbers_the_compact_form_cannot_spell_print_raw():
    # The spec's dynamic_conv example names input dimension 0 twice; its
    # numbers print back in the raw form, which reads back (found by the
    # parser fuzzer).
    from xjit import stablehlo
    text = """module @m {
  func.func @main(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>, %padding: tensor<2x2xi64>) -> (tensor<1x2x2x1xi64>) {
    %0 = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) { window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [0, 1], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2] >, feature_group_count = 1 : i64, batch_group_count = 1 : i64 } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<2x2xi64>) -> tensor<1x2x2x1xi64>
    "func.return"(%0) : (tensor<1x2x2x1xi64>) -> ()
  }
}"""
    m = stablehlo.parse(text)
    for pretty in (True, False):
        printed = m.as_text(pretty=pretty)
        assert "#stablehlo.conv<raw input_batch_dimension = 0," in printed
        assert stablehlo.parse(printed).as_text(pretty=pretty) == printed
