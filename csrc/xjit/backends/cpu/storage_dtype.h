// The DType whose storage type is T: the inverse of NativeType, at compile time.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {

template <typename T>
constexpr DType StorageDType() {
  if constexpr (std::is_same_v<T, bool>) return DType::kPred;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::kS8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::kS16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::kS32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::kS64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::kU8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::kU16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::kU32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::kU64;
  else if constexpr (std::is_same_v<T, f16>) return DType::kF16;
  else if constexpr (std::is_same_v<T, bf16>) return DType::kBF16;
  else if constexpr (std::is_same_v<T, float>) return DType::kF32;
  else if constexpr (std::is_same_v<T, double>) return DType::kF64;
  else if constexpr (std::is_same_v<T, std::complex<float>>) return DType::kC64;
  else {
    static_assert(std::is_same_v<T, std::complex<double>>, "not a storage type");
    return DType::kC128;
  }
}

}  // namespace xjit::cpu
