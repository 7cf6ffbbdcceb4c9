"""xjit.tree_util: flatten/unflatten, map, custom nodes."""
import collections

import pytest

from xjit import tree_util


def test_flatten_unflatten_roundtrip():
    tree = {"b": [1, (2, None)], "a": 3}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [3, 1, 2]  # dict keys sorted
    assert tree_util.tree_unflatten(treedef, [30, 10, 20]) == {"b": [10, (20, None)], "a": 30}
    assert treedef.num_leaves == 3
    assert tree_util.tree_structure(tree) == treedef
    assert tree_util.tree_leaves(tree) == [3, 1, 2]


def test_tree_map_multiple_trees_and_mismatch():
    assert tree_util.tree_map(lambda x, y: x * y, (1, [2, 3]), (4, [5, 6])) == (4, [10, 18])
    with pytest.raises(ValueError):
        tree_util.tree_map(lambda x, y: x, (1, 2), [1, 2])


def test_is_leaf():
    tree = [(1, 2), (3, 4)]
    leaves = tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), (3, 4)]


def test_namedtuple_is_node():
    Point = collections.namedtuple("Point", "x y")
    out = tree_util.tree_map(lambda v: v + 1, Point(1, 2))
    assert isinstance(out, Point) and out == Point(2, 3)


def test_register_pytree_node_class():
    @tree_util.register_pytree_node_class
    class Box:
        def __init__(self, a, b, name):
            self.a, self.b, self.name = a, b, name

        def tree_flatten(self):
            return (self.a, self.b), self.name

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children, aux)

    box = tree_util.tree_map(lambda v: v * 10, Box(1, 2, "n"))
    assert (box.a, box.b, box.name) == (10, 20, "n")


def test_reduce_and_leaf_predicate():
    assert tree_util.tree_reduce(lambda a, b: a + b, {"x": 1, "y": (2, 3)}) == 6
    assert tree_util.tree_reduce(lambda a, b: a + b, [], 5) == 5
    assert tree_util.treedef_is_leaf(tree_util.tree_structure(1.0))
    assert not tree_util.treedef_is_leaf(tree_util.tree_structure((1.0,)))


def test_partial_is_pytree():
    p = tree_util.Partial(lambda a, b: a + b, 1)
    assert tree_util.tree_leaves(p) == [1]
    q = tree_util.tree_map(lambda v: v * 5, p)
    assert q(2) == 7


def test_short_tree_namespace():
    import xjit
    assert xjit.tree.map(lambda x: x * 2, [1, {"k": 2}]) == [2, {"k": 4}]
    assert xjit.tree.leaves((1, (2, 3))) == [1, 2, 3]
    leaves, treedef = xjit.tree.flatten({"a": 1})
    assert xjit.tree.unflatten(treedef, [5]) == {"a": 5}
    assert xjit.tree.structure((1, 2)) == tree_util.tree_structure((3, 4))
