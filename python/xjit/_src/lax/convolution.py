"""Convolutions in ``xjit.lax`` under JAX's names and signatures:
``conv_general_dilated`` (and ``conv``, ``conv_with_general_padding``,
``conv_transpose``), ``conv_dimension_numbers``, ``ConvDimensionNumbers`` and
``padtype_to_pads``, on the StableHLO ``convolution`` op.

``dimension_numbers`` is ``None`` (NCHW/OIHW/NCHW), a triple of layout strings
such as ``("NHWC", "HWIO", "NHWC")`` or a ``ConvDimensionNumbers`` of
permutations. ``precision`` is accepted and ignored (the CPU computes at full
precision, which every setting allows); ``preferred_element_type`` converts
the operands first, as ``dot_general`` does.

Example:
    >>> x = np.ones((1, 1, 4, 4), np.float32); k = np.ones((1, 1, 3, 3), np.float32)
    >>> lax.conv(x, k, (1, 1), "VALID").shape
    (1, 1, 2, 2)
"""
from __future__ import annotations

import operator
from typing import NamedTuple, Sequence

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import operands as ops
from xjit._src.lax.elementwise import convert_element_type
from xjit._src.traceback_util import api_boundary


class ConvDimensionNumbers(NamedTuple):
    """Dimension indices of a convolution: ``lhs_spec`` = (batch, feature,
    spatial...), ``rhs_spec`` = (out feature, in feature, spatial...),
    ``out_spec`` = (batch, feature, spatial...), as in JAX."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


def conv_general_permutations(dimension_numbers):
    """Layout strings ("NCHW", "OIHW", "NCHW") -> permutation triples (JAX)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - set(charpairs[0]) == set(rhs_spec) - set(charpairs[1])
            == set(out_spec) - set(charpairs[2])):
        raise TypeError(f"convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")

    def getperm(spec, charpair):
        spatial = [i for i, c in enumerate(spec) if c not in charpair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(charpair[0]), spec.index(charpair[1])) + tuple(spatial)

    return tuple(getperm(s, c) for s, c in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``ConvDimensionNumbers`` from ``None``, layout strings or itself (JAX)."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, (list, tuple)):
        if len(dimension_numbers) != 3:
            raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                            f"{len(dimension_numbers)}.")
        if not all(isinstance(elt, str) for elt in dimension_numbers):
            raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                            f"{tuple(map(type, dimension_numbers))}.")
        for i, elt in enumerate(dimension_numbers):
            if len(elt) != len(lhs_shape):
                raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to "
                                f"the ndim of lhs and rhs, got {len(elt)} for lhs and rhs "
                                f"shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}.")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                    f"{type(dimension_numbers)}.")


def _ceil_divide(a, b):
    return -np.floor_divide(np.negative(a), b)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(low, high) pairs for "SAME"/"SAME_LOWER"/"VALID" padding (JAX)."""
    if isinstance(padding, str):
        mapping = {"VALID": "VALID", "SAME": "SAME", "SAME_LOWER": "SAME_LOWER"}
        try:
            padding = mapping[padding.upper()]
        except KeyError:
            raise RuntimeError(f"Unrecognized padding type: expected 'VALID' or 'SAME', got "
                               f"{padding}.") from None
    in_shape = np.asarray(in_shape, np.int64)
    window_shape = np.asarray(window_shape, np.int64)
    window_strides = np.asarray(window_strides, np.int64)
    if padding in ("SAME", "SAME_LOWER"):
        out_shape = _ceil_divide(in_shape, window_strides)
        pad_sizes = [max(int(d), 0) for d in
                     (out_shape - 1) * window_strides + window_shape - in_shape]
        if padding == "SAME":
            return [(p // 2, p - p // 2) for p in pad_sizes]
        return [(p - p // 2, p // 2) for p in pad_sizes]
    if padding == "VALID":
        return [(0, 0)] * len(in_shape)
    raise TypeError(f"Unknown padding type: {padding}.")


def _dilate_dim(d: int, dilation: int) -> int:
    return 0 if d == 0 else 1 + dilation * (d - 1)


def _int_tuple(name: str, what: str, values, n: int) -> tuple:
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of integers, got {values!r}") from None
    if len(out) != n:
        raise ValueError(f"{name}: {what} must have {n} entries (one per spatial dimension), "
                         f"got {out}")
    return out


_PRECISIONS = (None, "DEFAULT", "HIGH", "HIGHEST", "default", "high", "highest",
               "bfloat16", "tensorfloat32", "float32", "fastest")


def _check_precision(name: str, precision) -> None:
    ps = precision if isinstance(precision, (tuple, list)) else (precision,)
    if len(ps) > 2:
        raise ValueError(f"{name}: precision must be None, one Precision or a pair, got "
                         f"{precision!r}")
    for p in ps:
        if p is None or p in _PRECISIONS:
            continue
        if type(p).__name__ == "Precision" or str(p).split(".")[-1].upper() in (
                "DEFAULT", "HIGH", "HIGHEST"):
            continue
        raise ValueError(f"{name}: unknown precision {p!r}")


@api_boundary
def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None):
    """General n-d convolution with dilations, padding and groups (JAX's API).

    Example:
        >>> x = np.ones((1, 5, 5, 2), np.float32); k = np.ones((3, 3, 2, 4), np.float32)
        >>> lax.conv_general_dilated(x, k, (1, 1), "SAME",
        ...                          dimension_numbers=("NHWC", "HWIO", "NHWC")).shape
        (1, 5, 5, 4)
    """
    name = "conv_general_dilated"
    ops.check_arraylike(name, lhs, rhs)
    _check_precision(name, precision)
    lshape, rshape = ops.shape_of(lhs), ops.shape_of(rhs)
    dnums = conv_dimension_numbers(lshape, rshape, dimension_numbers)
    nd = len(lshape)
    if nd < 2:
        raise TypeError(f"{name}: operands must have rank >= 2, got shapes {lshape} and {rshape}")
    for spec, what in ((dnums.lhs_spec, "lhs_spec"), (dnums.rhs_spec, "rhs_spec"),
                       (dnums.out_spec, "out_spec")):
        if sorted(int(d) for d in spec) != list(range(nd)):
            raise TypeError(f"{name}: dimension_numbers.{what} must be a permutation of "
                            f"range({nd}), got {tuple(spec)}")
    ns = nd - 2
    window_strides = _int_tuple(name, "window_strides", window_strides, ns)
    lhs_dilation = (1,) * ns if lhs_dilation is None else _int_tuple(
        name, "lhs_dilation", lhs_dilation, ns)
    rhs_dilation = (1,) * ns if rhs_dilation is None else _int_tuple(
        name, "rhs_dilation", rhs_dilation, ns)
    for what, vals in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                       ("rhs_dilation", rhs_dilation)):
        if any(v <= 0 for v in vals):
            raise ValueError(f"{name}: {what} must be positive, got {vals}")
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError("String padding is not implemented for transposed convolution "
                             "using this op. Please either exactly specify the required "
                             "padding or use conv_transpose.")
        in_sp = [lshape[i] for i in dnums.lhs_spec[2:]]
        k_sp = [_dilate_dim(rshape[i], r) for i, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(in_sp, k_sp, window_strides, padding)
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
        raise ValueError(f"padding argument to conv_general_dilated should be a string or a "
                         f"sequence of (low, high) pairs, got {padding}") from e
    if len(padding) != ns:
        raise ValueError(f"{name}: padding must have {ns} (low, high) pairs, got {padding}")
    fgc, bgc = operator.index(feature_group_count), operator.index(batch_group_count)
    if fgc <= 0:
        raise ValueError(f"{name}: feature_group_count must be a positive integer, got {fgc}")
    if bgc <= 0:
        raise ValueError(f"{name}: batch_group_count must be a positive integer, got {bgc}")
    if fgc > 1 and bgc > 1:
        raise ValueError(f"At most one of batch_group_count and feature_group_count may be > 1, "
                         f"got batch_group_count={bgc} and feature_group_count={fgc}")
    lf, lb = lshape[dnums.lhs_spec[1]], lshape[dnums.lhs_spec[0]]
    ko, ki = rshape[dnums.rhs_spec[0]], rshape[dnums.rhs_spec[1]]
    if lf % fgc:
        raise ValueError(f"conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {fgc} does not divide {lf}.")
    if lf // fgc != ki:
        raise ValueError(f"conv_general_dilated lhs feature dimension size divided by "
                         f"feature_group_count must equal the rhs input feature dimension "
                         f"size, but {lf} // {fgc} != {ki}.")
    if ko % fgc:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {ko} is not a multiple of "
                         f"{fgc}.")
    if lb % bgc:
        raise ValueError(f"conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {bgc} does not divide {lb}.")
    if ko % bgc:
        raise ValueError(f"conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {ko} is not a multiple of {bgc}.")
    if preferred_element_type is not None:
        pet = dispatch.canonicalize_dtype(preferred_element_type)
        if ops.dtype_of(lhs) != pet:
            lhs = convert_element_type(lhs, pet)
        if ops.dtype_of(rhs) != pet:
            rhs = convert_element_type(rhs, pet)
    dt = ops.resolve_dtypes(name, (lhs, rhs))
    ops.check_dtype(name, dt, "biufc", "bool, integer, floating, complexfloating")
    attrs = {
        "window_strides": window_strides,
        "padding": padding,
        "lhs_dilation": lhs_dilation,
        "rhs_dilation": rhs_dilation,
        "input_batch_dimension": int(dnums.lhs_spec[0]),
        "input_feature_dimension": int(dnums.lhs_spec[1]),
        "input_spatial_dimensions": tuple(int(d) for d in dnums.lhs_spec[2:]),
        "kernel_output_feature_dimension": int(dnums.rhs_spec[0]),
        "kernel_input_feature_dimension": int(dnums.rhs_spec[1]),
        "kernel_spatial_dimensions": tuple(int(d) for d in dnums.rhs_spec[2:]),
        "output_batch_dimension": int(dnums.out_spec[0]),
        "output_feature_dimension": int(dnums.out_spec[1]),
        "output_spatial_dimensions": tuple(int(d) for d in dnums.out_spec[2:]),
        "feature_group_count": fgc,
        "batch_group_count": bgc,
    }
    if ns == 0:
        del attrs["padding"]
    weak = ops.is_weak(lhs) and ops.is_weak(rhs)
    return dispatch.bind("convolution", [ops.as_operand(lhs, dt), ops.as_operand(rhs, dt)],
                         attrs, weak_type=weak)


@api_boundary
def conv(lhs, rhs, window_strides: Sequence[int], padding, precision=None,
         preferred_element_type=None):
    """NCHW/OIHW convolution (JAX's ``lax.conv``)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


@api_boundary
def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """NCHW/OIHW convolution with explicit padding and dilations (JAX)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding: str):
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    else:
        raise ValueError("Padding mode must be `SAME` or `VALID`.")
    return pad_a, pad_len - pad_a


@api_boundary
def conv_transpose(lhs, rhs, strides: Sequence[int], padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None,
                   preferred_element_type=None):
    """Transposed convolution: a convolution with the lhs dilated by ``strides``
    (JAX's ``lax.conv_transpose``; default layouts NHWC/HWIO/NHWC)."""
    ops.check_arraylike("conv_transpose", lhs, rhs)
    lshape, rshape = ops.shape_of(lhs), ops.shape_of(rhs)
    ndims = len(lshape)
    if ndims != len(rshape) or ndims < 2:
        raise TypeError(f"conv_transpose: lhs and rhs must have the same rank >= 2, got "
                        f"{lshape} and {rshape}")
    one = (1,) * (ndims - 2)
    if dimension_numbers is None:
        defaults = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                    4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}
        if ndims not in defaults:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = conv_dimension_numbers(lshape, rshape, dimension_numbers)
    k_sdims = [rshape[i] for i in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = one
    strides = _int_tuple("conv_transpose", "strides", strides, ndims - 2)
    eff = [_dilate_dim(k, r) for k, r in zip(k_sdims, rhs_dilation)]
    if isinstance(padding, str):
        pads = [_conv_transpose_padding(k, s, padding) for k, s in zip(eff, strides)]
    else:
        pads = padding
    if transpose_kernel:
        from xjit._src.lax import shapes
        rhs = shapes.rev(rhs, tuple(int(d) for d in dn.rhs_spec[2:]))
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = shapes.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, one, pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
