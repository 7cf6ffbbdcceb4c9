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
};

const DTypeInfo& Info(DType t) { return kInfo[static_cast<int>(t)]; }

}  // namespace

int BitWidth(DType t) { return t == DType::kPred ? 1 : Info(t).bits; }
int64_t ByteWidth(DType t) { return Info(t).bits / 8; }
bool IsPred(DType t) { return t == DType::kPred; }
bool IsSignedInt(DType t) { return t >= DType::kS8 && t <= DType::kS64; }
bool IsUnsignedInt(DType t) { return t >= DType::kU8 && t <= DType::kU64; }
bool IsInteger(DType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
bool IsFloat(DType t) { return t >= DType::kF16 && t <= DType::kF64; }
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
