"""Implementation of ``xjit.nn`` (public names are re-exported by xjit/nn/__init__.py)."""
