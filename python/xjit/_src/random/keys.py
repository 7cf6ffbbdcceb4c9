"""PRNG keys: legacy ``uint32[2]`` keys (``PRNGKey``) and typed key arrays
(``key``), with JAX's names, checks and error messages.

A typed key array is a ``KeyArray`` over its ``uint32[..., 2]`` key data: a
pytree node whose one leaf is that data, so it passes in and out of ``jit``,
and whose ``dtype`` prints as ``key<fry>``.

Example:
    >>> k = key(0)
    >>> k
    Array((), dtype=key<fry>) overlaying:
    [0 0]
"""
from __future__ import annotations

import numpy as np

from xjit import _xjit
from xjit._src import config as config_mod
from xjit._src import core, dispatch
from xjit._src.lax import operands as ops
from xjit._src.lax import shapes
from xjit._src.random import threefry
from xjit._src.traceback_util import api_boundary

Array = _xjit.Array
_U32 = np.dtype("uint32")


class PRNGImpl:
    """A PRNG implementation; only threefry2x32 exists (JAX's default)."""

    def __init__(self, name: str, tag: str, key_shape: tuple):
        self.name, self.tag, self.key_shape = name, tag, key_shape

    def __repr__(self) -> str:
        return f"PRNGImpl({self.name!r})"

    def __str__(self) -> str:
        return self.tag


THREEFRY = PRNGImpl("threefry2x32", "fry", (2,))
PRNGS = {THREEFRY.name: THREEFRY}


class KeyDType:
    """The element type of typed key arrays: ``key<fry>``."""

    def __init__(self, impl: PRNGImpl):
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    itemsize = 8

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyDType) and other._impl is self._impl

    def __hash__(self) -> int:
        return hash(("key", self._impl.name))


class PRNGSpec:
    """What ``key_impl`` returns for an implementation outside the registry."""

    def __init__(self, impl):
        self._impl = impl

    def __repr__(self) -> str:
        return f"PRNGSpec({self._impl.name!r})"


class KeyArray:
    """An array of typed PRNG keys over key data ``uint32[*shape, 2]``."""

    __slots__ = ("_base", "_impl")
    __array_priority__ = 100

    def __init__(self, base, impl: PRNGImpl = THREEFRY):
        self._base = base
        self._impl = impl

    @property
    def shape(self) -> tuple:
        return tuple(self._base.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self) -> KeyDType:
        return KeyDType(self._impl)

    @property
    def itemsize(self) -> int:
        return 8

    @property
    def nbytes(self) -> int:
        return 8 * self.size

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx) -> "KeyArray":
        idx = idx if isinstance(idx, tuple) else (idx,)
        if any(i is Ellipsis for i in idx):
            pos = next(k for k, i in enumerate(idx) if i is Ellipsis)
            used = sum(1 for i in idx if i is not None and i is not Ellipsis)
            idx = idx[:pos] + (slice(None),) * (self.ndim - used) + idx[pos + 1:]
        used = sum(1 for i in idx if i is not None)
        if used > self.ndim:
            raise IndexError(f"Too many indices for key array of shape {self.shape}: {idx}")
        idx = idx + (slice(None),) * (self.ndim - used) + (slice(None),)
        return KeyArray(self._base[idx], self._impl)

    def reshape(self, *shape, order="C") -> "KeyArray":
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        new = tuple(np.empty(self.shape, dtype=np.bool_).reshape(shape).shape)
        return KeyArray(self._base.reshape(new + (2,)), self._impl)

    def ravel(self) -> "KeyArray":
        return self.reshape(-1)

    flatten = ravel

    def squeeze(self, axis=None) -> "KeyArray":
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        axis = tuple(a % max(self.ndim, 1) for a in axis)
        return KeyArray(shapes.squeeze(self._base, axis), self._impl)

    @property
    def T(self) -> "KeyArray":
        perm = tuple(reversed(range(self.ndim))) + (self.ndim,)
        return KeyArray(shapes.transpose(self._base, perm), self._impl)

    def block_until_ready(self) -> "KeyArray":
        if hasattr(self._base, "block_until_ready"):
            self._base.block_until_ready()
        return self

    def copy(self) -> "KeyArray":
        return KeyArray(self._base, self._impl)

    def __eq__(self, other):
        from xjit._src.lax import elementwise as ew
        from xjit._src.lax import reductions
        if not isinstance(other, KeyArray):
            return NotImplemented
        return reductions.reduce_and(ew.eq(self._base, other._base), (self._base.ndim - 1,)) \
            if self.shape == other.shape else _broadcast_eq(self, other)

    def __ne__(self, other):
        from xjit._src.lax import elementwise as ew
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ew.bitwise_not(eq)

    __hash__ = None

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("JAX array with PRNGKey dtype cannot be converted to a NumPy array. "
                        "Use jax.random.key_data(arr) if you wish to extract the underlying "
                        "integer array.")

    def __repr__(self) -> str:
        return f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n{self._base}"


def _broadcast_eq(a: KeyArray, b: KeyArray):
    from xjit._src.lax import elementwise as ew
    from xjit._src.lax import reductions
    shape = np.broadcast_shapes(a.shape, b.shape) + (2,)
    x, y = threefry.broadcast_to(a._base, shape), threefry.broadcast_to(b._base, shape)
    return reductions.reduce_and(ew.eq(x, y), (len(shape) - 1,))


_xjit.register_pytree_node(KeyArray, lambda k: ((k._base,), k._impl),
                           lambda impl, children: KeyArray(children[0], impl))


def _is_arraylike(x) -> bool:
    return isinstance(x, (Array, core.Tracer, np.ndarray, np.generic, bool, int, float, complex))


def _as_array(x):
    """An xjit value (Array/Tracer) for ``x``."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    from xjit._src.numpy import creation
    return creation.asarray(x)


def check_key_data(data) -> None:
    """JAX's checks of raw key data (``random_wrap``)."""
    if data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={data.ndim}")
    if tuple(data.shape[-1:]) != THREEFRY.key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with {THREEFRY.key_shape}; got shape={tuple(data.shape)} for "
                        f"impl={THREEFRY!r}")
    if np.dtype(data.dtype) != _U32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32;"
                        f" got dtype={np.dtype(data.dtype)}")


def check_prng_key(name: str, key, *, allow_batched: bool = False):
    """(key data ``uint32[..., 2]``, whether ``key`` was typed)."""
    if isinstance(key, KeyArray):
        data, typed = key._base, True
    elif _is_arraylike(key):
        data = _as_array(key)
        check_key_data(data)
        typed = False
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if not allow_batched and data.ndim > 1:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{tuple(data.shape[:-1])} != (). Use jax.vmap for batching.")
    return data, typed


def return_keys(typed: bool, data):
    return KeyArray(data) if typed else data


def resolve_impl(impl) -> PRNGImpl:
    if impl is None:
        return THREEFRY
    if isinstance(impl, PRNGImpl):
        return impl
    if isinstance(impl, KeyDType):
        return impl._impl
    if isinstance(impl, PRNGSpec):
        return impl._impl
    if isinstance(impl, str):
        if impl in PRNGS:
            return PRNGS[impl]
        names = ", ".join(f'"{s}"' for s in PRNGS)
        raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
                         f"{names}?")
    raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")


def _seed_data(ctor_name: str, seed):
    if isinstance(seed, KeyArray):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, bool) or (not isinstance(seed, (Array, core.Tracer))
                                  and not isinstance(seed, (int, np.integer, np.ndarray))):
        if not _is_arraylike(seed):
            raise TypeError(f"Value {seed!r} with dtype {np.asarray(seed).dtype} is not a valid "
                            f"JAX array type. Only arrays of numeric types are supported by JAX.")
    if isinstance(seed, int) and not isinstance(seed, bool):
        # JAX: Python ints become int64, then the default int type (wrapping).
        s = np.int64(seed) if -(1 << 63) <= seed < (1 << 63) else None
        if s is None:
            raise OverflowError(f"Python int {seed} too large to convert to int64")
        seed = s if config_mod.x64_enabled() else s.astype(np.int32)
    value = _as_array(seed)
    if not np.issubdtype(np.dtype(value.dtype), np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {value!r}")
    return threefry.seed(value)


@api_boundary
def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (``key<fry>``) from an integer seed: ``random.key(0)``."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return KeyArray(_seed_data("key", seed), resolve_impl(impl))


@api_boundary
def PRNGKey(seed, *, impl=None):
    """A legacy ``uint32[2]`` key from an integer seed: ``random.PRNGKey(0)``."""
    resolve_impl(impl)
    return _seed_data("PRNGKey", seed)


@api_boundary
def key_data(keys):
    """The ``uint32[..., 2]`` data under typed (or legacy) keys."""
    data, _ = check_prng_key("key_data", keys, allow_batched=True)
    return data


@api_boundary
def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys over ``uint32[..., 2]`` data: ``wrap_key_data(key_data(k))``."""
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to "
                             "jax.random.wrap_key_data")
        impl = dtype
    impl = resolve_impl(impl)
    if isinstance(key_bits_array, KeyArray):
        raise TypeError("wrap_key_data: key_bits_array must be uint32 key data, got a key array")
    data = _as_array(key_bits_array)
    check_key_data(data)
    return KeyArray(data, impl)


@api_boundary
def key_impl(keys):
    """The name of the implementation of ``keys``: ``'threefry2x32'``."""
    check_prng_key("key_impl", keys, allow_batched=True)
    impl = keys._impl if isinstance(keys, KeyArray) else THREEFRY
    return impl.name


@api_boundary
def key_dtype(impl=None) -> KeyDType:
    return KeyDType(resolve_impl(impl))
