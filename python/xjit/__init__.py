"""xjit: JAX's API on its own C++ compiler and runtime.

Example:
    >>> import xjit as jax
    >>> import xjit.numpy as jnp
    >>> jax.jit(lambda x: x * 2 + 1)(jnp.arange(3.0))
    Array([1., 3., 5.], dtype=float32)
"""

import os as _os

from xjit._src import native_settings as _native_settings

_native_settings.apply(_os.environ)


def _load_native():
    """Import ``_xjit``, preloading oneDNN from its pip wheel when the loader
    cannot find ``libdnnl.so.3`` by itself."""
    try:
        from xjit import _xjit
        return _xjit
    except ImportError as e:
        if "libdnnl" not in str(e):
            raise
        first_error = e
    import ctypes
    import importlib.metadata as metadata
    for dist_name in ("onednn-cpu-gomp", "onednn"):
        try:
            files = metadata.distribution(dist_name).files or ()
        except metadata.PackageNotFoundError:
            continue
        for f in files:
            if f.name == "libdnnl.so.3":
                ctypes.CDLL(str(f.locate()), mode=ctypes.RTLD_GLOBAL)
                from xjit import _xjit
                return _xjit
    raise ImportError(f"{first_error}; install oneDNN with "
                      f"`pip install onednn-cpu-gomp==2023.2.0`") from first_error


_xjit = _load_native()

# Work still queued when Python exits finishes first: the exit handlers that
# run after Python's tear down OpenBLAS and OpenMP under a running kernel.
import atexit as _atexit  # noqa: E402
_atexit.register(_xjit.wait_until_all_devices_idle)

from xjit._src.config import config  # noqa: E402
from xjit._src import core as _core  # noqa: E402
from xjit._src import dispatch as _dispatch  # noqa: E402
from xjit._src.api import (  # noqa: E402
    block_until_ready, default_backend, device_count, device_get, device_put, devices,
    disable_jit, eval_shape, jit, local_devices)
from xjit._src.api_transforms import (  # noqa: E402
    grad, hessian, jacfwd, jacobian, jacrev, jvp, linearize, make_graph, value_and_grad, vjp,
    vmap)

make_jaxpr = make_graph  # JAX's name: prints the traced graph (StableHLO here)
from xjit._src.core import ShapeDtypeStruct  # noqa: E402
from xjit._src.custom_derivatives import (  # noqa: E402
    checkpoint, checkpoint_policies, custom_gradient, custom_jvp, custom_vjp, remat)
from xjit._src.closure_conversion import closure_convert  # noqa: E402
from xjit._src.environment import print_environment_info  # noqa: E402

Array = _xjit.Array


def _observe_x64(value):
    # The C++ jit fast path keys its cache on x64 and canonicalizes with it.
    _xjit.set_x64(bool(value))


config.observe("jax_enable_x64", _observe_x64)

_platform_contexts = {}


def _observe_platform(value):
    # Executables are compiled for the default device: a different default
    # platform or device must not hit entries compiled for another one.
    key = _dispatch.placement_key()
    _xjit.set_jit_context(_platform_contexts.setdefault(key, len(_platform_contexts)))


for _name in ("jax_platform_name", "jax_platforms", "jax_default_device"):
    config.observe(_name, _observe_platform)
if hasattr(_xjit, "set_jit_cache_size"):
    config.observe("jax_jit_cache_size", _xjit.set_jit_cache_size)
config.observe("jax_disable_jit", _xjit.set_jit_disabled)

from xjit import custom_derivatives, errors, lax, test_util, tree, tree_util  # noqa: E402
from xjit._src import array_methods as _array_methods  # noqa: E402

_array_methods.attach()

from xjit import numpy  # noqa: E402
from xjit import nn, scipy  # noqa: E402
from xjit import random  # noqa: E402
# Host callbacks and the FFI (h-host).
from xjit._src.callbacks import pure_callback  # noqa: E402,F401
from xjit import debug, experimental, ffi  # noqa: E402,F401
from xjit import ops  # noqa: E402,F401
from xjit import dtypes  # noqa: E402,F401
from xjit._src.api_transforms import float0  # noqa: E402,F401
from xjit._src.runtime_utils import (  # noqa: E402,F401
    clear_caches, enable_x64, ensure_compile_time_eval, host_count, host_id, host_ids,
    local_device_count, named_call, named_scope, pmap, process_count, process_index,
    process_indices, typeof)
Device = _xjit.Device

__version__ = "0.1.0"
