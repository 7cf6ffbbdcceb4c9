"""API fuzzer: random calls of xjit.numpy and xjit.lax with random shapes
(0-size and huge included), dtypes and attributes, valid and invalid. Each
case is a self-contained Python snippet run in a worker subprocess
(worker.py): where numpy accepts the call the results must agree (values to
a tolerance, shapes exactly); an invalid call must raise a Python exception,
never crash. Crashes, hangs and wrong results are saved to crashes/<hash>.py,
which runs on its own (`python crashes/<hash>.py`).

    python tools/fuzz/api_fuzz.py --seed 1 --seconds 45
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pool import fuzz_main  # noqa: E402

HEADER = '''import numpy as np
import xjit
import xjit.numpy as jnp
from xjit import lax


def check(got, want, tol):
    """got (xjit) against want (numpy): the same shape, the same values."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != numpy's {want.shape}"
    if got.dtype.kind in "fcV" or want.dtype.kind in "fc":
        wide = np.complex128 if "c" in (got.dtype.kind, want.dtype.kind) else np.float64
        g, w = got.astype(wide), want.astype(wide)
        close = np.isclose(g, w, rtol=tol, atol=tol, equal_nan=True)
        if got.dtype.kind in "fc":
            # Near the type's overflow threshold the order of operations (a
            # log-step cumprod, a tree sum) decides between a huge finite
            # value and inf; both are right.
            edge = np.finfo(got.dtype).max * 2.0**-10
            big = (np.abs(g) > edge) & (np.abs(w) > edge)
            close |= big & (np.sign(g.real) == np.sign(w.real))
        ok = bool(np.all(close))
    elif got.dtype.kind in "iu" and want.dtype.itemsize > got.dtype.itemsize:
        # numpy accumulates in 64 bits (prod, sum, cumsum); JAX without x64 in
        # the result's own width, wrapping: equal modulo 2**bits.
        ok = np.array_equal(got, want.astype(got.dtype))
    else:
        ok = np.array_equal(got.astype(np.int64), want.astype(np.int64))
    assert ok, f"values differ from numpy:\\n{got!r:.400}\\n{want!r:.400}"


'''

SMALL_DIMS = [0, 1, 1, 2, 3, 4, 5, 7]
HUGE_DIMS = [2**31, 2**32, 2**40, 2**62, 2**63 - 1, 6148914691236517206, -1, -2**62]
DTYPES = ["float32", "float32", "float32", "int32", "int32", "int8", "uint8", "bool",
          "float16"]
TOL = {"float16": 2e-2, "bfloat16": 5e-2}

UNARY = ["exp", "sin", "cos", "tanh", "abs", "negative", "floor", "ceil", "sign",
         "square", "log1p", "sqrt", "logical_not", "isnan", "isfinite", "invert",
         "expm1", "arctan", "sinh", "round"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "true_divide", "power",
          "greater", "less_equal", "equal", "not_equal", "logical_and", "bitwise_and",
          "bitwise_or", "bitwise_xor", "floor_divide", "remainder", "arctan2", "hypot",
          "left_shift", "right_shift", "fmax", "copysign"]
REDUCE = ["sum", "max", "min", "mean", "prod", "argmax", "argmin", "any", "all", "var",
          "std", "cumsum", "cumprod"]


def _shape(rng, huge=0.05, rank=None):
    rank = rng.choice([0, 1, 1, 2, 2, 3, 4]) if rank is None else rank
    dims = [rng.choice(SMALL_DIMS) for _ in range(rank)]
    if dims and rng.random() < huge:
        dims[rng.randrange(rank)] = rng.choice(HUGE_DIMS)
    return tuple(dims)


def _array(rng, name, shape, dtype, nonzero=False):
    seed = rng.randrange(2**31)
    gen = f"np.random.default_rng({seed})"
    if dtype == "bool":
        expr = f"{gen}.random({shape!r}) < 0.5"
    elif dtype in ("int32", "int8", "uint8"):
        lo = 1 if nonzero else (0 if dtype == "uint8" else -9)
        expr = f"{gen}.integers({lo}, 10, {shape!r}).astype('{dtype}')"
    else:
        expr = f"({gen}.standard_normal({shape!r}) * 3).astype('{dtype}')"
        if rng.random() < 0.1 and shape:
            expr = f"np.where({gen}.random({shape!r}) < 0.2, np.nan, {expr}).astype('{dtype}')"
    return f"{name} = {expr}\n"


def _compare(np_expr, x_expr, tol):
    return (f"try:\n    want = {np_expr}\nexcept Exception:\n    want = None\n"
            f"got = {x_expr}\n"
            f"if want is not None:\n    check(got, want, {tol})\n")


def _elementwise(rng):
    dtype = rng.choice(DTYPES)
    tol = TOL.get(dtype, 1e-3)
    if rng.random() < 0.5:
        f = rng.choice(UNARY)
        shape = _shape(rng, huge=0)
        return _array(rng, "x", shape, dtype) + _compare(f"np.{f}(x)", f"jnp.{f}(x)", tol)
    f = rng.choice(BINARY)
    a = _shape(rng, huge=0)
    # Broadcast-compatible most of the time, incompatible sometimes.
    b = a[rng.randrange(len(a) + 1):] if rng.random() < 0.8 else _shape(rng, huge=0)
    if rng.random() < 0.3 and b:
        b = tuple(1 if rng.random() < 0.5 else d for d in b)
    dtype_b = dtype if rng.random() < 0.8 else rng.choice(DTYPES)
    # Integer division by zero differs from numpy on purpose (docs/semantics.md).
    nonzero = f in ("floor_divide", "remainder", "true_divide", "power")
    if nonzero and dtype_b == "bool":  # a False divisor is a zero divisor
        dtype_b = "int32"
    code = _array(rng, "x", a, dtype) + _array(rng, "y", b, dtype_b, nonzero=nonzero)
    if f in ("left_shift", "right_shift", "power") and dtype_b != "bool":
        code += "y = np.abs(y) % 5\n" if dtype_b not in ("float32", "float16") else ""
    if rng.random() < 0.2:
        code += f"y = {rng.choice(['2', '-3', '0.5', 'True', '2**40', '-1.5'])}\n"
    return code + _compare(f"np.{f}(x, y)", f"jnp.{f}(x, y)", tol)


def _reduction(rng):
    dtype = rng.choice(["float32", "float32", "int32", "bool", "uint8"])
    shape = _shape(rng, huge=0)
    f = rng.choice(REDUCE)
    args = []
    if rng.random() < 0.7:
        r = len(shape)
        axis = rng.choice([rng.randrange(-r, r) if r else 0, r, -r - 1, None,
                           tuple(sorted(set(rng.randrange(r) for _ in range(2)))) if r else 0])
        if f in ("cumsum", "cumprod", "argmax", "argmin") and isinstance(axis, tuple):
            axis = axis[0] if axis else None
        args.append(f"axis={axis!r}")
    if rng.random() < 0.3 and f not in ("cumsum", "cumprod"):
        args.append("keepdims=True")
    tol = 1e-3 if f not in ("prod", "cumprod", "var", "std") else 1e-2
    a = ", ".join(["x"] + args)
    return _array(rng, "x", shape, dtype) + _compare(f"np.{f}({a})", f"jnp.{f}({a})", tol)


def _shape_op(rng):
    dtype = rng.choice(DTYPES)
    shape = _shape(rng, huge=0)
    code = _array(rng, "x", shape, dtype)
    r = len(shape)
    kind = rng.randrange(9)
    if kind == 0:
        new = list(shape)
        rng.shuffle(new)
        if rng.random() < 0.3:
            new.append(-1)
        if rng.random() < 0.2:
            new = list(_shape(rng, huge=0.3))
        call = f"reshape(x, {tuple(new)!r})"
    elif kind == 1:
        perm = list(range(r))
        rng.shuffle(perm)
        if rng.random() < 0.2 and perm:
            perm[0] = rng.choice([r, -1, perm[-1]])
        call = f"transpose(x, {tuple(perm)!r})"
    elif kind == 2:
        target = tuple(rng.choice([2, 3, 0]) for _ in range(rng.randrange(2))) + shape
        if rng.random() < 0.2:
            target = _shape(rng, huge=0.5)
        call = f"broadcast_to(x, {target!r})"
    elif kind == 3:
        call = f"expand_dims(x, {rng.choice([0, -1, r, r + 2, (0, 1), (0, 0)])!r})"
    elif kind == 4:
        call = f"squeeze(x, {rng.choice([None, 0, -1, r])!r})"
    elif kind == 5:
        call = f"concatenate([x, x], axis={rng.choice([0, -1, r, None])!r})"
    elif kind == 6:
        call = f"flip(x, {rng.choice([None, 0, -1, r])!r})"
    elif kind == 7:
        call = f"stack([x, x], axis={rng.choice([0, -1, r, r + 1])!r})"
    else:
        call = f"swapaxes(x, {rng.choice([0, -1, r])}, {rng.choice([0, 1, r])})"
    return code + _compare(f"np.{call}", f"jnp.{call}", 0)


def _creation(rng):
    shape = _shape(rng, huge=0.5)
    dtype = rng.choice(["float32", "int32", "bool", "uint8", None])
    f = rng.choice(["zeros", "ones", "full", "empty", "arange", "eye", "linspace"])
    if f == "full":
        call = f"full({shape!r}, 7, dtype={dtype!r})"
    elif f == "arange":
        n = rng.choice(SMALL_DIMS + HUGE_DIMS)
        call = f"arange({n}, dtype={dtype!r})"
    elif f == "eye":
        call = f"eye({rng.choice(SMALL_DIMS + HUGE_DIMS)}, dtype={dtype!r})"
    elif f == "linspace":
        call = f"linspace(0, 1, {rng.choice(SMALL_DIMS + HUGE_DIMS)})"
    else:
        call = f"{f}({shape!r}, dtype={dtype!r})"
    huge = any(abs(d) >= 2**31 for d in shape) or any(
        str(h) in call for h in HUGE_DIMS if abs(h) >= 2**31)
    if huge:  # never let numpy try; xjit must raise (or give the right shape)
        return (f"got = jnp.{call}\n"
                f"assert got.size == int(np.prod(np.array(got.shape, dtype=object)))\n"
                f"assert got.nbytes == got.size * got.dtype.itemsize\n")
    if f == "empty":
        return f"got = jnp.{call}\nassert got.shape == np.{call}.shape\n"
    return _compare(f"np.{call}", f"jnp.{call}", 1e-6)


def _indexing(rng):
    shape = _shape(rng, huge=0, rank=rng.choice([1, 2, 3]))
    code = _array(rng, "x", shape, rng.choice(["float32", "int32"]))

    def one(d):
        k = rng.randrange(6)
        if k == 0:
            return str(rng.randrange(-d - 2, d + 2))
        if k == 1:
            return ":"
        if k == 2:
            step = rng.choice([1, 2, -1, 3, -2])
            return f"{rng.randrange(-d - 1, d + 2)}:{rng.randrange(-d - 1, d + 2)}:{step}"
        if k == 3:
            return "None"
        if k == 4:
            return "..."
        return f"np.int32({rng.randrange(-d, d) if d else 0})"
    idx = ", ".join(one(d) for d in shape[:rng.randrange(1, len(shape) + 1)])
    if rng.random() < 0.15:
        n = shape[0] + rng.choice([0, 0, 1, -1])
        code += f"m = np.random.default_rng({rng.randrange(99)}).random({max(n, 0)}) < 0.5\n"
        idx = "m"
    if idx.count("...") > 1:
        idx = idx.replace("...", ":")
    return code + "xj = jnp.asarray(x)\n" + _compare(f"x[{idx}]", f"xj[{idx}]", 0)


def _lax(rng):
    shape = _shape(rng, huge=0, rank=rng.choice([1, 2]))
    dtype = rng.choice(["float32", "int32"])
    code = _array(rng, "x", shape, dtype)
    r = len(shape)
    kind = rng.randrange(7)
    big = [0, 1, 2, -1, -3, 2**31, 2**62, 2**63 - 1, -2**63]
    if kind == 0:
        cfg = [(rng.choice(big), rng.choice(big), rng.choice([0, 0, 1, 2, 2**62, -1]))
               for _ in range(r if rng.random() < 0.9 else r + 1)]
        expect = "(" + ", ".join(
            f"max(0, {lo} + {hi} + {d} + max(0, {d} - 1) * {it})"
            for (lo, hi, it), d in zip(cfg, shape)) + ",)"
        ok = all(it >= 0 and abs(lo) < 100 and abs(hi) < 100 and abs(it) < 100
                 for lo, hi, it in cfg) and len(cfg) == r
        code += f"got = lax.pad(x, x.dtype.type(0), {cfg!r})\n"
        if ok:  # only small configurations have a shape worth comparing
            code += f"want = {expect}\nassert got.shape == want, (got.shape, want)\n"
        else:
            code += "assert got.size * got.dtype.itemsize == got.nbytes\n"
        return code
    if kind == 1:
        start = [rng.randrange(-1, d + 2) for d in shape]
        limit = [rng.randrange(-1, d + 2) for d in shape]
        strides = [rng.choice([1, 1, 2, 0, -1]) for _ in shape]
        np_idx = ", ".join(f"{s}:{l}:{st}" for s, l, st in zip(start, limit, strides))
        return code + _compare(f"x[{np_idx}] if all(0 <= s <= l <= d for s, l, d in zip("
                               f"{start!r}, {limit!r}, x.shape)) and 0 not in {strides!r} "
                               f"and -1 not in {strides!r} else None",
                               f"lax.slice(x, {start!r}, {limit!r}, {strides!r})", 0)
    if kind == 2:
        e = rng.choice([0, 1, 2, 3, -1, -2, 5, 2**31, -2**40])
        return code + _compare(f"(x.astype(np.float64) ** {e}).astype(x.dtype) "
                               f"if 0 <= {e} <= 5 or x.dtype.kind == 'f' and abs({e}) <= 5 else None",
                               f"lax.integer_pow(x, {e})", 1e-3)
    if kind == 3:
        to = rng.choice(["float32", "int32", "uint8", "bool", "float16", None, "int64"])
        return code + _compare(f"x.astype({to!r}) if x.dtype.kind == 'i' and {to!r} in "
                               f"('float32', 'int32') else None",
                               f"lax.convert_element_type(x, {to!r})", 1e-3)
    if kind == 4:
        dims = tuple(sorted(rng.sample(range(r + 1), r))) if rng.random() < 0.8 else (0,) * r
        out = list(shape)
        out.insert(rng.randrange(r + 1), rng.choice([1, 3, 0, 2**40]))
        return code + f"got = lax.broadcast_in_dim(x, {tuple(out)!r}, {dims!r})\n" \
                      f"assert got.shape == {tuple(out)!r}\n"
    if kind == 5:
        new = tuple(reversed(shape)) if rng.random() < 0.7 else _shape(rng, huge=0.3)
        return code + _compare(f"x.reshape({new!r})", f"lax.reshape(x, {new!r})", 0)
    dims = tuple(rng.sample(range(r), rng.randrange(r + 1)))
    if rng.random() < 0.2:
        dims = dims + (r,)
    return code + _compare(f"np.flip(x, {dims!r})", f"lax.rev(x, {dims!r})", 0)


def _array_ops(rng):
    """The sorting, padding and rearranging functions of xjit.numpy against numpy's."""
    shape = _shape(rng, huge=0, rank=rng.choice([1, 1, 2, 3]))
    r = len(shape)
    floats = rng.random() < 0.6
    dtype = rng.choice(["float32", "float32", "float16"] if floats else ["int32", "int8", "uint8"])
    code = _array(rng, "x", shape, dtype)
    axis = rng.choice([rng.randrange(-r, r), -1, 0, r, None])
    kind = rng.randrange(10)
    tol = TOL.get(dtype, 1e-3)
    if kind == 0:
        return code + _compare(f"np.sort(x, axis={axis!r})", f"jnp.sort(x, axis={axis!r})", 0)
    if kind == 1:
        # Stable on both sides: ties keep their order.
        return code + _compare(f"np.argsort(x, axis={axis!r}, kind='stable')",
                               f"jnp.argsort(x, axis={axis!r}, stable=True)", 0)
    if kind == 2:
        side = rng.choice(["left", "right"])
        code += _array(rng, "v", _shape(rng, huge=0, rank=rng.choice([0, 1, 2])), dtype)
        code += "s = np.sort(x.ravel())\n"
        return code + _compare(f"np.searchsorted(s, v, side={side!r})",
                               f"jnp.searchsorted(s, v, side={side!r})", 0)
    if kind == 3:
        modes = ["constant", "edge", "reflect", "symmetric", "wrap"]
        if floats:
            modes += ["maximum", "minimum", "mean", "median", "linear_ramp"]
        mode = rng.choice(modes)
        width = rng.choice([1, 2, (0, 3), ((1, 0),) * r, -1, ((1, 2, 3),) * r])
        extra = ", constant_values=5" if mode == "constant" and rng.random() < 0.5 else ""
        return code + _compare(f"np.pad(x, {width!r}, mode={mode!r}{extra})",
                               f"jnp.pad(x, {width!r}, mode={mode!r}{extra})", tol)
    if kind == 4:
        shift = rng.choice([0, 1, -2, 7, (1, -1)])
        ax = axis if not isinstance(shift, tuple) else rng.choice([(0, -1), (0, 0), 0])
        return code + _compare(f"np.roll(x, {shift!r}, axis={ax!r})",
                               f"jnp.roll(x, {shift!r}, axis={ax!r})", 0)
    if kind == 5:
        n = rng.choice([0, 1, 1, 2, 3, -1])
        ax = axis if axis is not None else -1
        return code + _compare(f"np.diff(x, n={n}, axis={ax!r})",
                               f"jnp.diff(x, n={n}, axis={ax!r})", tol)
    if kind == 6:
        if rng.random() < 0.5:
            reps = rng.choice([2, (1, 2), (2, 1, 1), 0])
            return code + _compare(f"np.tile(x, {reps!r})", f"jnp.tile(x, {reps!r})", 0)
        reps = rng.choice([0, 1, 2, 3, -1])
        return code + _compare(f"np.repeat(x, {reps!r}, axis={axis!r})",
                               f"jnp.repeat(x, {reps!r}, axis={axis!r})", 0)
    if kind == 7:
        spec, shapes = rng.choice([
            ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ij->ji", [(2, 5)]),
            ("...i,...i->...", [(2, 3, 4), (3, 4)]), ("i,j->ij", [(3,), (4,)]),
            ("ijk->", [(2, 3, 1)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
            ("ij,ij->i", [(3, 4), (3, 5)])])
        code = "".join(_array(rng, f"a{i}", sh, "float32") for i, sh in enumerate(shapes))
        ops = ", ".join(f"a{i}" for i in range(len(shapes)))
        return code + _compare(f"np.einsum({spec!r}, {ops})", f"jnp.einsum({spec!r}, {ops})",
                               1e-3)
    if kind == 8 and floats:
        q = rng.choice([0, 25, 50, 90, 100, 101, -1])
        method = rng.choice(["linear", "lower", "higher", "midpoint"])
        if rng.random() < 0.3:
            return code + _compare(f"np.median(x, axis={axis!r})",
                                   f"jnp.median(x, axis={axis!r})", tol)
        return code + _compare(f"np.percentile(x, {q}, axis={axis!r}, method={method!r})",
                               f"jnp.percentile(x, {q}, axis={axis!r}, method={method!r})", tol)
    code = _array(rng, "x", shape, rng.choice(["int32", "int8", "uint8"]))
    return code + _compare("np.unique(x)", "jnp.unique(x)", 0)


def _jitted(rng):
    """One of the calls above inside jit: the traced path must agree too."""
    dtype = rng.choice(["float32", "int32"])
    shape = _shape(rng, huge=0)
    f = rng.choice(["sum", "max", "cumsum", "negative", "abs", "sort"])
    return (_array(rng, "x", shape, dtype) +
            _compare(f"np.{f}(x)", f"xjit.jit(jnp.{f})(x)", 1e-3))


GENERATORS = [_elementwise, _elementwise, _reduction, _shape_op, _creation, _indexing,
              _lax, _lax, _array_ops, _jitted]


def make_case(rng):
    gen = rng.choice(GENERATORS)
    body = gen(rng)
    calls = re.findall(r"\b(?:jnp|lax)\.\w+", body)
    huge = any(str(h) in body for h in HUGE_DIMS + [2**62, 2**63 - 1] if abs(h) >= 2**31)
    sig = (calls[-1] if calls else gen.__name__) + (" huge" if huge else "")
    return {"code": HEADER + body, "signature": sig}


def reproducer(case, header, history=None):
    header = header.replace("\n", "\n# ")  # a multi-line message stays a comment
    if not history:
        return f"# {header}\n# run: python THIS_FILE\n{case['code']}"
    cases = ",\n".join(repr(c["code"]) for c in history)
    return (f"# {header}\n# run: python THIS_FILE (runs the cases in order in one process)\n"
            f"CASES = [\n{cases},\n]\nfor code in CASES:\n    try:\n"
            f"        exec(compile(code, '<case>', 'exec'), {{}})\n"
            f"    except Exception as e:\n        print(type(e).__name__, e)\n")


if __name__ == "__main__":
    sys.exit(fuzz_main("api", __doc__, make_case, ".py", reproducer))
