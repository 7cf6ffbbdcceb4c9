"""``xjit.tree_util``: pytree utilities, as ``jax.tree_util``.

Example:
    >>> from xjit import tree_util
    >>> tree_util.tree_map(lambda x: x * 2, {"a": 1})
    {'a': 2}
"""
from xjit._src.tree_util import (
    Partial, all_leaves, register_pytree_node, register_pytree_node_class, tree_flatten,
    tree_leaves, tree_map, tree_reduce, tree_structure, tree_unflatten, treedef_is_leaf)
from xjit._xjit import PyTreeDef  # noqa: F401  (the C++ treedef type)
from xjit._src.tree_paths import (  # noqa: F401,E402
    DictKey, FlattenedIndexKey, GetAttrKey, KeyEntry, KeyPath, SequenceKey, flatten_one_level,
    keystr, register_dataclass, register_static, tree_all, tree_broadcast,
    tree_flatten_with_path, tree_leaves_with_path, tree_map_with_path, tree_reduce_associative,
    tree_transpose, treedef_children, treedef_tuple)
