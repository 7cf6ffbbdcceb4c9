"""Implementations shared by several public modules (JAX's ``jax._src.ops``)."""
