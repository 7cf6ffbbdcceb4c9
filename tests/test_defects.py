"""Regression tests for the defects found by probing (issue 6, items 3, 4, 5, 7, 8):
one test per input, each checking JAX's exception type (and wording where JAX's
message is part of the contract) or JAX's value."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax, tree_util


# ------------------------------------------------------------- 3: while_loop hang

def test_while_loop_cond_returning_float_raises_instead_of_hanging():
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got "
                                        r"output type\(s\) \[ShapedArray\(float32\[\], "
                                        r"weak_type=True\)\]\."):
        lax.while_loop(lambda x: x, lambda x: x, 1.0)


def test_while_loop_cond_returning_pytree_raises():
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got pytree"):
        lax.while_loop(lambda c: (True, True), lambda c: c, 0.0)


def test_while_loop_body_changing_dtype_raises():
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output "
                                        "must have equal types"):
        lax.while_loop(lambda x: x < 3, lambda x: (x + 1).astype(np.float32), np.int32(0))


# ------------------------------------------------------------- 4: wrong values

def test_device_put_converts_non_native_byte_order():
    x = xjit.device_put(np.arange(4, dtype=">i4"))
    assert x.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])


def test_jit_and_eager_convert_non_native_byte_order():
    big = np.arange(4, dtype=">f4")
    f = xjit.jit(lambda x: x * 2)
    for _ in range(2):  # a miss (traced in Python), then a hit (the C++ fast path)
        np.testing.assert_array_equal(np.asarray(f(big)), [0, 2, 4, 6])
    assert f._cache_size() == 1
    np.testing.assert_array_equal(np.asarray(jnp.add(big, 1)), [1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(jnp.asarray(big)), [0, 1, 2, 3])


def test_boolean_mask_of_wrong_length_raises_index_error():
    with pytest.raises(IndexError, match="boolean index did not match"):
        jnp.arange(6.).reshape(2, 3)[np.array([True, False, True])]


def test_eager_convert_element_type_of_numpy_nan_to_int_is_zero_as_in_jit():
    eager = lax.convert_element_type(np.float32(np.nan), np.int32)
    jitted = xjit.jit(lambda x: lax.convert_element_type(x, np.int32))(np.float32(np.nan))
    assert int(eager) == 0 == int(jitted)
    big = lax.convert_element_type(np.array([np.inf, -np.inf, 3.9e9], np.float32), np.int32)
    np.testing.assert_array_equal(np.asarray(big), [2**31 - 1, -2**31, 2**31 - 1])


def test_integer_pow_of_int_with_negative_exponent_raises():
    with pytest.raises(TypeError, match="Integers cannot be raised to negative powers"):
        lax.integer_pow(np.array([0, 2], np.int32), -1)


def test_expand_dims_repeated_dimension_raises():
    with pytest.raises(ValueError, match="repeated"):
        lax.expand_dims(np.ones(3, np.float32), (0, 0))


def test_fori_loop_body_changing_structure_raises():
    with pytest.raises(TypeError, match="fori_loop body function carry input and carry output "
                                        "must have the same pytree structure"):
        lax.fori_loop(0, 3, lambda i, x: (x, x), 1.0)


def test_fori_loop_body_changing_dtype_raises():
    with pytest.raises(TypeError, match=r"The input carry x has type float32\[\] but the "
                                        r"corresponding output carry component has type "
                                        r"int32\[\], so the dtypes do not match"):
        lax.fori_loop(0, 3, lambda i, x: x.astype(np.int32), np.float32(1))


def test_scan_body_changing_shape_raises():
    with pytest.raises(TypeError, match=r"(?s)scan body function carry input and carry output must "
                                        r"have equal types.*float32\[2\].*float32\[2,2\], so "
                                        r"the shapes do not match"):
        lax.scan(lambda c, x: (jnp.stack([c, c]), x), jnp.zeros(2), jnp.arange(3.))


def test_loops_promote_a_weakly_typed_carry_as_jax_does():
    out = lax.fori_loop(0, 3, lambda i, x: x * 2.0, 1)
    assert out.dtype == np.float32 and float(out) == 8.0
    assert int(lax.fori_loop(0, 4, lambda i, s: s + i, 0)) == 6


# ------------------------------------------------------------- 5: accepted where JAX raises

def test_register_pytree_node_for_int_raises_and_flatten_still_works():
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for "
                                         "<class 'int'>"):
        tree_util.register_pytree_node(int, None, None)
    assert tree_util.tree_leaves([1, (2, {"a": 3})]) == [1, 2, 3]


def test_register_pytree_node_twice_raises():
    class Box:
        def __init__(self, x):
            self.x = x

    tree_util.register_pytree_node(Box, lambda b: ((b.x,), None), lambda aux, ch: Box(*ch))
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        tree_util.register_pytree_node(Box, lambda b: ((b.x,), None), lambda aux, ch: Box(*ch))
    assert tree_util.tree_leaves(Box(5)) == [5]


def test_static_argnums_out_of_range_raises():
    with pytest.raises(ValueError, match=r"Jitted function has static_argnums=\(3,\), but only "
                                         r"accepts 1 positional arguments\."):
        xjit.jit(lambda x: x, static_argnums=3)


def test_static_argnames_unknown_raises():
    with pytest.raises(ValueError, match=r"Jitted function has invalid argnames \{'y'\} in "
                                         r"static_argnames\. Function does not take these args"):
        xjit.jit(lambda x: x, static_argnames="y")


def test_take_with_unknown_mode_raises():
    with pytest.raises(ValueError, match="Invalid mode='bogus'"):
        jnp.take(jnp.arange(3), jnp.array([0]), mode="bogus")


def test_switch_with_float_index_raises():
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, [lambda: 1, lambda: 2])


def test_select_n_with_float_selector_raises():
    with pytest.raises(TypeError, match="select_n requires which to be a boolean or integer"):
        lax.select_n(np.float32(1), np.float32(1), np.float32(2))


def test_fori_loop_with_float_bound_raises():
    with pytest.raises(TypeError, match="fori_loop lower and upper arguments must be integer"):
        lax.fori_loop(0.5, 3, lambda i, x: x, 1)


def test_convert_element_type_to_none_raises():
    with pytest.raises(ValueError, match="dtype must be specified"):
        lax.convert_element_type(np.float32(1), None)


def test_jit_of_none_raises():
    with pytest.raises(TypeError, match="Expected a callable value, got None"):
        xjit.jit(None)


def test_array_plus_too_large_python_int_raises_overflow():
    with pytest.raises(OverflowError, match="Python int 1267650600228229401496703205376 too "
                                            "large to convert to int32"):
        jnp.arange(3) + 2**100


@pytest.mark.parametrize("call", [
    lambda: jnp.ones(3, jnp.float32) + 2**40,          # promoted to float: still parsed as int
    lambda: jnp.sin(2**40),
    lambda: jnp.hypot(np.arange(3, dtype=np.uint8), 2**40),
    lambda: jnp.where(True, 2**40, 1.0),
])
def test_python_int_operand_beyond_default_int_raises_overflow(call):
    # JAX parses a Python int operand as a weak int32 (x64 off) before promoting it.
    with pytest.raises(OverflowError, match="Python int 1099511627776 too large to convert to "
                                            "int32"):
        call()


def test_python_int_fill_value_beyond_int32_is_converted_directly():
    # A fill value is converted to the requested dtype, as JAX does.
    np.testing.assert_array_equal(np.asarray(jnp.full(2, 2**40, dtype=jnp.float32)),
                                  np.full(2, 2**40, np.float32))


# ------------------------------------------------------------- 7: numpy-level values as JAX

def test_floor_divide_by_zero_matches_jax():
    assert int(jnp.floor_divide(7, 0)) == -2
    np.testing.assert_array_equal(np.asarray(jnp.floor_divide(jnp.array([7, -7, 0]), 0)),
                                  [-2, -2, -1])
    assert int(lax.div(np.int32(7), np.int32(0))) == -1  # the lax op keeps the spec's value


def test_remainder_by_zero_matches_numpy_and_jax():
    assert int(jnp.remainder(5, 0)) == 0
    assert int(jnp.fmod(5, 0)) == 0
    assert int(lax.rem(np.int32(5), np.int32(0))) == 5  # the lax op keeps the spec's value


def test_index_int32_min_clamps_as_jax():
    assert int(jnp.arange(5)[np.int32(-2**31)]) == 0


# ------------------------------------------------------------- 8: a bounded jit cache

@pytest.fixture
def jit_cache_size_100():
    old = xjit.config.jax_jit_cache_size
    xjit.config.update("jax_jit_cache_size", 100)
    yield
    xjit.config.update("jax_jit_cache_size", old)


def test_jit_cache_keeps_at_most_the_configured_entries(jit_cache_size_100):
    f = xjit.jit(lambda x: x + 1)
    for n in range(2000):
        f(np.zeros(n % 400 + 1 + 400 * (n // 400 % 2), np.float32))
        assert f._cache_size() <= 100
    assert f._cache_size() == 100
    f.clear_cache()
    assert f._cache_size() == 0


def test_jit_cache_evicts_the_least_recently_used(jit_cache_size_100):
    traces = []

    def g(x):
        traces.append(x.shape)
        return x * 2

    f = xjit.jit(g)
    for n in range(100):
        f(np.zeros(n, np.float32))
    f(np.zeros(0, np.float32))       # a hit: now the most recently used
    f(np.zeros(100, np.float32))     # a miss: evicts shape (1,)
    del traces[:]
    f(np.zeros(0, np.float32))
    assert traces == []
    f(np.zeros(1, np.float32))
    assert traces == [(1,)]


def test_eager_op_cache_is_bounded_and_least_recently_used(jit_cache_size_100):
    from xjit._src import dispatch
    dispatch._eager_cache.clear()
    # lax functions dispatch op by op (jnp's go through jit's fast path).
    keep = jnp.ones(3, np.float32)
    for n in range(300):
        lax.sin(np.zeros(n + 4, np.float32))
        lax.add(keep, keep)  # a hit each round keeps this op's executable
        assert dispatch.eager_cache_size() <= 100
    assert dispatch.eager_cache_size() == 100
    before = dispatch.eager_cache_size()
    lax.add(keep, keep)
    assert any(k[0] == "add" and k[2][0][0] == (3,) for k in dispatch._eager_cache)
    assert dispatch.eager_cache_size() == before


def test_jit_cache_size_setting_rejects_bad_values():
    with pytest.raises(ValueError):
        xjit.config.update("jax_jit_cache_size", 0)
    with pytest.raises(TypeError):
        xjit.config.update("jax_jit_cache_size", 1.5)
    assert xjit.config.jax_jit_cache_size >= 1


def test_take_wrap_mode_wraps():
    x = jnp.array([10, 20, 30])
    np.testing.assert_array_equal(np.asarray(jnp.take(x, np.array([4, -1]), mode="wrap")),
                                  [20, 30])
    np.testing.assert_array_equal(np.asarray(jnp.take(x, jnp.array([4, -4]), mode="wrap")),
                                  [20, 30])


def test_register_pytree_node_for_array_types_raises():
    for t in (np.ndarray, xjit.Array, float):
        with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
            tree_util.register_pytree_node(t, lambda x: ((), None), lambda aux, ch: None)
    assert tree_util.tree_leaves([np.ones(2), 1.5]) != []


def test_convert_numpy_big_endian_constant_in_jit():
    big = np.arange(3, dtype=">i4")
    out = xjit.jit(lambda x: x + big)(np.int32(1))
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])


def test_binding_device_put_and_constant_convert_big_endian():
    from xjit import _xjit
    from xjit._src import dispatch
    x = _xjit.device_put(np.arange(4, dtype=">i4"), xjit.devices()[0], False)
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 2, 3])
    mb = _xjit.ModuleBuilder("m")
    cb = mb.computation("main")
    c = cb.constant(np.array([1.5, 2.5], dtype=">f8"))
    assert "dense<[1.5, 2.5]> : tensor<2xf64>" in dispatch.build_module(mb, cb, [c]).as_text()
