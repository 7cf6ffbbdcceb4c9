// Multi-index iteration in row-major order, the loop every reference kernel
// is written around (as in StableHLO's reference interpreter).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace xjit::reference {

// Advances `index` to the next row-major position within `dims`; returns false
// after the last one (and for empty shapes, where there is none).
inline bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return true;
    index[d] = 0;
  }
  return false;
}

// Calls fn(index) for every index of `dims` in row-major order.
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  do {
    fn(static_cast<const std::vector<int64_t>&>(index));
  } while (NextIndex(index, dims));
}

// Row-major linear position of `index` (no bounds check; callers check).
inline int64_t LinearIndex(absl::Span<const int64_t> index, absl::Span<const int64_t> dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

inline bool InBounds(absl::Span<const int64_t> index, absl::Span<const int64_t> dims) {
  if (index.size() != dims.size()) return false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (index[d] < 0 || index[d] >= dims[d]) return false;
  }
  return true;
}

}  // namespace xjit::reference
