"""``xjit.ffi``: JAX's ``jax.ffi`` on xjit: register foreign functions as
``custom_call`` targets and call them from traced code.

A target is a C function pointer in a ``PyCapsule`` (``pycapsule(ctypes_fn)``):
an XLA FFI handler (``api_version=1``: built against XLA's FFI headers,
``XLA_FFI_DEFINE_HANDLER``; xjit implements XLA FFI API 0.3,
``csrc/xjit/runtime/xla_ffi_abi.h``) or a legacy CPU custom call
(``api_version=0``: ``void fn(void* out, const void** in)``). ``ffi_call``
writes its keyword attributes into the call's ``mhlo.backend_config``
dictionary, as JAX's api_version 4 lowering does; the handler reads them by
name.

Example:
    >>> lib = ctypes.cdll.LoadLibrary("./libscale.so")  # doctest: +SKIP
    >>> xjit.ffi.register_ffi_target("scale", xjit.ffi.pycapsule(lib.Scale))  # doctest: +SKIP
    >>> xjit.ffi.ffi_call("scale", xjit.ShapeDtypeStruct((3,), np.float32))(
    ...     x, factor=np.float32(2))  # doctest: +SKIP
"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch
from xjit._src.lax import custom_call as custom_call_mod
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


def pycapsule(funcptr) -> Any:
    """A ``PyCapsule`` holding the address of ``funcptr`` (a ctypes function)."""
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    builder = ctypes.pythonapi.PyCapsule_New
    builder.restype = ctypes.py_object
    builder.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return builder(ctypes.cast(funcptr, ctypes.c_void_p), None, destructor(0))


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
    """Registers ``fn`` (a ``PyCapsule``, or for ``api_version=1`` a dict of them
    keyed by FFI stage: ``instantiate``, ``prepare``, ``initialize``,
    ``execute``) as the custom_call target ``name``. xjit runs targets on the
    host: ``platform`` must be ``"cpu"`` (or ``"host"``)."""
    if not isinstance(name, str):
        raise TypeError(f"register_ffi_target: name must be a str, got {name!r}")
    if kwargs:
        raise TypeError(f"register_ffi_target: unexpected arguments {sorted(kwargs)}")
    if str(platform).lower() not in ("cpu", "host"):
        raise ValueError(f"register_ffi_target: xjit runs foreign functions on the host "
                         f"(platform='cpu'), got platform={platform!r}")
    _xjit.register_ffi_target(name, fn, int(api_version))


def _result_avals(result_shape_dtypes):
    leaves, treedef = _xjit.tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(f"ffi_call: result_shape_dtypes must be a pytree of objects with "
                            f".shape and .dtype, got {leaf!r}")
        avals.append(core.ShapeDtypeStruct(tuple(leaf.shape),
                                           dispatch.canonicalize_dtype(leaf.dtype)))
    return avals, treedef


def ffi_call(target_name: str, result_shape_dtypes, *deprecated_args, has_side_effect=False,
             vmap_method: str | None = None, input_layouts=None, output_layouts=None,
             input_output_aliases=None, custom_call_api_version: int = 4,
             legacy_backend_config: str | None = None, **deprecated_kwargs) -> Callable:
    """A function that calls the foreign function ``target_name`` (JAX's
    ``jax.ffi.ffi_call``): ``ffi_call(name, out_types)(*args, **attributes)``.
    Results have the structure of ``result_shape_dtypes``."""
    if deprecated_args or deprecated_kwargs:
        raise TypeError("ffi_call: pass the arguments to the function ffi_call returns: "
                        "ffi_call(target_name, result_shape_dtypes)(*args, **attributes)")
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {list(_VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    if input_output_aliases:
        raise NotImplementedError("ffi_call: input_output_aliases are not supported by xjit")
    avals, treedef = _result_avals(result_shape_dtypes)

    @api_boundary
    def call(*args, **attributes):
        operands = []
        for i, x in enumerate(args):
            ops.check_arraylike(f"ffi_call @{target_name} argument {i}", x)
            operands.append(ops.as_operand(x))
        if custom_call_api_version == 4:
            if legacy_backend_config is not None:
                raise ValueError("ffi_call: legacy_backend_config needs custom_call_api_version < 4")
            config = dict(attributes)
        else:
            if attributes:
                raise ValueError("ffi_call: attributes need custom_call_api_version=4 (the "
                                 "typed FFI); use legacy_backend_config")
            config = legacy_backend_config
        outs = custom_call_mod.custom_call(
            target_name, operands, avals, backend_config=config,
            has_side_effect=has_side_effect, api_version=custom_call_api_version,
            operand_layouts=_layouts(input_layouts, [ops.shape_of(x) for x in operands]),
            result_layouts=_layouts(output_layouts, [a.shape for a in avals]))
        if has_side_effect:
            trace = core.current_trace()
            if trace is not None:
                trace.mark_effects()
        return treedef.unflatten(list(outs))
    return call


def _layouts(layouts, shapes):
    if layouts is None:
        return None
    out = []
    for layout, shape in zip(layouts, shapes):
        out.append(tuple(range(len(shape) - 1, -1, -1)) if layout is None else tuple(layout))
    return out
