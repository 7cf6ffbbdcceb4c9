"""einsum and einsum_path: Einstein summation as a sequence of pairwise
``dot_general`` contractions, in an order chosen by a contraction-path optimizer.

The subscripts (string or interleaved operand/sublist form, ``...`` and an
implicit output included) are parsed into one letter per axis. Each operand
first loses what no other term needs: repeated letters become diagonals, and
letters nowhere else are summed out; an axis of size 1 whose letter is larger
elsewhere is squeezed (broadcasting). Then pairs of operands are contracted, the
letters they share and nothing later needs as contracting dimensions, the
letters still needed as batch dimensions; the last operand is summed and
transposed into the output order.

The path (which pairs, in which order) comes from ``optimize``: ``"greedy"``
picks at each step, among the pairs sharing a letter, the one whose result is
smallest relative to its inputs (ties: fewest multiply-adds; opt_einsum's
heuristic), ``"optimal"`` searches every contraction tree by
dynamic programming over subsets (for up to 10 operands), ``"auto"``/``True``
use ``"optimal"`` up to 4 operands and ``"greedy"`` above, ``False`` contracts
left to right; an explicit path (as ``einsum_path`` returns it) is used as is.

Example:
    >>> import xjit.numpy as jnp
    >>> jnp.einsum("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 4))).shape
    (2, 4)
"""
from __future__ import annotations

import itertools
import math
import operator
import string

import numpy as np

from xjit._src.lax import reductions as lax_reductions
from xjit._src.lax import shapes as lax_shapes
from xjit._src.numpy import diagonal as diagonal_ops
from xjit._src.numpy import linalg_ops
from xjit._src.numpy import util

_LETTERS = string.ascii_letters
_OPTIMAL_LIMIT = 10


# --------------------------------------------------------------------------- parsing

def _sublist_to_subscripts(sublist) -> str:
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        else:
            try:
                i = operator.index(s)
            except TypeError:
                raise TypeError(f"einsum: subscripts in a sublist must be integers or "
                                f"Ellipsis, got {s!r}") from None
            if not 0 <= i < len(_LETTERS):
                raise ValueError(f"einsum: subscript index {i} in a sublist must be in "
                                 f"[0, {len(_LETTERS)})")
            out.append(_LETTERS[i])
    return "".join(out)


def _split_interleaved(args):
    """(subscripts, operands) of ``einsum(op0, sub0, op1, sub1, ..., [subout])``."""
    args = list(args)
    operands, terms = args[0::2], args[1::2]
    output = None
    if len(operands) > len(terms):
        # An odd count: the last item is the output sublist.
        output = operands.pop()
    spec = ",".join(_sublist_to_subscripts(t) for t in terms)
    if output is not None:
        spec += "->" + _sublist_to_subscripts(output)
    return spec, operands


class _Spec:
    """A parsed einsum: one letter string per operand, the output letters and each
    letter's size."""

    def __init__(self, inputs, output, sizes):
        self.inputs = inputs
        self.output = output
        self.sizes = sizes

    def text(self) -> str:
        return ",".join(self.inputs) + "->" + self.output


def _parse(subscripts: str, shapes) -> _Spec:
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {type(subscripts)}")
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->", 1)
        if "-" in lhs + out or ">" in lhs + out:
            raise ValueError("einsum: subscripts must contain at most one '->'")
    else:
        if "-" in spec or ">" in spec:
            raise ValueError("einsum: subscripts contain a '-' or '>' that is not part of "
                             "'->'")
        lhs, out = spec, None
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: {len(terms)} operand subscripts given for "
                         f"{len(shapes)} operands")
    used = set(c for c in lhs + (out or "") if c in _LETTERS)
    for c in lhs + (out or ""):
        if c not in _LETTERS and c not in ",.":
            raise ValueError(f"einsum: invalid subscript {c!r}: subscripts must be letters")
    free = [c for c in _LETTERS if c not in used]
    # Ellipsis: the broadcast axes of each operand, right-aligned across operands.
    ell_ndim = 0
    expanded = []
    for i, (term, shape) in enumerate(zip(terms, shapes)):
        if "." in term:
            if term.count("...") != 1 or term.count(".") != 3:
                raise ValueError(f"einsum: invalid ellipsis in subscript {term!r}")
            n = len(shape) - (len(term) - 3)
            if n < 0:
                raise ValueError(f"einsum: subscript {term!r} has more indices than "
                                 f"operand {i} has dimensions ({len(shape)})")
            ell_ndim = max(ell_ndim, n)
        elif len(term) != len(shape):
            raise ValueError(f"einsum: subscript {term!r} does not contain the correct number "
                             f"of indices for operand {i} (it has {len(shape)} dimensions)")
        expanded.append((term, len(shape)))
    if ell_ndim > len(free):
        raise ValueError("einsum: too many dimensions for the available subscript letters")
    ell_letters = "".join(free[:ell_ndim])
    inputs = []
    for term, ndim in expanded:
        if "..." in term:
            n = ndim - (len(term) - 3)
            term = term.replace("...", ell_letters[ell_ndim - n:])
        inputs.append(term)
    if out is None:
        counts = {}
        for t in inputs:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        named = sorted((c for c, k in counts.items() if k == 1 and c not in ell_letters),
                       key=_LETTERS.index)
        # numpy's implicit output: the broadcast axes, then the once-used letters in order.
        named = sorted(named)
        output = ell_letters + "".join(named)
    else:
        if "." in out:
            if out.count("...") != 1 or out.count(".") != 3:
                raise ValueError(f"einsum: invalid ellipsis in output subscript {out!r}")
            output = out.replace("...", ell_letters)
        else:
            output = out
        if len(set(output)) != len(output):
            raise ValueError(f"einsum: output subscript {out!r} repeats a letter")
        all_in = set("".join(inputs))
        for c in output:
            if c not in all_in:
                raise ValueError(f"einsum: output subscript {c!r} does not appear in the "
                                 f"input subscripts")
    sizes = {}
    for i, (term, shape) in enumerate(zip(inputs, shapes)):
        for c, d in zip(term, shape):
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = d
            elif d != 1 and d != prev:
                raise ValueError(f"einsum: size of label {c!r} for operand {i} ({d}) does not "
                                 f"match previous terms ({prev})")
    return _Spec(inputs, output, sizes)


# ---------------------------------------------------------------------- path search

def _size(letters, sizes) -> int:
    return math.prod(sizes[c] for c in letters)


def _result_letters(a: frozenset, b: frozenset, needed: frozenset) -> frozenset:
    """Letters of the contraction of terms ``a`` and ``b``: those later terms or the
    output still need."""
    return (a | b) & needed


def _greedy_path(terms, output, sizes):
    """opt_einsum's greedy heuristic: among pairs sharing a letter, contract the one
    whose result is smallest next to its inputs (ties: fewest multiply-adds); when
    no pair shares a letter, take the outer product of the two smallest operands."""
    terms = [frozenset(t) for t in terms]
    out = frozenset(output)
    path = []
    while len(terms) > 1:
        best = None
        for i, j in itertools.combinations(range(len(terms)), 2):
            if not terms[i] & terms[j]:
                continue
            others = out.union(*(t for k, t in enumerate(terms) if k not in (i, j)))
            res = _result_letters(terms[i], terms[j], others)
            removed = _size(res, sizes) - _size(terms[i], sizes) - _size(terms[j], sizes)
            cost = (removed, _size(terms[i] | terms[j], sizes), i, j)
            if best is None or cost < best[0]:
                best = (cost, i, j, res)
        if best is None:
            i, j = sorted(sorted(range(len(terms)), key=lambda k: (_size(terms[k], sizes), k))[:2])
            others = out.union(*(t for k, t in enumerate(terms) if k not in (i, j)))
            best = (None, i, j, _result_letters(terms[i], terms[j], others))
        _, i, j, res = best
        path.append((i, j))
        terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [res]
    return path


def _optimal_path(terms, output, sizes):
    """The contraction tree of least total multiply-adds (dynamic programming over
    subsets of operands), as a pairwise path."""
    n = len(terms)
    terms = [frozenset(t) for t in terms]
    out = frozenset(output)
    full = (1 << n) - 1
    letters_of = {}
    for mask in range(1, full + 1):
        inside = frozenset().union(*(terms[k] for k in range(n) if mask >> k & 1))
        outside = out.union(*(terms[k] for k in range(n) if not mask >> k & 1))
        letters_of[mask] = (inside, inside & outside)
    best = {1 << k: (0, None) for k in range(n)}
    for mask in sorted(range(1, full + 1), key=lambda m: bin(m).count("1")):
        if mask in best:
            continue
        choice = None
        sub = (mask - 1) & mask
        while sub:
            other = mask ^ sub
            if sub < other and sub in best and other in best:
                flops = _size(letters_of[sub][1] | letters_of[other][1], sizes)
                cost = best[sub][0] + best[other][0] + flops
                if choice is None or cost < choice[0]:
                    choice = (cost, (sub, other))
            sub = (sub - 1) & mask
        best[mask] = choice
    # Linearize the tree: contract children first; positions follow the list the
    # path's consumer keeps (contracted operands removed, the result appended).
    positions = [1 << k for k in range(n)]  # the operand masks, in list order
    path = []

    def emit(mask):
        split = best[mask][1]
        if split is None:
            return
        a, b = split
        emit(a)
        emit(b)
        i, j = positions.index(a), positions.index(b)
        path.append(tuple(sorted((i, j))))
        for k in sorted((i, j), reverse=True):
            positions.pop(k)
        positions.append(mask)

    emit(full)
    return path


def _path_for(optimize, spec: _Spec):
    n = len(spec.inputs)
    if isinstance(optimize, (list, tuple)):
        path = list(optimize)
        if path and path[0] == "einsum_path":
            path = path[1:]
        return _check_path(path, n)
    if optimize is False or optimize is None:
        return [(0, 1)] * max(n - 1, 0)
    if optimize is True:
        optimize = "optimal"
    if optimize == "auto":
        optimize = "optimal" if n <= 4 else "greedy"
    if optimize in ("optimal", "dp", "branch-all") and n <= _OPTIMAL_LIMIT:
        return _optimal_path(spec.inputs, spec.output, spec.sizes) if n > 1 else []
    if optimize in ("greedy", "optimal", "dp", "branch-all", "branch-2", "branch-1", "eager"):
        return _greedy_path(spec.inputs, spec.output, spec.sizes)
    raise ValueError(f"einsum: unknown optimize option {optimize!r}: expected a bool, 'auto', "
                     f"'greedy', 'optimal' or a contraction path")


def _check_path(path, n):
    count = n
    out = []
    for step in path:
        try:
            step = tuple(operator.index(i) for i in step)
        except TypeError:
            raise TypeError(f"einsum: a contraction path step must be a tuple of ints, got "
                            f"{step!r}") from None
        if not step or len(set(step)) != len(step) or any(not 0 <= i < count for i in step):
            raise ValueError(f"einsum: invalid contraction {step!r} for {count} operands")
        out.append(step)
        count -= len(step) - 1
    if count != 1 and n > 0:
        raise ValueError(f"einsum: the contraction path leaves {count} operands, not 1")
    return out


# ------------------------------------------------------------------------- execution

def _sum_axes(x, axes):
    if not axes:
        return x
    if x.dtype == np.bool_:
        return lax_reductions.reduce_or(x, axes)
    return lax_reductions.reduce_sum(x, axes)


def _prepare(x, term: str, keep: set, sizes):
    """``x`` with repeated letters made diagonals, size-1 broadcast axes squeezed and
    letters outside ``keep`` summed out."""
    # Diagonals of repeated letters.
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        i = term.index(c)
        j = term.index(c, i + 1)
        x = diagonal_ops.diagonal(x, 0, i, j)  # the diagonal becomes the last axis
        term = "".join(t for k, t in enumerate(term) if k not in (i, j)) + c
    squeeze = [k for k, c in enumerate(term) if x.shape[k] == 1 and sizes[c] != 1]
    if squeeze:
        x = lax_shapes.squeeze(x, squeeze)
        term = "".join(c for k, c in enumerate(term) if k not in squeeze)
    drop = [k for k, c in enumerate(term) if c not in keep]
    x = _sum_axes(x, tuple(drop))
    term = "".join(c for k, c in enumerate(term) if k not in drop)
    return x, term


def _contract(a, ta: str, b, tb: str, keep: set, precision, preferred):
    """``dot_general`` of terms ``ta`` and ``tb`` (each already summed over letters
    the other and ``keep`` lack): shared letters in ``keep`` batch, the rest contract."""
    shared = [c for c in ta if c in tb]
    batch = [c for c in shared if c in keep]
    contracting = [c for c in shared if c not in keep]
    dims = ((tuple(ta.index(c) for c in contracting), tuple(tb.index(c) for c in contracting)),
            (tuple(ta.index(c) for c in batch), tuple(tb.index(c) for c in batch)))
    out = linalg_ops._dot_general(a, b, dims[0], dims[1], preferred)
    term = ("".join(batch) + "".join(c for c in ta if c not in tb)
            + "".join(c for c in tb if c not in ta))
    return out, term


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None):
    """Einstein summation over the operands (string or interleaved sublist form).

    Example:
        >>> jnp.einsum("ii->i", jnp.arange(4).reshape(2, 2))
        Array([0, 3], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _split_interleaved((subscripts,) + operands)
    if not operands:
        raise ValueError("einsum: no input operands given")
    util.check_arraylike("einsum", *operands)
    arrays = list(util.promote_dtypes(*operands)) if operands else []
    spec = _parse(subscripts, [tuple(a.shape) for a in arrays])
    path = _path_for(optimize, spec)
    terms = list(spec.inputs)
    output = spec.output

    def needed(exclude):
        return set(output).union(*(terms[k] for k in range(len(terms)) if k not in exclude))

    for k in range(len(arrays)):
        arrays[k], terms[k] = _prepare(arrays[k], terms[k], needed({k}), spec.sizes)
    for step in path:
        idx = list(step)
        after = needed(set(idx))  # letters the output and the untouched operands need
        x, t = arrays[idx[0]], terms[idx[0]]
        if len(idx) == 1:
            x, t = _prepare(x, t, after, spec.sizes)
        # A step of more than two operands contracts them left to right.
        for m, k in enumerate(idx[1:]):
            keep = after.union(*(terms[r] for r in idx[m + 2:]))
            x, t = _prepare(x, t, keep | set(terms[k]), spec.sizes)
            y, u = _prepare(arrays[k], terms[k], keep | set(t), spec.sizes)
            x, t = _contract(x, t, y, u, keep, precision, preferred_element_type)
        for k in sorted(idx, reverse=True):
            arrays.pop(k)
            terms.pop(k)
        arrays.append(x)
        terms.append(t)
    if len(arrays) != 1:
        raise ValueError("einsum: the contraction path does not contract every operand")
    x, t = _prepare(arrays[0], terms[0], set(output), spec.sizes)
    if t != output:
        x = lax_shapes.transpose(x, tuple(t.index(c) for c in output))
    if preferred_element_type is not None and x.dtype != util.requested_dtype(
            preferred_element_type):
        x = util.convert(x, util.requested_dtype(preferred_element_type), False)
    return x


# ------------------------------------------------------------------------ einsum_path

class EinsumPathInfo:
    """What ``einsum_path`` found: the equation, costs and the contraction steps.

    ``str()`` gives a report like opt_einsum's PathInfo."""

    def __init__(self, spec: _Spec, path, steps, naive_cost, opt_cost, largest):
        self.eq = spec.text()
        self.path = path
        self.contraction_list = steps
        self.naive_cost = naive_cost
        self.opt_cost = opt_cost
        self.speedup = naive_cost / max(opt_cost, 1)
        self.largest_intermediate = largest
        self.size_dict = dict(spec.sizes)

    def __repr__(self):
        lines = [f"  Complete contraction:  {self.eq}",
                 f"         Naive scaling:  {len(self.size_dict)}",
                 f"     Optimized scaling:  {max((s[2] for s in self.contraction_list), default=0)}",
                 f"      Naive FLOP count:  {self.naive_cost:.3e}",
                 f"  Optimized FLOP count:  {self.opt_cost:.3e}",
                 f"   Theoretical speedup:  {self.speedup:.3e}",
                 f"  Largest intermediate:  {self.largest_intermediate:.3e} elements",
                 "-" * 74,
                 f"{'scaling':>6}  {'current':>24}  {'remaining':>30}",
                 "-" * 74]
        for current, remaining, scaling in self.contraction_list:
            lines.append(f"{scaling:>6}  {current:>24}  {remaining:>30}")
        return "\n".join(lines)

    __str__ = __repr__


def einsum_path(subscripts, *operands, optimize="auto"):
    """The contraction path ``einsum`` takes (a list of operand-index tuples, usable
    as its ``optimize``), and an ``EinsumPathInfo`` describing its cost.

    Example:
        >>> a, b, c = jnp.ones((2, 30)), jnp.ones((30, 40)), jnp.ones((40, 5))
        >>> jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
        [(1, 2), (0, 1)]
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _split_interleaved((subscripts,) + operands)
    shapes = [util.shape_of(o) if util.is_arraylike(o) else np.shape(o) for o in operands]
    spec = _parse(subscripts, shapes)
    path = _path_for(optimize, spec)
    terms = list(spec.inputs)
    all_letters = set("".join(terms))
    naive = _size(all_letters, spec.sizes) * max(len(terms) - 1, 1)
    cost, largest, steps = 0, 0, []
    for step in path:
        idx = sorted(step)
        taken = [terms[k] for k in idx]
        remaining = [terms[k] for k in range(len(terms)) if k not in idx]
        keep = set(spec.output).union(*remaining)
        letters = set("".join(taken))
        result = "".join(sorted(letters & keep, key=_LETTERS.index))
        cost += _size(letters, spec.sizes) * max(len(idx) - 1, 1)
        largest = max(largest, _size(result, spec.sizes))
        steps.append((",".join(taken) + "->" + result,
                      ",".join(remaining + [result]) + "->" + spec.output, len(letters)))
        terms = remaining + [result]
    return path, EinsumPathInfo(spec, path, steps, naive, cost, largest)
