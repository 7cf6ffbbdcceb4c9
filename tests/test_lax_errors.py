"""Bad input to every lax op family raises a clear Python exception (TypeError
for operand types and shapes, ValueError for attribute values, as JAX) that
names the op; never a crash."""
import numpy as np
import pytest

import xjit.numpy as jnp
from xjit import lax

F32 = np.ones((2, 3), np.float32)
I32 = np.ones((2, 3), np.int32)
V3 = np.ones(3, np.float32)
B = F32 > 0
NO_PAD = [(0, 0, 0), (0, 0, 0)]

CASES = [
    ("add", lambda: lax.add(F32, I32), TypeError, "same dtypes"),
    ("add", lambda: lax.add(F32, np.ones((3, 2), np.float32)), TypeError, "incompatible shapes"),
    ("sub", lambda: lax.sub(B, B), TypeError, "does not accept dtype bool"),
    ("div", lambda: lax.div(F32, I32), TypeError, "same dtypes"),
    ("rem", lambda: lax.rem(F32, I32), TypeError, "same dtypes"),
    ("pow", lambda: lax.pow(I32, I32), TypeError, "does not accept dtype int32"),
    ("max", lambda: lax.max(F32, V3), TypeError, "(2, 3)"),
    ("exp", lambda: lax.exp(I32), TypeError, "does not accept dtype int32"),
    ("log", lambda: lax.log(B), TypeError, "does not accept dtype bool"),
    ("tanh", lambda: lax.tanh(I32), TypeError, "does not accept dtype int32"),
    ("floor", lambda: lax.floor(I32), TypeError, "does not accept dtype int32"),
    ("sign", lambda: lax.sign(B), TypeError, "does not accept dtype bool"),
    ("is_finite", lambda: lax.is_finite(I32), TypeError, "does not accept dtype int32"),
    ("and", lambda: lax.bitwise_and(F32, F32), TypeError, "does not accept dtype float32"),
    ("not", lambda: lax.bitwise_not(F32), TypeError, "does not accept dtype float32"),
    ("shift_left", lambda: lax.shift_left(F32, F32), TypeError, "does not accept dtype float32"),
    ("population_count", lambda: lax.population_count(F32), TypeError, "float32"),
    ("clz", lambda: lax.clz(F32), TypeError, "float32"),
    ("atan2", lambda: lax.atan2(I32, I32), TypeError, "does not accept dtype int32"),
    ("complex", lambda: lax.complex(I32, I32), TypeError, "float32, float64"),
    ("eq", lambda: lax.eq(F32, I32), TypeError, "same dtypes"),
    ("lt", lambda: lax.lt(F32, np.ones((3, 2), np.float32)), TypeError, "incompatible shapes"),
    ("select", lambda: lax.select(F32, F32, F32), TypeError, "boolean"),
    ("select", lambda: lax.select(B, F32, V3), TypeError, "same shapes"),
    ("clamp", lambda: lax.clamp(np.float32(0), F32, I32), TypeError, "same dtypes"),
    ("convert", lambda: lax.convert_element_type(F32, np.dtype("U3")), TypeError, "dtype"),
    ("broadcast_in_dim", lambda: lax.broadcast_in_dim(V3, (2, 3), (0,)), TypeError, "broadcast_in_dim"),
    ("broadcast_in_dim", lambda: lax.broadcast_in_dim(V3, (2, 3), (0, 1)), TypeError, "broadcast_dimensions"),
    ("reshape", lambda: lax.reshape(F32, (4,)), TypeError, "total size"),
    ("transpose", lambda: lax.transpose(F32, (0, 0)), TypeError, "permutation"),
    ("slice", lambda: lax.slice(F32, (0, 0), (3, 3)), ValueError, "slice"),
    ("slice", lambda: lax.slice(F32, (0, 0), (2, 3), (0, 1)), ValueError, "stride"),
    ("concatenate", lambda: lax.concatenate([F32, I32], 0), TypeError, "same dtypes"),
    ("concatenate", lambda: lax.concatenate([F32, F32], 2), ValueError, "out of range"),
    ("pad", lambda: lax.pad(F32, np.float32(0), [(0, 0, -1), (0, 0, 0)]), ValueError, "interior"),
    ("pad", lambda: lax.pad(F32, np.ones(2, np.float32), NO_PAD), TypeError, "scalar"),
    ("rev", lambda: lax.rev(F32, (2,)), ValueError, "out of range"),
    ("dot_general", lambda: lax.dot_general(F32, F32, (((1,), (0,)), ((), ()))), TypeError, "dot_general"),
    ("dot_general", lambda: lax.dot_general(F32, I32, (((1,), (1,)), ((), ()))), TypeError, "same dtypes"),
    ("reduce_sum", lambda: lax.reduce_sum(F32, (2,)), ValueError, "out of range"),
    ("argmax", lambda: lax.argmax(F32, 2, np.int32), ValueError, "out of bounds"),
    ("iota", lambda: lax.iota(np.float32, -1), ValueError, "iota"),
    ("squeeze", lambda: lax.squeeze(F32, (0,)), ValueError, "squeeze"),
    ("expand_dims", lambda: lax.expand_dims(F32, (5,)), ValueError, "out of bounds"),
]


@pytest.mark.parametrize("op,call,error,text", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_raises_clear_error(op, call, error, text):
    with pytest.raises(error, match=None) as info:
        call()
    message = str(info.value)
    assert text in message
    assert op.split("_")[0] in message or op in message


@pytest.mark.parametrize("op,call,error,text", CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_bad_input_raises_under_jit_too(op, call, error, text):
    import xjit
    with pytest.raises(error):
        xjit.jit(lambda: call())()
