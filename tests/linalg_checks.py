"""What the linear algebra tests share: the dtypes, JAX's tolerances and
random matrices from a seeded generator."""
import numpy as np

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
# JAX's linalg tests: 1e-3 (single) / 1e-10 (double) relative.
TOL = {np.dtype(np.float32): 1e-3, np.dtype(np.complex64): 1e-3,
       np.dtype(np.float64): 1e-10, np.dtype(np.complex128): 1e-10}


def random_matrices(seed):
    """rand(shape, dtype): standard normal entries (complex parts too), from
    a generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)

    def rand(shape, dtype):
        x = rng.standard_normal(shape)
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.standard_normal(shape)
        return x.astype(dtype)
    return rand
