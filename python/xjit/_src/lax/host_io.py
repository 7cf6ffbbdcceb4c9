"""Tokens and host transfers: ``lax.create_token``, ``after_all``, ``infeed``,
``outfeed``, ``send``, ``recv`` (the StableHLO ops), and the host side of
the queues they use (``Device.transfer_to_infeed``, ``transfer_from_outfeed``,
``transfer_to_channel``, ``transfer_from_channel``).

Each device of the host platforms has an infeed queue (the host pushes
arrays, ``infeed`` takes them in order) and an outfeed queue (``outfeed``
appends, the host takes); ``send``/``recv`` go through an in-process channel
named by its handle, which programs and the host may both use. ``infeed`` and
``recv`` wait for data (``XJIT_HOST_TRANSFER_TIMEOUT_S``, default 60 s, then
the run fails with an error naming the queue).

Example:
    >>> import numpy as np, xjit
    >>> from xjit import lax
    >>> dev = xjit.devices()[0]
    >>> dev.transfer_to_infeed(np.arange(3, dtype=np.float32))
    >>> @xjit.jit
    ... def f():
    ...     x, tok = lax.infeed(lax.create_token(), xjit.ShapeDtypeStruct((3,), np.float32))
    ...     lax.outfeed(tok, x * 2)
    ...     return x
    >>> f()
    Array([0., 1., 2.], dtype=float32)
    >>> dev.transfer_from_outfeed(xjit.ShapeDtypeStruct((3,), np.float32))
    array([0., 2., 4.], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from xjit import _xjit
from xjit._src import core, dispatch
from xjit._src.lax import operands as ops
from xjit._src.traceback_util import api_boundary

Token = core.Token

# Leafless pytree: a token passes through jit, cond, while_loop and scan as structure.
_xjit.register_pytree_node(Token, lambda t: ((), None), lambda aux, children: Token())


def _check_token(name: str, token) -> None:
    if not isinstance(token, Token):
        raise TypeError(f"{name} requires a token (from lax.create_token or lax.after_all), "
                        f"got {token!r}")


def _value_shapes(name: str, shape) -> tuple:
    """(leaves as (dims, numpy dtype), treedef) of a pytree of shape/dtype objects."""
    leaves, treedef = _xjit.tree_flatten(shape)
    out = []
    for leaf in leaves:
        if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            raise TypeError(f"{name}: shape must be a pytree of objects with .shape and .dtype "
                            f"(xjit.ShapeDtypeStruct), got {leaf!r}")
        dims = tuple(int(d) for d in leaf.shape)
        if any(d < 0 for d in dims):
            raise ValueError(f"{name}: negative dimension in shape {dims}")
        dt = dispatch.canonicalize_dtype(leaf.dtype)
        if dt.name not in core.DTYPE_BY_NAME:
            raise TypeError(f"{name}: unsupported dtype {dt}")
        out.append((dims, dt))
    return out, treedef


_eager_fns: dict = {}


def _run_eagerly(key, fn, *args):
    """``fn(*args)`` as a jitted program (cached per key): a host transfer
    outside jit is a one-op program like any eager op."""
    from xjit._src import api  # noqa: PLC0415 (api sits above lax)
    f = _eager_fns.get(key)
    if f is None:
        f = _eager_fns[key] = api.jit(fn)
    return f(*args)


@api_boundary
def create_token(*_args) -> Token:
    """A new token (JAX's ``lax.create_token``; arguments are ignored, as in JAX)."""
    trace = core.current_trace()
    if trace is None:
        return Token()
    return dispatch.bind("after_all", [])


@api_boundary
def after_all(*tokens) -> Token:
    """A token that orders after every one of ``tokens``."""
    for t in tokens:
        _check_token("after_all", t)
    trace = core.current_trace()
    if trace is None:
        return Token()
    return dispatch.bind("after_all", list(tokens))


def _receive(name: str, token, shape, attrs: dict):
    _check_token(name, token)
    leaves, treedef = _value_shapes(name, shape)
    trace = core.current_trace()
    if trace is None:
        key = (name, tuple(leaves), treedef, tuple(attrs.items()))
        return _run_eagerly(key, lambda: _receive(name, Token(), shape, attrs))
    trace.mark_effects()
    values = []
    for dims, dt in leaves:
        x, token = dispatch.bind(name, [token], {**attrs, "shape": dims, "dtype": dt.name})
        values.append(x)
    return treedef.unflatten(values), token


def _transmit(name: str, token, xs, attrs: dict):
    _check_token(name, token)
    leaves, treedef = _xjit.tree_flatten(xs)
    trace = core.current_trace()
    if trace is None:
        key = (name, treedef, tuple(attrs.items()))
        _run_eagerly(key, lambda *ys: _transmit(name, Token(), treedef.unflatten(ys), attrs),
                     *leaves)
        return Token()
    trace.mark_effects()
    if not leaves:
        return token
    arrays = []
    for x in leaves:
        ops.check_arraylike(name, x)
        arrays.append(ops.as_operand(x, ops.dtype_of(x)))
    return dispatch.bind(name, arrays + [token], attrs)


@api_boundary
def infeed(token, shape, partitions=None):
    """``(values, token)``: the next arrays of this device's infeed queue, one per
    leaf of ``shape`` (a pytree of ``ShapeDtypeStruct``), as JAX's ``lax.infeed``."""
    if partitions is not None:
        raise NotImplementedError("infeed: partitions are not supported on one device")
    return _receive("infeed", token, shape, {})


@api_boundary
def outfeed(token, xs, partitions=None):
    """Appends each leaf of ``xs`` to this device's outfeed queue; returns a token."""
    if partitions is not None:
        raise NotImplementedError("outfeed: partitions are not supported on one device")
    return _transmit("outfeed", token, xs, {})


def _channel_attrs(name: str, channel, kind: int, is_host_transfer: bool) -> dict:
    if isinstance(channel, bool) or not isinstance(channel, (int, np.integer)):
        raise TypeError(f"{name}: channel must be an int handle, got {channel!r}")
    return {"handle": int(channel), "type": kind, "is_host_transfer": bool(is_host_transfer)}


@api_boundary
def send(token, xs, channel: int, *, is_host_transfer: bool = False):
    """Appends each leaf of ``xs`` to channel ``channel``; returns a token.

    A ``recv`` on the same channel (in this or a later program), or the host
    (``Device.transfer_from_channel``), takes them in order."""
    return _transmit("send", token, xs,
                     _channel_attrs("send", channel, 2 if is_host_transfer else 1,
                                    is_host_transfer))


@api_boundary
def recv(token, shape, channel: int, *, is_host_transfer: bool = False):
    """``(values, token)``: the next arrays of channel ``channel``, one per leaf of ``shape``."""
    return _receive("recv", token, shape,
                    _channel_attrs("recv", channel, 3 if is_host_transfer else 1,
                                   is_host_transfer))


# ---------------------------------------------------------------- host side

def _host_values(value) -> list:
    leaves, _ = _xjit.tree_flatten(value)
    out = []
    for leaf in leaves:
        a = np.asarray(leaf)
        if a.dtype.name not in core.DTYPE_BY_NAME:
            raise TypeError(f"unsupported dtype {a.dtype} for a host transfer")
        out.append(np.asarray(a, dispatch.canonicalize_dtype(a.dtype), order="C"))
    return out


def _take(name: str, pop, shape, timeout):
    leaves, treedef = _value_shapes(name, shape)
    return treedef.unflatten([pop(dt, dims, timeout) for dims, dt in leaves])


def transfer_to_infeed(self, value) -> None:
    """Appends each leaf of ``value`` (an array or a pytree of arrays) to this
    device's infeed queue."""
    for a in _host_values(value):
        _xjit.transfer_to_infeed(self, a)


def transfer_from_outfeed(self, shape, timeout: float | None = None):
    """The next arrays of this device's outfeed queue, one per leaf of ``shape``
    (a pytree of ``ShapeDtypeStruct``), as numpy arrays; waits up to ``timeout``
    seconds (default: ``XJIT_HOST_TRANSFER_TIMEOUT_S``)."""
    return _take("transfer_from_outfeed",
                 lambda dt, dims, t: _xjit.transfer_from_outfeed(self, dt.name, dims, t),
                 shape, timeout)


def transfer_to_channel(self, channel: int, value) -> None:
    """Appends each leaf of ``value`` to channel ``channel`` (read by ``recv``)."""
    _channel_attrs("transfer_to_channel", channel, 3, True)
    for a in _host_values(value):
        _xjit.send_to_channel(self, int(channel), a)


def transfer_from_channel(self, channel: int, shape, timeout: float | None = None):
    """The next arrays ``send`` put on channel ``channel``, one per leaf of ``shape``."""
    _channel_attrs("transfer_from_channel", channel, 2, True)
    return _take("transfer_from_channel",
                 lambda dt, dims, t: _xjit.receive_from_channel(self, int(channel), dt.name,
                                                                dims, t),
                 shape, timeout)


_xjit.Device.transfer_to_infeed = transfer_to_infeed
_xjit.Device.transfer_from_outfeed = transfer_from_outfeed
_xjit.Device.transfer_to_channel = transfer_to_channel
_xjit.Device.transfer_from_channel = transfer_from_channel
