"""jit: caching per signature, static arguments, pytrees, weak types, x64, lowering."""
import functools

import numpy as np
import pytest

import xjit
from xjit import lax


def counting(fun):
    """``fun`` plus a list that records each Python execution (i.e. each trace)."""
    calls = []

    @functools.wraps(fun)
    def wrapper(*args, **kwargs):
        calls.append(1)
        return fun(*args, **kwargs)
    return wrapper, calls


def test_jit_computes_and_caches_per_signature():
    f, calls = counting(lambda x, y: lax.add(lax.mul(x, y), y))
    jf = xjit.jit(f)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(jf(x, x)), x * x + x)
    np.testing.assert_allclose(np.asarray(jf(x + 1, x)), (x + 1) * x + x)
    assert len(calls) == 1
    jf(np.ones(4, np.float32), np.ones(4, np.float32))  # new shape
    assert len(calls) == 2
    jf(np.ones(4, np.int32), np.ones(4, np.int32))  # new dtype
    assert len(calls) == 3
    assert jf._cache_size() == 3
    jf.clear_cache()
    assert jf._cache_size() == 0
    jf(x, x)
    assert len(calls) == 4


def test_jit_decorator_and_metadata():
    @xjit.jit
    def double(x):
        """Doubles."""
        return lax.mul(x, 2.0)

    assert double.__name__ == "double"
    assert double.__doc__ == "Doubles."
    np.testing.assert_allclose(np.asarray(double(np.float32(3))), 6.0)


def test_static_argnums_and_argnames():
    f, calls = counting(lambda x, n, *, scale=1.0: lax.mul(lax.integer_pow(x, n), scale))
    jf = xjit.jit(f, static_argnums=1, static_argnames="scale")
    x = np.array([2.0, 3.0], np.float32)
    np.testing.assert_allclose(np.asarray(jf(x, 2)), [4.0, 9.0])
    np.testing.assert_allclose(np.asarray(jf(x, 3)), [8.0, 27.0])
    assert len(calls) == 2
    jf(x, 2)
    assert len(calls) == 2
    np.testing.assert_allclose(np.asarray(jf(x, 2, scale=0.5)), [2.0, 4.5])
    assert len(calls) == 3


def test_partial_jit_with_static_argnames_inferred_from_position():
    @functools.partial(xjit.jit, static_argnames="n")
    def f(x, n):
        return lax.integer_pow(x, n)

    np.testing.assert_allclose(np.asarray(f(np.float32(2), 3)), 8.0)
    np.testing.assert_allclose(np.asarray(f(np.float32(2), n=4)), 16.0)


def test_pytrees_in_and_out():
    @xjit.jit
    def f(params, x, extra=None):
        w, b = params["w"], params["b"]
        out = lax.add(lax.dot(x, w), b)
        return {"out": out, "pair": (x, None), "list": [lax.neg(b)]}

    params = {"w": np.ones((3, 2), np.float32), "b": np.array([1.0, 2.0], np.float32)}
    x = np.arange(3, dtype=np.float32)
    res = f(params, x)
    assert set(res) == {"out", "pair", "list"}
    np.testing.assert_allclose(np.asarray(res["out"]), [4.0, 5.0])
    assert res["pair"][1] is None
    np.testing.assert_allclose(np.asarray(res["pair"][0]), x)
    np.testing.assert_allclose(np.asarray(res["list"][0]), [-1.0, -2.0])


def test_outputs_may_be_constants_and_python_scalars():
    @xjit.jit
    def f(x):
        return x, 2.0, np.arange(2), True

    x, two, ar, t = f(np.float32(1))
    assert isinstance(two, xjit.Array) and two.weak_type and two.dtype == np.float32
    assert ar.dtype == np.int32 and ar.tolist() == [0, 1]
    assert t.dtype == np.bool_ and not t.weak_type


def test_weak_types_compile_separately():
    f, calls = counting(lambda x: lax.add(x, 1.0))
    jf = xjit.jit(f)
    a = jf(1.0)
    assert a.dtype == np.float32 and a.weak_type
    b = jf(np.float32(1))
    assert b.dtype == np.float32 and not b.weak_type
    assert len(calls) == 2
    jf(2.0)
    assert len(calls) == 2


def test_python_int_argument_is_weak_int32():
    out = xjit.jit(lambda x: x)(3)
    assert out.dtype == np.int32 and out.weak_type


def test_x64_switch():
    f, calls = counting(lambda x: lax.add(x, x))
    jf = xjit.jit(f)
    assert jf(np.arange(3)).dtype == np.int32
    xjit.config.update("jax_enable_x64", True)
    try:
        assert xjit.config.jax_enable_x64
        out = jf(np.arange(3))
        assert out.dtype == np.int64
        assert jf(1.0).dtype == np.float64
    finally:
        xjit.config.update("jax_enable_x64", False)
    assert not xjit.config.jax_enable_x64
    assert jf(np.arange(3)).dtype == np.int32


def test_nested_jit_is_a_call():
    inner, inner_calls = counting(lambda x: lax.mul(x, x))
    jinner = xjit.jit(inner)
    outer = xjit.jit(lambda x: lax.add(jinner(x), 1.0))
    np.testing.assert_allclose(np.asarray(outer(np.float32(3))), 10.0)
    assert len(inner_calls) == 1  # traced once, inside the outer trace
    assert jinner.cache_size() == 0  # only the outer function is compiled
    text = outer.lower(np.float32(3)).as_text()
    assert "stablehlo.multiply" in text and "stablehlo.add" in text
    assert '"func.call"' in text


def test_lower_as_text_and_compile():
    jf = xjit.jit(lambda x, y: lax.add(x, y))
    x = np.ones(3, np.float32)
    lowered = jf.lower(x, x)
    assert "stablehlo.add" in lowered.as_text()
    compiled = lowered.compile()
    np.testing.assert_allclose(np.asarray(compiled(x, 2 * x)), 3 * x)
    with pytest.raises(TypeError):
        compiled(np.ones(4, np.float32), np.ones(4, np.float32))


def test_invalid_argument_type():
    with pytest.raises(TypeError, match="is not a valid JAX type"):
        xjit.jit(lambda x: x)("hello")


def test_unhashable_static_argument():
    jf = xjit.jit(lambda x, n: x, static_argnums=1)
    with pytest.raises((ValueError, TypeError)):
        jf(np.float32(1), [1, 2])


def test_jit_on_method():
    class Model:
        def __init__(self, scale):
            self.scale = scale

        @functools.partial(xjit.jit, static_argnums=0)
        def apply(self, x):
            return lax.mul(x, self.scale)

    m = Model(3.0)
    np.testing.assert_allclose(np.asarray(m.apply(np.float32(2))), 6.0)


def test_closure_over_concrete_array_becomes_constant():
    c = xjit.device_put(np.array([1.0, 2.0], np.float32))
    jf = xjit.jit(lambda x: lax.add(x, c))
    np.testing.assert_allclose(np.asarray(jf(np.ones(2, np.float32))), [2.0, 3.0])


def test_python_fallback_jit_function_has_same_semantics():
    from xjit._src import api
    f, calls = counting(lambda x: lax.mul(x, 2.0))
    fallback = api._PyJitFunction(f, lambda *a, **k: _miss(f, *a, **k), (), ())
    np.testing.assert_allclose(np.asarray(fallback(np.float32(2))), 4.0)
    np.testing.assert_allclose(np.asarray(fallback(np.float32(5))), 10.0)
    assert len(calls) == 1 and fallback.cache_size() == 1


def _miss(f, *args):
    from xjit._src import api, tracing
    traced = tracing.trace_to_module(f, args, {})
    dev = api.default_device()
    exe = xjit._xjit.compile(traced.module, dev)
    leaves, _ = xjit._xjit.tree_flatten((tuple(args), {}))
    out = api._execute(exe, leaves, traced.in_avals, dev, traced.out_treedef,
                       traced.out_weak_types)
    return out, api._PyJitCacheEntry(exe, traced.out_treedef, traced.out_weak_types)


def test_dynamic_keyword_arguments():
    f, calls = counting(lambda x, *, y, z=None: lax.sub(x, y))
    jf = xjit.jit(f)
    a, b = np.ones(2, np.float32), np.full(2, 3.0, np.float32)
    np.testing.assert_allclose(np.asarray(jf(a, y=b)), [-2.0, -2.0])
    np.testing.assert_allclose(np.asarray(jf(b, y=a)), [2.0, 2.0])
    assert len(calls) == 1
    jf(a, y=b, z=a)  # a new pytree of arguments
    assert len(calls) == 2


def test_jit_on_reference_platform():
    xjit.config.update("jax_platform_name", "reference")
    try:
        out = xjit.jit(lambda x: lax.reduce_max(lax.mul(x, x), (0,)))(
            np.array([1.0, -3.0, 2.0], np.float32))
        assert out.device.platform == "reference"
        assert float(out) == 9.0
    finally:
        xjit.config.update("jax_platform_name", None)


def test_cache_keys_on_default_platform():
    """Changing jax_platform_name recompiles for the new default device."""
    f = xjit.jit(lambda x: x * 2.0)
    x = np.arange(3.0, dtype=np.float32)
    assert f(x).device.platform == "cpu"
    try:
        xjit.config.update("jax_platform_name", "reference")
        out = f(x)
        assert out.device.platform == "reference"
        np.testing.assert_allclose(np.asarray(out), x * 2.0)
    finally:
        xjit.config.update("jax_platform_name", None)
    assert f(x).device.platform == "cpu"


def test_python_scalar_operands_are_one_graph_value_per_trace():
    # `x * 0.5` in every layer: one constant and one broadcast per trace
    # (numpy/util.py), keyed by dtype, weak type, shape and the value's bits.
    def f(x, y):
        for _ in range(5):
            x = x * 0.5 + 1.0
        return x * -0.0, x * 0.0, y * 0.5
    x, y = np.ones((4, 3), np.float32), np.ones(3, np.float32)
    text = xjit.jit(f).lower(x, y).as_text()
    assert text.count("stablehlo.broadcast_in_dim") == 5  # 0.5, 1.0, -0.0, 0.0 at (4, 3); 0.5 at (3,)
    neg, pos, z = xjit.jit(f)(x, y)
    assert np.all(np.signbit(np.asarray(neg))) and not np.any(np.signbit(np.asarray(pos)))
    np.testing.assert_array_equal(np.asarray(z), y * 0.5)
