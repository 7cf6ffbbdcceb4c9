"""Modules JAX lowered (recorded in data/stablehlo_jax by record.py) run on
xjit through xjit.stablehlo and agree with the outputs JAX recorded, and with
JAX itself when it is installed."""
import functools
import pathlib
import types

import ml_dtypes
import numpy as np
import pytest

from stablehlo_jax_cases import CASES
from xjit import stablehlo

DATA = pathlib.Path(__file__).resolve().parent / "data" / "stablehlo_jax"
# Ops a case needs that xjit does not have yet: the case must fail naming
# the op until it is added, and then agree with JAX like the others.
NEEDS = {"cumsum": "reduce_window"}
# Outputs converted from bfloat16/float16 work: XLA may keep the intermediate
# in float32 where xjit rounds it, one bfloat16 unit apart.
LOOSE = {"low_precision": 1e-2}


def _load(name):
    text = (DATA / f"{name}.mlir").read_text()
    data = np.load(DATA / f"{name}.npz")
    xs = [data[f"x{i}"] for i in range(sum(k.startswith("x") for k in data.files))]
    ys = [data[f"y{i}"] for i in range(sum(k.startswith("y") for k in data.files))]
    return text, xs, ys


def _tolerance(dtype):
    if dtype in (np.dtype(ml_dtypes.bfloat16),):
        return 2e-2
    if dtype == np.float16:
        return 2e-3
    if dtype in (np.float32, np.complex64):
        return 2e-5
    return 1e-12


def _assert_agrees(got, want, loose=None):
    got = np.asarray(got)
    if want.dtype.kind == "V":  # bfloat16 through np.savez
        want = want.view(got.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        tol = loose or _tolerance(got.dtype)
        np.testing.assert_allclose(got.astype(np.complex128 if got.dtype.kind == "c" else
                                              np.float64),
                                   want.astype(np.complex128 if want.dtype.kind == "c" else
                                               np.float64), rtol=tol, atol=tol)


def _run_or_needs(name, text, xs, platform):
    if name in NEEDS:
        try:
            return stablehlo.run(text, *xs, device=platform)
        except NotImplementedError as e:
            assert NEEDS[name] in str(e)
            pytest.skip(f"needs stablehlo.{NEEDS[name]}: {e}")
    return stablehlo.run(text, *xs, device=platform)


@pytest.mark.parametrize("platform", ["cpu", "reference"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_jax_module_agrees_with_recorded_jax_outputs(name, platform):
    text, xs, ys = _load(name)
    outs = _run_or_needs(name, text, xs, platform)
    assert len(outs) == len(ys)
    for got, want in zip(outs, ys):
        _assert_agrees(got, want, LOOSE.get(name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_jax_module_agrees_with_jax(name):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    from jax import lax, nn
    fn, make_inputs = CASES[name]
    text, xs, _ = _load(name)
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        want = jax.tree_util.tree_leaves(jax.jit(functools.partial(
            fn, types.SimpleNamespace(jnp=jnp, lax=lax, nn=nn, jit=jax.jit)))(*xs))
        want = [np.asarray(w) for w in want]
    finally:
        jax.config.update("jax_enable_x64", previous)
    outs = _run_or_needs(name, text, xs, "cpu")
    for got, w in zip(outs, want):
        _assert_agrees(got, w, LOOSE.get(name))


@pytest.mark.parametrize("variant", ["debug", "export"])
@pytest.mark.parametrize("name", ["mlp", "argminmax", "sort"])
def test_locations_and_export_attributes_are_ignored(name, variant):
    plain = stablehlo.parse((DATA / f"{name}.mlir").read_text())
    text = (DATA / f"{name}.{variant}.mlir").read_text()
    assert "loc(" in text
    other = stablehlo.parse(text)
    assert other.in_avals == plain.in_avals and other.out_avals == plain.out_avals
    _, xs, ys = _load(name)
    for got, want in zip(stablehlo.run(other, *xs), ys):
        _assert_agrees(got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_module_is_a_fixed_point(name):
    text, xs, ys = _load(name)
    try:
        module = stablehlo.parse(text)
    except NotImplementedError:
        assert name in NEEDS
        return
    printed = module.as_text()
    again = stablehlo.parse(printed)
    assert again.as_text() == printed
    for got, want in zip(stablehlo.run(again, *xs), ys):
        _assert_agrees(got, want, LOOSE.get(name))
