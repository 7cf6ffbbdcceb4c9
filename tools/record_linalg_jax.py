"""Records JAX-exported modules that use JAX's LAPACK custom calls
(lapack_*_ffi), with their inputs and JAX's outputs, into
tests/data/linalg_jax_export.npz for tests/test_linalg_jax_export.py, which
runs them on xjit without JAX.

    python tools/record_linalg_jax.py
"""
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "linalg_jax_export.npz"
RNG = np.random.default_rng(2026)


def rand(shape, dtype):
    x = RNG.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def spd(shape, dtype):
    m = rand(shape, dtype)
    return (m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


CASES = {
    "cholesky_f32": (jnp.linalg.cholesky, [spd((3, 4, 4), np.float32)]),
    "cholesky_c128": (jnp.linalg.cholesky, [spd((5, 5), np.complex128)]),
    "triangular_solve_f64": (
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                     transpose_a=True),
        [np.tril(rand((2, 4, 4), np.float64)) + 5 * np.eye(4), rand((2, 4, 3), np.float64)]),
    "triangular_solve_c64": (
        lambda a, b: jax.lax.linalg.triangular_solve(a, b, left_side=False, lower=False,
                                                     transpose_a=True, conjugate_a=True),
        [np.triu(rand((4, 4), np.complex64)) + 5 * np.eye(4, dtype=np.complex64),
         rand((3, 4), np.complex64)]),
    "lu_f32": (jax.lax.linalg.lu, [rand((2, 5, 5), np.float32)]),
    "lu_c128_wide": (jax.lax.linalg.lu, [rand((3, 5), np.complex128)]),
    "solve_f64": (jnp.linalg.solve, [rand((3, 6, 6), np.float64), rand((3, 6, 2), np.float64)]),
    "det_f32": (jnp.linalg.det, [rand((4, 4), np.float32)]),
    "qr_f64": (jnp.linalg.qr, [rand((5, 3), np.float64)]),
    "qr_complete_c64": (lambda a: jnp.linalg.qr(a, mode="complete"), [rand((2, 4, 3), np.complex64)]),
    "eigh_f32": (jnp.linalg.eigh, [spd((2, 5, 5), np.float32)]),
    "eigh_c128": (jnp.linalg.eigh, [spd((4, 4), np.complex128)]),
    "svd_f32": (jnp.linalg.svd, [rand((4, 3), np.float32)]),
    "svd_reduced_c128": (lambda a: jnp.linalg.svd(a, full_matrices=False),
                         [rand((2, 3, 5), np.complex128)]),
    "svdvals_f64": (lambda a: jnp.linalg.svd(a, compute_uv=False), [rand((6, 4), np.float64)]),
    "eigvals_f64": (jnp.linalg.eigvals, [rand((5, 5), np.float64)]),
    "eig_c64": (jnp.linalg.eig, [rand((4, 4), np.complex64)]),
    "schur_f64": (jax.lax.linalg.schur, [rand((4, 4), np.float64)]),
    "inv_f32": (jnp.linalg.inv, [rand((3, 3), np.float32) + 3 * np.eye(3, dtype=np.float32)]),
}


def main():
    data = {}
    for name, (fn, args) in CASES.items():
        exported = jax.export.export(jax.jit(fn))(*args)
        data[f"{name}/text"] = np.array(exported.mlir_module())
        outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        for i, a in enumerate(args):
            data[f"{name}/arg{i}"] = np.asarray(a)
        for i, o in enumerate(outs):
            data[f"{name}/out{i}"] = np.asarray(o)
        print(name, [str(np.asarray(o).dtype) + str(np.shape(o)) for o in outs])
    np.savez_compressed(OUT, **data)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
