"""Records JAX's outputs for tests/random_cases.py into tests/data/random_jax.npz.

Run once with JAX installed (the tests then need no JAX):
    python tools/record_random_jax.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax
    from random_cases import CASES
    assert jax.config.jax_threefry_partitionable, "record with JAX's default generator"
    out = {}
    for name, (f, _) in CASES.items():
        value = np.asarray(jax.random.key_data(v) if jnp.issubdtype(
            getattr(v := f(jax.random, lax, jnp), "dtype", np.float32), jax.dtypes.prng_key)
            else v)
        # bfloat16 has no npz dtype: store its bits and the dtype's name beside them.
        out[name + "__dtype"] = np.array(value.dtype.name)
        out[name] = value.view(np.uint16) if value.dtype.name == "bfloat16" else value
    path = os.path.join(HERE, "..", "tests", "data", "random_jax.npz")
    np.savez_compressed(path, jax_version=np.array(jax.__version__), **out)
    print(f"wrote {len(out) // 2} cases to {os.path.normpath(path)} (JAX {jax.__version__})")


if __name__ == "__main__":
    main()
