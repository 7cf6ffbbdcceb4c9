// Maps a runtime DType to its C++ storage type. Kernels write one generic
// lambda and dispatch once per call, never per element.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "xjit/ir/dtype.h"
#include "xjit/ir/half.h"

namespace xjit {

template <typename T> struct TypeTag { using type = T; };

template <typename T> struct is_complex : std::false_type {};
template <typename T> struct is_complex<std::complex<T>> : std::true_type {};
template <typename T> inline constexpr bool is_complex_v = is_complex<T>::value;
template <typename T> inline constexpr bool is_half_v =
    std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

// Storage type for each DType. pred is stored as one byte (bool).
template <DType D> struct NativeType;
template <> struct NativeType<DType::kPred> { using type = bool; };
template <> struct NativeType<DType::kS8> { using type = int8_t; };
template <> struct NativeType<DType::kS16> { using type = int16_t; };
template <> struct NativeType<DType::kS32> { using type = int32_t; };
template <> struct NativeType<DType::kS64> { using type = int64_t; };
template <> struct NativeType<DType::kU8> { using type = uint8_t; };
template <> struct NativeType<DType::kU16> { using type = uint16_t; };
template <> struct NativeType<DType::kU32> { using type = uint32_t; };
template <> struct NativeType<DType::kU64> { using type = uint64_t; };
template <> struct NativeType<DType::kF16> { using type = f16; };
template <> struct NativeType<DType::kBF16> { using type = bf16; };
template <> struct NativeType<DType::kF32> { using type = float; };
template <> struct NativeType<DType::kF64> { using type = double; };
template <> struct NativeType<DType::kC64> { using type = std::complex<float>; };
template <> struct NativeType<DType::kC128> { using type = std::complex<double>; };

// Calls fn(TypeTag<T>{}) with T the storage type of `t`. Narrow types
// (IsNarrow) dispatch as their storage byte, uint8_t: only kernels that move
// bytes ever see them (passes/narrow_type_expansion.h).
template <typename Fn>
decltype(auto) DispatchDType(DType t, Fn&& fn) {
  switch (t) {
#define XJIT_DISPATCH_CASE(D) \
  case D: return fn(TypeTag<typename NativeType<D>::type>{});
    XJIT_DISPATCH_CASE(DType::kPred)
    XJIT_DISPATCH_CASE(DType::kS8)
    XJIT_DISPATCH_CASE(DType::kS16)
    XJIT_DISPATCH_CASE(DType::kS32)
    XJIT_DISPATCH_CASE(DType::kS64)
    XJIT_DISPATCH_CASE(DType::kU8)
    XJIT_DISPATCH_CASE(DType::kU16)
    XJIT_DISPATCH_CASE(DType::kU32)
    XJIT_DISPATCH_CASE(DType::kU64)
    XJIT_DISPATCH_CASE(DType::kF16)
    XJIT_DISPATCH_CASE(DType::kBF16)
    XJIT_DISPATCH_CASE(DType::kF32)
    XJIT_DISPATCH_CASE(DType::kF64)
    XJIT_DISPATCH_CASE(DType::kC64)
    XJIT_DISPATCH_CASE(DType::kC128)
#undef XJIT_DISPATCH_CASE
    XJIT_NARROW_DTYPE_CASES
      return fn(TypeTag<uint8_t>{});
  }
  return fn(TypeTag<float>{});  // unreachable
}

}  // namespace xjit
