// Overflow-checked int64 arithmetic for sizes, counts, indices and offsets
// computed from user-controlled dims. One place, so no kernel or inference
// rule hand-writes its own overflow test.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

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

}  // namespace xjit
