#include "xjit/ir/narrow_convert.h"

#include "xjit/ir/narrow_float.h"

namespace xjit {

uint8_t NarrowStorageOfCode(DType t, uint8_t code) {
  const int bits = BitWidth(t);
  return bits >= 8 ? code : code & static_cast<uint8_t>((1 << bits) - 1);
}

bool IsDirectNarrowConvert(DType from, DType to) {
  if (IsNarrowFloat(from)) return to == DType::kF32;
  if (IsNarrowFloat(to)) return from == DType::kF32 || from == DType::kF64;
  if (IsNarrow(from)) return to == NarrowComputeType(from);
  if (IsNarrow(to)) return from == NarrowComputeType(to);
  return false;
}

void ConvertNarrowElements(DType from, DType to, const void* in, void* out, int64_t n) {
  if (IsNarrowFloat(from)) {
    DecodeNarrowFloats(from, static_cast<const uint8_t*>(in), static_cast<float*>(out), n);
  } else if (IsNarrowFloat(to) && from == DType::kF32) {
    EncodeNarrowFloats(to, static_cast<const float*>(in), static_cast<uint8_t*>(out), n);
  } else if (IsNarrowFloat(to) && to != DType::kF8E8M0FNU) {
    // Rounded once from f64, as XLA converts (ml_dtypes' numpy cast goes
    // through f32 and can round a value just off a midpoint the other way).
    const double* x = static_cast<const double*>(in);
    uint8_t* y = static_cast<uint8_t*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = EncodeNarrowFloatOnce(to, x[i]);
  } else if (IsNarrowFloat(to)) {
    // XLA takes f8E8M0FNU through f32: a value below f32's range is 0, NaN.
    EncodeNarrowFloats(to, static_cast<const double*>(in), static_cast<uint8_t*>(out), n);
  } else if (IsNarrow(from)) {
    const uint8_t* x = static_cast<const uint8_t*>(in);
    uint8_t* y = static_cast<uint8_t*>(out);
    if (IsSignedInt(from)) {
      // Sign-extend the code: shift it to the top of an int8, then back.
      const int shift = 8 - BitWidth(from);
      for (int64_t i = 0; i < n; ++i) {
        y[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(x[i] << shift)) >> shift);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = x[i];
    }
  } else {
    // Keep the low bits: wrap-around.
    const uint8_t* x = static_cast<const uint8_t*>(in);
    uint8_t* y = static_cast<uint8_t*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = NarrowStorageOfCode(to, x[i]);
  }
}

}  // namespace xjit
