"""float32 products big enough that the cpu backend reorders the weights into
oneDNN's blocked layout on every call (backends/cpu/matmul.cc, PacksWeights:
M >= 1024 and K x N >= 1M): against numpy's float64 product, with the
weights transposed first, odd sizes (blocks padded), two packed products in
one program (each its own scratch) and NaN/inf in the weights."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp

RNG = np.random.default_rng(5)


def _rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want):
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-3)


@pytest.mark.parametrize("name,f,lshape,rshape", [
    ("square", lambda a, b: a @ b, (1024, 1024), (1024, 1024)),
    ("odd sizes", lambda a, b: a @ b, (1031, 1027), (1027, 1029)),
    ("weights transposed", lambda a, b: a @ b.T, (1024, 512), (2048, 512)),
    ("lhs transposed", lambda a, b: a.T @ b, (1024, 1200), (1024, 1024)),
])
def test_packed_product_matches_numpy(name, f, lshape, rshape):
    a, b = _rand(*lshape), _rand(*rshape)
    got = np.asarray(xjit.jit(f)(a, b))
    _close(got, f(a.astype(np.float64), b.astype(np.float64)))


def test_two_packed_products_in_one_program_and_repeated_calls():
    a, b, c = _rand(1024, 1024), _rand(1024, 1024), _rand(1024, 1024)
    f = xjit.jit(lambda a, b, c: (a @ b, (a + 1) @ c))
    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
    for _ in range(2):  # the scratch is reused across calls
        x, y = f(a, b, c)
        _close(np.asarray(x), a64 @ b64)
        _close(np.asarray(y), (a64 + 1) @ c64)
    # new weights in the same executable: nothing of the last call's packing stays
    x, _ = f(a, c, c)
    _close(np.asarray(x), a64 @ c64)


def test_packed_product_propagates_nan_and_inf():
    a, b = _rand(1024, 1024), _rand(1024, 1024)
    b[3, 7] = np.nan
    b[5, 9] = np.inf
    a[:, 5] = np.abs(a[:, 5]) + 1  # column 9 of the result: +inf everywhere
    got = np.asarray(xjit.jit(jnp.matmul)(a, b))
    assert np.isnan(got[:, 7]).all()
    assert np.isposinf(got[:, 9]).all()
    ok = np.ones(1024, bool)
    ok[[7, 9]] = False
    finite = np.where(np.isfinite(b), b, 0).astype(np.float64)
    _close(got[:, ok], (a.astype(np.float64) @ finite)[:, ok])
