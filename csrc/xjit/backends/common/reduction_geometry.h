// Where a reduce's kept (output) and reduced dimensions live in its row-major
// input, with unit dimensions dropped and memory-contiguous neighbours merged:
// the loop structure every backend's reduce kernel walks.
#pragma once

#include <cstdint>
#include <vector>

#include "xjit/ir/shape.h"

namespace xjit::common {

struct StridedDim {
  int64_t size, stride;  // stride in elements
};

struct ReductionGeometry {
  std::vector<StridedDim> kept;  // output dims, row-major order
  std::vector<StridedDim> reduced;
  int64_t num_outputs = 1, num_reduced = 1;
};

// Drops size-1 dims and merges a dim into its outer neighbour where they are
// contiguous in memory.
std::vector<StridedDim> SimplifyDims(const std::vector<StridedDim>& dims);

ReductionGeometry MakeReductionGeometry(const Shape& input, const std::vector<int64_t>& reduce_dims);

// Input offset (in elements) of output element `o`.
int64_t OutputBase(const ReductionGeometry& g, int64_t o);

// Calls fn(offset, count, stride) for each innermost run of the reduced dims
// of the output whose input offset is `base`.
template <typename Fn>
void ForEachReducedRun(const ReductionGeometry& g, int64_t base, const Fn& fn) {
  const int64_t nr = static_cast<int64_t>(g.reduced.size());
  if (nr == 0) {
    fn(base, int64_t{1}, int64_t{1});
    return;
  }
  const StridedDim inner = g.reduced[nr - 1];
  int64_t runs = 1;
  for (int64_t k = 0; k + 1 < nr; ++k) runs *= g.reduced[k].size;
  std::vector<int64_t> idx(nr, 0);
  int64_t off = base;
  for (int64_t r = 0; r < runs; ++r) {
    fn(off, inner.size, inner.stride);
    for (int64_t k = nr - 2; k >= 0; --k) {
      off += g.reduced[k].stride;
      if (++idx[k] < g.reduced[k].size) break;
      off -= idx[k] * g.reduced[k].stride;
      idx[k] = 0;
    }
  }
}

}  // namespace xjit::common
