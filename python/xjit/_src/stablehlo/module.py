"""Parsed StableHLO modules and running them (``xjit.stablehlo.parse``,
``run``, ``compile``).

The text is what JAX writes (``jax.jit(f).lower(x).as_text()``,
``jax.export``), StableHLO's own files, or xjit's ``Lowered.as_text()``: pretty
or generic form, with or without locations. The C++ parser checks it and
builds xjit's graph; compiling and running go through the same backends as
``xjit.jit``.
"""
from __future__ import annotations

import os

import ml_dtypes
import numpy as np

from xjit import _xjit
from xjit._src import dispatch
from xjit._src.core import ShapedArray


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, name, name))


def _avals(shapes, what: str) -> tuple:
    out = []
    for dtype, dims in shapes:
        if dtype is None:
            raise NotImplementedError(f"xjit.stablehlo: a tuple-typed {what} is not supported")
        out.append(ShapedArray(tuple(dims), _np_dtype(dtype)))
    return tuple(out)


class Module:
    """A parsed, verified StableHLO module.

    Example:
        >>> m = parse('''
        ... func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        ...   %0 = stablehlo.add %x, %x : tensor<2xf32>
        ...   return %0 : tensor<2xf32>
        ... }''')
        >>> m.in_avals
        (ShapedArray(float32[2]),)
    """

    def __init__(self, text: str, entry: str | None = None):
        if not isinstance(text, str):
            raise TypeError(f"xjit.stablehlo.parse: expected the module's text as a str, got "
                            f"{type(text).__name__}")
        self._module = _xjit.parse_module(text, entry)
        self._executables: dict = {}

    def as_text(self, pretty: bool = True) -> str:
        """The module as StableHLO text: the pretty form JAX writes where an op
        has one (``pretty=False``: the generic form ``Lowered.as_text()``
        prints). Either parses back to the same module and text."""
        return self._module.as_text(pretty)

    def __str__(self):
        return self.as_text()

    def __repr__(self):
        ins = ", ".join(a.str_short() for a in self.in_avals)
        outs = ", ".join(a.str_short() for a in self.out_avals)
        return f"<stablehlo.Module @{self.name}({ins}) -> ({outs})>"

    @property
    def name(self) -> str:
        return self._module.name

    @property
    def in_avals(self) -> tuple:
        """The entry function's argument types, as ``ShapedArray``\\ s."""
        return _avals(self._module.parameter_shapes, "argument")

    @property
    def out_avals(self) -> tuple:
        """The entry function's result types, as ``ShapedArray``\\ s."""
        return _avals(self._module.result_shapes, "result")

    def _executable(self, device):
        key = dispatch.device_key(device)
        exe = self._executables.get(key)
        if exe is None:
            exe = self._executables[key] = _xjit.compile(self._module, device)
        return exe

    def __call__(self, *args, device=None) -> list:
        """Runs the entry function; see :func:`run`."""
        device = _device(device)
        exe = self._executable(device)
        avals = self.in_avals
        if len(args) != len(avals):
            raise TypeError(f"xjit.stablehlo: @main takes {len(avals)} argument(s), got "
                            f"{len(args)}")
        buffers = [_put(x, a, i, device) for i, (x, a) in enumerate(zip(args, avals))]
        return list(exe.execute_with_weak_types(buffers, [False] * len(self.out_avals)))


def _device(device):
    if device is None:
        return dispatch.default_device()
    if isinstance(device, str):
        return dispatch.devices_for(device)[0]
    return device


def _put(x, aval: ShapedArray, i: int, device):
    if isinstance(x, dispatch.Array):
        arr = np.asarray(x)
    elif isinstance(x, (bool, int, float, complex)):
        arr = np.asarray(x, dtype=aval.dtype)
    else:
        arr = np.asarray(x)
    if arr.shape != aval.shape or arr.dtype != aval.dtype:
        got = f"{arr.dtype.name}[{','.join(map(str, arr.shape))}]"
        raise TypeError(f"xjit.stablehlo: argument {i} is {got}, the entry function expects "
                        f"{aval.str_short()}")
    return _xjit.device_put(np.require(arr, requirements="C"), device, False)


def parse(text: str, entry: str | None = None) -> Module:
    """Parses StableHLO text into a :class:`Module`.

    ``entry`` names the function to run; by default ``@main``, or the only
    function. Malformed text raises ``ValueError`` ("line:column: ..."), an
    op or type xjit lacks ``NotImplementedError``.

    Example:
        >>> parse('func.func @f() -> tensor<i32> {\\n'
        ...       '  %c = stablehlo.constant dense<3> : tensor<i32>\\n'
        ...       '  return %c : tensor<i32>\\n}').out_avals
        (ShapedArray(int32[]),)
    """
    return Module(text, entry)


def _as_module(text_or_module) -> Module:
    if isinstance(text_or_module, Module):
        return text_or_module
    if isinstance(text_or_module, os.PathLike):
        with open(text_or_module) as f:
            return Module(f.read())
    return Module(text_or_module)


def run(text_or_module, *args, device=None) -> list:
    """Runs a module's entry function on ``args``; returns its results as a
    list of ``xjit.Array``.

    ``device`` is an xjit device or a platform name ("cpu", "reference");
    by default the default device.

    Example:
        >>> text = ('func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\\n'
        ...         '  %0 = stablehlo.multiply %x, %x : tensor<3xf32>\\n'
        ...         '  return %0 : tensor<3xf32>\\n}')
        >>> run(text, np.arange(3, dtype=np.float32))
        [Array([0., 1., 4.], dtype=float32)]
    """
    return _as_module(text_or_module)(*args, device=device)


class Compiled:
    """A module compiled for one device; call it with the entry's arguments.
    The executable is built once and reused by every call."""

    def __init__(self, module: Module, device):
        self._module = module
        self._device = _device(device)
        self._module._executable(self._device)

    @property
    def module(self) -> Module:
        return self._module

    @property
    def in_avals(self) -> tuple:
        return self._module.in_avals

    @property
    def out_avals(self) -> tuple:
        return self._module.out_avals

    def __call__(self, *args) -> list:
        return self._module(*args, device=self._device)

    def __repr__(self):
        return f"<stablehlo.Compiled {self._module!r} on {self._device}>"


def compile(text_or_module, device=None) -> Compiled:  # noqa: A001 (JAX's name)
    """Parses (when given text) and compiles a module once; returns a callable
    that runs its entry function, reusing the executable.

    Example:
        >>> f = compile('func.func @main(%x: tensor<i32>) -> tensor<i32> {\\n'
        ...             '  %0 = stablehlo.negate %x : tensor<i32>\\n'
        ...             '  return %0 : tensor<i32>\\n}')
        >>> f(np.int32(5))
        [Array(-5, dtype=int32)]
    """
    return Compiled(_as_module(text_or_module), device)
