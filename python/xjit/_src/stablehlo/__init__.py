"""Implementation of ``xjit.stablehlo``: StableHLO text in, xjit arrays out."""
