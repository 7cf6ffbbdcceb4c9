// The index arithmetic gather and scatter share on the cpu, decided at
// compile time: the positions of the "other" array (gather's result,
// scatter's updates) split into batch positions (one index vector each) and a
// window; per batch position the kernel reads the index vector, makes the
// operand start, and walks the window as a strided box whose innermost run is
// one memcpy when it is contiguous on both sides.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/types/span.h"
#include "xjit/ir/dtype.h"
#include "xjit/ir/shape.h"

namespace xjit::cpu {

struct IndexingGeometry {
  int64_t width = 0;  // element bytes
  std::vector<int64_t> operand_dims, operand_strides;  // strides in elements
  // Batch positions: the other array's non-window dims, in order; the j-th
  // is the j-th dimension of the indices other than index_vector_dim.
  std::vector<int64_t> batch_sizes, batch_other_strides, batch_index_strides;
  int64_t num_batches = 1;
  std::vector<int64_t> start_map;  // operand dim of each index-vector component
  int64_t index_vector_stride = 0;
  std::vector<int64_t> batching_operand_dims, batching_positions;  // operand dim <- batch pos
  // Window: the other array's window dims, in order, and the operand dim each
  // addresses.
  std::vector<int64_t> window_sizes, window_other_strides, window_operand_dims;
  int64_t window_elements = 1;
  bool inner_contiguous = false;  // last window dim has stride 1 on both sides
  DType index_type = DType::kS64;

  // Reads the index vector of batch position `b` into `start` (operand rank),
  // unclamped, batching coordinates included; returns the other array's base.
  int64_t Start(const void* indices, int64_t b, std::vector<int64_t>& start) const;
};

// window_dims: offset_dims / update_window_dims (positions in `other`);
// dropped: collapsed_slice_dims / inserted_window_dims.
IndexingGeometry MakeIndexingGeometry(const Shape& operand, const Shape& indices,
                                      const Shape& other, absl::Span<const int64_t> window_dims,
                                      absl::Span<const int64_t> dropped,
                                      absl::Span<const int64_t> operand_batching,
                                      absl::Span<const int64_t> indices_batching,
                                      absl::Span<const int64_t> start_map,
                                      int64_t index_vector_dim);

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Value `i` of an integer array of type `t`, as int64 (unsigned values past
// INT64_MAX become INT64_MAX: out of range all the same).
int64_t LoadIndex(DType t, const void* data, int64_t i);

}  // namespace xjit::cpu
