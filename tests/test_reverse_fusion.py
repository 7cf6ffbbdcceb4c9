"""A reverse of every dim feeding element-wise work (x[::-1] * 2): the
generated kernel reads the operand backwards instead of writing the reverse
out (backends/cpu/operand_reads.h). Against the reference
backend bit for bit: chunk boundaries, a partial last vector, a reverse read
twice or also returned, other dims reversed, bfloat16 (not read backwards),
and a donated operand the result must not overwrite while it is read."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from numpy_checks import same_as_reference

RNG = np.random.default_rng(17)

FUNCS = {
    "scale": lambda a, b: a[::-1] * 2.0,
    "with_other_input": lambda a, b: jnp.tanh(a[::-1]) + b,
    "both_reversed": lambda a, b: a[::-1] - b[::-1],
    "read_twice": lambda a, b: a[::-1] * a[::-1] + a,
    "also_returned": lambda a, b: (a[::-1] * 2, a[::-1]),
}


@pytest.mark.parametrize("n", [8193, 100003, 16384 * 3 + 5])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_vectors(n, name):
    x, y = RNG.standard_normal((2, n)).astype(np.float32)
    same_as_reference(FUNCS[name], x, y)


def test_matrices_and_bfloat16():
    x = RNG.standard_normal((300, 500)).astype(np.float32)
    for f in (lambda a: a[::-1, ::-1] * 3, lambda a: a[::-1] * 3, lambda a: a[:, ::-1] * 3):
        same_as_reference(f, x)
    same_as_reference(lambda a: a[::-1] * 2, RNG.standard_normal(50000).astype(jnp.bfloat16))


def test_donated_operand_is_not_overwritten_while_read():
    x = RNG.standard_normal(100003).astype(np.float32)
    got = xjit.jit(lambda a: a[::-1] * 2.0, donate_argnums=0)(xjit.device_put(x))
    np.testing.assert_array_equal(np.asarray(got), x[::-1] * np.float32(2))


@pytest.mark.parametrize("shape", [(300, 500), (7, 3, 1000), (64, 257), (300, 100)])
def test_rows_reversed(shape):
    """flip(x, axis=-1): each row read backwards (rows of 256 or more; shorter
    ones, and a flat reverse in the same fusion, write the reverse out)."""
    x = RNG.standard_normal(shape).astype(np.float32)
    b = RNG.standard_normal(shape[-1]).astype(np.float32)
    for f in (lambda a, v: jnp.flip(a, axis=-1) * 2, lambda a, v: jnp.tanh(a[..., ::-1]) + v,
              lambda a, v: (a[..., ::-1] * 3, a[..., ::-1]),
              lambda a, v: jnp.flip(a) * 2 + jnp.flip(a, -1)):
        same_as_reference(f, x, b)
    got = xjit.jit(lambda a: jnp.flip(a, -1) * 2.0, donate_argnums=0)(xjit.device_put(x))
    np.testing.assert_array_equal(np.asarray(got), x[..., ::-1] * np.float32(2))
