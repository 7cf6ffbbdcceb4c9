"""Implementation of xjit; the public API lives in ``xjit``, ``xjit.lax``,
``xjit.numpy`` and ``xjit.tree_util``."""
