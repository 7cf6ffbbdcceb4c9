"""Implementation of xjit.numpy (public names are re-exported by xjit/numpy/__init__.py)."""
