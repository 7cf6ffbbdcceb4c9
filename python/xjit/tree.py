"""``xjit.tree``: the short pytree API of newer JAX (``jax.tree.map`` ...).

Example:
    >>> import xjit
    >>> xjit.tree.map(lambda x: x + 1, {"a": 1, "b": (2,)})
    {'a': 2, 'b': (3,)}
"""
from xjit._src.tree_util import (  # noqa: F401
    tree_flatten as flatten, tree_leaves as leaves, tree_map as map, tree_reduce as reduce,
    tree_structure as structure, tree_unflatten as unflatten)
from xjit._src.tree_paths import (  # noqa: F401,E402
    register_static as static, tree_all as all, tree_broadcast as broadcast,
    tree_flatten_with_path as flatten_with_path, tree_leaves_with_path as leaves_with_path,
    tree_map_with_path as map_with_path, tree_reduce_associative as reduce_associative,
    tree_transpose as transpose)
