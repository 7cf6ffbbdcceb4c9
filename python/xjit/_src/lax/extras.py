"""lax functions and types composed of the core ops, under JAX's names:
``Precision`` and ``DotAlgorithmPreset`` (accepted wherever a precision
goes; the CPU computes at full precision, which every setting allows),
``DotDimensionNumbers``/``ConvGeneralDilatedDimensionNumbers``,
``batch_matmul``, ``broadcast_shapes``, ``broadcast_to_rank``, ``collapse``,
``split``, ``tile``, ``unstack``, ``empty``, ``index_take``,
``approx_max_k``/``approx_min_k`` (exact: top_k), ``reduce_xor``,
``nextafter``, ``bessel_i0e``/``bessel_i1e``, ``platform_dependent``.

Example:
    >>> lax.split(jnp.arange(6), (2, 4))
    [Array([0, 1], dtype=int32), Array([2, 3, 4, 5], dtype=int32)]
"""
from __future__ import annotations

import enum
import operator
from typing import Any, Sequence

import numpy as np

from xjit._src.lax import elementwise as ew
from xjit._src.lax import reductions, shapes, sorting
from xjit._src.lax.convolution import ConvDimensionNumbers
from xjit._src.lax.linalg import dot_general
from xjit._src.numpy import util
from xjit._src.traceback_util import api_boundary


class Precision(enum.Enum):
    """Dot/convolution precision (``lax.Precision.HIGHEST`` ...); xjit's CPU
    computes in the operands' full precision under every setting."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        names = {"bfloat16": "DEFAULT", "tensorfloat32": "HIGH", "float32": "HIGHEST",
                 "fastest": "DEFAULT", "high": "HIGH", "highest": "HIGHEST",
                 "default": "DEFAULT"}
        if isinstance(value, str) and value.lower() in names:
            return cls[names[value.lower()]]
        return None

    def __str__(self) -> str:
        return self.name


class DotAlgorithmPreset(enum.Enum):
    """Dot algorithm presets (accepted as a precision, computed at full precision)."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()


PrecisionLike = Any
DotDimensionNumbers = tuple  # ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
ConvGeneralDilatedDimensionNumbers = ConvDimensionNumbers


@api_boundary
def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the leading (batch) dims: ``[..., m, k] @ [..., k, n]``."""
    util.check_arraylike("batch_matmul", lhs, rhs)
    nd = util.ndim_of(lhs)
    if nd < 2 or nd != util.ndim_of(rhs):
        raise ValueError(f"batch_matmul requires arguments of equal rank >= 2, got "
                         f"{util.shape_of(lhs)} and {util.shape_of(rhs)}")
    batch = tuple(range(nd - 2))
    return dot_general(lhs, rhs, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=precision)


def broadcast_shapes(*shapes_):
    """The shape the given shapes broadcast to (numpy's rules)."""
    return util.broadcast_shapes(*(tuple(operator.index(d) for d in s) for s in shapes_))


@api_boundary
def broadcast_to_rank(x, rank: int):
    """``x`` with leading dims of 1 added up to ``rank``."""
    nd = util.ndim_of(x)
    if nd >= rank:
        return x
    return shapes.broadcast(x, (1,) * (rank - nd))


@api_boundary
def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """``operand`` with dims ``[start, stop)`` merged into one."""
    shape = util.shape_of(operand)
    nd = len(shape)
    start = util.canonicalize_axis(start_dimension, nd)
    stop = nd if stop_dimension is None else (stop_dimension + nd if stop_dimension < 0
                                              else stop_dimension)
    if not start <= stop <= nd:
        raise ValueError(f"collapse: invalid dimensions [{start_dimension}, {stop_dimension}) "
                         f"for shape {shape}")
    size = int(np.prod(shape[start:stop], dtype=np.int64))
    return shapes.reshape(operand, shape[:start] + (size,) + shape[stop:])


@api_boundary
def split(operand, sizes: Sequence[int], axis: int = 0):
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (summing to the dim)."""
    shape = util.shape_of(operand)
    axis = util.canonicalize_axis(axis, len(shape))
    sizes = [operator.index(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
        raise ValueError(f"split: sizes must be >= 0 and sum to the dimension size "
                         f"{shape[axis]}, got {sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(shapes.slice_in_dim(operand, start, start + s, axis=axis))
        start += s
    return out


@api_boundary
def tile(operand, reps: Sequence[int]):
    """``operand`` repeated ``reps[i]`` times along dim i (``len(reps)`` >= its rank)."""
    shape = util.shape_of(operand)
    reps = tuple(operator.index(r) for r in reps)
    if len(reps) < len(shape):
        raise ValueError(f"tile: reps {reps} has fewer entries than the operand's rank")
    x = broadcast_to_rank(operand, len(reps))
    shape = util.shape_of(x)
    # [d0..] -> [r0, d0, r1, d1, ...] -> [r0*d0, ...]
    inter = tuple(v for pair in zip(reps, shape) for v in pair)
    dims = tuple(2 * i + 1 for i in range(len(shape)))
    x = shapes.broadcast_in_dim(x, inter, dims)
    return shapes.reshape(x, tuple(r * d for r, d in zip(reps, shape)))


@api_boundary
def unstack(operand, axis: int = 0):
    """The slices of ``operand`` along ``axis`` (that dim removed)."""
    shape = util.shape_of(operand)
    axis = util.canonicalize_axis(axis, len(shape))
    return [shapes.index_in_dim(operand, i, axis, keepdims=False) for i in range(shape[axis])]


@api_boundary
def empty(dtype):
    """A scalar of ``dtype`` whose value is unspecified (zero here)."""
    return shapes.full((), 0, np.dtype(dtype))


@api_boundary
def index_take(src, idxs, axes):
    """``src[idx_0, idx_1, ...]`` with index arrays ``idxs`` on ``axes`` (the
    remaining dims kept after the index dims)."""
    from xjit._src.numpy.namespace import jnp
    idx = [slice(None)] * util.ndim_of(src)
    for i, a in zip(idxs, axes):
        idx[a] = i
    return jnp.asarray(src)[tuple(idx)]


def _top(name, operand, k, reduction_dimension, largest):
    shape = util.shape_of(operand)
    if reduction_dimension not in (-1, len(shape) - 1):
        raise NotImplementedError(f"{name}: only the last dimension is supported by xjit")
    x = operand if largest else ew.neg(operand)
    values, indices = sorting.top_k(x, k)
    return (values if largest else ew.neg(values)), indices


@api_boundary
def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` largest values and their indices along the last dim (exact on CPU, as JAX's)."""
    return _top("approx_max_k", operand, k, reduction_dimension, True)


@api_boundary
def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` smallest values and their indices along the last dim (exact on CPU)."""
    return _top("approx_min_k", operand, k, reduction_dimension, False)


@api_boundary
def reduce_xor(operand, axes: Sequence[int]):
    """Bitwise xor over ``axes`` of a boolean or integer array."""
    from xjit._src.lax.reductions import reduce
    dt = np.dtype(util.dtype_of(operand))
    if dt.kind not in "biu":
        raise TypeError(f"reduce_xor requires a boolean or integer operand, got {dt}")
    return reduce(operand, np.zeros((), dt), ew.bitwise_xor, tuple(axes))


@api_boundary
def nextafter(x1, x2):
    """The float after ``x1`` toward ``x2``, element-wise (operands of one float dtype)."""
    from xjit._src.numpy.math_extras import nextafter as np_nextafter
    if util.dtype_of(x1) != util.dtype_of(x2):
        raise TypeError("lax.nextafter requires arguments to have the same dtypes, got "
                        f"{util.dtype_of(x1)}, {util.dtype_of(x2)}.")
    return np_nextafter(x1, x2)


@api_boundary
def bessel_i0e(x):
    """``exp(-|x|) I0(x)`` of a float array."""
    from xjit._src.scipy.gamma_family import i0e
    return i0e(x)


@api_boundary
def bessel_i1e(x):
    """``exp(-|x|) I1(x)`` of a float array."""
    from xjit._src.scipy.gamma_family import i1e
    return i1e(x)


def platform_dependent(*args, default=None, **per_platform):
    """The branch for the platform the computation runs on (the default
    device's; ``cpu`` here unless another is the default), else ``default``."""
    from xjit._src.dispatch import default_backend
    fn = per_platform.get(default_backend(), default)
    if fn is None:
        raise NotImplementedError(f"platform_dependent: no branch for {default_backend()!r} "
                                  f"and no default")
    return fn(*args)
