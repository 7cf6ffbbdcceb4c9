"""numpy references for the convolution and windowed-reduction tests: the
StableHLO definitions written with sliding windows."""
import numpy as np


def _dilate(x, axis, d):
    if d == 1:
        return x
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = 0 if n == 0 else (n - 1) * d + 1
    y = np.zeros(shape, x.dtype)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, d)
    y[tuple(idx)] = x
    return y


def _pad(x, axis, lo, hi, value=0):
    pad = [(0, 0)] * x.ndim
    pad[axis] = (max(lo, 0), max(hi, 0))
    x = np.pad(x, pad, constant_values=value)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(max(-lo, 0), max(x.shape[axis] - max(-hi, 0), max(-lo, 0)))
    return x[tuple(idx)]


def conv(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, dn, fgc=1, bgc=1):
    """conv_general_dilated with ``dn`` = (lhs_spec, rhs_spec, out_spec) permutations."""
    lhs_spec, rhs_spec, out_spec = dn
    wide = np.result_type(lhs.dtype, np.float64)
    x = np.transpose(lhs, lhs_spec).astype(wide)
    w = np.transpose(rhs, rhs_spec).astype(wide)
    ns = x.ndim - 2
    for i in range(ns):
        x = _dilate(x, 2 + i, lhs_dilation[i])
        x = _pad(x, 2 + i, *padding[i])
        w = _dilate(w, 2 + i, rhs_dilation[i])
    n, _, *sp = x.shape
    o, ci, *k = w.shape
    out_sp = [max((s - kk) // st + 1, 0) if s >= kk else 0 for s, kk, st in zip(sp, k, strides)]
    groups = max(fgc, bgc)
    nb = n // bgc
    out = np.zeros((nb, o, *out_sp), wide)
    og = o // groups
    if all(out_sp) and nb and o:
        win = np.lib.stride_tricks.sliding_window_view(x, k, axis=tuple(range(2, 2 + ns)))
        win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
        win = win[(slice(None), slice(None)) + tuple(slice(0, p) for p in out_sp)]
        for g in range(groups):
            xb = win[g * nb:(g + 1) * nb] if bgc > 1 else win
            xg = xb[:, g * ci:(g + 1) * ci] if fgc > 1 else xb
            wg = w[g * og:(g + 1) * og]
            r = np.tensordot(xg, wg, axes=([1] + list(range(2 + ns, 2 + 2 * ns)),
                                           [1] + list(range(2, 2 + ns))))
            out[:, g * og:(g + 1) * og] = np.moveaxis(r, -1, 1)
    return np.transpose(out, np.argsort(out_spec))


def reduce_window(x, init, fn, window, strides, padding, base_dilation=None,
                  window_dilation=None):
    """reduce_window of one operand with a numpy ufunc-style ``fn`` reduction
    (``np.add``, ``np.maximum``...), padding and holes holding ``init``."""
    nd = x.ndim
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    y = np.asarray(x)
    for i in range(nd):
        d = base_dilation[i]
        if d > 1:
            n = y.shape[i]
            shape = list(y.shape)
            shape[i] = 0 if n == 0 else (n - 1) * d + 1
            z = np.full(shape, init, y.dtype)
            idx = [slice(None)] * nd
            idx[i] = slice(None, None, d)
            z[tuple(idx)] = y
            y = z
        y = _pad(y, i, *padding[i], value=init)
    wk = [0 if w == 0 else (w - 1) * r + 1 for w, r in zip(window, window_dilation)]
    out_sp = [max((s - kk) // st + 1, 0) if s >= kk else 0
              for s, kk, st in zip(y.shape, wk, strides)]
    out = np.full(out_sp, init, x.dtype)
    if not all(out_sp):
        return out
    win = np.lib.stride_tricks.sliding_window_view(y, wk)
    win = win[tuple(slice(None, None, s) for s in strides)]
    win = win[tuple(slice(0, p) for p in out_sp)]
    win = win[(Ellipsis,) + tuple(slice(None, None, r) for r in window_dilation)]
    flat = win.reshape(*out_sp, -1)
    acc = np.full(out_sp, init, x.dtype)
    for j in range(flat.shape[-1]):
        acc = fn(acc, flat[..., j])
    return acc
