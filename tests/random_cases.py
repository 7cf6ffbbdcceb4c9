"""The xjit.random cases recorded from JAX (tools/record_random_jax.py writes their
outputs to tests/data/random_jax.npz; tests/test_random.py replays them).

Each case is ``name -> (f(random, lax, jnp), max_ulp)``: ``f`` calls the API of the
module it is given (jax.random or xjit.random), ``max_ulp`` is 0 where xjit
matches JAX bit for bit and the tolerance in float ulps otherwise (where the
result goes through exp, tan or pow, whose XLA CPU polynomials xjit does not copy).
"""
import numpy as np


def _k(random, seed=0):
    return random.PRNGKey(seed)


CASES = {}


def case(name, max_ulp=0):
    def register(f):
        CASES[name] = (f, max_ulp)
        return f
    return register


for _seed in (0, 1, -1, 42, 2**31, 2**32 + 5, 123456789):
    case(f"prngkey_{_seed}")(lambda r, l, n, s=_seed: r.PRNGKey(s))

case("typed_key_data")(lambda r, l, n: r.key_data(r.key(7)))
case("typed_split")(lambda r, l, n: r.key_data(r.split(r.key(7), 3)))
case("split_2")(lambda r, l, n: r.split(_k(r)))
case("split_3")(lambda r, l, n: r.split(_k(r, 5), 3))
case("split_shape")(lambda r, l, n: r.split(_k(r, 5), (2, 3)))
case("split_of_split")(lambda r, l, n: r.split(r.split(_k(r, 1))[1], 4))
for _d in (0, 1, 12345, 2**31 + 3):
    case(f"fold_in_{_d}")(lambda r, l, n, d=_d: r.fold_in(_k(r, 3), d))

for _shape in ((), (7,), (3, 4), (2, 0, 3)):
    for _dt in ("uint8", "uint16", "uint32"):
        case(f"bits_{_dt}_{_shape}")(lambda r, l, n, s=_shape, d=_dt: r.bits(_k(r, 9), s, d))

for _shape in ((), (5,), (3, 4), (1000,)):
    for _dt in ("float32", "float16", "bfloat16"):
        case(f"uniform_{_dt}_{_shape}")(
            lambda r, l, n, s=_shape, d=_dt: r.uniform(_k(r, 11), s, d))
case("uniform_range")(lambda r, l, n: r.uniform(_k(r, 2), (500,), minval=-3.7, maxval=11.3))
case("uniform_range_f16")(lambda r, l, n: r.uniform(_k(r, 2), (100,), "float16", -2.0, 5.0))
case("uniform_broadcast_bounds")(lambda r, l, n: r.uniform(
    _k(r, 2), (3, 4), minval=np.array([0., 1., 2., 3.], np.float32), maxval=10.))
for _shape in ((), (1000,), (7, 3)):
    case(f"normal_{_shape}")(lambda r, l, n, s=_shape: r.normal(_k(r, 13), s))
case("normal_f16")(lambda r, l, n: r.normal(_k(r, 13), (200,), "float16"))
case("normal_bf16")(lambda r, l, n: r.normal(_k(r, 13), (200,), "bfloat16"))
case("normal_c64")(lambda r, l, n: r.normal(_k(r, 13), (50,), "complex64"))
case("normal_typed_key")(lambda r, l, n: r.normal(r.key(13), (20,)))
case("normal_big")(lambda r, l, n: r.normal(_k(r, 21), (1 << 14,)))

case("randint_0_10")(lambda r, l, n: r.randint(_k(r, 4), (100,), 0, 10))
case("randint_neg")(lambda r, l, n: r.randint(_k(r, 4), (50,), -5, 5))
case("randint_int8")(lambda r, l, n: r.randint(_k(r, 4), (50,), -100, 100, "int8"))
case("randint_uint8_256")(lambda r, l, n: r.randint(_k(r, 4), (50,), 0, 256, "uint8"))
case("randint_full")(lambda r, l, n: r.randint(_k(r, 4), (50,), -2**31, 2**31 - 1))
case("randint_empty_range")(lambda r, l, n: r.randint(_k(r, 4), (5,), 3, 3))
case("randint_bcast")(lambda r, l, n: r.randint(
    _k(r, 4), (2, 3), np.array([0, 10, 100]), np.array([5, 20, 1000])))

case("bernoulli_p")(lambda r, l, n: r.bernoulli(_k(r, 6), 0.3, (100,)))
case("bernoulli_array")(lambda r, l, n: r.bernoulli(
    _k(r, 6), np.array([0.1, 0.5, 0.9], np.float32)))
case("bernoulli_high")(lambda r, l, n: r.bernoulli(_k(r, 6), 0.3, (100,), mode="high"))
case("truncated_normal")(lambda r, l, n: r.truncated_normal(_k(r, 8), -1., 2., (300,)))
case("truncated_normal_arrays")(lambda r, l, n: r.truncated_normal(
    _k(r, 8), np.array([-3., 0.], np.float32), np.array([[1.], [0.5]], np.float32)))
# In the far tail erf(bound) differs from XLA's erf polynomial by an ulp, which erf_inv
# magnifies near 1: the samples agree to ~1e-4 relative there (exact in the cases above).
case("truncated_normal_tail", max_ulp=2000)(lambda r, l, n: r.truncated_normal(_k(r, 8), 3., 4., (50,)))
case("exponential")(lambda r, l, n: r.exponential(_k(r, 10), (500,)))
case("laplace")(lambda r, l, n: r.laplace(_k(r, 10), (500,)))
case("logistic")(lambda r, l, n: r.logistic(_k(r, 10), (500,)))
case("gumbel")(lambda r, l, n: r.gumbel(_k(r, 10), (500,)))
case("gumbel_high")(lambda r, l, n: r.gumbel(_k(r, 10), (200,), mode="high"))
case("cauchy", max_ulp=4)(lambda r, l, n: r.cauchy(_k(r, 10), (300,)))
case("rademacher")(lambda r, l, n: r.rademacher(_k(r, 10), (50,)))
case("categorical")(lambda r, l, n: r.categorical(
    _k(r, 12), np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))))
case("categorical_shape_axis0")(lambda r, l, n: r.categorical(
    _k(r, 12), np.array([[0., 1.], [2., 0.], [1., 1.]], np.float32), axis=0, shape=(4, 2)))
case("choice_int")(lambda r, l, n: r.choice(_k(r, 14), 10, (20,)))
case("choice_array_axis")(lambda r, l, n: r.choice(
    _k(r, 14), np.arange(12.).reshape(3, 4).astype(np.float32), (5,), axis=1))
case("choice_p")(lambda r, l, n: r.choice(
    _k(r, 14), 4, (30,), p=np.array([0.1, 0.2, 0.3, 0.4], np.float32)))
case("gamma", max_ulp=8)(lambda r, l, n: r.gamma(_k(r, 15), np.array([0.5, 1., 2.5, 9.], np.float32)))
case("gamma_shape", max_ulp=8)(lambda r, l, n: r.gamma(_k(r, 15), 3.0, (20,)))
case("loggamma", max_ulp=8)(lambda r, l, n: r.loggamma(_k(r, 15), np.array([0.1, 1., 5.], np.float32)))
case("beta", max_ulp=8)(lambda r, l, n: r.beta(_k(r, 16), 2.0, 3.0, (20,)))
case("dirichlet", max_ulp=8)(lambda r, l, n: r.dirichlet(
    _k(r, 17), np.array([1., 2., 3.], np.float32), (4,)))
case("t", max_ulp=8)(lambda r, l, n: r.t(_k(r, 18), 3.0, (20,)))
case("poisson_small")(lambda r, l, n: r.poisson(_k(r, 19), 3.0, (50,)))
case("poisson_array")(lambda r, l, n: r.poisson(
    _k(r, 19), np.array([0., 0.5, 2., 7.5], np.float32)))
case("pareto", max_ulp=4)(lambda r, l, n: r.pareto(_k(r, 20), 3.0, (100,)))
case("lognormal", max_ulp=4)(lambda r, l, n: r.lognormal(_k(r, 20), 0.5, (100,)))
case("weibull_min", max_ulp=4)(lambda r, l, n: r.weibull_min(_k(r, 20), 2.0, 1.5, (100,)))
case("maxwell", max_ulp=1)(lambda r, l, n: r.maxwell(_k(r, 20), (100,)))
case("double_sided_maxwell", max_ulp=2)(lambda r, l, n: r.double_sided_maxwell(
    _k(r, 20), 1.0, 2.0, (50,)))
case("rayleigh")(lambda r, l, n: r.rayleigh(_k(r, 20), 2.0, (100,)))
case("generalized_normal", max_ulp=8)(lambda r, l, n: r.generalized_normal(_k(r, 22), 1.5, (20,)))
case("ball", max_ulp=8)(lambda r, l, n: r.ball(_k(r, 22), 3, 2, (10,)))

# lax.rng_bit_generator (XLA's CPU algorithms).
for _alg in ("RNG_THREE_FRY", "RNG_PHILOX", "RNG_DEFAULT"):
    for _shape, _dt in (((3, 5), "uint32"), ((4,), "uint8"), ((2, 3), "uint16")):
        case(f"rbg_{_alg}_{_dt}_{_shape}")(
            lambda r, l, n, a=_alg, s=_shape, d=_dt: np.concatenate([
                np.asarray(x).ravel().astype(np.uint64) for x in l.rng_bit_generator(
                    np.array([1, 2, 3, 4], np.uint32), s, d, getattr(l.RandomAlgorithm, a))]))
