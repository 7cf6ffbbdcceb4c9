"""Records tests/stablehlo_jax_cases.py with JAX: NAME.mlir (jax.jit(f).lower(*x).as_text()),
NAME.npz (inputs x0.., JAX's outputs y0..), and for a few cases the forms with
locations (NAME.debug.mlir) and from jax.export (NAME.export.mlir).

    python tests/data/stablehlo_jax/record.py   (needs jax; x64 enabled)
"""
import functools
import pathlib
import sys
import types

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax, nn

jax.config.update("jax_enable_x64", True)
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from stablehlo_jax_cases import CASES  # noqa: E402

NS = types.SimpleNamespace(jnp=jnp, lax=lax, nn=nn, jit=jax.jit)
WITH_VARIANTS = ("mlp", "argminmax", "sort")


def main():
    for name, (fn, make_inputs) in CASES.items():
        f = jax.jit(functools.partial(fn, NS))
        xs = make_inputs()
        lowered = f.lower(*xs)
        (HERE / f"{name}.mlir").write_text(lowered.as_text())
        ys = jax.tree_util.tree_leaves(f(*xs))
        arrays = {f"x{i}": np.asarray(x) for i, x in enumerate(xs)}
        arrays.update({f"y{i}": np.asarray(y) for i, y in enumerate(ys)})
        np.savez(HERE / f"{name}.npz", **arrays)
        if name in WITH_VARIANTS:
            (HERE / f"{name}.debug.mlir").write_text(lowered.as_text(debug_info=True))
            (HERE / f"{name}.export.mlir").write_text(str(export.export(f)(*xs).mlir_module()))


if __name__ == "__main__":
    main()
