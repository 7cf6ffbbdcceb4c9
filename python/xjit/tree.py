"""``xjit.tree``: the short pytree API of newer JAX (``jax.tree.map`` ...).

Example:
    >>> import xjit
    >>> xjit.tree.map(lambda x: x + 1, {"a": 1, "b": (2,)})
    {'a': 2, 'b': (3,)}
"""
from xjit._src.tree_util import (  # noqa: F401
    tree_flatten as flatten, tree_leaves as leaves, tree_map as map, tree_reduce as reduce,
    tree_structure as structure, tree_unflatten as unflatten)
