"""JAX's type promotion rules (xjit._src.dtypes) against JAX's documented table."""
import ml_dtypes
import numpy as np
import pytest

import xjit
from xjit._src import dtypes
from numpy_checks import x64

BF16 = np.dtype(ml_dtypes.bfloat16)

# JAX's documented promotion table ("Type promotion semantics", standard mode).
# Rows and columns: b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
_NAMES = "b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*".split()
_TABLE = """
b1 u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
u1 u1 u2 u4 u8 i2 i2 i4 i8 bf f2 f4 f8 c4 c8 u1 f* c*
u2 u2 u2 u4 u8 i4 i4 i4 i8 bf f2 f4 f8 c4 c8 u2 f* c*
u4 u4 u4 u4 u8 i8 i8 i8 i8 bf f2 f4 f8 c4 c8 u4 f* c*
u8 u8 u8 u8 u8 f* f* f* f* bf f2 f4 f8 c4 c8 u8 f* c*
i1 i2 i4 i8 f* i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i1 f* c*
i2 i2 i4 i8 f* i2 i2 i4 i8 bf f2 f4 f8 c4 c8 i2 f* c*
i4 i4 i4 i8 f* i4 i4 i4 i8 bf f2 f4 f8 c4 c8 i4 f* c*
i8 i8 i8 i8 f* i8 i8 i8 i8 bf f2 f4 f8 c4 c8 i8 f* c*
bf bf bf bf bf bf bf bf bf bf f4 f4 f8 c4 c8 bf bf c4
f2 f2 f2 f2 f2 f2 f2 f2 f2 f4 f2 f4 f8 c4 c8 f2 f2 c4
f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 c4 c8 f4 f4 c4
f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c8 c8 f8 f8 c8
c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c4 c8 c4 c8 c4 c4 c4
c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
i* u1 u2 u4 u8 i1 i2 i4 i8 bf f2 f4 f8 c4 c8 i* f* c*
f* f* f* f* f* f* f* f* f* bf f2 f4 f8 c4 c8 f* f* c*
c* c* c* c* c* c* c* c* c* c4 c4 c4 c8 c4 c8 c* c* c*
"""

_STRONG = {"b1": np.bool_, "u1": np.uint8, "u2": np.uint16, "u4": np.uint32, "u8": np.uint64,
           "i1": np.int8, "i2": np.int16, "i4": np.int32, "i8": np.int64, "bf": BF16,
           "f2": np.float16, "f4": np.float32, "f8": np.float64, "c4": np.complex64,
           "c8": np.complex128}
# Under x64 the weak types are 64-bit and flagged weak.
_WEAK_ARG = {"i*": int, "f*": float, "c*": complex}
_WEAK_RESULT = {"i*": np.int64, "f*": np.float64, "c*": np.complex128}


def _table_cases():
    rows = [line.split() for line in _TABLE.strip().splitlines()]
    for r, row in zip(_NAMES, rows):
        for c, want in zip(_NAMES, row):
            yield r, c, want


@pytest.mark.parametrize("row,col,want", list(_table_cases()))
def test_result_type_matches_jax_table_with_x64(row, col, want):
    a = _WEAK_ARG.get(row) or np.dtype(_STRONG[row])
    b = _WEAK_ARG.get(col) or np.dtype(_STRONG[col])
    with x64(True):
        dt, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
    if want in _WEAK_RESULT:
        assert (dt, weak) == (np.dtype(_WEAK_RESULT[want]), True)
    else:
        assert (dt, weak) == (np.dtype(_STRONG[want]), False)


@pytest.mark.parametrize("row,col,want", [c for c in _table_cases()
                                          if c[0] in _STRONG and c[1] in _STRONG])
def test_promote_types_matches_jax_table(row, col, want):
    expected = {"f*": np.float64}.get(want) or _STRONG[want]
    assert dtypes.promote_types(_STRONG[row], _STRONG[col]) == np.dtype(expected)


def test_result_type_is_symmetric_and_associative_on_strong_types():
    names = list(_STRONG)
    with x64(True):
        for a in names:
            for b in names:
                assert dtypes.result_type(_STRONG[a], _STRONG[b]) == \
                    dtypes.result_type(_STRONG[b], _STRONG[a])
        # (Not i8+u8: its weak f* result is not a strong dtype, so it does not associate.)
        for a, b, c in [("u1", "i1", "bf"), ("u4", "i2", "f4"), ("bf", "f2", "c4")]:
            left = dtypes.result_type(dtypes.result_type(_STRONG[a], _STRONG[b]), _STRONG[c])
            assert left == dtypes.result_type(_STRONG[a], _STRONG[b], _STRONG[c])


@pytest.mark.parametrize("args,want,weak", [
    ((np.int8, 1), np.int8, False),
    ((np.float16, 1.0), np.float16, False),
    ((np.int32, 1.0), np.float32, True),
    ((np.uint8, np.int8), np.int16, False),
    ((BF16, np.float16), np.float32, False),
    ((np.int64, np.uint64), np.float32, True),   # f* canonicalized
    ((np.float64,), np.float32, False),
    ((np.complex128,), np.complex64, False),
    ((np.uint64, np.int8), np.float32, True),
    ((1, 2.0), np.float32, True),
    ((1,), np.int32, True),
    ((True, 1), np.int32, True),
    ((True,), np.bool_, False),
    ((np.bool_, 1.0), np.float32, True),
    ((np.float32, 1j), np.complex64, False),
    ((BF16, 2), BF16, False),
    ((np.uint32, np.int32), np.int32, False),   # int64 canonicalized
    ((None,), np.float32, False),
])
def test_result_type_without_x64(args, want, weak):
    with x64(False):
        assert dtypes.result_type(*args, return_weak_type_flag=True) == (np.dtype(want), weak)


def test_result_type_with_x64_keeps_64_bits():
    with x64(True):
        assert dtypes.result_type(np.int64, np.uint64) == np.float64
        assert dtypes.result_type(1.0) == np.float64
        assert dtypes.result_type(np.int64, 1) == np.int64


def test_result_type_values_and_weak_arrays():
    with x64(False):
        x = np.zeros(3, np.int8)
        assert dtypes.result_type(x, 3) == np.int8
        assert dtypes.result_type(np.float16(1), 2.5) == np.float16
        assert dtypes.result_type(np.float64(1)) == np.float32


def test_result_type_requires_arguments():
    with pytest.raises(ValueError):
        dtypes.result_type()


def test_canonicalize_dtype():
    with x64(False):
        assert dtypes.canonicalize_dtype(np.int64) == np.int32
        assert dtypes.canonicalize_dtype(np.uint64) == np.uint32
        assert dtypes.canonicalize_dtype(np.float64) == np.float32
        assert dtypes.canonicalize_dtype(np.complex128) == np.complex64
        assert dtypes.canonicalize_dtype(np.int16) == np.int16
        assert dtypes.canonicalize_dtype(BF16) == BF16
    with x64(True):
        assert dtypes.canonicalize_dtype(np.int64) == np.int64
        assert dtypes.canonicalize_dtype(np.float64) == np.float64
    with pytest.raises(TypeError):
        dtypes.canonicalize_dtype(np.dtype("U3"))


def test_dtype_of_values():
    assert dtypes.dtype(1) == np.int64
    assert dtypes.dtype(1.0) == np.float64
    assert dtypes.dtype(1j) == np.complex128
    assert dtypes.dtype(True) == np.bool_
    assert dtypes.dtype(float) == np.float64
    assert dtypes.dtype("bfloat16") == BF16
    assert dtypes.dtype(np.zeros(2, np.uint16)) == np.uint16
    with x64(False):
        assert dtypes.dtype(1.0, canonicalize=True) == np.float32
    with pytest.raises(TypeError):
        dtypes.dtype(np.array(["a"]))
    with pytest.raises(ValueError):
        dtypes.dtype(None)


def test_is_weakly_typed_and_python_scalar_dtype():
    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(2.0) and dtypes.is_weakly_typed(1j)
    assert not dtypes.is_weakly_typed(True)
    assert not dtypes.is_weakly_typed(np.float32(1))
    assert not dtypes.is_weakly_typed(np.zeros(2))
    with x64(False):
        assert dtypes.python_scalar_dtype(1) == np.int32
        assert dtypes.python_scalar_dtype(1.0) == np.float32
        assert dtypes.python_scalar_dtype(True) == np.bool_
    with x64(True):
        assert dtypes.python_scalar_dtype(1) == np.int64
    with pytest.raises(TypeError):
        dtypes.python_scalar_dtype("a")


def test_weak_flag_of_xjit_arrays():
    weak = xjit.numpy.asarray(1.0)
    strong = xjit.numpy.asarray(np.float32(1.0))
    assert dtypes.is_weakly_typed(weak) and not dtypes.is_weakly_typed(strong)
    assert dtypes.result_type(weak, np.float16) == np.float16
    assert dtypes.result_type(strong, np.float16) == np.float32


def test_issubdtype():
    assert dtypes.issubdtype(BF16, np.floating)
    assert dtypes.issubdtype(BF16, np.inexact)
    assert not dtypes.issubdtype(BF16, np.integer)
    assert dtypes.issubdtype(np.float32, np.floating)
    assert dtypes.issubdtype(np.int8, np.signedinteger)
    assert not dtypes.issubdtype(np.uint8, np.signedinteger)
    assert not dtypes.issubdtype(np.float32, BF16)
    assert dtypes.issubdtype(BF16, BF16)


def test_finfo_iinfo():
    assert float(dtypes.finfo(BF16).eps) == 2.0 ** -7
    assert float(dtypes.finfo(np.float16).max) == 65504.0
    assert int(dtypes.iinfo(np.int8).min) == -128
    assert int(dtypes.iinfo(np.uint16).max) == 65535


def test_x64_enabled_follows_config():
    with x64(True):
        assert dtypes.x64_enabled()
    with x64(False):
        assert not dtypes.x64_enabled()
