// Element types of the IR and their static properties.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xjit {

// Order matters only for iteration; names follow XLA's primitive types.
enum class DType : uint8_t {
  kPred, kS8, kS16, kS32, kS64, kU8, kU16, kU32, kU64,
  kF16, kBF16, kF32, kF64, kC64, kC128,
};
inline constexpr int kNumDTypes = 15;

int64_t ByteWidth(DType t);
int BitWidth(DType t);
bool IsPred(DType t);
bool IsSignedInt(DType t);
bool IsUnsignedInt(DType t);
bool IsInteger(DType t);  // signed or unsigned, not pred
bool IsFloat(DType t);    // f16, bf16, f32, f64
bool IsComplex(DType t);
// Component type of a complex type (c64 -> f32); identity otherwise.
DType ComplexComponent(DType t);

// StableHLO spelling: i1, i8, ui8, f16, bf16, f32, complex<f32>, ...
absl::string_view StableHloName(DType t);
// numpy-style name: bool, int8, uint8, float16, bfloat16, complex64, ...
absl::string_view NumpyName(DType t);
// Accepts both spellings above.
absl::StatusOr<DType> ParseDType(absl::string_view name);

}  // namespace xjit
