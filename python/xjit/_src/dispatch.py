"""The single primitive layer: ``bind`` stages an op into the active trace or
runs it eagerly through a cached one-op executable.

Every ``xjit.lax`` function ends in ``bind(op_name, operands, attrs, ...)``.
Operands are ``Tracer``s, ``xjit.Array``s or numpy arrays already in their
final dtype (lax decides dtypes and weak types before calling).

* While a trace is active the op is appended to the innermost trace's
  computation; concrete operands become graph constants.
* Otherwise the op runs eagerly: the executable for (op, attributes, operand
  shapes/dtypes, device) is compiled once and cached, exactly as jit would.

Example:
    >>> x = bind("add", [np.ones(3, np.float32), np.ones(3, np.float32)])
    >>> np.asarray(x)
    array([2., 2., 2.], dtype=float32)
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Callable, Sequence

import numpy as np

from xjit import _xjit
from xjit._src import core, errors
from xjit._src.config import config
from xjit._src import dtypes
from xjit._src.dtypes import CANONICAL_32
from xjit._src.traceback_util import user_location

Array = _xjit.Array
Tracer = core.Tracer
_trace_state = core._state

# ----------------------------------------------------------------------------- devices

_device_cache: dict[str, list] = {}

# JAX's names for a platform: jax.devices("gpu") is the CUDA backend here.
_PLATFORM_ALIASES = {"gpu": "cuda"}


def canonical_platform(platform: str) -> str:
    """``platform`` with JAX's aliases resolved ("gpu" -> "cuda")."""
    return _PLATFORM_ALIASES.get(platform, platform)


def devices_for(platform: str) -> list:
    """The devices of ``platform`` (cached: device lists do not change).

    A backend that is built in but finds no device (the CUDA backend on a
    machine without a GPU or driver) is as absent as in JAX: RuntimeError.
    """
    devs = _device_cache.get(platform)
    if devs is None:
        name = canonical_platform(platform)
        try:
            devs = list(_xjit.devices(name))
        except Exception as e:  # unknown platform
            raise RuntimeError(
                f"Unknown backend {platform!r}; available: {available_platforms()}") from e
        if not devs:
            raise RuntimeError(
                f"Unknown backend: {platform!r} requested, but no {name} devices are present "
                f"(no GPU or no driver found). Platforms present are: {available_platforms()}")
        _device_cache[platform] = devs
    return devs


_present_platforms: list | None = None


def available_platforms() -> list:
    """Registered platforms that have at least one device here (cached)."""
    global _present_platforms
    if _present_platforms is None:
        present = []
        for name in _xjit.platforms():
            try:
                if list(_xjit.devices(name)):
                    present.append(name)
            except Exception:  # built in but unusable here
                pass
        _present_platforms = present
    return list(_present_platforms)


def default_backend() -> str:
    """The platform new arrays and computations go to.

    ``jax_platform_name`` when set, else the first platform of
    ``jax_platforms`` (JAX's comma-separated priority list, also read from
    the ``JAX_PLATFORMS`` environment variable) that has devices, else
    "cpu". A GPU is used only when asked for: the CUDA backend does not run
    every op yet (docs/architecture.md), so it is not the default as in JAX.
    """
    values = config._values
    if values["jax_platform_name"]:
        return canonical_platform(values["jax_platform_name"])
    platforms = values["jax_platforms"]
    if platforms:
        for name in str(platforms).split(","):
            name = name.strip()
            if name and canonical_platform(name) in available_platforms():
                return canonical_platform(name)
        raise RuntimeError(f"jax_platforms={platforms!r}: none of these platforms is present; "
                           f"present: {available_platforms()}")
    return "cpu"


def placement_key() -> tuple:
    """The settings that decide where computations go (part of jit cache keys)."""
    values = config._values
    device = values["jax_default_device"]
    if device is not None and not isinstance(device, str):
        device = device_key(device)
    return (values["jax_platform_name"], values["jax_platforms"], device)


def default_device():
    """``jax_default_device`` when set, else the first device of the default backend."""
    device = config._values["jax_default_device"]
    if device is not None:
        if isinstance(device, str):  # JAX accepts a platform name too
            return devices_for(device)[0]
        return device
    return devices_for(default_backend())[0]


def device_key(device) -> tuple:
    return (device.platform, device.id)


# ------------------------------------------------------------------------------ dtypes

def canonicalize_dtype(dtype) -> np.dtype:
    """``dtype`` narrowed to 32 bits unless x64 is enabled (hot path of ``bind``)."""
    dtype = np.dtype(dtype)
    if not dtype.isnative:  # '>i4' on x86: the same type in native byte order
        dtype = dtype.newbyteorder("=")
    if config._values["jax_enable_x64"]:
        return dtype
    return CANONICAL_32.get(dtype, dtype)


def python_scalar_dtype(x) -> np.dtype:
    """Default dtype of a Python scalar: bool, then int32/float32/complex64 (64 with x64)."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, int):
        return canonicalize_dtype(np.int64)
    if isinstance(x, float):
        return canonicalize_dtype(np.float64)
    if isinstance(x, complex):
        return canonicalize_dtype(np.complex128)
    raise TypeError(f"{type(x)} is not a Python scalar")


def to_numpy_operand(x, dtype=None) -> np.ndarray:
    """A concrete value as a contiguous numpy array of ``dtype`` (canonical by default)."""
    if dtype is None:
        if isinstance(x, (bool, int, float, complex)):
            dtype = python_scalar_dtype(x)
        else:
            dtype = canonicalize_dtype(np.asarray(x).dtype)
    if isinstance(x, int) and not isinstance(x, bool) and dtypes.kind(dtype) in "iu":
        info = dtypes.iinfo(dtype)  # ml_dtypes' iinfo: int4 and friends too
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {np.dtype(dtype).name}")
    return np.asarray(x, dtype=dtype, order="C")


# -------------------------------------------------------------------------------- bind

def bind(name: str, operands: Sequence[Any], attrs: dict | None = None, *,
         weak_type=False, regions: Sequence[Callable] = (), region_key=None):
    """Apply op ``name`` (a StableHLO mnemonic) to ``operands``.

    ``attrs`` holds the op's attributes with hashable values (ints, strs,
    tuples). ``regions`` are functions ``f(module_builder) -> Computation``
    building the op's called computations (a reduce body); ``region_key``
    identifies them for the eager cache (``None`` with regions: not cached).
    ``weak_type`` is one flag, or one per result. Returns one Tracer/Array, or
    a list of them when the op produces a tuple.
    """
    attrs = attrs or {}
    stack = _trace_state.stack
    if stack and not (compile_time_eval_active() and _all_concrete(operands)):
        return _bind_traced(stack[-1], name, operands, attrs, weak_type, regions, region_key)
    return _bind_eager(name, operands, attrs, weak_type, regions, region_key)


# ensure_compile_time_eval (runtime_utils.py): ops of concrete operands run
# eagerly even inside a trace.
_compile_time_eval = threading.local()


def compile_time_eval_active() -> bool:
    """Whether ops of concrete values run eagerly now (ensure_compile_time_eval)."""
    return getattr(_compile_time_eval, "active", False)


def _all_concrete(operands) -> bool:
    return not any(isinstance(x, (Tracer, core.Token)) for x in operands)


def _weak_flags(weak_type, n: int) -> list:
    if isinstance(weak_type, (list, tuple)):
        return list(weak_type)
    return [bool(weak_type)] * n


def graph_value(trace: core.Trace, x):
    """The builder value of operand ``x`` inside ``trace``.

    A tracer of a live trace enclosing ``trace`` is lifted into a parameter of
    ``trace`` (``Trace.lift``); any other foreign tracer is an error.
    """
    if isinstance(x, Tracer):
        if x._trace is trace:
            return x._value
        if x._trace.live and x._trace.encloses(trace):
            return trace.lift(x)
        raise _foreign_tracer_error(x, trace)
    if isinstance(x, core.Token):
        return x.value_in(trace)
    return trace.constant(x)


def _foreign_tracer_error(x: Tracer, trace: core.Trace) -> Exception:
    if x._trace.live:
        return errors.UnexpectedTracerError(
            f"A traced value of another trace was used inside {trace.name}: {x!r}. "
            f"{trace.name} is not nested in the trace that value belongs to (for example "
            f"eval_shape or jit(...).lower called while tracing), so it cannot be passed "
            f"in; pass it as an argument instead.")
    return errors.UnexpectedTracerError(
        f"Encountered an unexpected tracer: {x!r}. A traced value escaped the function "
        f"being traced (for example it was stored in a global or returned through a "
        f"side channel) and was used after tracing ended.")


def _bind_traced(trace, name, operands, attrs, weak_type, regions, region_key=None):
    # The common operand, a tracer of this trace, inline (this runs per op).
    values = [x._value if x.__class__ is Tracer and x._trace is trace else graph_value(trace, x)
              for x in operands]
    called = _traced_regions(trace, name, operands, regions, region_key)
    out = trace.cb.op(name, values, attrs, called, user_location())
    pending = (_pending_value(name, operands, attrs, weak_type, called)
               if trace.concrete else None)
    dtype_name, shape = out.signature
    if dtype_name is not None:  # one result
        weak = weak_type if weak_type.__class__ is bool else _weak_flags(weak_type, 1)[0]
        return core.tracer_from_signature(trace, out, dtype_name, shape, weak, pending)
    n = len(shape)
    weak = _weak_flags(weak_type, n)
    loc = user_location()
    return [core.tracer_from_value(
        trace, trace.cb.op("get_tuple_element", [out], {"index": i}, [], loc), weak[i],
        None if pending is None else core.Pending(lambda i=i: pending.value[i], (pending,)))
        for i in range(n)]


def _traced_regions(trace, name, operands, regions, region_key) -> list:
    """The computations ``regions`` build in ``trace``'s module. With a
    ``region_key`` (a fixed body such as a sum's add) they depend only on it
    and the operand dtypes, so the module builds them once and every op with
    that key calls the same computations."""
    if not regions:
        return []
    if region_key is None:
        return [build(trace.mb) for build in regions]
    key = (name, region_key, tuple(getattr(x, "dtype", type(x)) for x in operands))
    called = trace.regions.get(key)
    if called is None:
        called = trace.regions[key] = [build(trace.mb) for build in regions]
    return called


def _pending_value(name, operands, attrs, weak_type, called):
    """The op's concrete value, computed eagerly when first asked for, if every
    operand has one (a concrete trace: a transformation outside jit)."""
    deps = []
    for x in operands:
        if isinstance(x, Tracer):
            c = x._concrete
            if c is None:
                return None
            if isinstance(c, core.Pending):
                deps.append(c)

    def compute():
        args = [core.concrete_value_of(x) if isinstance(x, Tracer) else x for x in operands]
        regions = [lambda mb, c=c: mb.clone_computation(c) for c in called]
        out = _bind_eager(name, args, attrs, weak_type, regions, None)
        return out
    return core.Pending(compute, deps)


# (name, attrs, signature, device, region_key) -> (executable, number of results, is_tuple);
# least recently used first, bounded by jax_jit_cache_size like jit's cache.
_eager_cache: collections.OrderedDict[tuple, tuple] = collections.OrderedDict()


_device_keys: dict = {}


def _device_key_cached(device) -> tuple:
    key = _device_keys.get(device)
    if key is None:
        key = _device_keys[device] = device_key(device)
    return key


def _bind_eager(name, operands, attrs, weak_type, regions, region_key):
    device = None
    for x in operands:
        if isinstance(x, Array):
            device = x.device
            break
    if device is None:
        device = default_device()
    dkey = _device_key_cached(device)
    args = []
    for x in operands:
        if isinstance(x, Array):
            d = x.device
            if d is not device and _device_key_cached(d) != dkey:
                x = _xjit.device_put(np.asarray(x), device, x.weak_type)
        elif isinstance(x, Tracer):
            raise _foreign_tracer_error(x, core.Trace(None, None, "an eager op"))
        else:
            x = _xjit.device_put(np.asarray(x, order="C"), device, False)
        args.append(x)
    cacheable = not regions or region_key is not None
    key = None
    entry = None
    if cacheable:
        # Attribute dicts are built in a fixed order by each lax function, so
        # their items need no sorting to form a stable key.
        key = (name, tuple(attrs.items()) if attrs else (),
               tuple([(a.shape, a.dtype) for a in args]), dkey, region_key)
        entry = _eager_cache.get(key)
        if entry is not None:
            _eager_cache.move_to_end(key)
    if entry is None:
        entry = _compile_one_op(name, args, attrs, regions, device)
        if cacheable:
            limit = config.read("jax_jit_cache_size")
            while len(_eager_cache) >= limit:
                _eager_cache.popitem(last=False)
            _eager_cache[key] = entry
    exe, n, is_tuple = entry
    flags = weak_type if isinstance(weak_type, list) else [bool(weak_type)] * n
    # An uncached executable may be released at once: a queued run keeps its
    # program and module alive in the runtime (executable.cc).
    outs = exe.execute_with_weak_types(args, flags)
    return list(outs) if is_tuple else outs[0]


def _compile_one_op(name, args, attrs, regions, device):
    loc = user_location()
    mb = _xjit.ModuleBuilder(f"eager_{name}")
    cb = mb.computation("main")
    params = [cb.parameter(core.dtype_name(a.dtype), tuple(a.shape)) for a in args]
    called = [build(mb) for build in regions]
    out = cb.op(name, params, attrs, called, loc)
    if out.is_tuple:
        results = [cb.op("get_tuple_element", [out], {"index": i}, [], loc)
                   for i in range(len(out.tuple_shapes))]
    else:
        results = [out]
    module = build_module(mb, cb, results)
    return _xjit.compile(module, device), len(results), out.is_tuple


def build_module(mb, cb, results):
    """Finish ``cb`` with ``results`` and build (verify) the module ``mb``."""
    comp = cb.finish(list(results))
    return mb.build(cb if comp is None else comp)


def eager_cache_size() -> int:
    """Number of cached one-op executables (for tests and benchmarks)."""
    return len(_eager_cache)
