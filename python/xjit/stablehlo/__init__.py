"""``xjit.stablehlo``: run StableHLO text on xjit — what JAX writes
(``jax.jit(f).lower(x).as_text()``, ``jax.export``), StableHLO's own test
files, and xjit's ``Lowered.as_text()``.

Example:
    >>> import numpy as np
    >>> from xjit import stablehlo
    >>> m = stablehlo.parse('''
    ... func.func public @main(%x: tensor<3xf32>) -> (tensor<f32> {jax.result_info = "result"}) {
    ...   %cst = stablehlo.constant dense<0.0> : tensor<f32>
    ...   %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    ...   return %0 : tensor<f32>
    ... }''')
    >>> stablehlo.run(m, np.ones(3, np.float32))
    [Array(3., dtype=float32)]

The command line: ``python -m xjit.stablehlo run FILE.mlir [--args NPY...]`` and
``python -m xjit.stablehlo test FILE.mlir...`` (see ``xjit._src.stablehlo.cli``).
"""
from xjit._src.stablehlo.module import Compiled, Module, compile, parse, run  # noqa: F401
