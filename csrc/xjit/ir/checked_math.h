// Overflow-checked int64 arithmetic for sizes, counts, indices and offsets
// computed from user-controlled dims. One place, so no kernel or inference
// rule hand-writes its own overflow test.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/types/span.h"

namespace xjit {

// The largest array, in bytes, that xjit makes. No 64-bit machine addresses
// more than 2^57 bytes; staying far below 2^63 also means that an offset
// computed inside a valid array (start + count, index * stride, bytes of a
// slice) cannot overflow int64.
inline constexpr int64_t kMaxArrayBytes = int64_t{1} << 60;

// a + b, or nullopt when it overflows int64.
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a - b, or nullopt when it overflows int64.
inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a * b, or nullopt when it overflows int64.
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a * b clamped to [INT64_MIN, INT64_MAX]: for sizes of shapes that were
// already checked, where only a corrupt shape could saturate.
inline int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return ((a < 0) != (b < 0)) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
}

// The product of dims, or nullopt when it overflows int64. A zero dim makes
// the product 0, but the product of the other dims must still fit: the
// row-major strides of the shape are products of those dims.
inline std::optional<int64_t> CheckedProduct(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      zero = true;
      continue;
    }
    std::optional<int64_t> m = CheckedMul(n, d);
    if (!m) return std::nullopt;
    n = *m;
  }
  return zero ? 0 : n;
}

}  // namespace xjit
