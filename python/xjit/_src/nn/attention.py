"""``nn.dot_product_attention``: scaled dot-product attention over
``[batch, seq, heads, head_dim]`` arrays with JAX's arguments and numerics
(grouped key/value heads, bias, boolean and causal masks, sequence
lengths, local windows; logits and softmax in float32, masked logits set
to -0.7 times the dtype's largest value).

Example:
    >>> from xjit import nn
    >>> q = jnp.ones((1, 4, 2, 8))
    >>> nn.dot_product_attention(q, q, q, is_causal=True).shape
    (1, 4, 2, 8)
"""
from __future__ import annotations

import math

import numpy as np

from xjit._src import dtypes
from xjit._src.nn.functions import softmax
from xjit._src.numpy import util
from xjit._src.numpy.einsum import einsum
from xjit._src.numpy.namespace import jnp
from xjit._src.traceback_util import api_boundary


def _positions_mask(T, S, is_causal, q_len, kv_len, window):
    """[B or 1, 1, T, S] booleans: which (query, key) pairs the structural masks keep."""
    keep = jnp.ones((1, 1, T, S), bool)
    qi = jnp.arange(T)[:, None]
    kj = jnp.arange(S)[None, :]
    if is_causal:
        keep = keep & (kj <= qi)[None, None]
    if window is not None:
        left, right = window
        keep = keep & ((kj >= qi - left) & (kj <= qi + right))[None, None]
    if q_len is not None:
        keep = keep & (jnp.arange(T)[None, None, :, None] < q_len[:, None, None, None])
    if kv_len is not None:
        keep = keep & (jnp.arange(S)[None, None, None, :] < kv_len[:, None, None, None])
    return keep


@api_boundary
def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """``softmax(q k^T * scale + bias, masked) v`` per head: query
    ``[B, T, N, H]``, key and value ``[B, S, K, H]`` (N a multiple of K: each
    key/value head serves N/K query heads); bias and mask broadcast to
    ``[B, N, T, S]``. Returns ``[B, T, N, H]`` (and the log-sum-exp of the
    logits, ``[B, T, N]``, with ``return_residual``)."""
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation {implementation!r} is not "
                         f"available on xjit (only 'xla' / None)")
    util.check_arraylike("dot_product_attention", query, key, value)
    q, k, v = jnp.asarray(query), jnp.asarray(key), jnp.asarray(value)
    unbatched = q.ndim == 3
    if unbatched:
        q, k, v = q[None], k[None], v[None]
        bias = None if bias is None else jnp.asarray(bias)[None] if jnp.ndim(bias) == 3 else bias
        mask = None if mask is None else jnp.asarray(mask)[None] if jnp.ndim(mask) == 3 else mask
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"dot_product_attention: query, key and value must be 3-d or 4-d, got "
                         f"shapes {q.shape}, {k.shape}, {v.shape}")
    B, T, N, H = q.shape
    _, S, K, _ = k.shape
    if k.shape != v.shape or k.shape[0] != B or k.shape[3] != H:
        raise ValueError(f"dot_product_attention: key and value must be [B, S, K, H] with the "
                         f"query's B and H, got {k.shape} and {v.shape} for query {q.shape}")
    if N % K:
        raise ValueError(f"dot_product_attention: the query heads ({N}) must be a multiple of "
                         f"the key/value heads ({K})")
    G = N // K
    scale = 1.0 / math.sqrt(H) if scale is None else scale
    logits_dtype = np.promote_types(q.dtype, np.float32) if q.dtype != dtypes.dtype(
        "bfloat16") else np.dtype(np.float32)
    # [B, T, K, G, H] x [B, S, K, H] -> [B, K, G, T, S]
    qg = q.reshape(B, T, K, G, H)
    logits = einsum("BTKGH,BSKH->BKGTS", qg, k, preferred_element_type=logits_dtype)
    logits = logits * jnp.asarray(scale, logits.dtype)

    def grouped(t):  # [B|1, N|1, T, S] -> [B|1, K, G, T, S]
        t = jnp.asarray(t)
        t = t.reshape((1,) * (4 - t.ndim) + t.shape)
        if t.shape[1] == 1:
            return t[:, :, None]
        if t.shape[1] != N:
            raise ValueError(f"dot_product_attention: bias/mask heads must be 1 or {N}, got "
                             f"shape {t.shape}")
        return t.reshape(t.shape[0], K, G, t.shape[2], t.shape[3])
    if bias is not None:
        logits = (logits + grouped(bias)).astype(logits.dtype)
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    structural = (is_causal or local_window_size is not None or q_len is not None
                  or kv_len is not None)
    if mask is not None or structural:
        keep = jnp.ones(logits.shape, bool)
        if mask is not None:
            m = grouped(mask)
            if m.dtype != bool:
                raise ValueError("dot_product_attention: mask must be boolean")
            keep = keep & m
        if structural:
            keep = keep & _positions_mask(T, S, is_causal, q_len, kv_len,
                                          local_window_size)[:, :, None]
        big_negative = np.array(-0.7 * float(dtypes.finfo(logits.dtype).max), logits.dtype)
        logits = jnp.where(keep, logits, big_negative)
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(k.dtype)
    out = einsum("BKGTS,BSKH->BTKGH", probs, v).reshape(B, T, N, H)
    if q_len is not None:
        out = out * (jnp.arange(T)[None, :] < q_len[:, None])[:, :, None, None].astype(out.dtype)
    if unbatched:
        out = out[0]
    if not return_residual:
        return out
    m = jnp.max(logits, axis=-1, keepdims=True)
    lse = (jnp.log(jnp.sum(jnp.exp(logits - m), axis=-1)) + m[..., 0]).astype(k.dtype)
    lse = jnp.moveaxis(lse.reshape(B, N, T), 1, 2)  # [B, K, G, T] -> [B, T, N]
    return out, (lse[0] if unbatched else lse)
