"""lax control flow on the while/if/case ops: results against Python loops over
numpy (nested and mixed), the lowered text (no unrolling, no select of both
branches), captures, pytrees, eager calls, and JAX's errors."""
import numpy as np
import pytest

import xjit
from xjit import lax
import xjit.numpy as jnp


def _text(f, *args):
    return xjit.jit(f).lower(*args).as_text()


def test_cond_lowers_to_if_and_runs_one_branch():
    f = lambda p, x: lax.cond(p, lambda v: v * 2.0, lambda v: -v, x)
    text = _text(f, True, np.float32(3))
    assert "stablehlo.if" in text and "stablehlo.select" not in text
    jf = xjit.jit(f)
    assert float(jf(True, np.float32(3))) == 6.0
    assert float(jf(False, np.float32(3))) == -3.0
    assert float(f(False, np.float32(3))) == -3.0  # eager


def test_cond_many_operands_pytrees_and_closures():
    w = np.arange(3, dtype=np.float32)

    @xjit.jit
    def f(p, x, y):
        scale = x.sum()  # an outer traced value captured by both branches
        return lax.cond(p, lambda a, b: {"s": a * scale, "t": (b, b + 1)},
                        lambda a, b: {"s": a + w, "t": (b * 0, b)}, x, y)

    x, y = np.ones(3, np.float32), np.int32(4)
    out = f(True, x, y)
    np.testing.assert_allclose(out["s"], x * 3)
    assert int(out["t"][1]) == 5
    out = f(False, x, y)
    np.testing.assert_allclose(out["s"], x + w)
    assert int(out["t"][0]) == 0


def test_cond_old_per_branch_operand_form():
    out = lax.cond(True, 1.0, lambda x: x + 1, np.int32(2), lambda y: y * 2.0)
    assert float(out) == 2.0
    out = xjit.jit(lambda p: lax.cond(p, 1.0, lambda x: x + 1, 2.0, lambda y: y * 3))(False)
    assert float(out) == 6.0


def test_cond_errors_name_the_functions_and_leaves():
    with pytest.raises(TypeError, match="(?s)true_fun and false_fun output must have identical "
                                        "types.*float32.*int32"):
        lax.cond(True, lambda: np.float32(1), lambda: np.int32(1))
    with pytest.raises(TypeError, match="true_fun and false_fun output must have same type "
                                        "structure"):
        lax.cond(True, lambda: (1.0, 2.0), lambda: 1.0)
    with pytest.raises(TypeError, match=r"(?s)\['a'\].*shapes do not match"):
        lax.cond(True, lambda: {"a": np.zeros(2, np.float32)},
                 lambda: {"a": np.zeros(3, np.float32)})
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        lax.cond("yes", lambda: 1.0, lambda: 2.0)
    assert float(lax.cond(np.float32(0.5), lambda: 1.0, lambda: 2.0)) == 1.0  # nonzero: true


def test_cond_widens_weak_branch_outputs():
    out = lax.cond(False, lambda: 1, lambda: np.float32(2.5))
    assert out.dtype == np.float32 and float(out) == 2.5


def test_switch_lowers_to_case_and_clamps():
    branches = [lambda x: x + 1, lambda x: x * 10, lambda x: -x]
    f = xjit.jit(lambda i, x: lax.switch(i, branches, x))
    assert "stablehlo.case" in _text(lambda i, x: lax.switch(i, branches, x), 0, 2.0)
    for i, want in [(-5, 3.0), (0, 3.0), (1, 20.0), (2, -2.0), (9, -2.0)]:
        assert float(f(i, np.float32(2))) == want
        assert float(lax.switch(i, branches, np.float32(2))) == want
    with pytest.raises(TypeError, match="branch 0 and branch 1 output must have identical"):
        lax.switch(0, [lambda: np.float32(1), lambda: np.int32(1)])
    with pytest.raises(TypeError, match="Index type must be an integer"):
        lax.switch(1.0, branches, 1.0)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [], 1.0)


def test_while_loop_traced_condition_and_captures():
    @xjit.jit
    def newton(a):
        def body(c):
            x, it = c
            return 0.5 * (x + a / x), it + 1
        return lax.while_loop(lambda c: jnp.abs(c[0] * c[0] - a) > 1e-4 * a, body,
                              (a, 0))

    for a in [2.0, 10.0, 1234.5]:
        x, it = newton(np.float32(a))
        assert abs(float(x) - np.sqrt(a)) < 1e-3 * np.sqrt(a) and int(it) > 0
    assert "stablehlo.while" in _text(lambda a: lax.while_loop(lambda x: x < a, lambda x: x + 1,
                                                               0.0), np.float32(3))


def test_while_loop_zero_iterations_and_errors():
    assert int(xjit.jit(lambda n: lax.while_loop(lambda x: x < n, lambda x: x + 1, 5))(3)) == 5
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar"):
        lax.while_loop(lambda x: x, lambda x: x + 1, 1)
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output "
                                        "must have equal types"):
        lax.while_loop(lambda x: x < 3, lambda x: (x + 1).astype(np.float32), np.int32(0))


def test_fori_loop_traced_and_static_bounds():
    f = xjit.jit(lambda lo, hi, x: lax.fori_loop(lo, hi, lambda i, v: v + i * v, x))
    for lo, hi in [(0, 0), (0, 5), (2, 7), (5, 2)]:
        want = 1.0
        for i in range(lo, hi):
            want = want + i * want
        assert float(f(lo, hi, np.float32(1))) == want
        assert float(lax.fori_loop(lo, hi, lambda i, v: v + i * v, np.float32(1))) == want
    g = lambda x: lax.fori_loop(0, 1000, lambda i, v: v * 0.999 + 1.0, x)
    text = _text(g, np.float32(0))
    assert text.count("stablehlo.while") == 1 and text.count("stablehlo.multiply") <= 3


def test_scan_matches_python_loop_with_pytrees_and_reverse():
    rng = np.random.default_rng(0)
    xs = {"a": rng.standard_normal((6, 3)).astype(np.float32),
          "b": rng.integers(0, 5, (6,)).astype(np.int32)}

    def f(c, x):
        s, n = c
        s = s * 0.5 + x["a"]
        return (s, n + x["b"]), {"y": s.sum(), "z": (n, x["b"] * 2)}

    init = (np.zeros(3, np.float32), np.int32(0))
    for reverse in (False, True):
        order = range(5, -1, -1) if reverse else range(6)
        s, n = init[0].copy(), 0
        ys, zs = np.zeros(6, np.float32), np.zeros(6, np.int32)
        for i in order:
            s = s * 0.5 + xs["a"][i]
            ys[i], zs[i] = s.sum(), n
            n += xs["b"][i]
        for fn in (lambda: lax.scan(f, init, xs, reverse=reverse),
                   lambda: xjit.jit(lambda i, x: lax.scan(f, i, x, reverse=reverse))(init, xs)):
            (cs, cn), out = fn()
            np.testing.assert_allclose(cs, s, rtol=1e-5)
            assert int(cn) == n
            np.testing.assert_allclose(out["y"], ys, rtol=1e-5)
            np.testing.assert_array_equal(out["z"][0], zs)
            np.testing.assert_array_equal(out["z"][1], xs["b"] * 2)
    text = _text(lambda i, x: lax.scan(f, i, x), init, xs)
    assert text.count("stablehlo.while") == 1


def test_scan_xs_none_length_and_errors():
    c, ys = lax.scan(lambda c, _: (c + 1, c * 2), 0, None, length=4)
    assert int(c) == 4
    np.testing.assert_array_equal(ys, [0, 2, 4, 6])
    c, ys = lax.scan(lambda c, x: (c, x), 0.0, np.zeros((0, 2), np.float32))
    assert ys.shape == (0, 2)
    with pytest.raises(ValueError, match="no values to scan over"):
        lax.scan(lambda c, x: (c, x), 0, None)
    with pytest.raises(ValueError, match="disagrees"):
        lax.scan(lambda c, x: (c, x), 0, np.zeros(3), length=4)
    with pytest.raises(TypeError, match="scan body function carry input and carry output"):
        lax.scan(lambda c, x: ((c, c), x), 0.0, np.zeros(3, np.float32))


def test_map_and_batch_size():
    xs = np.arange(10, dtype=np.float32)
    np.testing.assert_allclose(lax.map(lambda x: x * x + 1, xs), xs * xs + 1)
    for bs in (1, 3, 5, 20):
        np.testing.assert_allclose(lax.map(lambda x: jnp.sin(x) * 2, xs, batch_size=bs),
                                   np.sin(xs) * 2, rtol=1e-6)
    out = xjit.jit(lambda x: lax.map(lambda r: {"s": r.sum(), "m": r.max()}, x))(
        xs.reshape(5, 2))
    np.testing.assert_allclose(out["s"], xs.reshape(5, 2).sum(1))


def test_associative_scan_matches_cumulative_ops():
    rng = np.random.default_rng(1)
    for n in (1, 2, 5, 8, 13):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        np.testing.assert_allclose(lax.associative_scan(lax.add, x), np.cumsum(x, 0),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(lax.associative_scan(lax.max, x, reverse=True),
                                   np.maximum.accumulate(x[::-1], 0)[::-1])
        np.testing.assert_allclose(lax.associative_scan(lax.add, x, axis=1),
                                   np.cumsum(x, 1), rtol=1e-5, atol=1e-5)
    # A pytree with a non-commutative operator: affine maps composed in order.
    a = rng.uniform(0.5, 1.5, 7).astype(np.float32)
    b = rng.standard_normal(7).astype(np.float32)
    fa, fb = lax.associative_scan(lambda l, r: (l[0] * r[0], r[0] * l[1] + r[1]), (a, b))
    acc_a, acc_b = 1.0, 0.0
    for i in range(7):
        acc_a, acc_b = acc_a * a[i], a[i] * acc_b + b[i]
        np.testing.assert_allclose([fa[i], fb[i]], [acc_a, acc_b], rtol=1e-5)


def test_nested_and_mixed_loops_and_conds_agree_with_python():
    def py(n, x):
        total = 0.0
        for i in range(n):
            j = 0
            while j < i:
                x = x * 0.9 + j if j % 2 == 0 else x - 0.5
                j += 1
            total += x if i % 3 == 0 else -x
        return total

    def lx(n, x):
        def outer(i, carry):
            total, x = carry

            def inner_body(c):
                j, x = c
                x = lax.cond(j % 2 == 0, lambda v: v * 0.9 + j.astype(np.float32),
                             lambda v: v - 0.5, x)
                return j + 1, x

            _, x = lax.while_loop(lambda c: c[0] < i, inner_body, (0, x))
            total = total + lax.switch(i % 3, [lambda v: v, lambda v: -v, lambda v: -v], x)
            return total, x
        return lax.fori_loop(0, n, outer, (np.float32(0), x))[0]

    f = xjit.jit(lx)
    for n in (0, 1, 4, 9):
        want = py(n, 1.0)
        np.testing.assert_allclose(float(f(n, np.float32(1.0))), want, rtol=1e-4)
    np.testing.assert_allclose(float(lx(5, np.float32(1.0))), py(5, 1.0), rtol=1e-4)
    text = _text(lx, 3, np.float32(1.0))
    assert text.count("stablehlo.while") == 2 and "stablehlo.if" in text
    assert "stablehlo.case" in text


def test_python_control_flow_on_traced_values_still_points_to_lax():
    with pytest.raises(Exception, match="lax.cond"):
        xjit.jit(lambda x: x if x > 0 else -x)(1.0)


# ------------------------------------------------------------------ transforms

def _num_grad(f, x, eps=1e-3):
    return (float(f(x + eps)) - float(f(x - eps))) / (2 * eps)


def test_jvp_and_grad_through_cond_and_switch():
    f = lambda x: lax.cond(x > 0, lambda y: jnp.sin(y) * y, lambda y: y ** 3, x)
    for x in (2.0, -1.5):
        want = np.cos(x) * x + np.sin(x) if x > 0 else 3 * x * x
        _, t = xjit.jvp(f, (x,), (1.0,))
        np.testing.assert_allclose(float(t), want, rtol=1e-5)
        np.testing.assert_allclose(float(xjit.grad(f)(x)), want, rtol=1e-5)
        np.testing.assert_allclose(float(xjit.jit(xjit.grad(f))(x)), want, rtol=1e-5)
    w = np.float32(3.0)  # a closed-over constant and a captured traced value
    g = lambda i, x: lax.switch(i, [lambda y: y, lambda y: y * y * x * w, lambda y: -y], x)
    for i, want in [(0, 1.0), (1, 3 * 2.0 ** 2 * 3.0), (2, -1.0), (7, -1.0)]:
        np.testing.assert_allclose(float(xjit.grad(g, argnums=1)(i, 2.0)), want, rtol=1e-5)
    assert "stablehlo.if" in xjit.jit(xjit.grad(f)).lower(1.0).as_text()


def test_jvp_through_while_loop_and_grad_error():
    w = lambda x: lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x),
                                 (0, 1.0))[1]
    p, t = xjit.jvp(w, (2.0,), (1.0,))
    assert float(p) == 32.0 and float(t) == 80.0
    p, t = xjit.jit(lambda x: xjit.jvp(w, (x,), (1.0,)))(2.0)
    assert float(t) == 80.0
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop"):
        xjit.grad(lambda x: lax.while_loop(lambda v: v < 10, lambda v: v * x, 1.0))(2.0)
    with pytest.raises(ValueError, match="Reverse-mode"):
        xjit.jit(xjit.grad(lambda x, n: lax.fori_loop(0, n, lambda i, v: v * x, 1.0)))(2.0, 3)


def test_grad_through_scan_and_static_fori_loop():
    f = lambda x: lax.fori_loop(0, 5, lambda i, v: v * x + i, 1.0)
    assert float(xjit.grad(f)(2.0)) == 103.0  # d/dx (x^5 + x^3 + 2x^2 + 3x + 4)
    assert float(xjit.jit(xjit.grad(f))(2.0)) == 103.0

    def rnn(w, xs):
        c, ys = lax.scan(lambda h, x: (jnp.tanh(h * w + x), h * w), 0.0, xs)
        return c + ys.sum()

    xs = np.linspace(0, 1, 7).astype(np.float32)
    np.testing.assert_allclose(float(xjit.grad(rnn)(0.5, xs)),
                               _num_grad(lambda w: rnn(w, xs), 0.5), rtol=2e-3)
    gx = xjit.grad(rnn, argnums=1)(0.5, xs)
    for k in (0, 3, 6):
        e = np.zeros(7, np.float32)
        e[k] = 1e-3
        num = (float(rnn(0.5, xs + e)) - float(rnn(0.5, xs - e))) / 2e-3
        np.testing.assert_allclose(float(gx[k]), num, rtol=5e-3, atol=1e-4)


def test_vmap_of_cond_switch_and_while():
    f = lambda x: lax.cond(x > 0, lambda y: jnp.sin(y) * y, lambda y: y ** 3, x)
    xs = np.array([-2.0, -1.0, 0.5, 2.0], np.float32)
    want = np.where(xs > 0, np.sin(xs) * xs, xs ** 3)
    np.testing.assert_allclose(xjit.vmap(f)(xs), want, rtol=1e-6)
    np.testing.assert_allclose(xjit.jit(xjit.vmap(f))(xs), want, rtol=1e-6)
    g = lambda i, x: lax.switch(i, [lambda y: y, lambda y: y * 2, lambda y: -y], x)
    idx = np.array([0, 1, 2, 5, -1], np.int32)
    x5 = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(xjit.vmap(g)(idx, x5), [0, 2, -2, -3, 4])
    np.testing.assert_array_equal(xjit.vmap(g, in_axes=(None, 0))(1, x5), x5 * 2)
    w = lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x),
                                    (0, 1.0))[1]
    n = np.array([0, 1, 3, 5], np.int32)
    np.testing.assert_array_equal(xjit.vmap(w)(n, np.full(4, 2.0, np.float32)), 2.0 ** n)
    np.testing.assert_array_equal(
        xjit.jit(xjit.vmap(w, in_axes=(None, 0)))(3, np.array([1.0, 2.0, 3.0], np.float32)),
        [1.0, 8.0, 27.0])
    np.testing.assert_allclose(xjit.vmap(xjit.grad(f))(xs),
                               np.where(xs > 0, np.cos(xs) * xs + np.sin(xs), 3 * xs ** 2),
                               rtol=1e-5)


def test_disable_jit_runs_control_flow_as_python():
    calls = []

    def t(x):
        calls.append("t")
        return x + 1.0

    def f(x):
        calls.append("f")
        return x - 1.0

    with xjit.disable_jit():
        assert float(lax.cond(True, t, f, 1.0)) == 2.0
        assert calls == ["t"]
        assert int(lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)) == 16
        c, ys = lax.scan(lambda c, x: (c + x, c), 0.0, np.arange(3, dtype=np.float32))
        np.testing.assert_array_equal(ys, [0, 0, 1])
        assert float(lax.switch(5, [t, f], 1.0)) == 0.0
    calls.clear()
    lax.cond(True, t, f, 1.0)
    assert sorted(calls) == ["f", "t"]  # both traced into regions


def test_vmap_of_scan_keeps_the_counter_unbatched():
    def rnn(w, xs):
        return lax.scan(lambda h, x: (jnp.tanh(h * w + x), h), 0.0, xs)

    xs = np.random.default_rng(2).random((4, 6)).astype(np.float32)
    out = xjit.jit(xjit.vmap(rnn, in_axes=(None, 0)))(0.5, xs)
    for k in range(4):
        c, ys = rnn(0.5, xs[k])
        np.testing.assert_allclose(out[0][k], c, rtol=1e-6)
        np.testing.assert_allclose(out[1][k], ys, rtol=1e-6)
    # The condition reads only the counter, which stays a scalar (the masked
    # any-lane loop would carry it batched, as tensor<4xi32>).
    text = xjit.jit(xjit.vmap(rnn, in_axes=(None, 0))).lower(0.5, xs).as_text()
    assert text.count("stablehlo.while") == 1 and "tensor<4xi32>" not in text
    masked = xjit.jit(xjit.vmap(lambda n, x: lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, x)))).lower(
        np.ones(4, np.int32), np.ones(4, np.float32)).as_text()
    assert "tensor<4xi32>" in masked  # a batched condition: the counter is per lane


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "int8", "uint32", "bool"])
def test_while_and_cond_carry_every_dtype(dtype):
    dt = jnp.dtype(dtype)
    x = np.arange(6).reshape(2, 3).astype(dt) if dtype != "bool" else np.array(
        [[True, False, True], [False, False, True]])

    def body(c):
        i, v, w = c
        v = lax.cond(i % 2 == 0, lambda a: a, lambda a: a[::-1], v)  # any dtype moves
        return i + 1, v, w

    f = xjit.jit(lambda x: lax.while_loop(lambda c: c[0] < 3, body, (0, x, x.sum(0))))
    i, v, w = f(x)
    assert int(i) == 3 and v.dtype == dt
    np.testing.assert_array_equal(np.asarray(v), np.asarray(x)[::-1])
