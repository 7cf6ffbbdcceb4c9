"""Row fusions that read a broadcast fusion operand whose rows are contiguous
runs of it (backends/cpu/row_fusion.cc, BroadcastReader::RowCursor): rows of
128 or more elements are read in place, row by row, wherever the row sits in
the operand; the generated row kernels (jit_row_region.cc, rows a multiple of
32) read them in place too. Checked against numpy."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(9)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = {
    # pairwise squared distances: x over the middle dim, y over the first
    "pairwise": (lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1),
                 lambda: (f32(9, 128), f32(7, 128))),
    "pairwise_long_rows": (lambda x, y: jnp.max(x[:, None, :] * y[None, :, :], axis=-1),
                           lambda: (f32(5, 1000), f32(3, 1000))),
    # two outer dims broadcast around the row
    "outer_dims": (lambda x, y: (x[:, None, None, :] + y).sum(-1),
                   lambda: (f32(3, 256), f32(3, 4, 5, 256))),
    "middle_operand_dim": (lambda x, y: (x[None, :, None, :] * y).sum(-1),
                           lambda: (f32(4, 130), f32(2, 4, 3, 130))),
    # the broadcast value is also a result (written out) and feeds a softmax
    "also_a_result": (lambda x, y: (lambda b: (b, jnp.exp(b - (b + y).max(-1, keepdims=True))))(
        jnp.broadcast_to(x[:, None, :], (6, 5, 200))), lambda: (f32(6, 200), f32(6, 5, 200))),
    # an operand with as many elements as there are rows (4 * 64): still read
    # through its broadcast, not as a value per row
    "operand_as_large_as_rows": (lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1),
                                 lambda: (f32(4, 64), f32(64, 64))),
    "pairwise_bf16": (lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1),
                      lambda: (f32(6, 96).astype(jnp.bfloat16), f32(5, 96).astype(jnp.bfloat16))),
    # rows shorter than the in-place bound: copied out as before
    "short_rows": (lambda x, y: ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1),
                   lambda: (f32(33, 8), f32(17, 8))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    f, make = CASES[name]
    args = make()
    got = xjit.jit(f)(*args)
    # bf16 inputs: numpy's bf16 sums round every step; compare with float32's
    wide = [np.asarray(a, np.float32) if name.endswith("bf16") else np.asarray(a) for a in args]
    want = f(*wide) if name != "also_a_result" else None
    got = got if isinstance(got, tuple) else (got,)
    if want is None:
        x, y = args
        b = np.broadcast_to(x[:, None, :], (6, 5, 200))
        want = (b, np.exp(b - (b + y).max(-1, keepdims=True)))
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        rtol, atol = (8e-3, 1e-2) if name.endswith("bf16") else (2e-5, 2e-4)
        np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(w, np.float32),
                                   rtol=rtol, atol=atol)
