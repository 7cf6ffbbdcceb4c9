"""nn.dot_product_attention against a numpy reference (every option) and
against JAX when it is installed (values and gradients), with bad inputs."""
import numpy as np
import pytest

import xjit
from xjit import nn
from jax_checks import need_jax

rng = np.random.default_rng(0)
B, T, S, N, K, H = 2, 5, 7, 4, 2, 8
Q = rng.standard_normal((B, T, N, H)).astype(np.float32)
KEY = rng.standard_normal((B, S, K, H)).astype(np.float32)
VAL = rng.standard_normal((B, S, K, H)).astype(np.float32)
BIAS = rng.standard_normal((1, N, T, S)).astype(np.float32)
MASK = rng.random((B, 1, T, S)) > 0.3


def reference(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None,
              kv_len=None, window=None):
    b, t, n, h = q.shape
    s, kh = k.shape[1], k.shape[2]
    scale = 1 / np.sqrt(h) if scale is None else scale
    out = np.zeros_like(q, dtype=np.float64)
    for bi in range(b):
        for ni in range(n):
            logits = q[bi, :, ni].astype(np.float64) @ k[bi, :, ni // (n // kh)].T * scale
            if bias is not None:
                logits = logits + np.broadcast_to(bias, (b, n, t, s))[bi, ni]
            keep = np.ones((t, s), bool)
            if mask is not None:
                keep &= np.broadcast_to(mask, (b, n, t, s))[bi, ni]
            i, j = np.arange(t)[:, None], np.arange(s)[None, :]
            if is_causal:
                keep &= j <= i
            if window is not None:
                keep &= (j >= i - window[0]) & (j <= i + window[1])
            if q_len is not None:
                keep &= i < q_len[bi]
            if kv_len is not None:
                keep &= j < kv_len[bi]
            logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
            p = np.exp(logits - logits.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            o = p @ v[bi, :, ni // (n // kh)]
            if q_len is not None:
                o = o * (np.arange(t) < q_len[bi])[:, None]
            out[bi, :, ni] = o
    return out


CASES = [
    dict(), dict(bias=BIAS), dict(mask=MASK), dict(scale=0.3, bias=BIAS, mask=MASK),
    dict(query_seq_lengths=np.array([3, 5], np.int32),
         key_value_seq_lengths=np.array([7, 2], np.int32)),
]


@pytest.mark.parametrize("kw", range(len(CASES)))
def test_matches_reference(kw):
    kw = CASES[kw]
    want = reference(Q, KEY, VAL, kw.get("bias"), kw.get("mask"), kw.get("scale"),
                     q_len=kw.get("query_seq_lengths"), kv_len=kw.get("key_value_seq_lengths"))
    for f in (nn.dot_product_attention, xjit.jit(nn.dot_product_attention)):
        np.testing.assert_allclose(np.asarray(f(Q, KEY, VAL, **kw)), want, rtol=2e-5, atol=2e-6)


def test_causal_window_unbatched_and_residual():
    k, v = KEY[:, :T], VAL[:, :T]
    np.testing.assert_allclose(np.asarray(nn.dot_product_attention(Q, k, v, is_causal=True)),
                               reference(Q, k, v, is_causal=True), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(
        np.asarray(nn.dot_product_attention(Q, k, v, local_window_size=(1, 2))),
        reference(Q, k, v, window=(1, 2)), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(np.asarray(nn.dot_product_attention(Q[0], KEY[0], VAL[0])),
                               reference(Q[:1], KEY[:1], VAL[:1])[0], rtol=2e-5, atol=2e-6)
    out, lse = nn.dot_product_attention(Q, KEY, VAL, return_residual=True)
    assert out.shape == Q.shape and lse.shape == (B, T, N)


def test_against_jax_values_and_gradients():
    jax = need_jax()
    for kw in CASES:
        got = nn.dot_product_attention(Q, KEY, VAL, **kw)
        want = jax.nn.dot_product_attention(Q, KEY, VAL, **kw)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-6)
    g = xjit.grad(lambda q: nn.dot_product_attention(q, KEY, VAL, bias=BIAS).sum())(Q)
    w = jax.grad(lambda q: jax.nn.dot_product_attention(q, KEY, VAL, bias=BIAS).sum())(Q)
    np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)


def test_bad_inputs():
    with pytest.raises(ValueError, match="multiple of"):
        nn.dot_product_attention(Q[:, :, :3], KEY, VAL)
    with pytest.raises(ValueError, match="3-d or 4-d"):
        nn.dot_product_attention(Q[0, 0], KEY[0, 0], VAL[0, 0])
    with pytest.raises(ValueError, match="boolean"):
        nn.dot_product_attention(Q, KEY, VAL, mask=MASK.astype(np.float32))
    with pytest.raises(ValueError, match="implementation"):
        nn.dot_product_attention(Q, KEY, VAL, implementation="cudnn")
