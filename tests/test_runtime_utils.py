"""JAX's top-level utilities (process counts, clear_caches, typeof,
named_scope/named_call, ensure_compile_time_eval, enable_x64, dtypes,
float0, Device) and jax.ops' segment reductions."""
import numpy as np
import pytest

import xjit
import xjit.numpy as jnp
from xjit import ops


def test_process_and_device_counts():
    assert xjit.process_count() == 1 and xjit.process_index() == 0
    assert xjit.process_indices() == [0] and xjit.host_count() == 1 and xjit.host_id() == 0
    assert xjit.local_device_count() == len(xjit.local_devices())
    assert isinstance(xjit.devices()[0], xjit.Device)


def test_clear_caches_recompiles():
    g = xjit.jit(lambda x: x + 1)
    g(1.0)
    assert g.cache_size() == 1
    xjit.clear_caches()
    assert g.cache_size() == 0
    assert float(g(2.0)) == 3.0 and g.cache_size() == 1


def test_typeof_dtypes_float0():
    t = xjit.typeof(jnp.ones((2, 3), jnp.int32))
    assert t.shape == (2, 3) and t.dtype == np.int32
    assert xjit.dtypes.result_type(jnp.int8, 1.0) == np.float32
    assert xjit.dtypes.canonicalize_dtype(np.float64) == np.float32
    assert xjit.dtypes.issubdtype(jnp.bfloat16, jnp.floating)
    assert xjit.float0 is xjit.dtypes.float0
    g = xjit.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert g[1].dtype == xjit.float0


def test_named_scope_and_named_call():
    from xjit._src.runtime_utils import current_name_stack
    seen = []

    @xjit.named_call
    def layer(x):
        seen.append(current_name_stack())
        return x * 2

    with xjit.named_scope("model"):
        out = xjit.jit(layer)(3.0)
    assert float(out) == 6.0 and seen == ["model/layer"]
    assert current_name_stack() == ""
    with pytest.raises(TypeError, match="must be a string"):
        with xjit.named_scope(3):
            pass


def test_ensure_compile_time_eval():
    @xjit.jit
    def f(x):
        with xjit.ensure_compile_time_eval():
            y = jnp.sin(1.0) + jnp.arange(3.0).sum()
            assert isinstance(y, xjit.Array)
            sign = 1.0 if y > 3 else -1.0  # Python control flow on the value
        return x * y * sign
    np.testing.assert_allclose(float(f(2.0)), 2 * (np.sin(1.0) + 3), rtol=1e-6)

    @xjit.jit
    def g(x):
        with xjit.ensure_compile_time_eval():
            return x + 1  # a traced operand still traces
    assert float(g(1.0)) == 2.0


def test_enable_x64_context():
    with xjit.enable_x64():
        assert jnp.ones(2).dtype == np.float64
        with xjit.enable_x64(False):
            assert jnp.ones(2).dtype == np.float32
    assert jnp.ones(2).dtype == np.float32


@pytest.mark.parametrize("name,np_reduce,identity", [
    ("segment_sum", np.add, 0), ("segment_prod", np.multiply, 1),
    ("segment_max", np.maximum, -np.inf), ("segment_min", np.minimum, np.inf)])
def test_segment_reductions(name, np_reduce, identity):
    rng = np.random.default_rng(0)
    data = rng.standard_normal((20, 3)).astype(np.float32)
    ids = rng.integers(-1, 7, 20).astype(np.int32)  # -1 and 6 fall outside 6 segments
    want = np.full((6, 3), identity, np.float32)
    for d, i in zip(data, ids):
        if 0 <= i < 6:
            want[i] = np_reduce(want[i], d)
    fn = getattr(ops, name)
    for f in (lambda d, i: fn(d, i, num_segments=6), xjit.jit(lambda d, i: fn(d, i, 6))):
        np.testing.assert_allclose(np.asarray(f(data, ids)), want, rtol=1e-5)
    got = fn(data[ids >= 0], ids[ids >= 0])  # num_segments from the ids
    assert got.shape[0] == ids.max() + 1
    with pytest.raises(xjit.errors.ConcretizationTypeError):
        xjit.jit(fn)(data, ids)
    with pytest.raises(TypeError, match="segment_ids must be integers"):
        fn(data, ids.astype(np.float32), 6)


def test_segment_max_of_integers_and_empty_segments():
    got = ops.segment_max(np.array([1, 5, 2], np.int32), np.array([0, 0, 2], np.int32),
                          num_segments=3)
    np.testing.assert_array_equal(np.asarray(got), [5, np.iinfo(np.int32).min, 2])


def test_pmap_on_one_process():
    n = xjit.local_device_count()
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    np.testing.assert_array_equal(np.asarray(xjit.pmap(lambda v: v * 2)(x)), x * 2)
    out = xjit.pmap(lambda v: xjit.lax.psum(v, "i"), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(out), np.broadcast_to(x.sum(0), x.shape))
    out = xjit.pmap(lambda v, k: v * k, static_broadcasted_argnums=1)(x, 3)
    np.testing.assert_array_equal(np.asarray(out), x * 3)
    with pytest.raises(ValueError, match="device"):
        xjit.pmap(lambda v: v)(np.zeros((n + 1, 2)))
