"""jnp.einsum / jnp.einsum_path against numpy (values), JAX (dtypes, weak types,
errors) and the contraction costs of opt_einsum's paths."""
import math

import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from jax_checks import BF16, check_like_jax, jax, need_jax
from numpy_checks import assert_close

rng = np.random.default_rng(5)


def _arr(*shape, dtype=np.float32):
    return rng.normal(size=shape).astype(dtype)


CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl,lm->im", [(2, 9), (9, 3), (3, 8), (8, 2)]),
    ("ea,fb,abcd,gc,hd->efgh", [(3, 2), (3, 2), (2, 2, 2, 2), (3, 2), (3, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("bij,bjk->ik", [(5, 2, 3), (5, 3, 4)]),
    ("...j,jk->...k", [(2, 2, 3), (3, 4)]),
    ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i...->...", [(3, 2, 2)]),
    ("...,...", [(2, 3), (2, 3)]),
    ("ab,ab,ab->a", [(3, 4), (3, 4), (3, 4)]),
    ("abc,cd,ad->b", [(2, 3, 4), (4, 5), (2, 5)]),
    ("i,i->", [(3,), (1,)]),          # size-1 broadcasting of a named axis
    ("ij,j->i", [(3, 4), (1,)]),
    (",ij->ij", [(), (2, 3)]),
    ("ab, bc -> ac", [(2, 3), (3, 2)]),
    ("aA,Ab->ab", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal", "auto"])
@pytest.mark.parametrize("spec,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_against_numpy(spec, shapes, optimize):
    ops = [_arr(*s) for s in shapes]
    want = np.einsum(spec, *[o.astype(np.float64) for o in ops])
    got = jnp.einsum(spec, *ops, optimize=optimize)
    assert_close(got, want.astype(np.float32), rtol=1e-4, atol=1e-4)
    jitted = xjit.jit(lambda *a: jnp.einsum(spec, *a, optimize=optimize))(*ops)
    assert_close(jitted, want.astype(np.float32), rtol=1e-4, atol=1e-4)


def test_interleaved_form():
    a, b = _arr(2, 3), _arr(3, 4)
    assert_close(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.einsum(a, [0, 1], b, [1, 2], [0, 2]),
                 rtol=1e-5, atol=1e-5)
    assert_close(jnp.einsum(a, [0, 1], b, [1, 2]), np.einsum(a, [0, 1], b, [1, 2]), rtol=1e-5,
                 atol=1e-5)
    c = _arr(2, 2, 3)
    assert_close(jnp.einsum(c, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]),
                 np.einsum(c, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int8, np.int8),
                                    (np.float16, np.float32), (BF16, BF16), (np.bool_, np.bool_),
                                    (np.complex64, np.float32), (np.int32, np.float16)])
def test_einsum_dtypes_match_jax(dtypes):
    need_jax()
    a = (rng.normal(size=(2, 3)) * 3).astype(dtypes[0])
    b = (rng.normal(size=(3, 4)) * 3).astype(dtypes[1])
    check_like_jax(lambda x, y: jnp.einsum("ij,jk->ik", x, y),
                   lambda x, y: jax.numpy.einsum("ij,jk->ik", x, y), (a, b), rtol=2e-2, atol=2e-2)
    check_like_jax(lambda x: jnp.einsum("ij->", x), lambda x: jax.numpy.einsum("ij->", x), (a,),
                   rtol=2e-2, atol=2e-2)


def test_einsum_weak_types_and_preferred_element_type():
    need_jax()
    check_like_jax(lambda x, y: jnp.einsum(",", x, y), lambda x, y: jax.numpy.einsum(",", x, y),
                   (1.0, 2.0), jit=False)
    check_like_jax(lambda x, y: jnp.einsum("i,->i", x, y),
                   lambda x, y: jax.numpy.einsum("i,->i", x, y), (_arr(3), 2.0))
    a, b = np.ones((2, 3), np.int8), np.ones((3, 2), np.int8)
    check_like_jax(lambda x, y: jnp.einsum("ij,jk", x, y, preferred_element_type=np.int32),
                   lambda x, y: jax.numpy.einsum("ij,jk", x, y, preferred_element_type=np.int32),
                   (a, b))


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk", [(2, 3), (4, 5)]),          # size mismatch
    ("ij", [(2,)]),                        # too many indices
    ("i", [(2, 3)]),                       # too few
    ("ij,jk->il", [(2, 3), (3, 4)]),      # output letter not in inputs
    ("ij->ii", [(2, 2)]),                  # repeated output letter
    ("i1", [(2, 2)]),                      # not a letter
    ("ij,jk", [(2, 3)]),                   # operand count
    ("i->j->k", [(2,)]),                   # two arrows
    ("..i..", [(2,)]),                     # bad ellipsis
])
def test_einsum_bad_subscripts_raise_valueerror(spec, shapes):
    with pytest.raises(ValueError):
        jnp.einsum(spec, *[np.ones(s, np.float32) for s in shapes])


def test_einsum_other_bad_inputs():
    with pytest.raises(NotImplementedError):
        jnp.einsum("i->i", np.ones(2), out=np.ones(2))
    with pytest.raises(TypeError):
        jnp.einsum("i->i", [1.0, 2.0])
    with pytest.raises(ValueError):
        jnp.einsum("i,i", np.ones(2), np.ones(2), optimize="fastest")
    with pytest.raises(ValueError):
        jnp.einsum("i,i,i", np.ones(2), np.ones(2), np.ones(2), optimize=[(0, 5)])
    with pytest.raises(ValueError):
        jnp.einsum("i,i")


def _path_cost(spec_inputs, output, sizes, path):
    """Multiply-adds of a pairwise path, the measure the optimizers minimize."""
    terms = [set(t) for t in spec_inputs]
    cost = 0
    for step in path:
        taken = [terms[k] for k in step]
        rest = [t for k, t in enumerate(terms) if k not in step]
        letters = set().union(*taken)
        cost += math.prod(sizes[c] for c in letters)
        result = letters & set(output).union(*rest)
        terms = rest + [result]
    return cost


PATH_CASES = [
    ("ij,jk,kl->il", [(2, 30), (30, 40), (40, 5)]),
    ("ab,bc,cd,de,ef->af", [(20, 3), (3, 30), (30, 4), (4, 50), (50, 6)]),
    ("ea,fb,abcd,gc,hd->efgh", [(10, 5), (10, 5), (5, 5, 5, 5), (10, 5), (10, 5)]),
    ("ij,ik,il,im->jklm", [(4, 3), (4, 5), (4, 6), (4, 2)]),
]


@pytest.mark.parametrize("spec,shapes", PATH_CASES, ids=[c[0] for c in PATH_CASES])
def test_einsum_path_costs(spec, shapes):
    ops = [np.ones(s, np.float32) for s in shapes]
    ins, out = spec.split("->")
    ins = ins.split(",")
    sizes = {c: d for t, s in zip(ins, shapes) for c, d in zip(t, s)}
    greedy, info = jnp.einsum_path(spec, *ops, optimize="greedy")
    optimal, _ = jnp.einsum_path(spec, *ops, optimize="optimal")
    naive = _path_cost(ins, out, sizes, [(0, 1)] * (len(ins) - 1))
    c_greedy = _path_cost(ins, out, sizes, greedy)
    c_opt = _path_cost(ins, out, sizes, optimal)
    assert c_opt <= c_greedy and c_opt <= naive
    assert "Complete contraction" in str(info) and info.opt_cost > 0
    opt_einsum = pytest.importorskip("opt_einsum")
    ref_opt = opt_einsum.contract_path(spec, *ops, optimize="optimal")[0]
    assert c_opt <= _path_cost(ins, out, sizes, ref_opt)
    ref_greedy = opt_einsum.contract_path(spec, *ops, optimize="greedy")[0]
    assert c_greedy <= 2 * _path_cost(ins, out, sizes, ref_greedy)
    # The paths run: einsum accepts them as optimize, and numpy's form too.
    want = np.einsum(spec, *ops)
    for path in (greedy, optimal, ["einsum_path"] + list(optimal), ref_opt):
        assert_close(jnp.einsum(spec, *ops, optimize=path), want, rtol=1e-5)


def test_einsum_path_matches_numpy_example():
    a, b, c = np.ones((2, 30)), np.ones((30, 40)), np.ones((40, 5))
    path, _ = jnp.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    np_path = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")[0]
    assert [tuple(p) for p in path] == [tuple(p) for p in np_path[1:]]


def test_large_einsum_chain_is_contracted_pairwise():
    # 8 operands: greedy path; the graph holds dot_generals, not one big product.
    ops = [_arr(4, 4) for _ in range(8)]
    spec = "ab,bc,cd,de,ef,fg,gh,hi->ai"
    want = np.linalg.multi_dot([o.astype(np.float64) for o in ops])
    assert_close(jnp.einsum(spec, *ops), want.astype(np.float32), rtol=1e-3, atol=1e-3)
    text = xjit.jit(lambda *a: jnp.einsum(spec, *a)).lower(*ops).as_text()
    assert text.count("dot_general") == 7
