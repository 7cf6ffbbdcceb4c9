"""chisquare, f, geometric, triangular and wald: JAX's values for the same key
(recorded from JAX 0.10.2 once, so the test holds without JAX), under jit
too, their checks, and their distributions' means."""
import numpy as np
import pytest

import xjit
from xjit import random

K = random.PRNGKey(42)
# jax.random.<name>(jax.random.PRNGKey(42), ...).tolist(), JAX 0.10.2.
RECORDED = {
    "chisquare": ((3.0,), dict(shape=(4,)),
                  [5.87071418762207, 1.3978509902954102, 5.559423446655273, 1.4829895496368408]),
    "chisquare_array": ((np.array([0.5, 2.0, 7.0], np.float32),), {},
                        [0.5910614728927612, 0.66316819190979, 11.04599380493164]),
    "geometric": ((0.3,), dict(shape=(6,)), [3, 2, 2, 2, 3, 2]),
    "triangular": ((0.0, 0.3, 1.0), dict(shape=(5,)),
                   [0.40174978971481323, 0.5265636444091797, 0.4817240834236145,
                    0.4456636905670166, 0.37988007068634033]),
    "wald": ((1.5,), dict(shape=(5,)),
             [1.6461201906204224, 2.6983466148376465, 0.3518810272216797, 0.8019976615905762,
              1.0403847694396973]),
}
# XLA folds f's constant factors across its two chi-squares (and nothing
# here does), so f agrees to a few ulp, not bit for bit.
F_RECORDED = [0.6068869233131409, 0.0762886181473732, 0.13752663135528564,
              0.07212348282337189]


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_bit_identical_to_jax(case):
    name = case.split("_")[0]
    args, kw, want = RECORDED[case]
    fn = getattr(random, name)
    for got in (fn(K, *args, **kw), xjit.jit(lambda k: fn(k, *args, **kw))(K),
                fn(random.wrap_key_data(random.key_data(random.key(42))), *args, **kw)):
        got = np.asarray(got)
        assert got.tolist() == want, (case, got.tolist())


def test_f_close_to_jax():
    np.testing.assert_allclose(np.asarray(random.f(K, 2.0, 5.0, (4,))), F_RECORDED, rtol=1e-6)


def test_dtypes_shapes_and_checks():
    assert random.geometric(K, 0.5, (3,)).dtype == np.int32
    assert random.chisquare(K, 2.0, (2, 3)).shape == (2, 3)
    assert random.wald(K, np.ones((2, 1)), (2, 4)).shape == (2, 4)
    with pytest.raises(ValueError, match="must be an int dtype"):
        random.geometric(K, 0.5, (3,), dtype=np.float32)
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.triangular(K, np.zeros(3), 0.5, 1.0, (2,))
    with pytest.raises(ValueError):
        random.chisquare(K, 2.0, (3,), dtype=np.int32)


def test_sample_means():
    n = 20000
    assert abs(float(random.chisquare(K, 3.0, (n,)).mean()) - 3.0) < 0.1
    assert abs(float(random.geometric(K, 0.25, (n,)).mean()) - 4.0) < 0.15
    assert abs(float(random.triangular(K, 0.0, 0.3, 1.0, (n,)).mean()) - 1.3 / 3) < 0.01
    assert abs(float(random.wald(K, 1.5, (n,)).mean()) - 1.5) < 0.05
    assert abs(float(random.f(K, 4.0, 10.0, (n,)).mean()) - 10.0 / 8.0) < 0.05
