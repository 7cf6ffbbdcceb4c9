"""Data movement over few long runs (backends/cpu/strided_copy.cc): a 1-d
reverse or slice of 128K+ elements is split between threads inside the run,
and reversed runs copy with a vectorised loop; pads fill with vector stores;
whole-buffer copies over 1 MiB (dynamic_update_slice, scatter, copies) are
split between threads. Checked against numpy, for every element width."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import lax

RNG = np.random.default_rng(3)

def _set(a):
    b = a.copy()
    b[100:300, 5:90] = 3
    return b


def _add_rows(a):
    b = a.copy()
    np.add.at(b, np.array([3, 1, 3]), 1)
    return b


# name: (xjit function, numpy function, shape)
CASES = {
    "reverse_1d": (lambda a: a[::-1], lambda a: a[::-1], (300_001,)),
    "reverse_rows": (lambda a: a[:, ::-1], lambda a: a[:, ::-1], (3, 200_003)),
    "reverse_both": (jnp.flip, np.flip, (2, 150_000)),
    "reverse_short_rows": (lambda a: a[:, ::-1], lambda a: a[:, ::-1], (500, 37)),
    "slice_1d": (lambda a: a[5:-7], lambda a: a[5:-7], (400_000,)),
    "strided_slice": (lambda a: a[1::3], lambda a: a[1::3], (400_000,)),
    "reverse_then_scale": (lambda a: a[::-1] * 2, lambda a: a[::-1] * 2, (262_144,)),
    "pad": (lambda a: jnp.pad(a, ((1, 2), (3, 0)), constant_values=7),
            lambda a: np.pad(a, ((1, 2), (3, 0)), constant_values=7), (700, 600)),
    "pad_1d": (lambda a: jnp.pad(a, (5, 1)), lambda a: np.pad(a, (5, 1)), (400_000,)),
    "update_slice": (lambda a: a.at[100:300, 5:90].set(3), _set, (700, 600)),
    "scatter_rows": (lambda a: a.at[np.array([3, 1, 3])].add(1), _add_rows, (700, 600)),
    "copy_of_result": (lambda a: (a, a + 0), lambda a: (a, a + 0), (400_000,)),
}


def test_scalar_updates_fill_their_box():
    """x.at[box].set(scalar): the broadcast update is never written out
    (cpu/compiler.cc PlanSplatUpdates); shared or returned broadcasts are."""
    x = RNG.standard_normal((6, 300, 500)).astype(np.float32)
    want = x.copy()
    want[1:4, 10:200, 7:9] = 5
    np.testing.assert_array_equal(xjit.jit(lambda a: a.at[1:4, 10:200, 7:9].set(5.0))(x), want)
    want = x.copy()
    want[2, 3:250] = -1  # one contiguous run
    np.testing.assert_array_equal(xjit.jit(lambda a: a.at[2, 3:250].set(-1.0))(x), want)
    # The broadcast also returned: it must still be written.
    f = xjit.jit(lambda a: (lambda b: (a.at[0, :4, :5].set(b), b))(jnp.full((4, 5), 2.0, a.dtype)))
    got, b = f(x)
    want = x.copy()
    want[0, :4, :5] = 2
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(b, np.full((4, 5), 2.0, np.float32))

    # In a loop, in place, at traced positions.
    def body(i, a):
        return lax.dynamic_update_slice(a, jnp.full((1, 3), i * 1.0, a.dtype), (i, i))
    got = xjit.jit(lambda a: lax.fori_loop(0, 5, body, a))(x[0])
    want = x[0].copy()
    for i in range(5):
        want[i, i:i + 3] = i
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name, dtype):
    f, numpy_f, shape = CASES[name]
    x = (RNG.standard_normal(shape) * 50).astype(dtype)
    got = xjit.jit(f)(x)
    x = x.astype(np.asarray(got if not isinstance(got, tuple) else got[0]).dtype)  # float64 is float32 without x64
    want = numpy_f(x)
    for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
        np.testing.assert_array_equal(np.asarray(g), w)
