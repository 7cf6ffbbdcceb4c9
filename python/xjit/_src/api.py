"""The public transformations and device API: jit, device_put, devices.

``jit`` wraps a function in ``_xjit.JitFunction``: flattening, the cache
lookup and execution happen in C++; Python runs (``_cache_miss``) only for a
new signature. ``_PyJitFunction`` implements the same contract in Python; it is
used when the C++ class is unavailable and documents the semantics.

Example:
    >>> import xjit, xjit.numpy as jnp
    >>> f = xjit.jit(lambda x, y: x + 2 * y)
    >>> f(jnp.ones(3), 1.0)
    Array([3., 3., 3.], dtype=float32)
"""
from __future__ import annotations

import collections
import contextlib
import functools
import weakref
import inspect
from typing import Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch, tracing
from xjit._src.config import config, x64_enabled
from xjit._src.traceback_util import api_boundary

Array = _xjit.Array
default_backend = dispatch.default_backend
default_device = dispatch.default_device
_PY_SCALARS = (bool, int, float, complex)


# ------------------------------------------------------------------------ devices

def devices(backend: str | None = None) -> list:
    """The devices of ``backend`` ("cpu" by default; "reference" is the evaluator).

    Example:
        >>> devices()
        [CpuDevice(id=0)]
    """
    return list(dispatch.devices_for(backend or default_backend()))


local_devices = devices


def device_count(backend: str | None = None) -> int:
    """Number of devices of ``backend``.

    Example:
        >>> device_count()
        1
    """
    return len(devices(backend))


def _put_leaf(x, device):
    if isinstance(x, Array):
        # The array itself when already there; a deleted one raises.
        return _xjit.device_put(x, device, x.weak_type)
    if isinstance(x, core.Tracer):
        return x
    weak = isinstance(x, _PY_SCALARS) and not isinstance(x, bool)
    return _xjit.device_put(dispatch.to_numpy_operand(x), device, weak)


def device_put(x, device=None):
    """Copy ``x`` (an array, scalar or pytree of them) to ``device``.

    Python scalars become weakly typed arrays; numpy arrays are canonicalized
    to 32 bits unless x64 is enabled.

    Example:
        >>> device_put(np.arange(3))
        Array([0, 1, 2], dtype=int32)
    """
    device = default_device() if device is None else device
    leaves, treedef = _xjit.tree_flatten(x)
    return treedef.unflatten([_put_leaf(leaf, device) for leaf in leaves])


# ---------------------------------------------------------------- static arguments

def _normalize_statics(fun, static_argnums, static_argnames):
    """(static_argnums, static_argnames) completed from each other via the signature."""
    if static_argnums is None:
        nums = ()
    elif isinstance(static_argnums, int):
        nums = (static_argnums,)
    else:
        nums = tuple(static_argnums)
    if static_argnames is None:
        names = ()
    elif isinstance(static_argnames, str):
        names = (static_argnames,)
    else:
        names = tuple(static_argnames)
    try:
        signature = inspect.signature(fun)
    except (TypeError, ValueError):
        return tuple(sorted(set(nums))), names
    _validate_argnums(signature, nums, "static_argnums")
    _validate_argnames(signature, names, "static_argnames")
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = tuple(i + len(positional) if i < 0 and positional else i for i in nums)
    extra_names = [positional[i].name for i in nums if 0 <= i < len(positional)
                   and positional[i].kind != inspect.Parameter.POSITIONAL_ONLY]
    extra_nums = [i for i, p in enumerate(positional) if p.name in names]
    nums = tuple(sorted(set(nums) | set(extra_nums)))
    names = tuple(dict.fromkeys(list(names) + extra_names))
    return nums, names


def _validate_argnums(signature, nums: tuple, what: str) -> None:
    """JAX's check: every argnum names a positional parameter (any with ``*args``)."""
    n_positional = 0
    for p in signature.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n_positional += 1
        elif p.kind == p.VAR_POSITIONAL:
            return
    if nums and (-min(nums) > n_positional or max(nums) >= n_positional):
        raise ValueError(f"Jitted function has {what}={nums}, but only accepts "
                         f"{n_positional} positional arguments.")


def _validate_argnames(signature, names: tuple, what: str) -> None:
    """JAX's check: every argname is a parameter that may be passed by keyword."""
    valid, positional_only, var_kwargs = set(), set(), False
    for name, p in signature.parameters.items():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            valid.add(name)
        elif p.kind == p.VAR_KEYWORD:
            var_kwargs = True
        elif p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL):
            positional_only.add(name)
    if invalid := positional_only & set(names):
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {what}. "
                         f"These are positional-only")
    if not var_kwargs and (invalid := set(names) - valid):
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {what}. "
                         f"Function does not take these args.")


def _split_statics(args, kwargs, static_argnums, static_argnames):
    """(dynamic args, dynamic kwargs, rebuild) where rebuild re-inserts the statics."""
    nargs = len(args)
    statics = {i % nargs: args[i] for i in static_argnums if -nargs <= i < nargs}
    dyn_args = [a for i, a in enumerate(args) if i not in statics]
    static_kw = {k: v for k, v in kwargs.items() if k in static_argnames}
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_kw}

    def rebuild(new_args, new_kwargs):
        it = iter(new_args)
        full = [statics[i] if i in statics else next(it) for i in range(nargs)]
        return tuple(full), {**new_kwargs, **static_kw}

    return dyn_args, dyn_kwargs, rebuild, statics, static_kw


# ---------------------------------------------------------------------- donation

def _index_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, int) else tuple(x)


def _str_tuple(x) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, str) else tuple(x)


def _normalize_donation(fun, donate_argnums, donate_argnames, static_argnums):
    """(donate_argnums, donate_argnames) as JAX resolves them.

    Given only one of the two, the other is inferred from ``fun``'s signature
    (positional-or-keyword parameters); given both, they are used as they are.
    Donated and static arguments may not intersect.
    """
    nums, names = _index_tuple(donate_argnums), _str_tuple(donate_argnames)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = None
    if params is not None:
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        nums = tuple(i + len(positional) if i < 0 else i for i in nums)
        by_name = [(i, p.name) for i, p in enumerate(params)
                   if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
        if donate_argnums is None and donate_argnames is not None:
            nums = tuple(i for i, n in by_name if n in names)
        elif donate_argnames is None and donate_argnums is not None:
            names = tuple(n for i, n in by_name if i in nums)
    nums = tuple(sorted(set(nums)))
    clash = sorted(set(nums) & set(static_argnums))
    if clash:
        raise ValueError(f"`static_argnums` {sorted(set(static_argnums))} and "
                         f"`donate_argnums` {list(nums)} cannot intersect.")
    return nums, names


def _donated_leaves(args, kwargs, donate_argnums, donate_argnames, static_argnums,
                    static_argnames):
    """One flag per leaf of the dynamic arguments: whether it is donated.

    Leaves are in the order the jit key flattens ``(dynamic args, dynamic
    kwargs)``; an empty list when nothing is donated.
    """
    if not donate_argnums and not donate_argnames:
        return []
    nargs = len(args)
    static_pos = {i % nargs for i in static_argnums if -nargs <= i < nargs}

    def flags(value, donated):
        leaves, treedef = _xjit.tree_flatten(value)
        return treedef.unflatten([donated] * len(leaves))

    dyn_args = tuple(flags(a, i in donate_argnums) for i, a in enumerate(args)
                     if i not in static_pos)
    dyn_kwargs = {k: flags(v, k in donate_argnames) for k, v in kwargs.items()
                  if k not in static_argnames}
    mask = _xjit.tree_flatten((dyn_args, dyn_kwargs))[0]
    return mask if any(mask) else []


# ---------------------------------------------------------------------------- jit

def _jit_device(leaves):
    """Where a jit call runs: the device of its first array argument when that
    is on the default backend (JAX runs a computation where its committed
    inputs are), else the default device. The C++ fast path keys on the same
    first array's device."""
    for x in leaves:
        if isinstance(x, Array):
            d = x.device
            return d if d.platform == default_backend() else default_device()
    return default_device()


def _execute(exe, leaves, avals, device, out_treedef, out_weak_types, donated=None):
    args = [_put_arg(x, a, device) for x, a in zip(leaves, avals)]
    if donated:
        outs = exe.execute_donating(args, list(out_weak_types), donated)
    else:
        outs = exe.execute_with_weak_types(args, list(out_weak_types))
    return out_treedef.unflatten(list(outs))


def _put_arg(x, aval, device):
    if isinstance(x, Array):
        if dispatch.device_key(x.device) == dispatch.device_key(device):
            return x
        return _xjit.device_put(np.asarray(x), device, x.weak_type)
    return _xjit.device_put(dispatch.to_numpy_operand(x, aval.dtype), device, aval.weak_type)


def _fun_name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


class _PyJitCacheEntry:
    """Python twin of ``_xjit.JitCacheEntry``."""
    __slots__ = ("executable", "out_treedef", "out_weak_types", "donated")

    def __init__(self, executable, out_treedef, out_weak_types, donated=()):
        self.executable = executable
        self.out_treedef = out_treedef
        self.out_weak_types = list(out_weak_types)
        self.donated = list(donated) if any(donated) else []


JitCacheEntry = getattr(_xjit, "JitCacheEntry", _PyJitCacheEntry)


class _PyJitFunction:
    """The jit call path in Python, with the contract of ``_xjit.JitFunction``.

    The cache key is (input tree structure, static argument values, each
    leaf's (shape, dtype, weak_type), the first array leaf's device, x64 flag,
    default platform). On a hit the executable runs
    directly; on a miss ``cache_miss(*args, **kwargs)`` returns
    ``(outputs, entry)`` and a non-None entry is cached.
    """

    def __init__(self, fun, cache_miss, static_argnums, static_argnames, x64_getter=None):
        self._fun = fun
        self._cache_miss = cache_miss
        self._static_argnums = tuple(static_argnums)
        self._static_argnames = tuple(static_argnames)
        self._x64 = x64_getter or x64_enabled
        self._cache: collections.OrderedDict = collections.OrderedDict()  # LRU order

    def __call__(self, *args, **kwargs):
        if config.read("jax_disable_jit"):
            return self._fun(*args, **kwargs)
        dyn_args, dyn_kwargs, _, statics, static_kw = _split_statics(
            args, kwargs, self._static_argnums, self._static_argnames)
        static_key = (tuple(sorted(statics.items())), tuple(sorted(static_kw.items())))
        try:
            hash(static_key)
        except TypeError as e:
            raise ValueError(
                f"Non-hashable static arguments are not supported. An error occurred while "
                f"trying to hash an object of type {type(e)}: {e}") from None
        leaves, treedef = _xjit.tree_flatten((tuple(dyn_args), dyn_kwargs))
        try:
            avals = tuple(tracing.leaf_aval(x) for x in leaves)
        except TypeError:
            return self._cache_miss(*args, **kwargs)[0]  # raises the TypeError
        if any(isinstance(x, core.Tracer) for x in leaves):
            return self._cache_miss(*args, **kwargs)[0]
        first_device = next((x.device for x in leaves if isinstance(x, Array)), None)
        key = (treedef, static_key, avals, first_device, self._x64(),
               dispatch.placement_key())
        entry = self._cache.get(key)
        if entry is None:
            out, entry = self._cache_miss(*args, **kwargs)
            if entry is not None:
                limit = config.read("jax_jit_cache_size")
                while len(self._cache) >= limit:
                    self._cache.popitem(last=False)
                self._cache[key] = entry
            return out
        self._cache.move_to_end(key)
        return _execute(entry.executable, leaves, avals, entry.executable.device,
                        entry.out_treedef, entry.out_weak_types, entry.donated)

    def cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()


class Lowered:
    """A traced function, before compilation. ``as_text()`` is its StableHLO."""

    def __init__(self, traced: tracing.TracedModule, static_argnums, static_argnames, name,
                 device=None, donated=()):
        self._traced = traced
        self._static_argnums = static_argnums
        self._static_argnames = static_argnames
        self._name = name
        self._device = device
        self._donated = list(donated)

    @property
    def in_avals(self):
        return self._traced.in_treedef.unflatten(list(self._traced.in_avals))

    def as_text(self) -> str:
        """The module as StableHLO text.

        Example:
            >>> print(jit(lambda x: x + 1).lower(1.0).as_text())  # doctest: +SKIP
        """
        return self._traced.module.as_text()

    def compile(self) -> "Compiled":
        """Compile for the device the traced arguments were on (else the default)."""
        device = self._device or default_device()
        exe = _xjit.compile(self._traced.module, device)
        return Compiled(exe, self._traced, device, self)


class Compiled:
    """A compiled function; call it with the dynamic (non-static) arguments."""

    def __init__(self, exe, traced, device, lowered):
        self._exe = exe
        self._traced = traced
        self._device = device
        self._lowered = lowered

    def as_text(self) -> str:
        return self._exe.as_text()

    @api_boundary
    def __call__(self, *args, **kwargs):
        leaves, treedef = _xjit.tree_flatten((tuple(args), dict(kwargs)))
        t = self._traced
        if treedef != t.in_treedef:
            raise TypeError(
                f"Function compiled with input pytree {t.in_treedef} does not match the "
                f"input pytree it was called with: {treedef}")
        for i, (x, want) in enumerate(zip(leaves, t.in_avals)):
            got = tracing.leaf_aval(x)
            if got.shape != want.shape or got.dtype != want.dtype:
                raise TypeError(
                    f"Argument types differ from the types for which this computation was "
                    f"compiled: argument {i} is {got.str_short()}, expected "
                    f"{want.str_short()}")
        return _execute(self._exe, leaves, t.in_avals, self._device, t.out_treedef,
                        t.out_weak_types, self._lowered._donated)


class _JitMixin:
    """Methods of jitted functions; combined with the JitFunction class below."""

    def _setup(self, fun, static_argnums, static_argnames, donate_argnums, donate_argnames):
        functools.update_wrapper(self, fun)
        self._fun = fun
        nums, names = _normalize_statics(fun, static_argnums, static_argnames)
        self._static_argnums = nums
        self._static_argnames = names
        self._donate_argnums, self._donate_argnames = _normalize_donation(
            fun, donate_argnums, donate_argnames, nums)
        return nums, names

    def _donated_leaves(self, args, kwargs) -> list:
        return _donated_leaves(args, kwargs, self._donate_argnums, self._donate_argnames,
                               self._static_argnums, self._static_argnames)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self):
        return f"<jitted function {_fun_name(self._fun)}>"

    def _trace(self, args, kwargs) -> tuple:
        dyn_args, dyn_kwargs, rebuild, _, _ = _split_statics(
            args, kwargs, self._static_argnums, self._static_argnames)
        traced = tracing.trace_to_module(self._fun, dyn_args, dyn_kwargs,
                                         rebuild_args=rebuild, name=_fun_name(self._fun))
        leaves, _ = _xjit.tree_flatten((tuple(dyn_args), dyn_kwargs))
        return traced, leaves

    def _trace_call(self, args, kwargs):
        dyn_args, dyn_kwargs, rebuild, _, _ = _split_statics(
            args, kwargs, self._static_argnums, self._static_argnames)
        return tracing.trace_call(self._fun, dyn_args, dyn_kwargs, rebuild_args=rebuild,
                                  name=_fun_name(self._fun))

    @api_boundary
    def _cache_miss(self, *args, **kwargs):
        if core.current_trace() is not None:
            # Nested jit: a call of f's own computation inside the outer trace
            # (which is what gets compiled), so nothing is cached here.
            return self._trace_call(args, kwargs), None
        traced, leaves = self._trace(args, kwargs)
        device = _jit_device(leaves)
        exe = _xjit.compile(traced.module, device)
        donated = self._donated_leaves(args, kwargs)
        out = _execute(exe, leaves, traced.in_avals, device, traced.out_treedef,
                       traced.out_weak_types, donated)
        return out, JitCacheEntry(exe, traced.out_treedef, traced.out_weak_types, donated)

    @api_boundary
    def lower(self, *args, **kwargs) -> Lowered:
        """Trace with these arguments without compiling.

        Example:
            >>> jit(lambda x: x + 1).lower(1.0).as_text()  # doctest: +SKIP
        """
        traced, leaves = self._trace(args, kwargs)
        return Lowered(traced, self._static_argnums, self._static_argnames,
                       _fun_name(self._fun), _jit_device(leaves),
                       self._donated_leaves(args, kwargs))

    def _cache_size(self) -> int:
        return self.cache_size()


def _init_base(base, self, fun, cache_miss, nums, names):
    try:
        base.__init__(self, fun, cache_miss, list(nums), list(names), x64_enabled)
    except TypeError:
        base.__init__(self, fun, cache_miss, list(nums), list(names))


def _make_jit_class():
    """JitWrapped: a subclass of the C++ JitFunction, so calls run no Python.

    Falls back to the Python implementation when the C++ class is missing.
    """
    base = getattr(_xjit, "JitFunction", None) or _PyJitFunction

    class JitWrapped(_JitMixin, base):
        def __init__(self, fun, static_argnums=None, static_argnames=None,
                     donate_argnums=None, donate_argnames=None):
            nums, names = self._setup(fun, static_argnums, static_argnames, donate_argnums,
                                      donate_argnames)
            _init_base(base, self, fun, self._cache_miss, nums, names)
            _all_jitted.add(self)

    return JitWrapped


# Every jitted function, for clear_caches (weakly: a dropped one is freed).
_all_jitted: "weakref.WeakSet" = weakref.WeakSet()
JitWrapped = _make_jit_class()


_NOT_GIVEN = object()  # jit(fun) vs jit(static_argnums=...) used as a decorator factory


def jit(fun: Callable = _NOT_GIVEN, *, static_argnums=None, static_argnames=None,
        donate_argnums=None, donate_argnames=None, **unused_options):
    """Compile ``fun``: traced once per input signature, then run from the cache.

    Args mirror ``jax.jit``: ``static_argnums``/``static_argnames`` mark
    arguments whose Python values (hashable) are part of the cache key.
    ``donate_argnums``/``donate_argnames`` mark arguments the call consumes:
    their arrays are deleted and their memory may hold the outputs (donating
    a Python scalar or numpy array consumes only its copy).

    Example:
        >>> @jit
        ... def f(x):
        ...     return x * 2
        >>> f(3.0)
        Array(6., dtype=float32, weak_type=True)
    """
    if fun is _NOT_GIVEN:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames,
                                 donate_argnums=donate_argnums,
                                 donate_argnames=donate_argnames)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    return JitWrapped(fun, static_argnums, static_argnames, donate_argnums, donate_argnames)


def block_until_ready(x):
    """Wait until every array in pytree ``x`` is computed; returns ``x``.

    Example:
        >>> block_until_ready({"a": device_put(1.0)})
        {'a': Array(1., dtype=float32, weak_type=True)}
    """
    for leaf in _xjit.tree_flatten(x)[0]:
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return x


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within the context, jitted functions run their Python code op by op
    (for debugging: prints and Python control flow see concrete values).

    Example:
        >>> with disable_jit():
        ...     print(jit(lambda x: x + 1)(1))
        2
    """
    old = config.read("jax_disable_jit")
    config.update("jax_disable_jit", disable)
    try:
        yield
    finally:
        config.update("jax_disable_jit", old)


def device_get(x):
    """Every array in pytree ``x`` as a numpy array (other leaves as they are).

    Example:
        >>> device_get({"a": device_put(np.float32(2))})
        {'a': array(2., dtype=float32)}
    """
    leaves, tree = _xjit.tree_flatten(x)
    out = []
    for leaf in leaves:
        if isinstance(leaf, Array):
            leaf.block_until_ready()
            leaf = np.asarray(leaf)
        out.append(leaf)
    return tree.unflatten(out)


@api_boundary
def eval_shape(fun: Callable, *args, **kwargs):
    """The shapes and dtypes ``fun(*args, **kwargs)`` would return, without running it.

    Arguments may be arrays, scalars or ``ShapeDtypeStruct``s (pytrees too).

    Example:
        >>> eval_shape(lambda x: x.T, xjit.ShapeDtypeStruct((2, 3), np.float32))
        ShapeDtypeStruct(shape=(3, 2), dtype=float32)
    """
    captured = {}

    def record(*a, **k):
        out = fun(*a, **k)
        leaves, treedef = _xjit.tree_flatten(out)
        captured["out"] = treedef.unflatten([
            core.ShapeDtypeStruct(tracing.leaf_aval(x).shape, tracing.leaf_aval(x).dtype,
                                  tracing.leaf_aval(x).weak_type) for x in leaves])
        return out

    tracing.trace_to_module(record, args, kwargs, name=_fun_name(fun))
    return captured["out"]
