"""Implementation of ``xjit.lax``: JAX's lax API on the xjit builder."""
