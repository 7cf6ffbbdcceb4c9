"""Host callbacks: xjit.debug.print / debug.callback, xjit.pure_callback,
xjit.experimental.io_callback inside jit, cond, while_loop, scan, under grad
and vmap, compared with JAX; errors raised in callbacks."""
import functools
import threading

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax
from xjit.experimental import io_callback

BACKENDS = ["cpu", "reference"]
F32 = xjit.ShapeDtypeStruct((), np.float32)


def _on(platform, x):
    return xjit.device_put(x, xjit.devices(platform)[0])


def _printed(capsys, fn):
    fn()
    return capsys.readouterr().out


@pytest.mark.parametrize("platform", BACKENDS)
def test_debug_print_matches_jax(capsys, platform):
    def f(lib, x, y):
        lib.debug.print("x={} y={y} sum={s:.2f}", x, y=y, s=x.sum())
        return x * 2

    x = np.arange(3, dtype=np.float32)
    y = np.int32(7)
    jax.jit(functools.partial(f, jax))(x, y).block_until_ready()
    want = capsys.readouterr().out
    xjit.jit(functools.partial(f, xjit))(_on(platform, x), y).block_until_ready()
    got = capsys.readouterr().out
    assert got == want == "x=[0. 1. 2.] y=7 sum=3.00\n"


def test_debug_print_eagerly(capsys):
    xjit.debug.print("value {}", np.float32(1.5))
    assert capsys.readouterr().out == "value 1.5\n"


@pytest.mark.parametrize("platform", BACKENDS)
def test_ordered_prints_in_loops_and_branches(capsys, platform):
    @xjit.jit
    def f(x):
        def body(i, c):
            xjit.debug.print("step {} c={}", i, c, ordered=True)
            return c + 1.0
        c = lax.fori_loop(0, 3, body, x)

        def yes(v):
            xjit.debug.print("yes {}", v, ordered=True)
            return v
        def no(v):
            xjit.debug.print("no {}", v, ordered=True)
            return -v
        c = lax.cond(c > 2, yes, no, c)

        def step(carry, t):
            xjit.debug.print("scan {}", t, ordered=True)
            return carry + t, t * 2
        c, ys = lax.scan(step, c, jnp.arange(2.0))
        return c, ys

    c, ys = f(_on(platform, np.float32(0)))
    c.block_until_ready()
    assert float(c) == 4.0
    assert capsys.readouterr().out.splitlines() == [
        "step 0 c=0.0", "step 1 c=1.0", "step 2 c=2.0", "yes 3.0", "scan 0.0", "scan 1.0"]


def test_debug_callback_receives_values():
    seen = []

    @xjit.jit
    def f(x):
        xjit.debug.callback(lambda a, b: seen.append((a.copy(), b)), x, b=x.sum())
        return x + 1

    f(np.arange(3, dtype=np.float32)).block_until_ready()
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0][0], [0, 1, 2])
    assert float(seen[0][1]) == 3.0


def test_debug_print_under_grad_prints_the_primal(capsys):
    def f(x):
        xjit.debug.print("x is {}", x)
        return jnp.sin(x) * x

    g = xjit.jit(xjit.grad(f))(np.float32(0.5))
    g.block_until_ready()
    assert float(g) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5), rel=1e-6)
    assert capsys.readouterr().out == "x is 0.5\n"


def test_debug_print_under_vmap_prints_each_element(capsys):
    def f(x):
        xjit.debug.print("x={}", x)
        return x * 2

    out = xjit.jit(xjit.vmap(f))(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(out), [0, 2, 4])
    jax.jit(jax.vmap(lambda x: (jax.debug.print("x={}", x), x * 2)[1]))(
        np.arange(3, dtype=np.float32)).block_until_ready()
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["x=0.0", "x=1.0", "x=2.0"]
    assert lines[:3] == lines[3:]


@pytest.mark.parametrize("platform", BACKENDS)
def test_pure_callback_in_jit(platform):
    def host_sin(x):  # xjit passes numpy arrays (JAX 0.10: jax.Arrays)
        return np.sin(np.asarray(x)).astype(x.dtype)

    def f(x):
        y = xjit.pure_callback(host_sin, xjit.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y * 2

    x = np.linspace(0, 1, 5, dtype=np.float32)
    got = xjit.jit(f)(_on(platform, x))
    want = jax.jit(lambda x: jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype),
                                               x) * 2)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_pure_callback_pytrees_and_eager():
    def cb(d):
        return {"s": (d["a"] + d["b"]).astype(np.float32), "n": np.int32(d["a"].size)}

    out_type = {"s": xjit.ShapeDtypeStruct((2,), np.float32),
                "n": xjit.ShapeDtypeStruct((), np.int32)}
    args = {"a": np.ones(2, np.float32), "b": np.full(2, 2, np.float32)}
    for fn in (lambda d: xjit.pure_callback(cb, out_type, d),
               xjit.jit(lambda d: xjit.pure_callback(cb, out_type, d))):
        out = fn(args)
        np.testing.assert_array_equal(np.asarray(out["s"]), [3, 3])
        assert int(out["n"]) == 2


def test_pure_callback_in_control_flow():
    count = [0]

    def host_double(x):
        count[0] += 1
        return x * 2

    def f(x):
        def body(c):
            i, v = c
            v = xjit.pure_callback(host_double, F32, v)
            return i + 1, v
        _, v = lax.while_loop(lambda c: c[0] < 3, body, (0, x))
        return lax.cond(v > 10, lambda v: v, lambda v: -v, v)

    assert float(xjit.jit(f)(np.float32(1))) == -8.0
    assert count[0] == 3


def test_pure_callback_under_grad_is_an_error():
    def f(x):
        return xjit.pure_callback(lambda a: a * 2, F32, x)

    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        xjit.grad(f)(np.float32(1))
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda x: jax.pure_callback(lambda a: a * 2, jax.ShapeDtypeStruct((), np.float32),
                                             x))(np.float32(1))


def test_pure_callback_with_custom_jvp():
    @xjit.custom_jvp
    def host_exp(x):
        return xjit.pure_callback(lambda a: np.exp(a), F32, x)

    @host_exp.defjvp
    def host_exp_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = host_exp(x)
        return y, y * t

    assert float(xjit.jit(xjit.grad(host_exp))(np.float32(0.5))) == pytest.approx(np.exp(0.5))


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all",
                                    "legacy_vectorized"])
def test_pure_callback_vmap_methods_match_jax(method):
    shapes = []

    def cb(x, y):
        shapes.append((np.shape(x), np.shape(y)))
        return (x + y).astype(np.float32)

    def make(lib):
        def fun(x, y):
            out_type = lib.ShapeDtypeStruct(jnp_ref.broadcast_shapes(np.shape(x), np.shape(y)),
                                            np.float32)
            return lib.pure_callback(cb, out_type, x, y, vmap_method=method)
        return fun

    x = np.arange(4, dtype=np.float32)
    y = np.float32(1)
    want = jax.vmap(make(jax), in_axes=(0, None))(x, y)
    want_shapes, shapes[:] = list(shapes), []
    got = xjit.jit(xjit.vmap(make(xjit), in_axes=(0, None)))(x, y)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert shapes == want_shapes


def test_pure_callback_nested_vmap_sequential():
    def cb(x):
        assert np.ndim(x) == 0
        return (x * 10).astype(np.float32)

    def f(x):
        return xjit.pure_callback(cb, F32, x, vmap_method="sequential")

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = xjit.jit(xjit.vmap(xjit.vmap(f)))(x)
    np.testing.assert_array_equal(np.asarray(out), x * 10)


def test_pure_callback_vmap_without_method_is_an_error():
    def f(x):
        return xjit.pure_callback(lambda a: a, F32, x)

    with pytest.raises(NotImplementedError, match="vmap_method"):
        xjit.vmap(f)(np.arange(3, dtype=np.float32))


def test_io_callback_ordered_and_kept_when_unused():
    log = []

    def record(x):
        log.append(float(x))
        return np.float32(x + 1)

    @xjit.jit
    def f(x):
        io_callback(record, F32, x, ordered=True)  # result unused: still runs
        y = io_callback(record, F32, x * 2, ordered=True)
        return y

    assert float(f(np.float32(1))) == 3.0
    assert log == [1.0, 2.0]
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
        xjit.grad(lambda x: io_callback(record, F32, x))(np.float32(1))


def test_pure_callback_unused_is_removed():
    calls = []

    @xjit.jit
    def f(x):
        xjit.pure_callback(lambda a: calls.append(1) or a, F32, x)
        return x + 1

    f(np.float32(1)).block_until_ready()
    assert calls == []


@pytest.mark.parametrize("platform", BACKENDS)
def test_exception_in_callback_is_a_python_error(platform):
    def bad(x):
        raise ValueError("the callback failed on purpose")

    f = xjit.jit(lambda x: xjit.pure_callback(bad, F32, x) + 1)
    with pytest.raises(RuntimeError, match="ValueError: the callback failed on purpose"):
        np.asarray(f(_on(platform, np.float32(1))))
    # The device keeps working afterwards.
    g = xjit.jit(lambda x: xjit.pure_callback(lambda a: a * 3, F32, x))
    assert float(g(_on(platform, np.float32(2)))) == 6.0


def test_wrong_result_from_callback_is_an_error():
    f = xjit.jit(lambda x: xjit.pure_callback(lambda a: np.zeros(3, np.float32), F32, x))
    with pytest.raises(RuntimeError, match="Incorrect output shape for return value 0"):
        np.asarray(f(np.float32(1)))
    f = xjit.jit(lambda x: xjit.pure_callback(lambda a: np.float64(1), F32, x))
    with pytest.raises(RuntimeError, match="Incorrect output dtype for return value 0"):
        np.asarray(f(np.float32(1)))
    with pytest.raises(ValueError, match="result_shape_dtypes"):
        xjit.pure_callback(lambda a: a, (3,), np.float32(1))
    with pytest.raises(TypeError, match="callable"):
        xjit.pure_callback(3, F32, np.float32(1))
    with pytest.raises(ValueError, match="vmap_method"):
        xjit.pure_callback(lambda a: a, F32, np.float32(1), vmap_method="bogus")


def test_callbacks_from_threads_do_not_deadlock():
    """A callback needs the GIL on the device's thread while other Python
    threads read results (which must release it)."""
    f = xjit.jit(lambda x: xjit.pure_callback(lambda a: a + 1, F32, x) * 2)
    results = []

    def work(v):
        for _ in range(20):
            results.append(float(f(np.float32(v))))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert sorted(set(results)) == [2.0, 4.0, 6.0, 8.0]


def test_callbacks_receive_arrays_as_jax_passes_them():
    # JAX (since 0.4.27) passes jax Arrays to every kind of callback.
    seen = []

    def host(x):
        seen.append(type(x))
        return np.asarray(x) + 1

    @xjit.jit
    def f(x):
        y = xjit.pure_callback(host, xjit.ShapeDtypeStruct(x.shape, x.dtype), x)
        xjit.debug.callback(lambda v: seen.append(type(v)), x)
        return io_callback(host, xjit.ShapeDtypeStruct(x.shape, x.dtype), y)

    np.testing.assert_array_equal(np.asarray(f(np.zeros(3, np.float32))), [2, 2, 2])
    assert seen == [xjit.Array] * 3
    seen.clear()
    xjit.pure_callback(host, xjit.ShapeDtypeStruct((2,), np.float32), np.zeros(2, np.float32))
    assert seen == [xjit.Array]


def test_a_callback_may_run_xjit_code():
    # The callback runs inside the device's task (inline or on its worker);
    # the xjit ops it runs must not wait behind that task.
    inner = xjit.jit(lambda v: jnp.sin(v) * 2)

    def host(x):
        return np.asarray(inner(x) + jnp.cos(x))

    f = xjit.jit(lambda x: xjit.pure_callback(host, xjit.ShapeDtypeStruct(x.shape, x.dtype), x))
    x = np.linspace(0, 1, 5, dtype=np.float32)
    want = np.sin(x) * 2 + np.cos(x)
    outs = [f(x + i) for i in range(4)]  # later calls queue behind earlier ones
    for i, out in enumerate(outs):
        np.testing.assert_allclose(np.asarray(out), np.sin(x + i) * 2 + np.cos(x + i), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-5)
