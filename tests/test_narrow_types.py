"""Narrow element types (issue 10): sub-byte integers and the small floats of
ml_dtypes, end to end: arrays, numpy round trips, arithmetic computed in
float32 / int8 and rounded per op, converts, promotion errors, StableHLO text.
"""
import ml_dtypes
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
import xjit.stablehlo
from xjit import lax

FLOATS = ["float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn",
          "float6_e3m2fn"]
INTS = ["int2", "int4", "uint2", "uint4"]
BACKENDS = ["cpu", "reference"]


def all_codes(name):
    """Every value of the type, as an ml_dtypes array (one per code)."""
    dt = np.dtype(getattr(ml_dtypes, name))
    bits = {"float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6}.get(name, 8)
    return np.arange(1 << bits, dtype=np.uint8).view(dt)


def same_bits(a, b):
    """Bit-equal, except that NaNs match NaNs (the sign of a computed NaN is not
    specified)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    ab, bb = a.view(np.uint8).copy(), b.view(np.uint8).copy()
    if dtypes_kind(a.dtype) == "f":
        nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
        ab[nan] = bb[nan]
    np.testing.assert_array_equal(ab, bb)


def dtypes_kind(dt):
    from xjit._src import dtypes
    return dtypes.kind(dt)


def round_in_f32(f, dt, *xs):
    """numpy's reading of an op on a narrow float: in float32, rounded once."""
    with np.errstate(all="ignore"):
        return np.asarray(f(*(x.astype(np.float32) for x in xs))).astype(dt)


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_numpy_round_trip_and_dtype(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = all_codes(name) if name in FLOATS else np.array(
        [ml_dtypes.iinfo(dt).min, 0, 1, ml_dtypes.iinfo(dt).max], dt)
    a = jnp.asarray(x)
    assert a.dtype == dt and getattr(jnp, name).dtype == dt
    same_bits(np.asarray(a), x)
    same_bits(np.asarray(xjit.jit(lambda v: v)(x)), x)
    same_bits(np.asarray(xjit.jit(lambda v: v.T.reshape(-1)[::-1])(x)), x[::-1])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", FLOATS)
def test_float_arithmetic_rounds_per_op(name, backend):
    dt = np.dtype(getattr(ml_dtypes, name))
    codes = all_codes(name)
    x = np.repeat(codes, len(codes))
    y = np.tile(codes, len(codes))
    f = xjit.jit(lambda a, b: (a + b, a * b, a - b, a / b, jnp.maximum(a, b), a < b),
                 backend=backend)
    got = f(x, y)
    want = [round_in_f32(np.add, dt, x, y), round_in_f32(np.multiply, dt, x, y),
            round_in_f32(np.subtract, dt, x, y), round_in_f32(np.divide, dt, x, y),
            # IEEE maximum (the spec's): max(+0, -0) is +0, where numpy's is -0.
            round_in_f32(lambda a, b: np.asarray(xjit.jit(jnp.maximum)(a, b)), dt, x, y)]
    for g, w in zip(got, want):
        same_bits(g, w)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(np.asarray(got[-1]), x.astype(np.float32) < y.astype(np.float32))


@pytest.mark.parametrize("name", FLOATS)
def test_float_unary_ops(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = all_codes(name)
    got = xjit.jit(lambda a: (jnp.sqrt(a), jnp.abs(a), -a, jnp.exp(a), jnp.floor(a)))(x)
    for g, f in zip(got, [np.sqrt, np.abs, np.negative, np.exp, np.floor]):
        same_bits(g, round_in_f32(f, dt, x))


@pytest.mark.parametrize("name", FLOATS)
def test_weak_scalars_keep_the_type_and_strong_types_do_not_promote(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = jnp.asarray(np.array([1, 2, 0.5], np.float32).astype(dt))
    assert (x * 2).dtype == dt and (x + 1.5).dtype == dt
    same_bits(x * 2, round_in_f32(lambda a: a * 2, dt, np.asarray(x)))
    with pytest.raises(ValueError, match="no available implicit dtype promotion path"):
        x + jnp.ones(3, jnp.float32)
    with pytest.raises(ValueError, match="8-bit floats|sub-byte floats"):
        jnp.promote_types(dt, jnp.float16)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", INTS)
def test_sub_byte_integers_wrap(name, backend):
    dt = np.dtype(getattr(ml_dtypes, name))
    info = ml_dtypes.iinfo(dt)
    vals = np.arange(int(info.min), int(info.max) + 1)
    x, y = np.repeat(vals, len(vals)), np.tile(vals, len(vals))
    bits = info.bits

    def wrap(v):
        v = np.asarray(v, np.int64) & ((1 << bits) - 1)
        if info.min < 0:
            v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
        return v.astype(dt)

    f = xjit.jit(lambda a, b: (a + b, a * b, a - b, a & b, a ^ b, ~a, a < b), backend=backend)
    got = f(x.astype(dt), y.astype(dt))
    for g, w in zip(got[:-1], [x + y, x * y, x - y, x & y, x ^ y, ~x]):
        same_bits(g, wrap(w))
    np.testing.assert_array_equal(np.asarray(got[-1]), x < y)
    a = jnp.asarray(x.astype(dt))
    assert (a + 1).dtype == dt
    with pytest.raises(ValueError, match="2-bit and 4-bit integers"):
        a + jnp.ones(a.shape, jnp.int8)


@pytest.mark.parametrize("name", INTS)
def test_sub_byte_shifts_and_bit_counts_see_only_their_bits(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    info = ml_dtypes.iinfo(dt)
    bits = info.bits
    vals = np.arange(int(info.min), int(info.max) + 1)
    x = vals.astype(dt)
    codes = vals & ((1 << bits) - 1)
    got = xjit.jit(lambda a: (lax.population_count(a), lax.clz(a),
                              lax.shift_right_logical(a, jnp.asarray(np.ones_like(x))),
                              lax.shift_left(a, jnp.asarray(np.ones_like(x)))))(x)
    pop = np.array([bin(int(c)).count("1") for c in codes])
    clz = np.array([bits - int(c).bit_length() for c in codes])
    for g, w in zip(got, [pop, clz, codes >> 1, codes << 1]):
        w = np.asarray(w) & ((1 << bits) - 1)
        if info.min < 0:
            w = np.where(w >= 1 << (bits - 1), w - (1 << bits), w)
        same_bits(g, w.astype(dt))


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_astype_matches_ml_dtypes(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    rng = np.random.default_rng(0)
    if name in FLOATS:
        src = np.concatenate([rng.standard_normal(500).astype(np.float32) * 8,
                              np.float32([0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30])])
        same_bits(xjit.jit(lambda v: v.astype(dt))(src), src.astype(dt))
        codes = all_codes(name)
        np.testing.assert_array_equal(np.asarray(xjit.jit(lambda v: v.astype(jnp.float32))(codes)),
                                      codes.astype(np.float32))
        # From a float16 and an int, through float32 (both exact there).
        h = src[:500].astype(np.float16)
        same_bits(xjit.jit(lambda v: v.astype(dt))(h), h.astype(np.float32).astype(dt))
        i = np.arange(-20, 20, dtype=np.int32)
        same_bits(xjit.jit(lambda v: v.astype(dt))(i), i.astype(np.float32).astype(dt))
    else:
        info = ml_dtypes.iinfo(dt)
        vals = np.arange(int(info.min), int(info.max) + 1).astype(dt)
        np.testing.assert_array_equal(np.asarray(xjit.jit(lambda v: v.astype(jnp.int32))(vals)),
                                      vals.astype(np.int32))
        np.testing.assert_array_equal(np.asarray(xjit.jit(lambda v: v.astype(jnp.float32))(vals)),
                                      vals.astype(np.float32))
        wide = np.arange(-40, 40, dtype=np.int32)
        wrapped = wide & ((1 << info.bits) - 1)
        if info.min < 0:
            wrapped = np.where(wrapped >= 1 << (info.bits - 1), wrapped - (1 << info.bits), wrapped)
        same_bits(xjit.jit(lambda v: v.astype(dt))(wide), wrapped.astype(dt))


def test_narrow_to_narrow_convert_rounds_once():
    x = all_codes("float8_e4m3fn")
    want = x.astype(np.float32).astype(ml_dtypes.float8_e5m2)
    same_bits(xjit.jit(lambda v: v.astype(jnp.float8_e5m2))(x), want)
    i = np.arange(-8, 8).astype(ml_dtypes.int4)
    same_bits(xjit.jit(lambda v: v.astype(jnp.float4_e2m1fn))(i),
              i.astype(np.float32).astype(ml_dtypes.float4_e2m1fn))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_rounds_after_every_step(backend):
    # 16 + 1 in float8_e4m3fn is 16 (3 mantissa bits): a sum rounded per step
    # stays at 16, where one rounded at the end would give 24.
    x = np.array([16] + [1] * 8, np.float32).astype(ml_dtypes.float8_e4m3fn)
    got = xjit.jit(lambda v: jnp.sum(v), backend=backend)(x)
    assert got.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    assert float(np.asarray(got).astype(np.float32)) in (16.0, 20.0, 24.0)
    exact = np.array([1, 2, 3, 4], np.float32).astype(ml_dtypes.float8_e4m3fn)
    assert float(np.asarray(xjit.jit(jnp.sum, backend=backend)(exact)).astype(np.float32)) == 10.0
    s = xjit.jit(lambda v: jnp.sort(v), backend=backend)(x[::-1])
    same_bits(s, np.sort(x.astype(np.float32)).astype(ml_dtypes.float8_e4m3fn))


def test_dot_and_control_flow_on_narrow_types():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)).astype(ml_dtypes.float8_e4m3fn)
    b = rng.standard_normal((5, 3)).astype(ml_dtypes.float8_e4m3fn)
    got = xjit.jit(lambda p, q: lax.dot(p, q, preferred_element_type=jnp.float32))(a, b)
    np.testing.assert_allclose(np.asarray(got), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-6)
    x = np.array([1, 2, 3], np.float32).astype(ml_dtypes.float8_e5m2)
    out = xjit.jit(lambda v: lax.fori_loop(0, 3, lambda i, c: c * 2, v))(x)
    same_bits(out, (x.astype(np.float32) * 8).astype(ml_dtypes.float8_e5m2))
    sel = xjit.jit(lambda p, v: lax.cond(p, lambda u: u + 1, lambda u: u, v))(True, x)
    same_bits(sel, (x.astype(np.float32) + 1).astype(ml_dtypes.float8_e5m2))


def test_bitcast_between_narrow_types_of_one_width():
    x = all_codes("float8_e4m3fn")
    same_bits(xjit.jit(lambda v: lax.bitcast_convert_type(v, jnp.uint8))(x), x.view(np.uint8))
    i = np.arange(-8, 8).astype(ml_dtypes.int4)
    same_bits(xjit.jit(lambda v: lax.bitcast_convert_type(v, jnp.uint4))(i),
              i.view(np.uint8).view(ml_dtypes.uint4))
    same_bits(xjit.jit(lambda v: lax.bitcast_convert_type(v, jnp.float4_e2m1fn))(i),
              i.view(np.uint8).view(ml_dtypes.float4_e2m1fn))


MODULE = """
func.func @main(%x: tensor<4xf8E4M3FN>, %n: tensor<4xi4>) -> (tensor<4xf8E4M3FN>, tensor<4xi4>, tensor<4xf32>) {
  %c = stablehlo.constant dense<[1.5, -2.0, 448.0, 0x7F]> : tensor<4xf8E4M3FN>
  %k = stablehlo.constant dense<[7, -8, 1, -1]> : tensor<4xi4>
  %0 = stablehlo.add %x, %c : tensor<4xf8E4M3FN>
  %1 = stablehlo.add %n, %k : tensor<4xi4>
  %2 = stablehlo.convert %0 : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf8E4M3FN>, tensor<4xi4>, tensor<4xf32>
}
"""


@pytest.mark.parametrize("device", BACKENDS)
def test_stablehlo_text_with_narrow_types(device):
    x = np.array([0.5, 1, 2, 3], np.float32).astype(ml_dtypes.float8_e4m3fn)
    n = np.array([1, 1, 1, 1]).astype(ml_dtypes.int4)
    y, m, f = xjit.stablehlo.run(MODULE, x, n, device=device)
    c = np.array([1.5, -2.0, 448.0, np.nan], np.float32)
    same_bits(y, (x.astype(np.float32) + c).astype(ml_dtypes.float8_e4m3fn))
    same_bits(m, np.array([-8, -7, 2, 0]).astype(ml_dtypes.int4))
    np.testing.assert_array_equal(np.asarray(f), np.asarray(y).astype(np.float32))
    text = xjit.stablehlo.parse(MODULE).as_text()
    assert "dense<[1.5, -2.0, 448.0, 0x7F]> : tensor<4xf8E4M3FN>" in text
    assert "dense<[7, -8, 1, -1]> : tensor<4xi4>" in text
    assert xjit.stablehlo.parse(text).as_text() == text


@pytest.mark.parametrize("type_name, values", [
    ("f8E3M4", "[0.25, -15.5]"), ("f8E4M3", "[240.0, -0.125]"), ("f8E4M3FNUZ", "[240.0, 0x80]"),
    ("f8E4M3B11FNUZ", "[30.0, -0.5]"), ("f8E5M2", "[57344.0, 0x7C]"), ("f8E5M2FNUZ", "[3.0, 0x80]"),
    ("f8E8M0FNU", "[1.0, 0xFF]"), ("f4E2M1FN", "[6.0, -0.5]"), ("f6E2M3FN", "[7.5, -0.125]"),
    ("f6E3M2FN", "[28.0, 0.0625]"), ("i2", "[1, -2]"), ("ui2", "[3, 0]"), ("ui4", "[15, 9]")])
def test_every_type_parses_prints_and_runs(type_name, values):
    text = f"""
func.func @main() -> tensor<2x{type_name}> {{
  %c = stablehlo.constant dense<{values}> : tensor<2x{type_name}>
  %0 = stablehlo.multiply %c, %c : tensor<2x{type_name}>
  return %0 : tensor<2x{type_name}>
}}
"""
    module = xjit.stablehlo.parse(text)
    printed = module.as_text()
    assert f"dense<{values}> : tensor<2x{type_name}>" in printed
    assert xjit.stablehlo.parse(printed).as_text() == printed
    (cpu,) = xjit.stablehlo.run(text, device="cpu")
    (ref,) = xjit.stablehlo.run(text, device="reference")
    same_bits(cpu, ref)


def test_bad_inputs_raise_clear_errors():
    i = np.arange(4).astype(ml_dtypes.int4)
    with pytest.raises(Exception, match="regroups sub-byte elements"):
        xjit.jit(lambda v: lax.bitcast_convert_type(v, jnp.int8))(i.reshape(2, 2))
    with pytest.raises(Exception, match="hex float"):
        xjit.stablehlo.parse("""
func.func @main() -> tensor<f8E4M3FN> {
  %c = stablehlo.constant dense<0x7FF> : tensor<f8E4M3FN>
  return %c : tensor<f8E4M3FN>
}""")
    with pytest.raises(Exception, match="out of range for i4"):
        xjit.stablehlo.parse("""
func.func @main() -> tensor<i4> {
  %c = stablehlo.constant dense<8> : tensor<i4>
  return %c : tensor<i4>
}""")


@pytest.mark.parametrize("name", FLOATS + INTS)
def test_numpy_functions_on_narrow_types(name):
    dt = np.dtype(getattr(ml_dtypes, name))
    if name in FLOATS and name != "float8_e8m0fnu":
        vals = np.array([1.5, -3, 0.5, 2], np.float32).astype(dt)
    elif name == "float8_e8m0fnu":  # no sign and no zero
        vals = np.array([1, 4, 0.5, 2], np.float32).astype(dt)
    else:
        info = ml_dtypes.iinfo(dt)
        vals = np.array([info.max, info.min, 0, 1]).astype(dt)
    x = jnp.asarray(vals)
    f32 = vals.astype(np.float32)
    # max/min start from the type's extreme (a finite one where it has no inf).
    assert float(np.asarray(jnp.max(x)).astype(np.float32)) == f32.max()
    assert float(np.asarray(jnp.min(x)).astype(np.float32)) == f32.min()
    assert int(jnp.argmax(x)) == int(np.argmax(f32))
    same_bits(jnp.sort(x), np.sort(f32).astype(dt))
    same_bits(jnp.where(x > x[0], x, x[0]), np.where(f32 > f32[0], f32, f32[0]).astype(dt))
    same_bits(xjit.vmap(lambda v: v + v)(x), (f32 + f32).astype(np.float32).astype(dt)
              if name in FLOATS else jnp.add(x, x))
    assert jnp.zeros(3, dt).dtype == dt and jnp.ones((2, 2), dt).dtype == dt
    same_bits(jnp.arange(2, dtype=dt), np.arange(2).astype(dt))
