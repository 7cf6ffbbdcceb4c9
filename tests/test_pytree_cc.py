"""The C++ pytree code behind xjit.tree_util (_xjit.tree_flatten, PyTreeDef)."""
import collections

import numpy as np
import pytest

from xjit import _xjit

Point = collections.namedtuple("Point", ["x", "y"])


class Box:
    """A registered custom node: children (a, b), aux data `tag`."""

    def __init__(self, a, b, tag="t"):
        self.a, self.b, self.tag = a, b, tag


_xjit.register_pytree_node(Box, lambda b: ((b.a, b.b), b.tag),
                           lambda tag, children: Box(*children, tag=tag))


def test_flatten_order_and_sorted_dict_keys():
    leaves, treedef = _xjit.tree_flatten((1, {"b": 2, "a": [3, 4]}, None))
    assert leaves == [1, 3, 4, 2]
    assert treedef.num_leaves == 4
    assert treedef.num_nodes == 8  # tuple, 1, dict, list, 3, 4, 2, None
    assert _xjit.tree_leaves((1, {"b": 2, "a": [3, 4]}, None)) == [1, 3, 4, 2]


@pytest.mark.parametrize("tree", [
    1, None, (), [], {}, (1,), [1, [2, (3,)]], {"x": {"y": None, "z": [1.5]}},
    Point(1, (2, 3)), [Point(x=None, y={"k": 1})], (np.zeros(2), "leaf", b"bytes"),
])
def test_roundtrip(tree):
    leaves, treedef = _xjit.tree_flatten(tree)
    rebuilt = treedef.unflatten(leaves)
    assert repr(rebuilt) == repr(tree)
    assert type(rebuilt) is type(tree)


def test_repr_matches_jax():
    assert repr(_xjit.tree_flatten((1, {"a": 2, "b": None}))[1]) == \
        "PyTreeDef((*, {'a': *, 'b': None}))"
    assert repr(_xjit.tree_flatten((1,))[1]) == "PyTreeDef((*,))"
    assert repr(_xjit.tree_flatten([1, []])[1]) == "PyTreeDef([*, []])"
    assert repr(_xjit.tree_flatten(5)[1]) == "PyTreeDef(*)"
    assert repr(_xjit.tree_flatten(None)[1]) == "PyTreeDef(None)"
    assert repr(_xjit.tree_flatten(Point(1, 2))[1]) == "PyTreeDef(Point(x=*, y=*))"
    assert repr(_xjit.tree_flatten(Box(1, 2))[1]) == "PyTreeDef(CustomNode(Box['t'], [*, *]))"


def test_none_has_no_leaves():
    leaves, treedef = _xjit.tree_flatten([None, None])
    assert leaves == []
    assert treedef.unflatten([]) == [None, None]


def test_namedtuple_roundtrip_keeps_type():
    leaves, treedef = _xjit.tree_flatten(Point(x=1, y=[2, 3]))
    assert leaves == [1, 2, 3]
    out = treedef.unflatten([4, 5, 6])
    assert isinstance(out, Point) and out == Point(4, [5, 6])


def test_custom_node():
    leaves, treedef = _xjit.tree_flatten([Box(1, (2, 3), tag="u")])
    assert leaves == [1, 2, 3]
    (box,) = treedef.unflatten([10, 20, 30])
    assert isinstance(box, Box) and (box.a, box.b, box.tag) == (10, (20, 30), "u")
    # aux data takes part in equality
    assert _xjit.tree_flatten(Box(1, 2, "u"))[1] != _xjit.tree_flatten(Box(1, 2, "v"))[1]
    assert _xjit.tree_flatten(Box(1, 2, "u"))[1] == _xjit.tree_flatten(Box(5, 6, "u"))[1]
    assert treedef.node_data() == (list, None)
    assert treedef.children()[0].node_data() == (Box, "u")


def test_subclass_of_registered_type_is_a_leaf():
    class SubBox(Box):
        pass
    leaves, treedef = _xjit.tree_flatten(SubBox(1, 2))
    assert treedef.num_leaves == 1 and isinstance(leaves[0], SubBox)


def test_duplicate_registration_is_value_error():
    with pytest.raises(ValueError, match="Duplicate"):
        _xjit.register_pytree_node(Box, lambda b: ((), None), lambda a, c: Box(0, 0))
    with pytest.raises(ValueError):
        _xjit.register_pytree_node(tuple, lambda t: (t, None), lambda a, c: tuple(c))


def test_bad_custom_flatten_result_is_value_error():
    class Bad:
        pass
    _xjit.register_pytree_node(Bad, lambda b: [1, 2, 3], lambda a, c: Bad())
    with pytest.raises(ValueError, match="pair"):
        _xjit.tree_flatten(Bad())


def test_unflatten_wrong_leaf_count():
    _, treedef = _xjit.tree_flatten((1, 2))
    with pytest.raises(ValueError, match="Too few leaves"):
        treedef.unflatten([1])
    with pytest.raises(ValueError, match="Too many leaves"):
        treedef.unflatten([1, 2, 3])
    assert treedef.unflatten(iter([7, 8])) == (7, 8)  # any iterable


def test_equality_and_hash():
    a = _xjit.tree_flatten({"a": 1, "b": (2, 3)})[1]
    b = _xjit.tree_flatten({"b": (5, 6), "a": 4})[1]
    c = _xjit.tree_flatten({"a": 1, "c": (2, 3)})[1]
    d = _xjit.tree_flatten([1, (2, 3)])[1]
    assert a == b and hash(a) == hash(b)
    assert a != c and a != d
    assert a != "not a treedef"
    assert len({a, b, c, d}) == 3
    assert _xjit.tree_flatten((1, 2))[1] != _xjit.tree_flatten([1, 2])[1]
    assert _xjit.tree_flatten((1, 2))[1] != _xjit.tree_flatten(Point(1, 2))[1]


def test_children_and_node_data():
    _, treedef = _xjit.tree_flatten((1, {"b": 2, "a": 3}, [4]))
    children = treedef.children()
    assert [repr(c) for c in children] == \
        ["PyTreeDef(*)", "PyTreeDef({'a': *, 'b': *})", "PyTreeDef([*])"]
    assert children[0].is_leaf() and not treedef.is_leaf()
    assert children[0].children() == []
    assert children[0].node_data() is None
    assert children[1].node_data() == (dict, ["a", "b"])
    assert treedef.node_data() == (tuple, None)
    assert _xjit.tree_flatten(Point(1, 2))[1].node_data() == (Point, None)


def test_is_leaf_stops_descent():
    tree = [(1, 2), [3, (4,)]]
    leaves, treedef = _xjit.tree_flatten(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [(1, 2), 3, (4,)]
    assert treedef.unflatten(leaves) == tree
    assert _xjit.tree_leaves(None, is_leaf=lambda x: x is None) == [None]
    assert _xjit.tree_flatten([1], is_leaf=None)[0] == [1]


def test_treedef_tuple():
    t1 = _xjit.tree_flatten([1, 2])[1]
    t2 = _xjit.tree_flatten({"a": 1})[1]
    tup = _xjit.treedef_tuple([t1, t2])
    assert tup == _xjit.tree_flatten(([1, 2], {"a": 3}))[1]
    assert tup.num_leaves == 3 and tup.num_nodes == 6
    assert tup.unflatten([1, 2, 3]) == ([1, 2], {"a": 3})


def test_cyclic_list_raises_recursion_error():
    a = []
    a.append(a)
    with pytest.raises(RecursionError):
        _xjit.tree_flatten(a)


def test_unsortable_dict_keys_raise_type_error():
    with pytest.raises(TypeError):
        _xjit.tree_flatten({1: "a", "b": 2})


def test_errors_in_callbacks_propagate():
    class Boom:
        pass

    def flatten(_):
        raise KeyError("boom")
    _xjit.register_pytree_node(Boom, flatten, lambda a, c: Boom())
    with pytest.raises(KeyError):
        _xjit.tree_flatten([Boom()])
    with pytest.raises(ZeroDivisionError):
        _xjit.tree_flatten([1], is_leaf=lambda x: 1 / 0)


def test_arrays_and_other_objects_are_leaves():
    x = np.ones(3)
    a = _xjit.device_put(np.ones(2, np.float32), _xjit.devices("cpu")[0])
    leaves, treedef = _xjit.tree_flatten({"x": x, "a": a, "s": "str", "o": object})
    assert leaves[0] is a and leaves[3] is x
    assert treedef.num_leaves == 4


def test_dict_subclass_is_a_leaf_unless_registered():
    class MyDict(dict):
        pass
    d = MyDict(b=1, a=2)
    leaves, _ = _xjit.tree_flatten([d])
    assert leaves == [d]
