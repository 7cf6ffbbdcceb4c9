"""Differential tests: random programs built from xjit.numpy ops, jitted and
run on the "cpu" backend and on the "reference" interpreter, must agree."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

# Well-conditioned steps only: reductions may sum in any order (the spec lets
# them), so a step must not blow rounding differences up (no floor, no
# sin/cos of large arguments, means instead of sums).
UNARY = [jnp.tanh, lambda a: jnp.exp(jnp.tanh(a)), lambda a: jnp.sin(3.0 * jnp.tanh(a)),
         lambda a: jnp.cos(3.0 * jnp.tanh(a)), jnp.abs, jnp.negative,
         lambda a: jnp.square(jnp.tanh(a)), lambda a: jnp.log1p(jnp.abs(a)),
         lambda a: jnp.sqrt(jnp.abs(a)), lambda a: jnp.maximum(a, 0.0), lambda a: a * 0.5 + 1.0]
BINARY = [jnp.add, jnp.subtract, jnp.multiply, jnp.maximum, jnp.minimum,
          lambda a, b: jnp.where(a > b, a, b * 2.0), lambda a, b: a / (jnp.abs(b) + 1.0)]


def random_program(rng, n_ops):
    """A function of two float32 matrices applying n_ops random steps."""
    steps = []
    for _ in range(n_ops):
        kind = rng.integers(0, 6)
        if kind < 3:
            steps.append(("unary", int(rng.integers(len(UNARY)))))
        elif kind < 5:
            steps.append(("binary", int(rng.integers(len(BINARY)))))
        else:
            steps.append(("shape", int(rng.integers(4))))

    def program(x, y):
        values = [x, y]
        for kind, i in steps:
            a, b = values[-1], values[-2]
            if kind == "unary":
                out = UNARY[i](a)
            elif kind == "binary":
                out = BINARY[i](a, b if b.shape == a.shape else jnp.reshape(b, a.shape))
            elif i == 0:
                out = a.T
            elif i == 1:
                out = jnp.mean(a, axis=0, keepdims=True) - a
            elif i == 2:
                out = jnp.reshape(a, (a.shape[1], a.shape[0]))
            else:
                out = jnp.concatenate([a[:, 1:], a[:, :1]], axis=1)
            values.append(out)
        return values[-1], jnp.max(values[-1]), jnp.argmax(values[-1])

    return program


# The large shape takes the cpu backend's multi-threaded, queued paths.
@pytest.mark.parametrize("shape", [(4, 6), (96, 400)])
@pytest.mark.parametrize("seed", range(60))
def test_random_programs_agree_across_backends(seed, shape):
    rng = np.random.default_rng(seed)
    program = random_program(rng, n_ops=int(rng.integers(3, 12)))
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    results = {}
    for platform in ("cpu", "reference"):
        device = xjit.devices(platform)[0]
        xs, ys = xjit.device_put(x, device), xjit.device_put(y, device)
        f = xjit.jit(program)
        try:
            xjit.config.update("jax_platform_name", platform)
            out = f(xs, ys)
        finally:
            xjit.config.update("jax_platform_name", None)
        assert out[0].device.platform == platform
        results[platform] = [np.asarray(o) for o in out]
    cpu, ref = results["cpu"], results["reference"]
    # float32 through up to 11 steps (cancellation in mean - a, then sqrt):
    # a few 1e-5 of drift is rounding; a wrong kernel is off by far more.
    np.testing.assert_allclose(cpu[0], ref[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(cpu[1], ref[1], rtol=1e-4, atol=1e-4)
    # argmax can differ only between (numerically) tied values
    flat = ref[0].ravel()
    assert abs(flat[int(cpu[2])] - flat[int(ref[2])]) <= 1e-4 * max(1.0, abs(flat[int(ref[2])]))
