"""``xjit.dtypes`` (``jax.dtypes``): JAX's type promotion and dtype helpers.

Example:
    >>> from xjit import dtypes
    >>> dtypes.result_type(jnp.int8, 1.0)
    dtype('float32')
"""
from ml_dtypes import bfloat16  # noqa: F401

from xjit._src.api_transforms import float0  # noqa: F401
from xjit._src.dtypes import (  # noqa: F401
    TypePromotionError, canonicalize_dtype, finfo, iinfo, is_weakly_typed, issubdtype,
    promote_types, result_type)
