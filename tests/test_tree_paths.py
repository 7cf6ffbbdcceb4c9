"""Pytree key paths and the rest of tree_util against JAX's documented
results (and JAX itself when installed); OrderedDict/defaultdict nodes."""
import collections
import dataclasses

import numpy as np
import pytest

import xjit
from xjit import tree_util as tu
from jax_checks import need_jax

P = collections.namedtuple("P", "a b")
TREE = {"x": [1, None, (2, 3)], "p": P(4, {"q": 5}),
        "od": collections.OrderedDict(z=6, y=7)}
PATHS = [("['od']['z']", 6), ("['od']['y']", 7), ("['p'].a", 4), ("['p'].b['q']", 5),
         ("['x'][0]", 1), ("['x'][2][0]", 2), ("['x'][2][1]", 3)]


def test_paths_and_keystr():
    got = [(tu.keystr(p), v) for p, v in tu.tree_flatten_with_path(TREE)[0]]
    assert got == PATHS
    assert [v for _, v in tu.tree_leaves_with_path(TREE)] == tu.tree_leaves(TREE)
    first = tu.tree_leaves_with_path(TREE)[0][0]
    assert first == (tu.DictKey("od"), tu.DictKey("z"))
    assert tu.keystr(first, simple=True, separator="/") == "od/z"
    out = tu.tree_map_with_path(lambda p, x, y: (len(p), x + y), [1, (2,)], [10, (20,)])
    assert out == [(1, 11), ((2, 22),)]
    assert xjit.tree.map_with_path(lambda p, x: tu.keystr(p), {"a": 1}) == {"a": "['a']"}


def test_against_jax():
    jax = need_jax()
    want = [(jax.tree_util.keystr(p), v) for p, v in jax.tree_util.tree_flatten_with_path(TREE)[0]]
    assert want == PATHS


def test_ordered_and_default_dicts_are_nodes():
    od = collections.OrderedDict(z=1, y=2)
    assert tu.tree_leaves(od) == [1, 2]
    assert tu.tree_map(lambda v: v * 10, od) == collections.OrderedDict(z=10, y=20)
    dd = collections.defaultdict(int, {"b": 1, "a": 2})
    assert tu.tree_leaves(dd) == [2, 1]
    out = tu.tree_map(lambda v: v + 1, dd)
    assert isinstance(out, collections.defaultdict) and out == {"a": 3, "b": 2}
    assert float(xjit.jit(lambda d: d["z"] * d["y"])(od)) == 2.0


def test_transpose_broadcast_all_reduce():
    t = tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0)),
                          [(1, 2, 3), (4, 5, 6)])
    assert t == ([1, 4], [2, 5], [3, 6])
    assert tu.tree_broadcast([1, 2], [(0, 0), {"a": 0}]) == [(1, 1), {"a": 2}]
    assert tu.tree_all([1, True]) and not tu.tree_all([1, 0])
    assert tu.tree_reduce_associative(lambda a, b: a + b, [1, (2, 3)]) == 6
    with pytest.raises(TypeError, match="identity"):
        tu.tree_reduce_associative(lambda a, b: a + b, [])
    children, _ = tu.flatten_one_level({"a": 1, "b": (2,)})
    assert children == [1, (2,)]
    with pytest.raises(ValueError, match="can't tree-flatten"):
        tu.flatten_one_level(3)
    td = tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, 2])])
    assert td == tu.tree_structure((0, [0, 0]))
    assert len(tu.treedef_children(tu.tree_structure({"a": 1, "b": (1, 2)}))) == 2


def test_register_dataclass_and_static():
    @dataclasses.dataclass
    class D:
        w: object
        n: int = 3
    tu.register_dataclass(D, data_fields=["w"], meta_fields=["n"])
    assert tu.tree_leaves(D(1.0, 5)) == [1.0]
    assert tu.tree_map(lambda v: v * 2, D(1.0, 5)) == D(2.0, 5)
    assert tu.tree_flatten_with_path(D(1.0, 5))[0] == [((tu.GetAttrKey("w"),), 1.0)]
    np.testing.assert_array_equal(np.asarray(xjit.jit(lambda d: d.w * d.n)(D(np.ones(2), 4))),
                                  [4.0, 4.0])

    @tu.register_static
    class Config:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Config) and other.k == self.k

        def __hash__(self):
            return hash(self.k)
    assert tu.tree_leaves([Config(2), 1]) == [1]
