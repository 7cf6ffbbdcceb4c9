"""xjit.numpy: the numpy API on xjit arrays, with JAX's dtype rules.

Example:
    >>> import xjit.numpy as jnp
    >>> x = jnp.arange(6.0).reshape(2, 3)
    >>> jnp.sum(x * 2, axis=1)
    Array([ 6., 24.], dtype=float32)
"""
import numpy as _np

from xjit._src import dtypes as _dtypes
from xjit._src.numpy.scalar_types import (  # noqa: F401
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, bfloat16, complex64, complex128,
    int_, uint, float_, complex_, single, double, half, csingle, cdouble,
    int2, int4, uint2, uint4, float8_e3m4, float8_e4m3, float8_e4m3fn, float8_e4m3fnuz,
    float8_e4m3b11fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn,
    float6_e2m3fn, float6_e3m2fn)
from xjit._src.numpy.creation import (  # noqa: F401
    array, asarray, zeros, ones, empty, full, zeros_like, ones_like, empty_like, full_like,
    arange, linspace, eye, identity, tri, tril, triu)
from xjit._src.numpy.elementwise import (  # noqa: F401
    add, subtract, multiply, divide, true_divide, floor_divide, remainder, mod, divmod, fmod,
    power, pow, float_power, negative, positive, absolute, abs, sign, square, reciprocal,
    exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt, sin, cos, tan, tanh, sinh, cosh,
    arctan, arcsin, arccos, arctan2, atan2, atan, asin, acos, hypot,
    floor, ceil, trunc, fix, round, around, round_, rint,
    maximum, minimum, fmax, fmin, clip,
    isnan, isinf, isfinite, isposinf, isneginf, signbit,
    equal, not_equal, less, less_equal, greater, greater_equal,
    logical_and, logical_or, logical_xor, logical_not,
    bitwise_and, bitwise_or, bitwise_xor, invert, bitwise_not, bitwise_invert,
    left_shift, right_shift, bitwise_left_shift, bitwise_right_shift,
    real, imag, conjugate, conj, angle, where)
from xjit._src.numpy.reductions import (  # noqa: F401
    sum, prod, max, min, amax, amin, any, all, mean, var, std, argmax, argmin,
    count_nonzero, ptp)
from xjit._src.numpy.shape_ops import (  # noqa: F401
    shape, ndim, size, reshape, ravel, transpose, permute_dims, matrix_transpose, swapaxes,
    moveaxis, squeeze, expand_dims, broadcast_to, broadcast_shapes, broadcast_arrays,
    concatenate, concat, stack, atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack,
    dstack, column_stack, flip, fliplr, flipud, split, array_split, astype, result_type,
    promote_types, can_cast, isscalar, repeat, tile)
from xjit._src.numpy.linalg_ops import matmul, dot, vdot, inner, outer, tensordot  # noqa: F401
from xjit._src.numpy.cumulative import (  # noqa: F401
    cumsum, cumprod, cumulative_sum, cumulative_prod, nancumsum, nancumprod)
from xjit._src.numpy.indexing import take, take_along_axis  # noqa: F401
from xjit._src.numpy.at import put_along_axis  # noqa: F401
from xjit._src.numpy.sorting import (  # noqa: F401
    sort, argsort, lexsort, partition, argpartition, searchsorted, nonzero, argwhere, flatnonzero)
from xjit._src.numpy.setops import unique  # noqa: F401
from xjit._src.numpy.quantiles import (  # noqa: F401
    median, percentile, quantile, nanmedian, nanpercentile, nanquantile)
from xjit._src.numpy.interp import interp  # noqa: F401
from xjit._src.numpy.cumulative import cumsum, cumprod, cumulative_sum, cumulative_prod  # noqa: F401
from xjit._src.numpy.diagonal import diagonal, trace, diag  # noqa: F401
from xjit._src.numpy.einsum import einsum, einsum_path  # noqa: F401
from xjit._src.numpy.pad import pad  # noqa: F401
from xjit._src.numpy.roll import roll  # noqa: F401
from xjit._src.numpy.selection import select, piecewise  # noqa: F401
from xjit._src.numpy.differences import diff, gradient  # noqa: F401
from xjit._src.numpy.convolution import convolve, correlate  # noqa: F401
from xjit._src.numpy.histograms import (  # noqa: F401
    bincount, digitize, histogram, histogram2d, histogram_bin_edges, histogramdd)
from xjit._src.numpy.index_tricks import ravel_multi_index, unravel_index  # noqa: F401
from xjit._src.numpy.math_extras import (  # noqa: F401
    arcsinh, arccosh, arctanh, asinh, acosh, atanh, deg2rad, rad2deg, radians, degrees, fabs,
    copysign, heaviside, logaddexp, logaddexp2, sinc, ldexp, frexp, modf, nan_to_num, gcd, lcm)
from xjit._src.numpy.comparison import (  # noqa: F401
    isclose, allclose, array_equal, array_equiv, iscomplexobj, isrealobj, iscomplex, isreal)
from xjit._src.numpy.nan_reductions import (  # noqa: F401
    nansum, nanprod, nanmax, nanmin, nanmean, nanvar, nanstd, nanargmax, nanargmin, average)
from xjit._src.numpy.polynomial import (  # noqa: F401
    polyval, polyadd, polysub, polymul, polyder, polyint, vander)
from xjit._src.numpy.grids import (  # noqa: F401
    meshgrid, indices, ix_, tril_indices, triu_indices, tril_indices_from, triu_indices_from,
    diag_indices, diag_indices_from, fill_diagonal)
from xjit._src.numpy.array_edits import (  # noqa: F401
    copy, append, delete, insert, rot90, kron, cross, diagflat, hsplit, vsplit, dsplit, rollaxis,
    trapezoid, ediff1d, cov, corrcoef, isin)
from xjit._src.numpy.vectorize import vectorize, apply_along_axis  # noqa: F401
from xjit._src.numpy.ranges import (  # noqa: F401
    logspace, geomspace, bartlett, blackman, hamming, hanning)
from xjit._src.numpy.array_more import (  # noqa: F401
    vecdot, matvec, vecmat, unstack, compress, choose, resize, unwrap, block, put, place,
    extract, sort_complex, trim_zeros, apply_over_axes)
from xjit._src.numpy.set_functions import (  # noqa: F401
    union1d, setdiff1d, intersect1d, setxor1d, unique_values, unique_counts, unique_inverse,
    unique_all)
from xjit._src.numpy.host_io import (  # noqa: F401
    printoptions, get_printoptions, set_printoptions, save, savez, frombuffer, fromstring,
    fromfile, fromiter, fromfunction, load, array_repr, array_str, iterable)
from xjit._src.numpy.math_extras import (  # noqa: F401
    nextafter, spacing, bitwise_count, packbits, unpackbits)
from xjit._src.numpy.ranges import i0, kaiser  # noqa: F401
from xjit._src.numpy.polynomial import poly, roots, polydiv, polyfit  # noqa: F401
from xjit._src.numpy.grids import mgrid, ogrid, r_, c_, s_, index_exp  # noqa: F401

bool = _np.bool_  # noqa: A001 (jnp.bool, as JAX names it)
ComplexWarning = _np.exceptions.ComplexWarning

# numpy's abstract scalar hierarchy, for issubdtype.
from numpy import (  # noqa: F401
    generic, number, integer, signedinteger, unsignedinteger, inexact, floating,
    complexfloating, character, flexible)

dtype = _np.dtype
issubdtype = _dtypes.issubdtype
finfo = _dtypes.finfo
iinfo = _dtypes.iinfo

pi = _np.pi
e = _np.e
euler_gamma = _np.euler_gamma
inf = _np.inf
nan = _np.nan
newaxis = None


def __getattr__(name):
    # ``jnp.ndarray`` is xjit.Array; resolved lazily because xjit imports this module.
    if name == "ndarray":
        import xjit
        return xjit.Array
    raise AttributeError(f"module 'xjit.numpy' has no attribute {name!r}")


def isdtype(dtype, kind):
    """Array API ``isdtype``: whether ``dtype`` belongs to ``kind`` (a name, dtype, or tuple).

    Example:
        >>> jnp.isdtype(jnp.float32, "real floating")
        True
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    dt = _dtypes.dtype(dtype)
    table = {"bool": lambda d: d == _np.bool_,
             "signed integer": lambda d: _dtypes.issubdtype(d, signedinteger),
             "unsigned integer": lambda d: _dtypes.issubdtype(d, unsignedinteger),
             "integral": lambda d: _dtypes.issubdtype(d, integer),
             "real floating": lambda d: _dtypes.issubdtype(d, floating),
             "complex floating": lambda d: _dtypes.issubdtype(d, complexfloating),
             "numeric": lambda d: d != _np.bool_}
    for k in kinds:
        if isinstance(k, str):
            if k not in table:
                raise ValueError(f"Unrecognized kind: {k!r}")
            if table[k](dt):
                return True
        elif _dtypes.dtype(k) == dt:
            return True
    return False


# issue 11 (h-fft): jnp.fft
from xjit.numpy import fft  # noqa: E402,F401
# h-linalg: jnp.linalg
from xjit.numpy import linalg  # noqa: E402,F401


def _attach_ufunc_methods():
    from xjit._src.numpy.ufunc_methods import attach
    g = globals()
    for name in ("add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power",
                 "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                 "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "arctan2", "hypot",
                 "remainder", "fmod", "left_shift", "right_shift", "equal", "not_equal", "less",
                 "less_equal", "greater", "greater_equal", "logaddexp", "logaddexp2",
                 "copysign", "heaviside", "nextafter", "gcd", "lcm"):
        attach(g[name], name)


_attach_ufunc_methods()
