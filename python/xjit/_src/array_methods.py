"""Operators and methods of ``xjit.Array`` and ``Tracer``.

Both classes get the same numpy-style surface; operators delegate to the
``xjit.numpy`` functions (which implement JAX's promotion and broadcasting),
so ``x + 1`` means ``jnp.add(x, 1)``.

Example:
    >>> import xjit.numpy as jnp
    >>> (jnp.arange(3.0) * 2).sum()
    Array(6., dtype=float32)
"""
from __future__ import annotations

import operator

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch
from xjit._src.lax import elementwise as lax_ew
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import at as np_at
from xjit._src.numpy import cumulative as np_cumulative
from xjit._src.numpy import diagonal as np_diagonal
from xjit._src.numpy import elementwise as np_elementwise
from xjit._src.numpy import indexing as np_indexing
from xjit._src.numpy import linalg_ops as np_linalg_ops
from xjit._src.numpy import reductions as np_reductions
from xjit._src.numpy import shape_ops as np_shape_ops
from xjit._src.numpy import sorting as np_sorting

Array = _xjit.Array
Tracer = core.Tracer
# The modules defining the xjit.numpy functions the methods delegate to.
_NUMPY_MODULES = (np_elementwise, np_reductions, np_shape_ops, np_linalg_ops, np_indexing,
                  np_cumulative, np_diagonal, np_sorting)


def _jnp_function(name: str):
    """The function ``xjit.numpy.<name>``, found in the private module defining it
    (None for a name xjit.numpy lacks)."""
    for module in _NUMPY_MODULES:
        f = vars(module).get(name)
        if f is not None:
            return f
    return None


_OPERAND_TYPES = (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)


def _binary(jnp_name: str, reflected: bool = False):
    f = _jnp_function(jnp_name)

    def method(self, other):
        if not isinstance(other, _OPERAND_TYPES):
            return NotImplemented
        return f(other, self) if reflected else f(self, other)
    method.__name__ = f"__{'r' if reflected else ''}{jnp_name}__"
    return method


def _unary(jnp_name: str):
    f = _jnp_function(jnp_name)

    def method(self):
        return f(self)
    method.__name__ = f"__{jnp_name}__"
    return method


def _delegate(jnp_name: str):
    f = _jnp_function(jnp_name)

    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    method.__name__ = jnp_name
    method.__doc__ = f"Same as ``xjit.numpy.{jnp_name}(self, ...)``."
    return method


_BINARY_OPS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift", "divmod": "divmod",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY_OPS = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "invert"}
_DELEGATED = ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "any", "all", "std",
              "var", "cumsum", "cumprod", "clip", "round", "dot", "squeeze", "ravel",
              "conj", "conjugate", "sort", "argsort", "repeat", "take", "trace",
              "diagonal", "swapaxes", "nonzero", "ptp")


def reshape(self, *shape, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``.

    Example:
        >>> jnp.arange(6).reshape(2, 3).shape
        (2, 3)
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    return np_shape_ops.reshape(self, shape, order=order)


def transpose(self, *axes):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not axes or axes == (None,):
        axes = None
    elif len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = tuple(axes[0])
    return np_shape_ops.transpose(self, axes)


def flatten(self, order="C"):
    """A 1-D copy of the array."""
    return reshape(self, (self.size,))


def astype(self, dtype, copy=False):
    """The array converted to ``dtype`` (strongly typed).

    Example:
        >>> jnp.arange(3).astype("float32")
        Array([0., 1., 2.], dtype=float32)
    """
    return lax_ew.convert_element_type(self, dispatch.canonicalize_dtype(dtype))


def _t(self):
    nd = self.ndim
    return self if nd < 2 else lax_shapes.transpose(self, tuple(range(nd))[::-1])


def _mt(self):
    nd = self.ndim
    if nd < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return lax_shapes.transpose(self, perm)


def _real(self):
    return np_elementwise.real(self)


def _imag(self):
    return np_elementwise.imag(self)


def _getitem(self, idx):
    return np_indexing.getitem(self, idx)


def _at(self):
    return np_at._IndexUpdateHelper(self)


def _len(self):
    if not self.shape:
        raise TypeError("len() of unsized object")
    return self.shape[0]


def _array_iter(self):
    if not self.shape:
        raise TypeError("iteration over a 0-d array")
    # Rows of a concrete array come from one host copy: no per-index compile.
    values = np.asarray(self)
    device, weak = self.device, self.weak_type
    for row in values:
        yield _xjit.device_put(np.asarray(row, order="C"), device, weak)


def _tracer_iter(self):
    if not self.shape:
        raise TypeError("iteration over a 0-d array")
    for i in range(self.shape[0]):
        yield lax_shapes.index_in_dim(self, i, 0, keepdims=False)


def _array_repr(self):
    prefix = "Array("
    dtype_str = f"dtype={self.dtype.name}"
    if self.weak_type:
        dtype_str += ", weak_type=True"
    dtype_str += ")"
    line_width = np.get_printoptions()["linewidth"]
    if self.size == 0:
        s = f"[], shape={tuple(self.shape)}"
    else:
        s = np.array2string(np.asarray(self), prefix=prefix, suffix=",", separator=", ",
                            max_line_width=line_width)
    last_line_len = len(s) - s.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 1 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{s},{sep}{dtype_str}"


def _array_str(self):
    return str(np.asarray(self))


def _array_format(self, spec):
    if self.ndim == 0:
        return format(np.asarray(self)[()], spec)
    return format(str(self), spec)


def _scalar_value(self, what: str):
    if self.size != 1:
        raise TypeError(f"only length-1 arrays can be converted to Python {what}")
    return np.asarray(self).reshape(())[()]


def _array_bool(self):
    if self.size != 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    return bool(_scalar_value(self, "scalars"))


def _array_int(self):
    return int(_scalar_value(self, "scalars"))


def _array_float(self):
    return float(_scalar_value(self, "scalars"))


def _array_complex(self):
    return complex(_scalar_value(self, "scalars"))


def _array_index(self):
    if self.ndim != 0 or np.dtype(self.dtype).kind not in "iu":
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return operator.index(np.asarray(self)[()])


def _array_item(self, *args):
    return np.asarray(self).item(*args)


def _array_tolist(self):
    return np.asarray(self).tolist()


def _array_copy(self):
    return _xjit.device_put(np.asarray(self, order="C"), self.device,
                            self.weak_type)


def _tracer_copy(self):
    return self


def _common_methods() -> dict:
    methods = {}
    for py, name in _BINARY_OPS.items():
        methods[f"__{py}__"] = _binary(name)
        methods[f"__r{py}__"] = _binary(name, reflected=True)
    for py, name in _COMPARISONS.items():
        methods[f"__{py}__"] = _binary(name)
    for py, name in _UNARY_OPS.items():
        methods[f"__{py}__"] = _unary(name)
    for name in _DELEGATED:
        if _jnp_function(name) is not None:
            methods[name] = _delegate(name)
    methods.update({
        "reshape": reshape, "transpose": transpose, "flatten": flatten, "astype": astype,
        "T": property(_t), "mT": property(_mt), "real": property(_real),
        "imag": property(_imag), "__getitem__": _getitem, "__len__": _len,
        "at": property(_at),
        "__array_priority__": 100, "__hash__": None,
    })
    return methods


def attach() -> None:
    """Install the methods on ``xjit.Array`` and ``Tracer`` (idempotent)."""
    common = _common_methods()
    array_only = {
        "__iter__": _array_iter, "__repr__": _array_repr, "__str__": _array_str,
        "__format__": _array_format, "__bool__": _array_bool, "__int__": _array_int,
        "__float__": _array_float, "__complex__": _array_complex,
        "__index__": _array_index, "item": _array_item, "tolist": _array_tolist,
        "copy": _array_copy,
    }
    tracer_only = {"__iter__": _tracer_iter, "copy": _tracer_copy}
    for cls, extra in ((Array, array_only), (Tracer, tracer_only)):
        for name, value in {**common, **extra}.items():
            setattr(cls, name, value)
