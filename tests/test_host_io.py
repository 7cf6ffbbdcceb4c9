"""Tokens and host transfers: lax.create_token/after_all/infeed/outfeed/send/recv
and the host side of the queues (Device.transfer_to_infeed, ...), on both backends."""
import threading

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

BACKENDS = ["cpu", "reference"]
F32_3 = xjit.ShapeDtypeStruct((3,), np.float32)


def _device(platform):
    return xjit.devices(platform)[0]


def _drain(dev):
    """Empties the queues tests use, so one failing test cannot leak into the next."""
    sizes = xjit._xjit.host_queue_sizes(dev)
    assert sizes == {"infeed": 0, "outfeed": 0}, f"queues left non-empty: {sizes}"


@pytest.fixture(params=BACKENDS)
def dev(request):
    """The platform's device, made the default one (jit runs there)."""
    d = _device(request.param)
    xjit.config.update("jax_platform_name", request.param)
    try:
        yield d
    finally:
        xjit.config.update("jax_platform_name", None)
    _drain(d)


def test_token_is_not_an_array():
    tok = lax.create_token()
    assert repr(tok) == "Token()"
    assert xjit.tree_util.tree_leaves(tok) == []
    with pytest.raises(TypeError, match="requires a token"):
        lax.after_all(tok, np.float32(1))


def test_create_token_and_after_all_in_jit():
    @xjit.jit
    def f(x):
        t = lax.after_all(lax.create_token(), lax.create_token(x))
        return x + 1, t

    y, tok = f(np.float32(1))
    assert float(y) == 2.0
    assert repr(tok) == "Token()"
    text = xjit.jit(f).lower(np.float32(1)).as_text()
    assert "stablehlo.after_all" in text
    assert "!stablehlo.token" in text


def test_infeed_outfeed_roundtrip(dev):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    n = np.array([7, 8], np.int32)
    dev.transfer_to_infeed((x, n))

    def f(scale):
        (a, b), tok = lax.infeed(lax.create_token(),
                                 (xjit.ShapeDtypeStruct((2, 3), np.float32),
                                  xjit.ShapeDtypeStruct((2,), np.int32)))
        tok = lax.outfeed(tok, (a * scale, b + 1))
        return a.sum() * scale

    out = xjit.jit(f)(xjit.device_put(np.float32(2), dev))
    assert float(out) == pytest.approx(x.sum() * 2)
    got_a, got_b = dev.transfer_from_outfeed((xjit.ShapeDtypeStruct((2, 3), np.float32),
                                              xjit.ShapeDtypeStruct((2,), np.int32)))
    np.testing.assert_array_equal(got_a, x * 2)
    np.testing.assert_array_equal(got_b, n + 1)


def test_outfeed_in_a_function_without_outputs(dev):
    @xjit.jit
    def f(x):
        lax.outfeed(lax.create_token(), x)

    x = xjit.device_put(np.arange(4, dtype=np.int32), dev)
    assert f(x) is None
    np.testing.assert_array_equal(
        dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((4,), np.int32)), np.arange(4))


def test_outfeed_in_nested_jit_without_outputs(dev):
    @xjit.jit
    def inner(x):
        lax.outfeed(lax.create_token(), x * 3)

    @xjit.jit
    def outer(x):
        inner(x)
        return x

    outer(xjit.device_put(np.float32(2), dev)).block_until_ready()
    assert float(dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((), np.float32))) == 6.0


def test_eager_infeed_outfeed():
    """Outside jit the ops run as one-op programs on the default device."""
    dev = _device("cpu")
    dev.transfer_to_infeed(np.float32(5))
    x, tok = lax.infeed(lax.create_token(), xjit.ShapeDtypeStruct((), np.float32))
    assert float(x) == 5.0
    tok = lax.outfeed(tok, (x + 1, np.int32(2)))
    assert repr(tok) == "Token()"
    got = dev.transfer_from_outfeed((xjit.ShapeDtypeStruct((), np.float32),
                                     xjit.ShapeDtypeStruct((), np.int32)))
    assert [float(got[0]), int(got[1])] == [6.0, 2]
    _drain(dev)


def test_outfeed_in_loops_keeps_program_order(dev):
    def body(i, carry):
        tok, acc = carry
        tok = lax.outfeed(tok, i * 10)
        return tok, acc + i

    @xjit.jit
    def f(n):
        tok, acc = lax.fori_loop(0, 4, body, (lax.create_token(), n))
        return acc

    assert int(f(xjit.device_put(np.int32(0), dev))) == 6
    got = [int(dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((), np.int32)))
           for _ in range(4)]
    assert got == [0, 10, 20, 30]


def test_outfeed_in_cond_and_scan(dev):
    @xjit.jit
    def f(p, xs):
        def yes(x):
            lax.outfeed(lax.create_token(), x)
            return x + 1

        def no(x):
            return x - 1

        y = lax.cond(p, yes, no, xs[0])

        def step(c, x):
            lax.outfeed(lax.create_token(), x * 2)
            return c + x, None
        total, _ = lax.scan(step, y, xs)
        return total

    xs = xjit.device_put(np.array([1.0, 2.0, 3.0], np.float32), dev)
    assert float(f(True, xs)) == 2.0 + 6.0
    s = xjit.ShapeDtypeStruct((), np.float32)
    assert [float(dev.transfer_from_outfeed(s)) for _ in range(4)] == [1.0, 2.0, 4.0, 6.0]
    assert float(f(False, xs)) == 0.0 + 6.0
    assert [float(dev.transfer_from_outfeed(s)) for _ in range(3)] == [2.0, 4.0, 6.0]


def test_infeed_waits_for_the_host(dev):
    s = xjit.ShapeDtypeStruct((3,), np.float32)

    @xjit.jit
    def f(x):
        y, _ = lax.infeed(lax.create_token(), s)
        return x + y

    x = xjit.device_put(np.ones(3, np.float32), dev)
    out = f(x)  # waits on the device's thread for the infeed
    timer = threading.Timer(0.2, lambda: dev.transfer_to_infeed(np.full(3, 2, np.float32)))
    timer.start()
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 3, np.float32))
    timer.join()


def _infeed_program(dev, s):
    @xjit.jit
    def take(x):
        y, _ = lax.infeed(lax.create_token(), s)
        return y
    return lambda: take(xjit.device_put(np.float32(0), dev))


def test_infeed_of_the_wrong_type_is_an_error(dev):
    dev.transfer_to_infeed(np.zeros(2, np.int32))
    out = _infeed_program(dev, F32_3)()
    with pytest.raises(Exception, match="infeed.*holds a tensor<2xi32> next.*tensor<3xf32>"):
        np.asarray(out)
    # The mismatched value stays queued: a program of the right type takes it.
    np.testing.assert_array_equal(
        np.asarray(_infeed_program(dev, xjit.ShapeDtypeStruct((2,), np.int32))()),
        np.zeros(2, np.int32))


def test_infeed_without_data_times_out(dev, monkeypatch):
    # The default wait is 60 s (XJIT_HOST_TRANSFER_TIMEOUT_S); the test feeds
    # nothing and checks the error names the queue after a short wait in a
    # subprocess, where the variable can be set before xjit starts.
    import subprocess
    import sys
    code = (
        "import numpy as np, xjit\n"
        "from xjit import lax\n"
        f"dev = xjit.devices({dev.platform!r})[0]\n"
        "f = xjit.jit(lambda x: lax.infeed(lax.create_token(), "
        "xjit.ShapeDtypeStruct((2,), np.float32))[0] + x)\n"
        "try:\n"
        "    np.asarray(f(xjit.device_put(np.float32(1), dev)))\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n")
    env = dict(__import__("os").environ, XJIT_HOST_TRANSFER_TIMEOUT_S="0.1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert "no value arrived in the infeed queue" in r.stdout, r.stdout + r.stderr


def test_transfer_from_empty_outfeed_times_out(dev):
    with pytest.raises(Exception, match="no value arrived in the outfeed queue"):
        dev.transfer_from_outfeed(F32_3, timeout=0.05)


def test_transfer_from_outfeed_of_the_wrong_type(dev):
    @xjit.jit
    def f(x):
        lax.outfeed(lax.create_token(), x)
        return x

    f(xjit.device_put(np.ones(3, np.float32), dev)).block_until_ready()
    with pytest.raises(TypeError, match="holds a tensor<3xf32> next"):
        dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((3,), np.int32))
    np.testing.assert_array_equal(dev.transfer_from_outfeed(F32_3), np.ones(3, np.float32))


def test_send_recv_in_one_program(dev):
    @xjit.jit
    def f(x):
        tok = lax.send(lax.create_token(), x * 2, channel=101)
        y, tok = lax.recv(tok, xjit.ShapeDtypeStruct(x.shape, x.dtype), channel=101)
        return y + 1

    x = xjit.device_put(np.arange(3, dtype=np.float32), dev)
    np.testing.assert_array_equal(np.asarray(f(x)), np.arange(3, dtype=np.float32) * 2 + 1)


def test_send_recv_with_the_host(dev):
    dev.transfer_to_channel(7, np.array([1, 2], np.int32))
    i32 = xjit.ShapeDtypeStruct((2,), np.int32)

    @xjit.jit
    def f(x):
        y, tok = lax.recv(lax.create_token(), i32, channel=7, is_host_transfer=True)
        lax.send(tok, y * x, channel=8, is_host_transfer=True)
        return y

    np.testing.assert_array_equal(np.asarray(f(xjit.device_put(np.int32(3), dev))), [1, 2])
    np.testing.assert_array_equal(dev.transfer_from_channel(8, i32), [3, 6])


def test_bad_inputs():
    tok = lax.create_token()
    with pytest.raises(TypeError, match="requires a token"):
        lax.outfeed(np.float32(1), np.float32(1))
    with pytest.raises(TypeError, match="pytree of objects with .shape and .dtype"):
        lax.infeed(tok, (3,))
    with pytest.raises(ValueError, match="negative dimension"):
        lax.infeed(tok, xjit.ShapeDtypeStruct((-1,), np.float32))
    with pytest.raises(TypeError, match="channel must be an int"):
        lax.send(tok, np.float32(1), channel="a")
    with pytest.raises(NotImplementedError, match="partitions"):
        lax.infeed(tok, F32_3, partitions=(None,))
    with pytest.raises(TypeError, match="unsupported dtype"):
        xjit.devices()[0].transfer_to_infeed(np.array(["a"]))


def test_token_under_grad_and_vmap():
    dev = _device("cpu")

    def f(x):
        lax.outfeed(lax.create_token(), x)
        return jnp.sin(x)

    g = xjit.jit(xjit.grad(f))(np.float32(0.5))
    assert float(g) == pytest.approx(np.cos(0.5), rel=1e-6)
    assert float(dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((), np.float32))) == 0.5

    def h(x):
        y, _ = lax.infeed(lax.create_token(), xjit.ShapeDtypeStruct((), np.float32))
        return x * y

    dev.transfer_to_infeed(np.float32(3))
    out = xjit.jit(xjit.vmap(h))(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(out), [0, 3, 6])
    with pytest.raises(NotImplementedError, match="outfeed"):
        xjit.jit(xjit.vmap(f))(np.arange(3, dtype=np.float32))
    _drain(dev)


def test_stablehlo_text_runs_on_both_backends():
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t0 = stablehlo.create_token : !stablehlo.token
  %t1 = "stablehlo.after_all"(%t0, %t0) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %t2 = "stablehlo.outfeed"(%x, %t1) {outfeed_config = ""} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %t3 = "stablehlo.send"(%x, %t2) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, is_host_transfer = false} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %y:2 = "stablehlo.recv"(%t3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  func.return %y#0 : tensor<2xf32>
}
"""
    from xjit import stablehlo
    m = stablehlo.parse(text)
    assert stablehlo.parse(m.as_text()).as_text() == m.as_text()
    assert stablehlo.parse(m.as_text(pretty=False)).as_text() == m.as_text()
    for platform in BACKENDS:
        dev = _device(platform)
        (out,) = stablehlo.run(m, np.array([1.5, 2.5], np.float32), device=dev)
        np.testing.assert_array_equal(np.asarray(out), [1.5, 2.5])
        np.testing.assert_array_equal(
            dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((2,), np.float32)), [1.5, 2.5])


def test_token_shape_rules():
    from xjit import stablehlo
    bad = {
        "add": '%t = stablehlo.create_token : !stablehlo.token\n'
               '  %y = "stablehlo.not"(%t) : (!stablehlo.token) -> !stablehlo.token',
        "outfeed": '%t = stablehlo.create_token : !stablehlo.token\n'
                   '  %y = "stablehlo.outfeed"(%t, %x) : (!stablehlo.token, tensor<2xf32>) -> '
                   '!stablehlo.token',
        "after_all": '%y = "stablehlo.after_all"(%x) : (tensor<2xf32>) -> !stablehlo.token',
    }
    messages = {"add": "carries no data", "outfeed": "last operand must be a !stablehlo.token",
                "after_all": "must be a !stablehlo.token"}
    for name, body in bad.items():
        text = ("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  " + body +
                "\n  func.return %x : tensor<2xf32>\n}")
        with pytest.raises(Exception, match=messages[name]):
            stablehlo.parse(text)
