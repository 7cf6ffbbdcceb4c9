#include "xjit/backends/cpu/indexing_geometry.h"

#include <algorithm>
#include <limits>

#include "absl/container/inlined_vector.h"

namespace xjit::cpu {
namespace {

bool Contains(absl::Span<const int64_t> dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

}  // namespace

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

int64_t LoadIndex(DType t, const void* data, int64_t i) {
  switch (t) {
    case DType::kS8: return static_cast<const int8_t*>(data)[i];
    case DType::kS16: return static_cast<const int16_t*>(data)[i];
    case DType::kS32: return static_cast<const int32_t*>(data)[i];
    case DType::kS64: return static_cast<const int64_t*>(data)[i];
    case DType::kU8: return static_cast<const uint8_t*>(data)[i];
    case DType::kU16: return static_cast<const uint16_t*>(data)[i];
    case DType::kU32: return static_cast<const uint32_t*>(data)[i];
    case DType::kU64: {
      const uint64_t v = static_cast<const uint64_t*>(data)[i];
      return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? std::numeric_limits<int64_t>::max()
                 : static_cast<int64_t>(v);
    }
    default:  // shape inference admits integer indices only
      return 0;
  }
}

IndexingGeometry MakeIndexingGeometry(const Shape& operand, const Shape& indices,
                                      const Shape& other, absl::Span<const int64_t> window_dims,
                                      absl::Span<const int64_t> dropped,
                                      absl::Span<const int64_t> operand_batching,
                                      absl::Span<const int64_t> indices_batching,
                                      absl::Span<const int64_t> start_map,
                                      int64_t index_vector_dim) {
  IndexingGeometry g;
  g.width = ByteWidth(operand.dtype);
  g.index_type = indices.dtype;
  g.operand_dims = operand.dims;
  g.operand_strides = RowMajorStrides(operand.dims);
  const std::vector<int64_t> other_strides = RowMajorStrides(other.dims);
  const std::vector<int64_t> index_strides = RowMajorStrides(indices.dims);
  std::vector<int64_t> index_batch_dims;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != index_vector_dim) index_batch_dims.push_back(d);
  }
  size_t j = 0;
  for (int64_t d = 0; d < other.rank(); ++d) {
    if (Contains(window_dims, d)) {
      g.window_sizes.push_back(other.dims[d]);
      g.window_other_strides.push_back(other_strides[d]);
      g.window_elements *= other.dims[d];
    } else {
      g.batch_sizes.push_back(other.dims[d]);
      g.batch_other_strides.push_back(other_strides[d]);
      g.batch_index_strides.push_back(index_strides[index_batch_dims[j++]]);
      g.num_batches *= other.dims[d];
    }
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!Contains(dropped, d) && !Contains(operand_batching, d)) {
      g.window_operand_dims.push_back(d);
    }
  }
  g.start_map.assign(start_map.begin(), start_map.end());
  g.index_vector_stride = index_vector_dim < indices.rank() ? index_strides[index_vector_dim] : 0;
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    const int64_t ds = indices_batching[i];
    g.batching_operand_dims.push_back(operand_batching[i]);
    g.batching_positions.push_back(ds - (ds < index_vector_dim ? 0 : 1));
  }
  g.inner_contiguous = !g.window_sizes.empty() && g.window_other_strides.back() == 1 &&
                       g.operand_strides[g.window_operand_dims.back()] == 1;
  return g;
}

int64_t IndexingGeometry::Start(const void* indices, int64_t b, std::vector<int64_t>& start) const {
  int64_t other_base = 0, index_base = 0;
  int64_t rest = b;
  std::fill(start.begin(), start.end(), 0);
  absl::InlinedVector<int64_t, 8> coord(batch_sizes.size());
  for (int64_t k = static_cast<int64_t>(batch_sizes.size()) - 1; k >= 0; --k) {
    const int64_t c = rest % batch_sizes[k];
    rest /= batch_sizes[k];
    coord[k] = c;
    other_base += c * batch_other_strides[k];
    index_base += c * batch_index_strides[k];
  }
  for (size_t k = 0; k < start_map.size(); ++k) {
    start[start_map[k]] = LoadIndex(index_type, indices,
                                    index_base + static_cast<int64_t>(k) * index_vector_stride);
  }
  for (size_t i = 0; i < batching_operand_dims.size(); ++i) {
    start[batching_operand_dims[i]] = coord[batching_positions[i]];
  }
  return other_base;
}

}  // namespace xjit::cpu
