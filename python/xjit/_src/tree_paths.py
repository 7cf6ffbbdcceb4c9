"""Pytree paths and the rest of ``jax.tree_util``: key entries (``DictKey``,
``SequenceKey``, ``GetAttrKey``, ``FlattenedIndexKey``), ``keystr``,
``tree_flatten_with_path`` / ``tree_leaves_with_path`` /
``tree_map_with_path``, ``flatten_one_level``, ``tree_all``,
``tree_transpose``, ``tree_broadcast``, ``treedef_children``,
``treedef_tuple``, ``register_dataclass``, ``register_static``; and
OrderedDict / defaultdict as pytree nodes (JAX's order: insertion order,
sorted keys).

Example:
    >>> tree_flatten_with_path({"a": [1, 2]})[0]
    [((DictKey(key='a'), SequenceKey(idx=0)), 1), ((DictKey(key='a'), SequenceKey(idx=1)), 2)]
"""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, Callable, NamedTuple

from xjit import _xjit
from xjit._src.tree_util import register_pytree_node, tree_flatten, tree_unflatten


class DictKey(NamedTuple):
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


class SequenceKey(NamedTuple):
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


class GetAttrKey(NamedTuple):
    name: str

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(NamedTuple):
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


KeyEntry = Any
KeyPath = tuple


def keystr(keys, *, simple: bool = False, separator: str = "") -> str:
    """A path as text: ``['a'][0].b``; ``simple``: the bare keys (``a``, ``0``,
    ``b``); joined by ``separator``."""
    def one(k):
        if not simple:
            return str(k)
        return str(getattr(k, "key", getattr(k, "idx", getattr(k, "name", k))))
    return separator.join(one(k) for k in keys)


def flatten_one_level(tree):
    """``(children, node_data)`` of a pytree node; a ValueError for a leaf."""
    children, treedef = _xjit.tree_flatten(tree, lambda x: x is not tree)
    if treedef.num_nodes == 1 and treedef.num_leaves == 1 and children and children[0] is tree:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return children, treedef


def _child_keys(tree, n):
    """The key of each of the ``n`` children of node ``tree``, as JAX names them."""
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return [GetAttrKey(f) for f in tree._fields]
    if isinstance(tree, (list, tuple)):
        return [SequenceKey(i) for i in range(n)]
    if isinstance(tree, collections.OrderedDict):
        return [DictKey(k) for k in tree.keys()]
    if isinstance(tree, dict):
        return [DictKey(k) for k in sorted(tree.keys())]
    if dataclasses.is_dataclass(tree) and type(tree) in _dataclass_fields:
        return [GetAttrKey(f) for f in _dataclass_fields[type(tree)]]
    return [FlattenedIndexKey(i) for i in range(n)]


def _is_leaf_node(x, is_leaf):
    if is_leaf is not None and is_leaf(x):
        return True
    _, treedef = _xjit.tree_flatten(x, lambda y: y is not x)
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def _paths(tree, prefix, is_leaf, out):
    if tree is None and (is_leaf is None or not is_leaf(None)):
        return
    if _is_leaf_node(tree, is_leaf):
        out.append((prefix, tree))
        return
    children, _ = _xjit.tree_flatten(tree, lambda y: y is not tree)
    for key, child in zip(_child_keys(tree, len(children)), children):
        _paths(child, prefix + (key,), is_leaf, out)


def tree_flatten_with_path(tree, is_leaf: Callable | None = None):
    """``([(path, leaf), ...], treedef)``: each leaf with its key path."""
    out = []
    _paths(tree, (), is_leaf, out)
    return out, tree_flatten(tree, is_leaf)[1]


def tree_leaves_with_path(tree, is_leaf: Callable | None = None):
    """``[(path, leaf), ...]``."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable, tree, *rest, is_leaf: Callable | None = None):
    """``f(path, leaf, *other_leaves)`` over the leaves of ``tree`` (and of
    ``rest``, which have its structure)."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [_flatten_up_to(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(p, x, *(o[i] for o in others))
                                    for i, (p, x) in enumerate(pairs)])


def _flatten_up_to(treedef, tree) -> list:
    """The subtrees of ``tree`` at the leaves of ``treedef`` (a prefix of its structure)."""
    if treedef.num_nodes == 1 and treedef.num_leaves == 1:
        return [tree]
    defs = treedef.children()
    if not defs:
        return []
    children, node = _xjit.tree_flatten(tree, lambda y: y is not tree)
    if len(children) != len(defs) or node.node_data() != treedef.node_data():
        raise ValueError(f"Tree structure mismatch: {tree!r} does not have the prefix "
                         f"{treedef}")
    return [x for d, c in zip(defs, children) for x in _flatten_up_to(d, c)]


def tree_all(tree, *, is_leaf: Callable | None = None) -> bool:
    """Whether every leaf is truthy."""
    return all(tree_flatten(tree, is_leaf)[0])


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """An outer tree of inner trees turned into an inner tree of outer trees."""
    flat = tree_flatten(pytree_to_transpose)[0]
    n_inner = inner_treedef.num_leaves
    n_outer = outer_treedef.num_leaves
    if len(flat) != n_inner * n_outer:
        raise TypeError(f"Mismatch\n{outer_treedef}\n!=\n{inner_treedef}")
    by_outer = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return tree_unflatten(inner_treedef, [tree_unflatten(outer_treedef, [g[j] for g in by_outer])
                                          for j in range(n_inner)])


def tree_broadcast(prefix_tree, full_tree, is_leaf: Callable | None = None):
    """``prefix_tree``'s leaves repeated over the subtrees of ``full_tree`` they prefix."""
    prefix_leaves, prefix_def = tree_flatten(prefix_tree, is_leaf)
    subtrees = _flatten_up_to(prefix_def, full_tree)
    return tree_unflatten(prefix_def, [
        tree_unflatten(tree_flatten(sub, is_leaf)[1], [leaf] * len(tree_flatten(sub, is_leaf)[0]))
        for leaf, sub in zip(prefix_leaves, subtrees)])


def treedef_children(treedef):
    """The treedefs of the root's children."""
    return treedef.children()


def treedef_tuple(treedefs):
    """The treedef of a tuple of the trees of ``treedefs``."""
    placeholders = tuple(tree_unflatten(t, [object()] * t.num_leaves) for t in treedefs)
    return tree_flatten(placeholders)[1]


_dataclass_fields: dict = {}


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """A dataclass as a pytree node: ``data_fields`` are children,
    ``meta_fields`` static (hashable) data; by default every init field is
    data."""
    if data_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields is required for non-dataclasses")
        meta_fields = tuple(meta_fields or ())
        data_fields = tuple(f.name for f in dataclasses.fields(nodetype)
                            if f.init and f.name not in meta_fields and f.name not in drop_fields)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields or ())

    def flatten(x):
        return ([getattr(x, f) for f in data_fields],
                tuple(getattr(x, f) for f in meta_fields))

    def unflatten(meta, children):
        kwargs = dict(zip(data_fields, children))
        kwargs.update(zip(meta_fields, meta))
        return nodetype(**kwargs)
    register_pytree_node(nodetype, flatten, unflatten)
    _dataclass_fields[nodetype] = data_fields
    return nodetype


def register_static(cls):
    """``cls`` as a pytree node with no children: its instances are static data."""
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls


def tree_reduce_associative(operation: Callable, tree, *, identity=None, is_leaf=None):
    """``operation`` folded over the leaves (associativity lets any grouping)."""
    leaves = tree_flatten(tree, is_leaf)[0]
    if not leaves:
        if identity is None:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    return functools.reduce(operation, leaves)


def _register_dict_subclasses():
    od = collections.OrderedDict
    register_pytree_node(od, lambda d: (list(d.values()), tuple(d.keys())),
                         lambda keys, children: od(zip(keys, children)))

    def flatten_dd(d):
        keys = tuple(sorted(d.keys()))
        return [d[k] for k in keys], (d.default_factory, keys)
    register_pytree_node(collections.defaultdict, flatten_dd,
                         lambda aux, children: collections.defaultdict(aux[0],
                                                                       zip(aux[1], children)))


_register_dict_subclasses()
