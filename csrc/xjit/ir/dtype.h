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
  // Narrow types: one byte of storage per element holding the type's code in
  // its low bits, the rest zero (as ml_dtypes and MLIR's dense attributes
  // store them: int4 -1 is 0x0F). Kernels never
  // compute on them: passes/narrow_type_expansion rewrites every op but data
  // movement into its compute type (NarrowComputeType) with converts.
  kS2, kS4, kU2, kU4,
  kF8E3M4, kF8E4M3, kF8E4M3FN, kF8E4M3FNUZ, kF8E4M3B11FNUZ, kF8E5M2,
  kF8E5M2FNUZ, kF8E8M0FNU, kF4E2M1FN, kF6E2M3FN, kF6E3M2FN,
};
inline constexpr int kNumDTypes = 30;

// `case` labels of every narrow type, for switches over DType.
#define XJIT_NARROW_DTYPE_CASES                                                          \
  case DType::kS2: case DType::kS4: case DType::kU2: case DType::kU4:                  \
  case DType::kF8E3M4: case DType::kF8E4M3: case DType::kF8E4M3FN:                     \
  case DType::kF8E4M3FNUZ: case DType::kF8E4M3B11FNUZ: case DType::kF8E5M2:            \
  case DType::kF8E5M2FNUZ: case DType::kF8E8M0FNU: case DType::kF4E2M1FN:              \
  case DType::kF6E2M3FN: case DType::kF6E3M2FN:

int64_t ByteWidth(DType t);
int BitWidth(DType t);
bool IsPred(DType t);
bool IsSignedInt(DType t);
bool IsUnsignedInt(DType t);
bool IsInteger(DType t);  // signed or unsigned, not pred
bool IsFloat(DType t);    // f16, bf16, f32, f64 and the small floats
bool IsNarrow(DType t);   // sub-byte integers and small (<16-bit) floats
bool IsNarrowFloat(DType t);
// The type narrow values are computed in: f32 for small floats, s8/u8 for
// sub-byte integers (results wrap when converted back). Identity otherwise.
DType NarrowComputeType(DType t);
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
