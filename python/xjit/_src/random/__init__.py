"""Internals of ``xjit.random`` (threefry2x32, keys, XLA-exact math, samplers)."""
