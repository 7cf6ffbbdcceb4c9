#include "xjit/ir/dtype.h"

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

struct DTypeInfo {
  DType type;
  int bits;
  const char* stablehlo;
  const char* numpy;
};

constexpr DTypeInfo kInfo[kNumDTypes] = {
    {DType::kPred, 8, "i1", "bool"},
    {DType::kS8, 8, "i8", "int8"},
    {DType::kS16, 16, "i16", "int16"},
    {DType::kS32, 32, "i32", "int32"},
    {DType::kS64, 64, "i64", "int64"},
    {DType::kU8, 8, "ui8", "uint8"},
    {DType::kU16, 16, "ui16", "uint16"},
    {DType::kU32, 32, "ui32", "uint32"},
    {DType::kU64, 64, "ui64", "uint64"},
    {DType::kF16, 16, "f16", "float16"},
    {DType::kBF16, 16, "bf16", "bfloat16"},
    {DType::kF32, 32, "f32", "float32"},
    {DType::kF64, 64, "f64", "float64"},
    {DType::kC64, 64, "complex<f32>", "complex64"},
    {DType::kC128, 128, "complex<f64>", "complex128"},
    {DType::kS2, 2, "i2", "int2"},
    {DType::kS4, 4, "i4", "int4"},
    {DType::kU2, 2, "ui2", "uint2"},
    {DType::kU4, 4, "ui4", "uint4"},
    {DType::kF8E3M4, 8, "f8E3M4", "float8_e3m4"},
    {DType::kF8E4M3, 8, "f8E4M3", "float8_e4m3"},
    {DType::kF8E4M3FN, 8, "f8E4M3FN", "float8_e4m3fn"},
    {DType::kF8E4M3FNUZ, 8, "f8E4M3FNUZ", "float8_e4m3fnuz"},
    {DType::kF8E4M3B11FNUZ, 8, "f8E4M3B11FNUZ", "float8_e4m3b11fnuz"},
    {DType::kF8E5M2, 8, "f8E5M2", "float8_e5m2"},
    {DType::kF8E5M2FNUZ, 8, "f8E5M2FNUZ", "float8_e5m2fnuz"},
    {DType::kF8E8M0FNU, 8, "f8E8M0FNU", "float8_e8m0fnu"},
    {DType::kF4E2M1FN, 4, "f4E2M1FN", "float4_e2m1fn"},
    {DType::kF6E2M3FN, 6, "f6E2M3FN", "float6_e2m3fn"},
    {DType::kF6E3M2FN, 6, "f6E3M2FN", "float6_e3m2fn"},
};

const DTypeInfo& Info(DType t) { return kInfo[static_cast<int>(t)]; }

}  // namespace

int BitWidth(DType t) { return t == DType::kPred ? 1 : Info(t).bits; }
int64_t ByteWidth(DType t) { return IsNarrow(t) ? 1 : Info(t).bits / 8; }
bool IsPred(DType t) { return t == DType::kPred; }
bool IsSignedInt(DType t) {
  return (t >= DType::kS8 && t <= DType::kS64) || t == DType::kS2 || t == DType::kS4;
}
bool IsUnsignedInt(DType t) {
  return (t >= DType::kU8 && t <= DType::kU64) || t == DType::kU2 || t == DType::kU4;
}
bool IsInteger(DType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
bool IsNarrowFloat(DType t) { return t >= DType::kF8E3M4 && t <= DType::kF6E3M2FN; }
bool IsNarrow(DType t) { return t >= DType::kS2; }
bool IsFloat(DType t) { return (t >= DType::kF16 && t <= DType::kF64) || IsNarrowFloat(t); }
DType NarrowComputeType(DType t) {
  if (IsNarrowFloat(t)) return DType::kF32;
  if (t == DType::kS2 || t == DType::kS4) return DType::kS8;
  if (t == DType::kU2 || t == DType::kU4) return DType::kU8;
  return t;
}
bool IsComplex(DType t) { return t == DType::kC64 || t == DType::kC128; }
DType ComplexComponent(DType t) {
  if (t == DType::kC64) return DType::kF32;
  if (t == DType::kC128) return DType::kF64;
  return t;
}
absl::string_view StableHloName(DType t) { return Info(t).stablehlo; }
absl::string_view NumpyName(DType t) { return Info(t).numpy; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (const DTypeInfo& info : kInfo) {
    if (name == info.stablehlo || name == info.numpy) return info.type;
  }
  if (name == "pred") return DType::kPred;
  return absl::InvalidArgumentError(absl::StrCat("unknown element type '", name, "'"));
}

}  // namespace xjit
