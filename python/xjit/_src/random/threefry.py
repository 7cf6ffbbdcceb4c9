"""The threefry2x32 generator as JAX runs it (``jax_threefry_partitionable=True``):
seeding, splitting, folding in and random bits on raw ``uint32[..., 2]`` key data.

The hash is written on whole uint32 arrays (add, xor, shifts, or), so the
element-wise fusion pass turns its 20 rounds into one loop.

Example:
    >>> random_bits(np.zeros(2, np.uint32), 32, (3,)).shape
    (3,)
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import elementwise as ew
from xjit._src.lax import shapes

_U32 = np.dtype("uint32")
UINT_DTYPES = {8: np.dtype("uint8"), 16: np.dtype("uint16"), 32: np.dtype("uint32"),
               64: np.dtype("uint64")}
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def broadcast_to(x, shape):
    """``x`` broadcast numpy-style to ``shape`` (leading axes added, size-1 axes stretched)."""
    shape = tuple(shape)
    xs = tuple(np.shape(x))
    if xs == shape and not isinstance(x, (np.ndarray, np.generic)):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return np.broadcast_to(x, shape)
    return shapes.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(xs), len(shape))))


def _u32(v):
    return np.uint32(v)


def _rotate_left(x, d: int):
    return ew.bitwise_or(ew.shift_left(x, _u32(d)), ew.shift_right_logical(x, _u32(32 - d)))


def threefry2x32(k1, k2, x1, x2):
    """Threefry2x32 (20 rounds) of counters ``(x1, x2)`` under key ``(k1, k2)``;
    all uint32 and broadcast together. Returns the two hashed words."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in (k1, k2, x1, x2)))
    # Scalars stay scalars (read in place by the fused loop); arrays are broadcast.
    k1, k2, x1, x2 = (a if np.ndim(a) == 0 else broadcast_to(a, shape) for a in (k1, k2, x1, x2))
    ks = (k1, k2, ew.bitwise_xor(ew.bitwise_xor(k1, k2), _u32(0x1BD11BDA)))
    x = [ew.add(x1, ks[0]), ew.add(x2, ks[1])]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x[0] = ew.add(x[0], x[1])
            x[1] = ew.bitwise_xor(x[0], _rotate_left(x[1], r))
        x[0] = ew.add(x[0], ks[(i + 1) % 3])
        x[1] = ew.add(ew.add(x[1], ks[(i + 2) % 3]), _u32(i + 1))
    return x[0], x[1]


def iota_2x32_shape(shape: tuple):
    """The row-major index of each element of ``shape`` as (high, low) uint32 words."""
    n = math.prod(shape)
    if len(shape) == 0:
        z = np.zeros((), _U32)
        return z, z
    if n >= 1 << 32:
        raise NotImplementedError(f"random bits for more than 2**32 elements (shape {shape})")
    lo = shapes.reshape(shapes.iota(_U32, n), shape)
    return np.zeros((), _U32), lo


def key_words(keys):
    """``(k1, k2)``: the two words of key data ``uint32[..., 2]`` as arrays of its batch shape."""
    batch = tuple(keys.shape[:-1])
    nd = len(batch)
    k1 = shapes.reshape(shapes.slice_in_dim(keys, 0, 1, axis=nd), batch)
    k2 = shapes.reshape(shapes.slice_in_dim(keys, 1, 2, axis=nd), batch)
    return k1, k2


def _hash_counts(keys, shape):
    """threefry of the iota counters of ``shape`` under each key of ``keys`` ([..., 2]):
    results of shape ``keys.shape[:-1] + shape``."""
    k1, k2 = key_words(keys)
    nb = len(keys.shape) - 1
    if nb:
        k1 = shapes.expand_dims(k1, tuple(range(nb, nb + len(shape))))
        k2 = shapes.expand_dims(k2, tuple(range(nb, nb + len(shape))))
    hi, lo = iota_2x32_shape(shape)
    out_shape = tuple(keys.shape[:-1]) + tuple(shape)
    return threefry2x32(k1, k2, hi, broadcast_to(lo, out_shape))


def seed(seed_value):
    """Key data ``uint32[2]`` of an integer seed array: (high 32 bits, low 32 bits)."""
    lo = ew.convert_element_type(seed_value, _U32)
    if np.dtype(seed_value.dtype).itemsize == 8:
        hi = ew.convert_element_type(
            ew.shift_right_logical(seed_value, np.dtype(seed_value.dtype).type(32)), _U32)
    else:
        hi = np.zeros((), _U32)
    return shapes.concatenate([shapes.broadcast_in_dim(hi, (1,), ()),
                               shapes.reshape(lo, (1,))], 0)


def split(keys, shape: tuple):
    """``shape`` new keys per key (the foldlike split): ``keys.shape[:-1] + shape + (2,)``."""
    b1, b2 = _hash_counts(keys, shape)
    nd = len(b1.shape)
    return shapes.concatenate([shapes.expand_dims(b1, (nd,)), shapes.expand_dims(b2, (nd,))], nd)


def fold_in(keys, data):
    """threefry of the counter pair (0, data) under each key: new key data."""
    k1, k2 = key_words(keys)
    data = ew.convert_element_type(data, _U32)
    shape = np.broadcast_shapes(tuple(k1.shape), tuple(np.shape(data)))
    o1, o2 = threefry2x32(k1, k2, np.zeros((), _U32), data)
    nd = len(shape)
    return shapes.concatenate([shapes.expand_dims(o1, (nd,)), shapes.expand_dims(o2, (nd,))], nd)


def random_bits(keys, bit_width: int, shape: tuple):
    """Uniform bits ``uint<bit_width>[keys.shape[:-1] + shape]``."""
    if bit_width not in UINT_DTYPES:
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    b1, b2 = _hash_counts(keys, tuple(shape))
    dtype = UINT_DTYPES[bit_width]
    if bit_width == 64:
        hi = dispatch.bind("convert", [b1], {"dtype": "uint64"})
        lo = dispatch.bind("convert", [b2], {"dtype": "uint64"})
        return ew.bitwise_or(ew.shift_left(hi, np.uint64(32)), lo)
    bits = ew.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else ew.convert_element_type(bits, dtype)
