"""``custom_call``: a call of a registered host function (the StableHLO op).

The graph op runs the target registered under ``call_target_name`` (the C++
registry of ``runtime/custom_call_registry.h``: the LAPACK factorizations,
host callbacks, ``xjit.ffi`` targets). ``xjit.ffi.ffi_call`` and the linear
algebra functions are built on it.

Example (``my_target`` must be registered first, e.g. with xjit.ffi):
    >>> outs = custom_call("my_target", [x], [ShapeDtypeStruct((3,), np.float32)],
    ...                    backend_config={"scale": 2.0})  # doctest: +SKIP
"""
from __future__ import annotations

import math
import struct
from typing import Any, Sequence

import numpy as np

from xjit._src import dispatch
from xjit._src.lax import operands as ops

_INT_TYPES = {np.dtype(np.int8): "i8", np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
              np.dtype(np.int64): "i64", np.dtype(np.uint8): "ui8", np.dtype(np.uint16): "ui16",
              np.dtype(np.uint32): "ui32", np.dtype(np.uint64): "ui64"}
_FLOAT_TYPES = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32",
                np.dtype(np.float64): "f64"}


def _quoted(text: str) -> str:
    out = ['"']
    for ch in text.encode("utf-8"):
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ch < 0x20 or ch >= 0x7F:
            out.append("\\%02X" % ch)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _float_text(x: float, type_name: str) -> str:
    if math.isfinite(x):
        return f"{float(x)!r} : {type_name}"
    if type_name == "f32":  # MLIR writes NaN and infinities as their bits
        return "0x%08X : f32" % struct.unpack("<I", struct.pack("<f", x))[0]
    return "0x%016X : %s" % (struct.unpack("<Q", struct.pack("<d", float(x)))[0], "f64")


def _attr_value(name: str, v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, str):
        return _quoted(v)
    if isinstance(v, np.generic) and v.dtype in _INT_TYPES:
        return f"{int(v)} : {_INT_TYPES[v.dtype]}"
    if isinstance(v, np.generic) and v.dtype in _FLOAT_TYPES:
        return _float_text(float(v), _FLOAT_TYPES[v.dtype])
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        return _float_text(v, "f64")
    if isinstance(v, (list, tuple, np.ndarray)):
        a = np.asarray(v)
        if a.ndim != 1:
            raise TypeError(f"custom_call: attribute {name!r} must be a scalar, a string or a "
                            f"1-D array, got an array of shape {a.shape}")
        if a.dtype == np.bool_ or a.dtype in _INT_TYPES:
            t = "i1" if a.dtype == np.bool_ else _INT_TYPES[a.dtype]
            return f"array<{t}" + (": " + ", ".join(str(int(x)) for x in a) if a.size else "") + ">"
        if a.dtype in _FLOAT_TYPES:
            t = _FLOAT_TYPES[a.dtype]
            return f"array<{t}" + (": " + ", ".join(repr(float(x)) for x in a) if a.size else "") + ">"
        raise TypeError(f"custom_call: attribute {name!r} has unsupported dtype {a.dtype}")
    raise TypeError(f"custom_call: attribute {name!r} must be a bool, int, float, str, numpy "
                    f"scalar or 1-D array, got {type(v).__name__}")


def format_attribute_dictionary(attributes: dict) -> str:
    """``{name = value, ...}`` as MLIR writes an attribute dictionary."""
    items = []
    for name, v in attributes.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"custom_call: attribute names must be non-empty str, got {name!r}")
        plain = all(c.isalnum() or c in "_.$" for c in name) and not name[0].isdigit()
        items.append(f"{name if plain else _quoted(name)} = {_attr_value(name, v)}")
    return "{" + ", ".join(items) + "}"


def custom_call(call_target_name: str, operands: Sequence[Any], result_avals: Sequence[Any], *,
                backend_config: str | dict | None = None, has_side_effect: bool = False,
                api_version: int | None = None, operand_layouts=None, result_layouts=None):
    """Calls the host function registered as ``call_target_name``.

    ``result_avals``: objects with ``.shape`` and ``.dtype``, one per result.
    ``backend_config``: a string, or a dict of scalars, strings and 1-D arrays
    (written as the ``mhlo.backend_config`` dictionary, as JAX's FFI lowering
    does). Layouts are minor-to-major dimension lists, one per value (default
    row-major). Returns a list with one traced value per result.
    """
    if not isinstance(call_target_name, str) or not call_target_name:
        raise TypeError(f"custom_call: call_target_name must be a non-empty str, "
                        f"got {call_target_name!r}")
    avals = list(result_avals)
    result_types = []
    for a in avals:
        if not hasattr(a, "shape") or not hasattr(a, "dtype"):
            raise TypeError(f"custom_call: result types need .shape and .dtype, got {a!r}")
        dt = dispatch.canonicalize_dtype(np.dtype(a.dtype))
        result_types.append((dt.name, tuple(int(d) for d in a.shape)))
    attrs: dict = {"call_target_name": call_target_name, "result_types": tuple(result_types)}
    if has_side_effect:
        attrs["has_side_effect"] = True
    if isinstance(backend_config, dict):
        attrs["mhlo.backend_config"] = format_attribute_dictionary(backend_config)
    elif isinstance(backend_config, str):
        attrs["backend_config"] = _quoted(backend_config)
    elif backend_config is not None:
        raise TypeError(f"custom_call: backend_config must be a str or a dict, "
                        f"got {type(backend_config).__name__}")
    if api_version is not None:
        attrs["api_version"] = int(api_version)
    for key, layouts in (("operand_layouts", operand_layouts), ("result_layouts", result_layouts)):
        if layouts is not None:
            attrs[key] = "[" + ", ".join(
                f"dense<[{', '.join(str(int(d)) for d in l)}]> : tensor<{len(l)}xindex>"
                if len(l) else "dense<> : tensor<0xindex>" for l in layouts) + "]"
    values = []
    for i, x in enumerate(operands):
        ops.check_arraylike(f"custom_call @{call_target_name} operand {i}", x)
        values.append(ops.as_operand(x))
    out = dispatch.bind("custom_call", values, attrs)
    if len(avals) == 1:
        return [out]
    return list(out) if out is not None else []
