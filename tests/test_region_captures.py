"""Regions that capture: a traced region (a nested jit's computation, a reduce
body) that uses tracers of an enclosing trace lifts them into extra
parameters, and the op owning the region passes them as operands."""
import re

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import _xjit, lax
from xjit.errors import UnexpectedTracerError


def _lowered_text(f, *args):
    return xjit.jit(f).lower(*args).as_text()


def _funcs(text: str) -> list:
    """Names of the func.func definitions in printed module text."""
    return re.findall(r"func\.func (?:private )?@(\w+)", text)


def _params(text: str, func: str) -> list:
    """Parameter types of func.func ``func`` in printed module text."""
    m = re.search(rf"func\.func (?:private )?@{func}\(([^)]*)\)", text)
    assert m is not None, text
    return re.findall(r"%arg\d+: ([^,]+)", m.group(1))


def _roundtrip(text: str, *args, platform="cpu"):
    """Parse printed text back, check it prints the same, and run it."""
    module = _xjit.parse_module(text)
    assert module.as_text() == text
    exe = _xjit.compile(module, _xjit.devices(platform)[0])
    return [np.asarray(o) for o in exe.execute([np.asarray(a) for a in args])]


def test_nested_jit_closing_over_the_outer_argument():
    f = xjit.jit(lambda x: xjit.jit(lambda y: y + x)(2 * x))
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(f(x)), 3 * x)


@pytest.mark.parametrize("platform", ["cpu", "reference"])
def test_nested_jit_prints_a_call_that_parses_back(platform):
    def outer(x):
        def inner(y):
            return y * x + 1.0
        return jnp.sin(xjit.jit(inner)(x - 1.0))

    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    text = _lowered_text(outer, x)
    assert '"func.call"' in text and "callee = @inner" in text
    assert _funcs(text) == ["main", "inner"]
    (out,) = _roundtrip(text, x, platform=platform)
    np.testing.assert_allclose(out, np.sin((x - 1) * x + 1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(x)), np.sin((x - 1) * x + 1),
                               rtol=1e-6)


def test_callee_takes_arguments_then_captures():
    def outer(x, z):
        def inner(y):
            return y * z - x
        return xjit.jit(inner)(x + z)

    x = np.float32(2)
    z = np.ones(3, np.float32)
    text = _lowered_text(outer, x, z)
    # inner(y, z, x): the argument, then one parameter per captured value in use order.
    assert _params(text, "inner") == ["tensor<3xf32>", "tensor<3xf32>", "tensor<f32>"]
    assert re.search(r'"func.call"\(%\d+, %arg1, %arg0\) \{callee = @inner\}', text), text
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(x, z)), (x + z) * z - x)


def test_a_capture_used_twice_is_lifted_once():
    def outer(x):
        def inner(y):
            return y * x + x * x
        return xjit.jit(inner)(1.0)

    text = _lowered_text(outer, np.float32(3))
    assert _params(text, "inner") == ["tensor<f32>", "tensor<f32>"]  # (y, x)
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(np.float32(3))), 12.0)


def test_three_levels_lift_through_the_middle():
    def outer(x):
        def middle(y):
            def innermost(z):
                return z + x * y  # x from two levels up, y from one
            return xjit.jit(innermost)(y * 10.0)
        return xjit.jit(middle)(x + 1.0)

    x = np.float32(2)
    text = _lowered_text(outer, x)
    assert _funcs(text) == ["main", "middle", "innermost"]
    assert text.count('"func.call"') == 2
    assert len(_params(text, "middle")) == 2  # (y, x): x is lifted through middle
    assert len(_params(text, "innermost")) == 3  # (z, x, y)
    expected = (x + 1) * 10 + x * (x + 1)
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(x)), expected)
    for platform in ("cpu", "reference"):
        (out,) = _roundtrip(text, x, platform=platform)
        np.testing.assert_allclose(out, expected)


def test_nested_jit_pytrees_static_args_and_weak_types():
    def inner(pair, scale, *, mode):
        a, b = pair["a"], pair["b"]
        out = a * scale + b if mode == "affine" else a - b
        return {"out": out, "weak": scale * 2, "n": 3}

    jinner = xjit.jit(inner, static_argnames=("mode",))

    def outer(x):
        res = jinner({"a": x, "b": 2 * x}, 1.5, mode="affine")
        return res["out"], res["weak"], res["n"]

    x = np.arange(3, dtype=np.float32)
    out, weak, n = xjit.jit(outer)(x)
    np.testing.assert_allclose(np.asarray(out), x * 1.5 + 2 * x)
    assert weak.weak_type and weak.dtype == np.float32 and float(weak) == 3.0
    assert n.weak_type and n.dtype == np.int32 and int(n) == 3
    assert not out.weak_type


def test_nested_jit_of_the_same_function_twice_gets_unique_names():
    double = xjit.jit(lambda v: v * 2.0)

    def outer(x):
        return double(x) + double(x[:2].sum() * np.ones(3, np.float32))

    x = np.arange(3, dtype=np.float32)
    text = _lowered_text(outer, x)
    names = _funcs(text)
    assert len(names) == len(set(names)) == 3
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(x)), x * 2 + 2)
    (out,) = _roundtrip(text, x)
    np.testing.assert_allclose(out, x * 2 + 2)


def test_nested_jit_returning_an_outer_tracer_and_constants():
    def outer(x):
        y, c = xjit.jit(lambda _: (x, np.float32(7)))(0.0)
        return y + c

    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(np.float32(1))), 8.0)


def test_nested_jit_with_no_outputs_adds_no_call():
    def outer(x):
        assert xjit.jit(lambda y: ())(x) == ()
        return x + 1

    text = _lowered_text(outer, np.float32(1))
    assert "func.call" not in text
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(np.float32(1))), 2.0)


@pytest.mark.parametrize("platform", ["cpu", "reference"])
def test_nested_jit_inside_a_reduce_body_is_a_call(platform):
    # The body keeps the call (as JAX's pjit); the passes inline it before the
    # cpu backend, whose scalar evaluator of reduce bodies has no call op.
    add = xjit.jit(lambda a, b: a + b)
    argmax_like = xjit.jit(lambda a, b: lax.max(a, b))
    f = lambda v: (lax.reduce(v, np.float32(0), lambda a, b: add(a, b), (0,)),  # noqa: E731
                   lax.reduce(v, np.float32(-np.inf), lambda a, b: lax.max(argmax_like(a, b), a), (0,)))
    x = jax_device_put(np.arange(5, dtype=np.float32), platform)
    s, m = xjit.jit(f)(x)
    np.testing.assert_allclose(np.asarray(s), 10.0)
    np.testing.assert_allclose(np.asarray(m), 4.0)
    s, m = f(x)
    np.testing.assert_allclose(np.asarray(s), 10.0)
    np.testing.assert_allclose(np.asarray(m), 4.0)
    assert "func.call" in _lowered_text(f, np.arange(5, dtype=np.float32))


def jax_device_put(x, platform):
    return xjit.device_put(x, xjit.devices(platform)[0])


def test_reduce_body_closing_over_a_tracer_is_refused():
    def f(x, s):
        return lax.reduce(x, np.float32(0), lambda a, b: a + b * s, (0,))

    with pytest.raises(NotImplementedError, match="Reduction computations can't close over "
                                                  "Tracers"):
        xjit.jit(f)(np.ones(3, np.float32), np.float32(2))


def test_reduce_body_in_a_nested_jit_closing_over_an_outer_tracer_is_refused():
    def outer(s):
        return xjit.jit(lambda x: lax.reduce(x, np.float32(0), lambda a, b: a + b * s,
                                             (0,)))(np.ones(3, np.float32))

    with pytest.raises(NotImplementedError, match="can't close over Tracers"):
        xjit.jit(outer)(np.float32(2))


def test_reduce_body_closing_over_concrete_values_embeds_constants():
    scale = xjit.device_put(np.float32(3))
    weights = np.float32(0.5)
    body = lambda a, b: a + b * scale * weights  # noqa: E731
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(lax.reduce(x, np.float32(0), body, (0,))), 9.0)
    jitted = xjit.jit(lambda v: lax.reduce(v, np.float32(0), body, (0,)))
    np.testing.assert_allclose(np.asarray(jitted(x)), 9.0)


def test_escaped_tracer_still_raises():
    leaked = []

    @xjit.jit
    def f(x):
        leaked.append(x)
        return x

    f(np.float32(1))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        xjit.jit(lambda y: y + leaked[0])(np.float32(1))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        lax.reduce(np.ones(3, np.float32), np.float32(0), lambda a, b: a + leaked[0], (0,))


def test_tracer_escaping_a_nested_jit_raises_in_the_outer_trace():
    leaked = []

    def outer(x):
        def inner(y):
            leaked.append(y)
            return y
        xjit.jit(inner)(x)
        return x + leaked[0]

    with pytest.raises(UnexpectedTracerError, match="escaped"):
        xjit.jit(outer)(np.float32(1))


def test_tracer_of_an_unrelated_live_trace_is_refused():
    def outer(x):
        return xjit.eval_shape(lambda y: y + x, np.float32(1))

    with pytest.raises(UnexpectedTracerError, match="not nested"):
        xjit.jit(outer)(np.float32(1))


def test_callee_names_are_ascii_symbols_that_parse_back():
    def fé(y):  # a non-ASCII function name
        return y + 1.0

    x = np.float32(1)
    text = _lowered_text(lambda v: xjit.jit(fé)(v), x)
    assert _funcs(text) == ["main", "f_"]
    (out,) = _roundtrip(text, x)
    np.testing.assert_allclose(out, 2.0)


def test_nested_jit_positional_static_argument_and_eval_shape():
    power = xjit.jit(lambda v, n: v ** n, static_argnums=1)

    def outer(x):
        return power(x, 3) + power(x, 2)

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(xjit.jit(outer)(x)), x ** 3 + x ** 2)
    assert _lowered_text(outer, x).count('"func.call"') == 2
    shape = xjit.eval_shape(outer, xjit.ShapeDtypeStruct((4,), np.float32))
    assert shape.shape == (4,) and shape.dtype == np.float32
