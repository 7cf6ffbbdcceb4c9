"""_xjit.JitFunction: the C++ jit call path, tested against its contract
(docs/bindings.md, "The jit fast path") with hand-built executables."""
import functools
import gc
import weakref

import numpy as np
import pytest

from xjit import _xjit

DEVICE = _xjit.devices("cpu")[0]
_CANONICAL = {"int64": "int32", "uint64": "uint32", "float64": "float32",
              "complex128": "complex64"}


@pytest.fixture(autouse=True)
def _x64_off():
    _xjit.set_x64(False)
    yield
    _xjit.set_x64(False)


def leaf_aval(x):
    """(dtype name, shape, weak_type) with JAX's rules, as the C++ key uses."""
    x64 = _xjit.get_x64()
    if isinstance(x, _xjit.Array):
        return x.dtype.name, tuple(x.shape), x.weak_type
    if isinstance(x, bool):
        return "bool", (), False
    for py_type, name in ((int, "int"), (float, "float"), (complex, "complex")):
        if type(x) is py_type:
            bits = {"int": (32, 64), "float": (32, 64), "complex": (64, 128)}[name][x64]
            return f"{name}{bits}", (), True
    if isinstance(x, (np.ndarray, np.generic)):
        name = np.asarray(x).dtype.name
        return (name if x64 else _CANONICAL.get(name, name)), tuple(np.shape(x)), False
    raise TypeError(f"not a valid jit argument: {x!r}")


def doubling_cache_miss(static_argnums=(), static_argnames=(), out_tree=None, cacheable=True):
    """A cache_miss computing x + x for every dynamic leaf, and its trace log."""
    traces = []

    def cache_miss(*args, **kwargs):
        statics = {i if i >= 0 else i + len(args) for i in static_argnums}
        dyn_args = tuple(a for i, a in enumerate(args) if i not in statics)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
        leaves, _ = _xjit.tree_flatten((dyn_args, dyn_kwargs))
        avals = [leaf_aval(x) for x in leaves]  # raises TypeError for bad leaves
        traces.append(avals)
        mb = _xjit.ModuleBuilder("double")
        cb = mb.computation("main")
        params = [cb.parameter(dt, shape) for dt, shape, _ in avals]
        outs = [cb.op("add", [p, p], {}, [], "test") for p in params]
        cb.finish(outs)
        exe = _xjit.compile(mb.build(cb), DEVICE)
        weak = [w for _, _, w in avals]
        args_on_device = [_xjit.device_put(np.asarray(x, dt), DEVICE, w, dtype=dt)
                          if not isinstance(x, _xjit.Array) else x
                          for x, (dt, _, w) in zip(leaves, avals)]
        results = exe.execute_with_weak_types(args_on_device, weak)
        tree = out_tree(len(results)) if out_tree else [0] * len(results)
        out_leaves, out_treedef = _xjit.tree_flatten(tree)
        outputs = out_treedef.unflatten(results)
        entry = _xjit.JitCacheEntry(exe, out_treedef, weak) if cacheable else None
        return outputs, entry

    return cache_miss, traces


def doubling_jit(static_argnums=(), static_argnames=(), **kwargs):
    """A JitFunction whose cache_miss is doubling_cache_miss, and its trace log."""
    cache_miss, traces = doubling_cache_miss(static_argnums, static_argnames, **kwargs)
    fn = _xjit.JitFunction(lambda *a, **k: None, cache_miss, list(static_argnums),
                           list(static_argnames))
    return fn, traces


def test_hit_runs_no_python_and_computes():
    f, traces = doubling_jit()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (a,) = f(x)
    (b,) = f(x + 1)
    assert len(traces) == 1 and f.cache_size() == 1
    np.testing.assert_array_equal(np.asarray(a), 2 * x)
    np.testing.assert_array_equal(np.asarray(b), 2 * (x + 1))
    assert isinstance(b, _xjit.Array) and b.dtype == np.float32 and not b.weak_type


def test_arrays_keep_their_signature_and_are_not_copied():
    f, traces = doubling_jit()
    a = _xjit.device_put(np.ones((3,), np.float32), DEVICE, True)
    (out,) = f(a)
    (out2,) = f(a)
    assert len(traces) == 1
    assert out2.weak_type and out2.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out2), [2, 2, 2])
    f(_xjit.device_put(np.ones((3,), np.float32), DEVICE, False))  # strong: new key
    assert len(traces) == 2


def test_shape_and_dtype_changes_miss():
    f, traces = doubling_jit()
    f(np.ones(2, np.float32))
    f(np.ones(3, np.float32))
    f(np.ones(3, np.int32))
    f(np.ones(3, np.int32))
    assert len(traces) == 3 and f.cache_size() == 3


def test_python_scalars_are_weak_and_converted():
    f, traces = doubling_jit()
    assert f(1.5)[0].weak_type
    (out,) = f(2.25)
    assert len(traces) == 1
    assert out.dtype == np.float32 and out.weak_type and float(np.asarray(out)) == 4.5
    (i,) = f(7)
    (i,) = f(-8)
    assert i.dtype == np.int32 and i.weak_type and int(np.asarray(i)) == -16
    (c,) = f(1 + 2j)
    (c,) = f(3 - 1j)
    assert c.dtype == np.complex64 and complex(np.asarray(c)) == 6 - 2j
    assert len(traces) == 3


def test_bool_is_strong():
    f, traces = doubling_jit()
    f(True)
    (b,) = f(False)
    assert len(traces) == 1 and b.dtype == np.bool_ and not b.weak_type
    assert traces[0] == [("bool", (), False)]


def test_numpy_scalars_are_strong_and_distinct_from_python_scalars():
    f, traces = doubling_jit()
    f(1.0)
    f(np.float32(1.0))
    (out,) = f(np.float32(3.0))
    assert len(traces) == 2 and not out.weak_type and float(np.asarray(out)) == 6.0
    (d,) = f(np.float64(2.0))  # canonicalized to float32: same key as np.float32
    assert len(traces) == 2 and d.dtype == np.float32 and float(np.asarray(d)) == 4.0
    (k,) = f(np.int64(5))
    (k,) = f(np.int64(6))
    assert len(traces) == 3 and k.dtype == np.int32 and int(np.asarray(k)) == 12


def test_float64_numpy_array_is_canonicalized_on_hit():
    f, traces = doubling_jit()
    f(np.ones(3, np.float32))
    (out,) = f(np.array([0.5, 1.5, 2.5]))  # float64 -> float32, same key
    assert len(traces) == 1 and out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), [1, 3, 5])
    (n,) = f(np.arange(3, dtype=np.int64))
    (n,) = f(np.arange(4, dtype=np.int64)[1:])  # non-contiguous-start view, int64
    assert n.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(n), [2, 4, 6])
    (t,) = f(np.arange(6, dtype=np.float32).reshape(3, 2).T[0])  # strided view
    np.testing.assert_array_equal(np.asarray(t), [0, 4, 8])


def test_int_overflow_on_hit_raises_overflow_error():
    f, _ = doubling_jit()
    f(1)
    with pytest.raises(OverflowError, match="int32"):
        f(2**31)
    with pytest.raises(OverflowError):
        f(-2**31 - 1)
    assert int(np.asarray(f(2**31 - 1)[0])) == -2  # wraps in the computation, not on input


def test_x64_is_part_of_the_key():
    f, traces = doubling_jit()
    f(np.ones(2))
    _xjit.set_x64(True)
    assert _xjit.get_x64()
    (out,) = f(np.ones(2))
    assert len(traces) == 2 and out.dtype == np.float64
    (i,) = f(2**40)
    (i,) = f(2**40 + 1)
    assert i.dtype == np.int64 and i.weak_type and int(np.asarray(i)) == 2**41 + 2
    with pytest.raises(OverflowError, match="int64"):
        f(2**63)
    _xjit.set_x64(False)
    f(np.ones(2))
    assert len(traces) == 3


def test_static_argnums_join_the_key():
    f, traces = doubling_jit(static_argnums=(1,))
    x = np.ones(2, np.float32)
    f(x, "a")
    f(x, "a")
    f(x, "b")
    f(x, ("a", 1))
    f(x, ("a", 1))
    assert len(traces) == 3 and f.cache_size() == 3
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        f(x, ["unhashable"])


def test_static_values_compare_with_eq():
    class Key:
        def __init__(self, v):
            self.v = v

        def __hash__(self):
            return 0  # every Key collides: equality must decide

        def __eq__(self, other):
            return isinstance(other, Key) and self.v == other.v

    f, traces = doubling_jit(static_argnums=(0,))
    f(Key(1), 1.0)
    f(Key(1), 2.0)
    f(Key(2), 1.0)
    assert len(traces) == 2


def test_negative_static_argnums_count_from_the_end():
    f, traces = doubling_jit(static_argnums=(-1,))
    f(1.0, "s")
    f(2.0, "s")
    f(2.0, "t")
    assert len(traces) == 2
    f(1.0, 2.0, "s")  # now argument 2 is the static one
    assert len(traces) == 3


def test_static_argnames_and_dynamic_kwargs():
    f, traces = doubling_jit(static_argnames=("mode",))
    f(1.0, y=np.ones(2, np.float32), mode="fast")
    f(3.0, y=np.ones(2, np.float32), mode="fast")
    assert len(traces) == 1
    f(3.0, y=np.ones(2, np.float32), mode="slow")
    assert len(traces) == 2
    f(3.0, y=np.ones(2, np.float32))
    assert len(traces) == 3
    with pytest.raises(ValueError, match="Non-hashable"):
        f(1.0, mode={})


def test_kwargs_are_sorted_and_distinct_from_positional():
    f, traces = doubling_jit()
    f(a=1.0, b=np.ones(2, np.float32))
    f(b=np.zeros(2, np.float32), a=2.0)
    assert len(traces) == 1
    f(1.0, np.ones(2, np.float32))
    assert len(traces) == 2


def test_output_pytree_is_rebuilt():
    f, _ = doubling_jit(out_tree=lambda n: {"out": [0] * n, "none": None})
    f(1.0, 2.0)
    out = f(3.0, 4.0)
    assert set(out) == {"out", "none"} and out["none"] is None
    assert [float(np.asarray(v)) for v in out["out"]] == [6.0, 8.0]


def test_unsupported_leaves_always_miss():
    f, traces = doubling_jit()
    with pytest.raises(TypeError, match="not a valid jit argument"):
        f("string")
    with pytest.raises(TypeError):
        f(object())
    assert f.cache_size() == 0 and traces == []


def test_entry_none_is_not_cached():
    f, traces = doubling_jit(cacheable=False)
    f(1.0)
    f(1.0)
    assert len(traces) == 2 and f.cache_size() == 0


def test_clear_cache():
    f, traces = doubling_jit()
    f(1.0)
    f.clear_cache()
    assert f.cache_size() == 0
    f(1.0)
    assert len(traces) == 2


def test_cache_miss_must_return_a_pair():
    f = _xjit.JitFunction(None, lambda *a: 42, [], [])
    with pytest.raises(TypeError, match="cache_miss"):
        f(1.0)
    g = _xjit.JitFunction(None, lambda *a: (1, "not an entry"), [], [])
    with pytest.raises(TypeError, match="JitCacheEntry"):
        g(1.0)
    with pytest.raises(TypeError):
        _xjit.JitFunction(None, "not callable", [], [])


def test_cache_miss_errors_propagate():
    def cache_miss(*args):
        raise ZeroDivisionError("from python")
    f = _xjit.JitFunction(None, cache_miss, [], [])
    with pytest.raises(ZeroDivisionError, match="from python"):
        f(1.0)


def _compiled_identity(n):
    mb = _xjit.ModuleBuilder("ident")
    cb = mb.computation("main")
    ps = [cb.parameter("float32", (2,)) for _ in range(n)]
    cb.finish(ps)
    return _xjit.compile(mb.build(cb), DEVICE)


def test_jit_cache_entry_validates():
    exe = _compiled_identity(2)
    _, two = _xjit.tree_flatten((1, 2))
    entry = _xjit.JitCacheEntry(exe, two, [False, True])
    assert entry.out_weak_types == [False, True] and entry.out_treedef == two
    assert entry.executable is not None
    with pytest.raises(ValueError):
        _xjit.JitCacheEntry(exe, two, [False])
    with pytest.raises(ValueError):
        _xjit.JitCacheEntry(exe, _xjit.tree_flatten(1)[1], [False, False])
    with pytest.raises(TypeError):
        _xjit.JitCacheEntry("not an executable", two, [False, False])


def test_entry_that_does_not_match_the_call_is_rejected():
    exe = _compiled_identity(1)
    _, one = _xjit.tree_flatten(1)
    f = _xjit.JitFunction(None, lambda *a: (None, _xjit.JitCacheEntry(exe, one, [False])), [], [])
    with pytest.raises(ValueError, match="parameter"):
        f(np.ones(3, np.float32))  # executable wants float32[2]
    with pytest.raises(ValueError, match="parameters"):
        f(1.0, 2.0)
    assert f.cache_size() == 0


def test_python_subclass_with_update_wrapper_keeps_fast_path():
    def fun(x):
        """doc of fun"""
        return x

    cache_miss, traces = doubling_cache_miss()

    class Wrapped(_xjit.JitFunction):
        def __init__(self, fun):
            functools.update_wrapper(self, fun)
            super().__init__(fun, cache_miss, [], [])

    w = Wrapped(fun)
    assert w.__wrapped__ is fun and w.__name__ == "fun" and w.__doc__ == "doc of fun"
    w(1.0)
    (out,) = w(2.0)
    assert len(traces) == 1 and float(np.asarray(out)) == 4.0
    assert type(w).__call__ is _xjit.JitFunction.__call__  # the C++ slot is inherited


def test_subclass_hits_cache_and_is_collected():
    class Wrapped(_xjit.JitFunction):
        def __init__(self):
            self.traces = 0
            _xjit.JitFunction.__init__(self, None, self._cache_miss, [], [])

        def _cache_miss(self, *args):
            self.traces += 1
            out, entry = self._helper(*args)
            return out, entry

    def helper_miss(*args):
        leaves, _ = _xjit.tree_flatten((args, {}))
        exe = _compiled_identity(len(leaves))
        _, treedef = _xjit.tree_flatten([0] * len(leaves))
        return exe.execute_with_weak_types(list(leaves), [False] * len(leaves)), \
            _xjit.JitCacheEntry(exe, treedef, [False] * len(leaves))

    w = Wrapped()
    w._helper = helper_miss
    x = _xjit.device_put(np.ones(2, np.float32), DEVICE)
    w(x)
    w(x)
    assert w.traces == 1 and w.cache_size() == 1
    ref = weakref.ref(w)
    del w  # w -> C++ cache_miss (bound method) -> w: a cycle only GC can break
    gc.collect()
    assert ref() is None


def test_many_arguments_and_reentrancy():
    f, traces = doubling_jit()

    args = [np.full(2, i, np.float32) for i in range(10)]
    outs = f(*args)
    outs = f(*args)
    assert len(traces) == 1
    for i, o in enumerate(outs):
        np.testing.assert_array_equal(np.asarray(o), [2 * i, 2 * i])
