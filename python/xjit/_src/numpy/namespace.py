"""The numpy functions the linear-algebra modules use, under their xjit.numpy
names, taken from the private modules (a private module may not import the
public ``xjit.numpy``).

Example:
    >>> from xjit._src.numpy.namespace import jnp
    >>> jnp.eye(2).shape
    (2, 2)
"""
import types

import numpy as np

from xjit._src import dtypes
from xjit._src.numpy.creation import (
    arange, array, asarray, empty, eye, full, full_like, ones, tril, triu, zeros, zeros_like)
from xjit._src.numpy.diagonal import diagonal, trace
from xjit._src.numpy.elementwise import (
    abs, conj, floor, imag, isfinite, isnan, log, log2, maximum, power, real, sign, sqrt, where)
from xjit._src.numpy.indexing import take_along_axis
from xjit._src.numpy.linalg_ops import matmul, outer
from xjit._src.numpy.pad import pad
from xjit._src.numpy.reductions import all, any, max, min, prod, sum
from xjit._src.numpy.scalar_types import int32
from xjit._src.numpy.shape_ops import (
    atleast_2d, broadcast_shapes, broadcast_to, concatenate, expand_dims, flip, matrix_transpose,
    moveaxis, ndim, ravel, reshape, result_type, swapaxes)
from xjit._src.numpy.sorting import argsort

jnp = types.SimpleNamespace(
    abs=abs, all=all, any=any, arange=arange, argsort=argsort, array=array, asarray=asarray,
    atleast_2d=atleast_2d, broadcast_shapes=broadcast_shapes, broadcast_to=broadcast_to,
    concatenate=concatenate, conj=conj, diagonal=diagonal, empty=empty, expand_dims=expand_dims,
    eye=eye, finfo=dtypes.finfo, flip=flip, floor=floor, full=full, full_like=full_like,
    imag=imag, inf=np.inf, int32=int32, isfinite=isfinite, isnan=isnan, log=log, log2=log2, matmul=matmul,
    matrix_transpose=matrix_transpose, max=max, maximum=maximum, min=min, moveaxis=moveaxis,
    nan=np.nan, ndim=ndim, ones=ones, outer=outer, pad=pad, power=power, prod=prod, ravel=ravel,
    real=real, reshape=reshape, result_type=result_type, sign=sign, sqrt=sqrt, sum=sum,
    swapaxes=swapaxes, take_along_axis=take_along_axis, trace=trace, tril=tril, triu=triu,
    where=where, zeros=zeros, zeros_like=zeros_like)
