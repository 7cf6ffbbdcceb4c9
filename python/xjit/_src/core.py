"""Abstract values, traces and tracers.

A ``Trace`` owns the ``ComputationBuilder`` a function is being traced into; a
``Tracer`` is a handle to one graph value of that trace together with its
abstract value (``ShapedArray``: shape, dtype, weak type). Traces form a
stack: while one is active every primitive is staged into the innermost one
(see ``dispatch.bind``).

Example:
    >>> ShapedArray((2, 3), np.dtype("float32")).str_short()
    'float32[2,3]'
"""
from __future__ import annotations

import operator
import threading
from typing import Any

import ml_dtypes
import numpy as np

from xjit._src import dtypes, errors

#: numpy dtype for each dtype name crossing the C++ boundary.
DTYPE_BY_NAME = {name: np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")}
DTYPE_BY_NAME["bfloat16"] = np.dtype(ml_dtypes.bfloat16)
DTYPE_BY_NAME.update({d.name: d for d in dtypes.NARROW_DTYPES})

dtype_name = dtypes.dtype_name


class _ShapeAndDtype:
    """Shape (a tuple), numpy dtype and weak-type flag: the fields that
    ``ShapedArray`` and ``ShapeDtypeStruct`` share."""
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)


class ShapedArray(_ShapeAndDtype):
    """The abstract value of an array: shape, dtype and JAX's weak-type flag.

    Example:
        >>> ShapedArray((), np.dtype("float32"), weak_type=True)
        ShapedArray(float32[], weak_type=True)
    """
    __slots__ = ()

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def str_short(self) -> str:
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"


class ShapeDtypeStruct(_ShapeAndDtype):
    """A shape and dtype with no data, as accepted by ``jit(f).lower``.

    Example:
        >>> ShapeDtypeStruct((3,), np.float32).shape
        (3,)
    """
    __slots__ = ()

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"


class Pending:
    """A concrete value computed on first use: ``fn()`` once its ``deps`` (other
    Pending values) are computed. Evaluation is iterative, so a chain of many
    ops does not hit Python's recursion limit.

    Example:
        >>> Pending(lambda: 3).get()
        3
    """
    __slots__ = ("deps", "fn", "value", "done")

    def __init__(self, fn, deps=()):
        self.deps = deps
        self.fn = fn
        self.value = None
        self.done = False

    def get(self):
        stack = [self]
        while stack:
            node = stack[-1]
            if node.done:
                stack.pop()
                continue
            todo = [d for d in node.deps if not d.done]
            if todo:
                stack.extend(todo)
                continue
            node.value = node.fn()
            node.done, node.fn, node.deps = True, None, ()
            stack.pop()
        return self.value


def concrete_value_of(x):
    """The concrete value of tracer ``x`` (numpy array or xjit.Array), or None."""
    c = x._concrete
    return c.get() if isinstance(c, Pending) else c


class Trace:
    """One function being traced: a module builder and the computation in it.

    ``constants`` caches graph constants made from concrete arrays so that an
    array captured twice is embedded once.

    A region trace (a called computation: a reduce body, a nested jit) has the
    trace it is nested in as ``parent``. When it meets a tracer of an enclosing
    live trace it lifts it (``lift``): the value becomes an extra parameter of
    the region's computation, and ``captures`` records the value it stands for
    in the parent trace (as a jaxpr's constvars), which the op owning the
    region passes as operands. A value used twice is lifted once; a value of a
    trace further out is lifted through every trace in between.
    ``on_capture(tracer)`` may refuse a capture by raising (reduce bodies).
    """

    def __init__(self, module_builder, computation_builder, name: str = "main", *,
                 parent: "Trace | None" = None, on_capture=None, concrete: bool = False):
        self.mb = module_builder
        # A concrete trace (a transformation called outside jit) gives each op
        # whose operands all have concrete values a concrete value too
        # (``Pending``), so Python control flow on them works as in JAX.
        self.concrete = concrete
        self.cb = computation_builder
        self.name = name
        self.live = True
        self.parent = parent
        self.constants: dict[int, Any] = {}
        # Python scalars as operands, converted and broadcast once per trace:
        # (dtype, weak, shape, value bytes) -> tracer (numpy/util.py).
        self.scalar_operands: dict[tuple, Any] = {}
        self._keepalive: list[Any] = []
        self.captures: list[Tracer] = []
        self._lifted: dict[Any, Any] = {}  # parent's graph value -> our parameter
        self._on_capture = on_capture
        # Whether an op with side effects (a host transfer, a callback) was
        # traced here or in a region or call nested in it: a nested jit with
        # no outputs must then still be called.
        self.has_effects = False
        # Names of the module's computations (shared by the traces of one module).
        self.names: set[str] = parent.names if parent is not None else {"main"}
        # Region computations of ops with a region_key (a reduce's add body),
        # built once per module and called by every such op (dispatch.py).
        self.regions: dict[tuple, list] = parent.regions if parent is not None else {}

    def constant(self, value) -> Any:
        """A graph constant holding concrete ``value`` (numpy or xjit.Array)."""
        key = id(value)
        v = self.constants.get(key)
        if v is None:
            v = self.cb.constant(np.asarray(value, order="C"))
            self.constants[key] = v
            self._keepalive.append(value)  # keeps id(value) unique while tracing
        return v

    def encloses(self, other: "Trace") -> bool:
        """Whether ``other`` is nested (at any depth) in this trace."""
        t = other.parent
        while t is not None:
            if t is self:
                return True
            t = t.parent
        return False

    def lift(self, x: "Tracer") -> Any:
        """The parameter of this trace's computation standing for ``x``, a tracer
        of a live trace enclosing this one (added on first use)."""
        if self._on_capture is not None:
            self._on_capture(x)
        parent = self.parent
        outer = x._value if x._trace is parent else parent.lift(x)
        v = self._lifted.get(outer)
        if v is None:
            v = self.cb.parameter(x.aval.dtype.name, x.aval.shape)
            self._lifted[outer] = v
            self.captures.append(Tracer(parent, outer, x.aval, x._concrete))
        return v

    def mark_effects(self) -> None:
        """Records that a side-effecting op was traced here (and so in every parent)."""
        t = self
        while t is not None and not t.has_effects:
            t.has_effects = True
            t = t.parent

    def unique_name(self, base: str) -> str:
        """``base``, or ``base_1``, ``base_2``...: a computation name new in the module."""
        name, i = base, 0
        while name in self.names:
            i += 1
            name = f"{base}_{i}"
        self.names.add(name)
        return name

    def __repr__(self):
        return f"Trace({self.name})"


class _TraceState(threading.local):
    def __init__(self):
        self.stack: list[Trace] = []


_state = _TraceState()


def current_trace():
    """The innermost active trace, or None when running eagerly."""
    stack = _state.stack
    return stack[-1] if stack else None


class new_trace:
    """Context manager that makes ``trace`` the innermost active trace.

    Example:
        >>> with new_trace(Trace(mb, mb.computation("main"))) as t:  # doctest: +SKIP
        ...     pass
    """

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> Trace:
        _state.stack.append(self.trace)
        return self.trace

    def __exit__(self, *exc):
        popped = _state.stack.pop()
        assert popped is self.trace, "trace stack corrupted"
        self.trace.live = False
        return False


class Tracer:
    """A traced array: a graph value of ``trace`` with abstract value ``aval``.

    Tracers support the same operators and methods as ``xjit.Array`` but have no
    concrete value: converting one to a Python bool/int/float or numpy array
    raises a ``ConcretizationTypeError`` subclass.
    """
    # shape, dtype and weak_type are aval's, copied: tracing reads them several
    # times an op, and a property is a Python call each time.
    __slots__ = ("_trace", "_value", "aval", "_concrete", "shape", "dtype", "weak_type",
                 "__weakref__")
    __array_priority__ = 100

    def __init__(self, trace: Trace, value, aval: ShapedArray, concrete=None):
        self._trace = trace
        self._value = value
        self.aval = aval
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.weak_type = aval.weak_type
        # None, a concrete value (numpy/xjit.Array) or a Pending one: set only
        # in concrete traces (see Trace.concrete).
        self._concrete = concrete

    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)

    def __repr__(self):
        return f"Traced<{self.aval!r}>with<{self._trace!r}>"

    def _known(self):
        """The concrete value as numpy, or None (JAX's ``to_concrete_value``)."""
        if self._concrete is None:
            return None
        return np.asarray(concrete_value_of(self))

    # bool(), int(), operator.index() and item() work on a concrete value, as
    # on JAX's JVPTracer outside jit; float(), tolist() and np.asarray() do not.
    def __bool__(self):
        v = self._known()
        if v is None:
            raise errors.TracerBoolConversionError(self)
        return bool(v)

    def __index__(self):
        v = self._known()
        if v is None:
            raise errors.TracerIntegerConversionError(self)
        return operator.index(v)

    def __int__(self):
        v = self._known()
        if v is None:
            raise errors.TracerIntegerConversionError(self)
        return int(v)

    def __float__(self):
        raise errors.ConcretizationTypeError(self, "float() was called on a traced array.")

    def __complex__(self):
        raise errors.ConcretizationTypeError(self, "complex() was called on a traced array.")

    def __array__(self, dtype=None, copy=None):
        raise errors.TracerArrayConversionError(self)

    def item(self, *args):
        v = self._known()
        if v is None:
            raise errors.ConcretizationTypeError(self, "item() was called on a traced array.")
        return v.item(*args)

    def tolist(self):
        raise errors.ConcretizationTypeError(self, "tolist() was called on a traced array.")

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__} (traced arrays are "
                        f"not hashable; static arguments must be Python values)")


class Token:
    """JAX's token (``lax.create_token``): orders side effects, carries no data.

    Not an array: a pytree with no leaves, so it passes through ``jit``,
    ``cond``, ``while_loop`` and ``scan`` as structure. Inside a trace it holds
    its graph value (a ``!stablehlo.token``); used in another trace (or made
    eagerly) it stands for a fresh ``after_all()`` there: a token only orders
    the ops that take it, and xjit runs side effects in program order anyway.

    Example:
        >>> Token()
        Token()
    """
    __slots__ = ("_trace", "_value")

    def __init__(self, trace: "Trace | None" = None, value=None):
        self._trace = trace
        self._value = value

    def value_in(self, trace: "Trace"):
        """This token's graph value in ``trace`` (a new after_all() if it has none there)."""
        if self._trace is trace and self._value is not None:
            return self._value
        return trace.cb.op("after_all", [], {}, [], "")

    def __repr__(self):
        return "Token()"


# (shape, dtype name, weak) -> ShapedArray: avals are never mutated, and a
# traced program uses few distinct ones, so tracers share them.
_AVALS: dict = {}
_AVALS_LIMIT = 1 << 14


def shaped_array(shape: tuple, dtype_name: str, weak_type: bool) -> ShapedArray:
    """The (shared) ShapedArray of ``shape`` and dtype ``dtype_name``.

    Example:
        >>> shaped_array((2,), "float32", False)
        ShapedArray(float32[2])
    """
    key = (shape, dtype_name, weak_type)
    aval = _AVALS.get(key)
    if aval is None:
        if len(_AVALS) >= _AVALS_LIMIT:
            _AVALS.clear()
        aval = _AVALS[key] = ShapedArray(shape, DTYPE_BY_NAME[dtype_name], weak_type)
    return aval


def tracer_from_value(trace: Trace, value, weak_type: bool = False, concrete=None) -> Tracer:
    """Wrap builder ``value`` (a non-tuple graph value) as a Tracer of ``trace``
    (a ``Token`` when it is a token)."""
    dtype_name, shape = value.signature
    return tracer_from_signature(trace, value, dtype_name, shape, bool(weak_type), concrete)


def tracer_from_signature(trace: Trace, value, dtype_name: str, shape: tuple, weak_type: bool,
                          concrete=None):
    """``tracer_from_value`` for a caller that read ``value.signature`` already."""
    if dtype_name == "token":
        return Token(trace, value)
    return Tracer(trace, value, shaped_array(shape, dtype_name, weak_type), concrete)
