"""Pytrees: thin wrappers over the C++ implementation in ``_xjit``.

Nodes are tuples, lists, dicts (sorted keys), None, namedtuples and
registered classes; everything else is a leaf.

Example:
    >>> leaves, treedef = tree_flatten({"a": 1, "b": (2, 3)})
    >>> leaves
    [1, 2, 3]
    >>> tree_unflatten(treedef, [4, 5, 6])
    {'a': 4, 'b': (5, 6)}
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from xjit import _xjit


def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None):
    """(leaves, treedef) of ``tree``; ``is_leaf(x)`` True stops descending at x.

    Example:
        >>> tree_flatten([1, (2, None)])[0]
        [1, 2]
    """
    return _xjit.tree_flatten(tree, is_leaf)


def tree_unflatten(treedef, leaves):
    """Rebuild a tree of structure ``treedef`` from ``leaves``.

    Example:
        >>> tree_unflatten(tree_structure((0, 0)), [1, 2])
        (1, 2)
    """
    return treedef.unflatten(list(leaves))


def tree_leaves(tree, is_leaf=None) -> list:
    """The leaves of ``tree`` in flattening order.

    Example:
        >>> tree_leaves({"b": 2, "a": 1})
        [1, 2]
    """
    return _xjit.tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The treedef of ``tree``.

    Example:
        >>> tree_structure((1, {"a": 2}))
        PyTreeDef((*, {'a': *}))
    """
    return _xjit.tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree, *rest, is_leaf=None):
    """``f`` applied leaf-wise to ``tree`` and the same-structured trees ``rest``.

    Example:
        >>> tree_map(lambda x, y: x + y, (1, [2]), (10, [20]))
        (11, [22])
    """
    leaves, treedef = _xjit.tree_flatten(tree, is_leaf)
    all_leaves = [leaves]
    for other in rest:
        other_leaves, other_def = _xjit.tree_flatten(other, is_leaf)
        if other_def != treedef:
            raise ValueError(f"Custom node type mismatch; expected tree structure {treedef}, "
                             f"got {other_def}.")
        all_leaves.append(other_leaves)
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves)])


def tree_reduce(function: Callable, tree, initializer=..., is_leaf=None):
    """``functools.reduce`` over the leaves of ``tree``.

    Example:
        >>> tree_reduce(lambda a, b: a + b, [1, (2, 3)])
        6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is ...:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def treedef_is_leaf(treedef) -> bool:
    """True for the treedef of a single leaf.

    Example:
        >>> treedef_is_leaf(tree_structure(1))
        True
    """
    return treedef.num_nodes == 1 and treedef.num_leaves == 1


def all_leaves(iterable, is_leaf=None) -> bool:
    """True if every element of ``iterable`` is a leaf."""
    return all(treedef_is_leaf(tree_structure(x, is_leaf)) for x in iterable)


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable):
    """Make instances of ``nodetype`` pytree nodes.

    ``flatten_func(x) -> (children, aux_data)``;
    ``unflatten_func(aux_data, children) -> x``.

    Example:
        >>> class Pair:
        ...     def __init__(self, a, b): self.a, self.b = a, b
        >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
        ...                      lambda aux, ch: Pair(*ch))
    """
    if nodetype in _LEAF_TYPES or (isinstance(nodetype, type)
                                   and issubclass(nodetype, (np.ndarray, np.generic, Array))):
        # Python scalars and arrays are leaves; making them nodes would break every
        # later flatten, so they count as registered already (JAX's error).
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype!r}.")
    for what, f in (("flatten_func", flatten_func), ("unflatten_func", unflatten_func)):
        if not callable(f):
            raise TypeError(f"register_pytree_node: {what} must be callable, got {f!r}")
    _xjit.register_pytree_node(nodetype, flatten_func, unflatten_func)


_LEAF_TYPES = (bool, int, float, complex)
Array = _xjit.Array


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: ``cls.tree_flatten()`` / ``cls.tree_unflatten(aux, children)``.

    Example:
        >>> @register_pytree_node_class
        ... class Box:
        ...     def __init__(self, x): self.x = x
        ...     def tree_flatten(self): return (self.x,), None
        ...     @classmethod
        ...     def tree_unflatten(cls, aux, children): return cls(*children)
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree (its bound arguments are leaves).

    Example:
        >>> tree_leaves(Partial(lambda a, b: a + b, 1.0))
        [1.0]
    """

    def __new__(cls, func, *args, **kwargs):
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]))
