"""The numpy functions the linear-algebra modules use, under their xjit.numpy
names, taken from the private modules (a private module may not import the
public ``xjit.numpy``).

Example:
    >>> from xjit._src.numpy.namespace import jnp
    >>> jnp.eye(2).shape
    (2, 2)
"""
import types

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy import (
    convolution, creation, cumulative, diagonal, differences, elementwise, indexing, linalg_ops,
    pad as pad_module, reductions, scalar_types, setops, shape_ops, sorting)

_FUNCTIONS = {
    convolution: "convolve",
    creation: "arange array asarray empty eye full full_like linspace ones ones_like tri tril "
              "triu zeros zeros_like",
    cumulative: "cumsum",
    diagonal: "diag diagonal trace",
    differences: "diff",
    elementwise: "abs arctan clip conj cos exp expm1 floor imag isfinite isinf isnan isneginf "
                 "isposinf left_shift log log1p log2 maximum minimum mod power real right_shift "
                 "sign signbit sin sqrt tan trunc where",
    indexing: "take take_along_axis",
    linalg_ops: "matmul outer",
    pad_module: "pad",
    reductions: "all any argmax argmin max mean min prod sum var",
    scalar_types: "bool_ complex64 float32 int32",
    setops: "unique",
    shape_ops: "atleast_1d atleast_2d broadcast_arrays broadcast_shapes broadcast_to concatenate "
               "expand_dims flip matrix_transpose moveaxis ndim ravel reshape result_type shape "
               "split squeeze stack swapaxes tile transpose",
    sorting: "argsort lexsort nonzero sort",
}

jnp = types.SimpleNamespace(
    finfo=dtypes.finfo, iinfo=dtypes.iinfo, inf=np.inf, nan=np.nan, dtype=np.dtype,
    **{name: getattr(module, name) for module, names in _FUNCTIONS.items()
       for name in names.split()})
