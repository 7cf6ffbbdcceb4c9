"""``xjit.lax``: JAX's lax API (primitive operations with explicit dtypes and shapes).

Example:
    >>> import numpy as np
    >>> from xjit import lax
    >>> lax.add(np.float32(1), 2.0)
    Array(3., dtype=float32)
"""
from xjit._src.api_transforms import stop_gradient
from xjit._src.lax.convolution import (
    ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
    conv_general_permutations, conv_transpose, conv_with_general_padding, padtype_to_pads)
from xjit._src.lax.control_flow import cond, select_n, switch, while_loop
from xjit._src.lax.custom_root import custom_root
from xjit._src.lax.custom_linear_solve import custom_linear_solve
from xjit._src.lax.parallel import axis_index, pmax, pmean, pmin, psum
from xjit._src.lax.loops import associative_scan, fori_loop, map, scan  # noqa: A004
from xjit._src.lax.cumulative import cumlogsumexp, cummax, cummin, cumprod, cumsum
from xjit._src.lax.elementwise import (
    RoundingMethod, _convert_element_type, abs, acos, acosh, add, and_, asin, asinh, atan,
    atan2, atanh, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clamp, clz,
    complex, conj, convert_element_type, cos, cosh, div, eq, erf, exp, exp2, expm1, floor, ge,
    gt, imag, integer_pow, is_finite, le, log, log1p, logistic, lt, max, min, mul, ne, neg,
    not_, or_, population_count, pow, real, reciprocal, rem, round, rsqrt, select,
    shift_left, shift_right_arithmetic, shift_right_logical, sign, sin, sinh, sqrt, square,
    sub, tan, tanh, xor)
from xjit._src.lax.bits import bitcast_convert_type, reduce_precision
from xjit._src.lax.normalization import (
    batch_norm_grad, batch_norm_inference, batch_norm_training)
from xjit._src.lax.linalg import dot, dot_general
from xjit._src.lax.rng import RandomAlgorithm, rng_bit_generator  # noqa: F401
# issue 11 (h-fft)
from xjit._src.lax.fft import FftType, fft  # noqa: F401
from xjit._src.lax.optimization_barrier import optimization_barrier  # noqa: F401
from xjit._src.lax.composite import composite  # noqa: F401
from xjit._src.lax.rng import rng_uniform  # noqa: F401
from xjit._src.lax.host_io import (  # noqa: F401
    after_all, create_token, infeed, outfeed, recv, send)
from xjit._src.lax.reductions import (
    argmax, argmin, reduce, reduce_and, reduce_max, reduce_min, reduce_or, reduce_prod,
    reduce_sum)
from xjit._src.lax.special import digamma, erf_inv, erfc, lgamma
from xjit._src.lax.sorting import sort, sort_key_val, top_k
from xjit._src.lax.slicing import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, dynamic_index_in_dim,
    dynamic_slice, dynamic_slice_in_dim, dynamic_update_index_in_dim, dynamic_update_slice,
    dynamic_update_slice_in_dim, gather, scatter, scatter_add, scatter_apply, scatter_max,
    scatter_min, scatter_mul, scatter_sub)
from xjit._src.lax.shapes import (
    broadcast, broadcast_in_dim, broadcasted_iota, concatenate, expand_dims, full, full_like,
    index_in_dim, iota, pad, reshape, rev, slice, slice_in_dim, squeeze, transpose,
    zeros_like_array)
from xjit._src.lax.windowed import (
    reduce_window, reduce_window_max, reduce_window_min, reduce_window_sum,
    select_and_scatter_add)

# h-linalg: lax.linalg
from xjit.lax import linalg  # noqa: E402,F401
from xjit._src.lax.extras import (  # noqa: E402,F401
    ConvGeneralDilatedDimensionNumbers, DotAlgorithmPreset, DotDimensionNumbers, Precision,
    PrecisionLike, approx_max_k, approx_min_k, batch_matmul, bessel_i0e, bessel_i1e,
    broadcast_shapes, broadcast_to_rank, collapse, empty, index_take, nextafter,
    platform_dependent, reduce_xor, split, tile, unstack)
