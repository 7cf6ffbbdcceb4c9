"""Donation: jit(f, donate_argnums=..., donate_argnames=...) consumes the
donated arrays (JAX's error when one is used again) and reuses their memory
for outputs where the backend allows it; Array.delete()."""
import contextlib

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

DELETED = r"Array has been deleted with shape=float32\[3\]\."


@contextlib.contextmanager
def platform(name):
    xjit.config.update("jax_platform_name", name)
    try:
        yield
    finally:
        xjit.config.update("jax_platform_name", None)


def test_donated_array_is_deleted_and_raises_jax_error():
    f = xjit.jit(lambda x: x + 1, donate_argnums=0)
    x = jnp.array([1.0, 2.0, 3.0])
    y = f(x)
    np.testing.assert_array_equal(np.asarray(y), [2, 3, 4])
    assert x.is_deleted()
    assert not y.is_deleted()
    with pytest.raises(RuntimeError, match=DELETED):
        np.asarray(x)
    with pytest.raises(RuntimeError, match=DELETED):
        print(x)
    with pytest.raises(RuntimeError, match=DELETED):
        x.block_until_ready()
    with pytest.raises(RuntimeError, match=DELETED):
        f(x)  # the fast path (a cache hit) checks too
    with pytest.raises(RuntimeError, match=DELETED):
        x * 2  # eager ops
    with pytest.raises(RuntimeError, match=DELETED):
        xjit.device_put(x)
    assert x.shape == (3,) and x.dtype == np.float32  # metadata stays


def test_donation_on_cache_hits_and_misses():
    f = xjit.jit(lambda x, y: x * y, donate_argnums=(0,))
    for _ in range(3):
        x = jnp.ones(3)
        y = jnp.full(3, 2.0)
        np.testing.assert_array_equal(np.asarray(f(x, y)), [2, 2, 2])
        assert x.is_deleted() and not y.is_deleted()
    assert f._cache_size() == 1


def test_donate_argnames_resolves_positions_and_keywords():
    def g(a, b):
        return a - b

    f = xjit.jit(g, donate_argnames="b")
    a, b = jnp.ones(3), jnp.ones(3)
    f(a, b)  # b passed by position
    assert b.is_deleted() and not a.is_deleted()
    a, b = jnp.ones(3), jnp.ones(3)
    f(a, b=b)  # b passed by keyword
    assert b.is_deleted() and not a.is_deleted()

    f = xjit.jit(g, donate_argnums=1)  # the name is inferred the other way
    a, b = jnp.ones(3), jnp.ones(3)
    f(a, b=b)
    assert b.is_deleted() and not a.is_deleted()


def test_donated_pytree_arguments_donate_every_leaf():
    f = xjit.jit(lambda p, s: {"w": p["w"] * s, "b": p["b"] + s}, donate_argnums=0)
    params = {"w": jnp.ones(3), "b": jnp.zeros(2)}
    scale = jnp.array(2.0)
    out = f(params, scale)
    np.testing.assert_array_equal(np.asarray(out["w"]), [2, 2, 2])
    assert params["w"].is_deleted() and params["b"].is_deleted()
    assert not scale.is_deleted()


def test_donating_scalars_and_numpy_is_not_an_error():
    f = xjit.jit(lambda x, y: x + y, donate_argnums=(0, 1))
    host = np.ones(3, np.float32)
    out = f(host, 2.0)
    np.testing.assert_array_equal(np.asarray(out), [3, 3, 3])
    np.testing.assert_array_equal(host, [1, 1, 1])  # numpy input untouched
    out = f(host, 2.0)  # and again, from the cache
    np.testing.assert_array_equal(np.asarray(out), [3, 3, 3])


def test_static_and_donated_arguments_may_not_intersect():
    with pytest.raises(ValueError, match="cannot intersect"):
        xjit.jit(lambda x, n: x * n, static_argnums=1, donate_argnums=1)
    f = xjit.jit(lambda n, x: x * n, static_argnums=0, donate_argnums=1)
    x = jnp.ones(3)
    np.testing.assert_array_equal(np.asarray(f(3, x)), [3, 3, 3])
    assert x.is_deleted()


def test_donated_memory_is_reused_on_the_reference_backend():
    with platform("reference"):
        f = xjit.jit(lambda x: x * 2, donate_argnums=0)
        x = xjit.device_put(np.arange(3, dtype=np.float32))
        address = x.unsafe_buffer_pointer()
        y = f(x)
        assert y.unsafe_buffer_pointer() == address
        np.testing.assert_array_equal(np.asarray(y), [0, 2, 4])
        z = f(y)  # the cache hit reuses it too
        assert z.unsafe_buffer_pointer() == address
        np.testing.assert_array_equal(np.asarray(z), [0, 4, 8])


def test_memory_a_numpy_view_reads_is_not_reused():
    with platform("reference"):
        f = xjit.jit(lambda x: x * 2, donate_argnums=0)
        x = xjit.device_put(np.arange(3, dtype=np.float32))
        view = np.asarray(x)  # zero-copy view of x's memory
        y = f(x)
        assert x.is_deleted()
        np.testing.assert_array_equal(view, [0, 1, 2])  # never overwritten
        np.testing.assert_array_equal(np.asarray(y), [0, 2, 4])


def test_same_array_donated_and_read_elsewhere_stays_correct():
    with platform("reference"):
        f = xjit.jit(lambda x, y: x + y, donate_argnums=0)
        x = xjit.device_put(np.arange(3, dtype=np.float32))
        out = f(x, x)
        np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
        assert x.is_deleted()


def test_lowered_compiled_call_donates():
    f = xjit.jit(lambda x: x + 1, donate_argnums=0)
    x = jnp.ones(3)
    compiled = f.lower(x).compile()
    out = compiled(x)
    np.testing.assert_array_equal(np.asarray(out), [2, 2, 2])
    assert x.is_deleted()


def test_array_delete():
    x = jnp.arange(3.0)
    alias = xjit.device_put(x)  # the same buffer
    assert not x.is_deleted()
    x.delete()
    assert x.is_deleted() and alias.is_deleted()
    with pytest.raises(RuntimeError, match=DELETED):
        np.asarray(x)
    with pytest.raises(RuntimeError, match=DELETED):
        xjit.jit(lambda v: v)(alias)


def test_python_fallback_jit_function_donates_on_hits():
    from xjit._src import api, tracing

    def fun(x):
        return x + 1

    def miss(*args):
        traced = tracing.trace_to_module(fun, args, {})
        exe = xjit._xjit.compile(traced.module, api.default_device())
        leaves, _ = xjit._xjit.tree_flatten((tuple(args), {}))
        out = api._execute(exe, leaves, traced.in_avals, exe.device, traced.out_treedef,
                           traced.out_weak_types, [True])
        return out, api._PyJitCacheEntry(exe, traced.out_treedef, traced.out_weak_types, [True])

    fallback = api._PyJitFunction(fun, miss, (), ())
    for _ in range(2):  # the miss, then the hit
        x = jnp.ones(3)
        np.testing.assert_array_equal(np.asarray(fallback(x)), [2, 2, 2])
        assert x.is_deleted()
    assert fallback.cache_size() == 1


def test_donated_memory_is_reused_for_an_optimizer_update_on_cpu():
    with platform("cpu"):
        f = xjit.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
        rng = np.random.default_rng(0)
        for n in (5, 300_000):  # one tile; many tiles run in parallel
            p_host = rng.standard_normal(n).astype(np.float32)
            g_host = rng.standard_normal(n).astype(np.float32)
            p, g = xjit.device_put(p_host), xjit.device_put(g_host)
            address = p.unsafe_buffer_pointer()
            out = f(p, g)
            assert p.is_deleted() and not g.is_deleted()
            assert out.unsafe_buffer_pointer() == address
            expected = p_host - np.float32(0.1) * g_host
            np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6, atol=1e-6)
            again = f(out, g)  # the cache hit reuses it too
            assert again.unsafe_buffer_pointer() == address
            np.testing.assert_allclose(np.asarray(again), expected - np.float32(0.1) * g_host,
                                       rtol=1e-6, atol=1e-6)


def test_donated_passthrough_result_keeps_its_memory_on_cpu():
    with platform("cpu"):
        f = xjit.jit(lambda p, g: (p, g * 2), donate_argnums=0)
        p = xjit.device_put(np.arange(4, dtype=np.float32))
        address = p.unsafe_buffer_pointer()
        same, doubled = f(p, jnp.ones(4))
        assert same.unsafe_buffer_pointer() == address
        np.testing.assert_array_equal(np.asarray(same), [0, 1, 2, 3])
        np.testing.assert_array_equal(np.asarray(doubled), [2, 2, 2, 2])


# reuses: the result that takes over p's memory (None: whichever the schedule
# allows; today the fusion runs after the transpose or reverse and takes it).
@pytest.mark.parametrize("fun, reuses", [
    (lambda p: (p + 1, p.T), None),
    (lambda p: (p * 2, p[::-1]), None),
    (lambda p: (p * 2, p * 2 + p), 1),  # one fusion: result 0 is written before p's last read
    (lambda p: (p.T, p + 1), 1),
    (lambda p: (p @ p, p - 1), 1),
], ids=["add_then_transpose", "scale_then_reverse", "fused_read_after_write",
        "transpose_then_add", "dot_then_subtract"])
def test_results_stay_right_when_the_program_reads_the_donated_parameter_again(fun, reuses):
    with platform("cpu"):
        host = np.arange(16, dtype=np.float32).reshape(4, 4)
        expected = fun(host)
        p = xjit.device_put(host)
        address = p.unsafe_buffer_pointer()
        got = xjit.jit(fun, donate_argnums=0)(p)
        assert p.is_deleted()
        pointers = [g.unsafe_buffer_pointer() for g in got]
        assert pointers.count(address) <= 1
        if reuses is not None:
            assert pointers[reuses] == address
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6)
