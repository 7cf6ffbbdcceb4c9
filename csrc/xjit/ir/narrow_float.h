// Encoding and decoding of the small floating-point types (IsNarrowFloat):
// f8E3M4 ... f6E3M2FN. An element is one storage byte holding the type's code
// in its low bits, as ml_dtypes stores it. Results match ml_dtypes 0.6.0 bit
// for bit, including its overflow, NaN and negative-zero rules, which differ
// per type; narrow_float.cc lists them.
#pragma once

#include <cstdint>

#include "xjit/ir/dtype.h"

namespace xjit {

// Value of the code `bits` (low bits of the storage byte; higher bits are
// ignored) of small float type t. Every small float is exact in f32; NaN codes
// give a quiet NaN with the code's sign.
float DecodeNarrowFloat(DType t, uint8_t bits);

// Storage byte of the value nearest to v (ties to even, but up for e8m0fnu),
// as np.asarray(v, np.float64).astype(ml_dtypes.<t>) computes it. Note that
// ml_dtypes rounds a float64 to float32 first and then to t, so a float64 just
// off a midpoint of t can round the other way than a single rounding would;
// see EncodeNarrowFloatOnce.
uint8_t EncodeNarrowFloat(DType t, double v);

// v rounded once, directly to t (what ml_dtypes' scalar constructor,
// ml_dtypes.<t>(v) for a Python float, does). Equal to EncodeNarrowFloat for
// every v that is exactly a float32.
uint8_t EncodeNarrowFloatOnce(DType t, double v);

// Bulk versions for kernels; the same results as the scalar ones
// (the float one as EncodeNarrowFloat of each element).
void DecodeNarrowFloats(DType t, const uint8_t* in, float* out, int64_t n);
void EncodeNarrowFloats(DType t, const float* in, uint8_t* out, int64_t n);
void EncodeNarrowFloats(DType t, const double* in, uint8_t* out, int64_t n);

}  // namespace xjit
