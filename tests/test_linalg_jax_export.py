"""Modules JAX exports with linear algebra (its CPU lowering's LAPACK custom
calls, lapack_*_ffi, with their mhlo.backend_config and column-major layout
attributes) run on xjit unchanged through xjit.stablehlo and give JAX's
results. The modules, inputs and JAX's outputs are recorded
(tools/record_linalg_jax.py -> tests/data/linalg_jax_export.npz), so the test
needs no JAX."""
import pathlib

import numpy as np
import pytest

from xjit import stablehlo

DATA = np.load(pathlib.Path(__file__).parent / "data" / "linalg_jax_export.npz")
NAMES = sorted({k.split("/")[0] for k in DATA.files})
# Eigenvectors and singular vectors are unique only up to a phase per vector;
# these cases compare after fixing it (largest component real positive).
PHASE_FREE = {"eigh_f32": [1], "eigh_c128": [1], "eig_c64": [1], "svd_f32": [0, 2],
              "svd_reduced_c128": [0, 2]}


# JAX's LU lowering turns the pivots into a permutation with a stablehlo.while
# in its pretty form (`stablehlo.while(%iterArg = %x) : t cond {...} do {...}`):
# these cases also cover that form of the parser.


def _case(name):
    args = [DATA[f"{name}/arg{i}"] for i in range(10) if f"{name}/arg{i}" in DATA]
    outs = [DATA[f"{name}/out{i}"] for i in range(10) if f"{name}/out{i}" in DATA]
    return str(DATA[f"{name}/text"]), args, outs


def _normalize_columns(v, rows=True):
    """Each column (rows=False: each row) scaled so its largest entry is real positive."""
    v = np.asarray(v)
    axis = -2 if rows else -1
    idx = np.argmax(np.abs(v), axis=axis)
    piv = np.take_along_axis(v, np.expand_dims(idx, axis), axis=axis)
    return v * (np.abs(piv) / np.where(piv == 0, 1, piv))


def _tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("device", ["cpu", "reference"])
def test_jax_exported_module_matches_jax(name, device):
    text, args, want = _case(name)
    got = stablehlo.run(text, *args, device=device)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.dtype, g.shape, w.dtype, w.shape)
        if name in PHASE_FREE and i in PHASE_FREE[name]:
            is_vh = name.startswith("svd") and i == 2
            g, w = _normalize_columns(g, not is_vh), _normalize_columns(w, not is_vh)
        if name == "schur_f64":  # Schur vectors: unique up to a sign per column
            g = g * np.sign(g[..., :1, :]) * np.sign(w[..., :1, :]) if i == 1 else g
        if np.issubdtype(w.dtype, np.integer):
            np.testing.assert_array_equal(g, w, err_msg=f"{name} result {i}")
        else:
            tol = _tol(w.dtype) * max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
            np.testing.assert_allclose(g, w, rtol=_tol(w.dtype), atol=tol,
                                       err_msg=f"{name} result {i}")


def test_the_modules_use_the_lapack_targets():
    targets = set()
    for name in NAMES:
        text = str(DATA[f"{name}/text"])
        targets |= {t.split("(")[0] for t in text.split("custom_call @")[1:]}
    assert {"lapack_spotrf_ffi", "lapack_zpotrf_ffi", "lapack_dtrsm_ffi", "lapack_ctrsm_ffi",
            "lapack_sgetrf_ffi", "lapack_zgetrf_ffi", "lapack_dgeqrf_ffi", "lapack_dorgqr_ffi",
            "lapack_cgeqrf_ffi", "lapack_cungqr_ffi", "lapack_ssyevd_ffi", "lapack_zheevd_ffi",
            "lapack_sgesdd_ffi", "lapack_zgesdd_ffi", "lapack_dgeev_ffi", "lapack_cgeev_ffi",
            "lapack_dgees_ffi"} <= targets, targets


def test_unknown_target_is_a_clear_error():
    text = str(DATA["cholesky_f32/text"]).replace("lapack_spotrf_ffi", "lapack_nosuch_ffi")
    with pytest.raises(Exception, match="lapack_nosuch_ffi"):
        stablehlo.run(text, *_case("cholesky_f32")[1])
