#include "xjit/backends/common/reduction_geometry.h"

#include <algorithm>

namespace xjit::common {

std::vector<StridedDim> SimplifyDims(const std::vector<StridedDim>& dims) {
  std::vector<StridedDim> out;
  for (const StridedDim& d : dims) {
    if (d.size == 1) continue;
    if (!out.empty() && out.back().stride == d.stride * d.size) {
      out.back() = {out.back().size * d.size, d.stride};
    } else {
      out.push_back(d);
    }
  }
  return out;
}

ReductionGeometry MakeReductionGeometry(const Shape& input, const std::vector<int64_t>& reduce_dims) {
  ReductionGeometry g;
  std::vector<int64_t> strides = RowMajorStrides(input.dims);
  std::vector<StridedDim> kept, reduced;
  for (int64_t d = 0; d < input.rank(); ++d) {
    bool r = std::find(reduce_dims.begin(), reduce_dims.end(), d) != reduce_dims.end();
    (r ? reduced : kept).push_back({input.dims[d], strides[d]});
    (r ? g.num_reduced : g.num_outputs) *= input.dims[d];
  }
  g.kept = SimplifyDims(kept);
  g.reduced = SimplifyDims(reduced);
  return g;
}

int64_t OutputBase(const ReductionGeometry& g, int64_t o) {
  int64_t off = 0;
  for (int64_t k = static_cast<int64_t>(g.kept.size()) - 1; k >= 0; --k) {
    off += (o % g.kept[k].size) * g.kept[k].stride;
    o /= g.kept[k].size;
  }
  return off;
}

}  // namespace xjit::common
