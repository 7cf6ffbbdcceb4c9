#include "xjit/ir/row_geometry.h"

#include <algorithm>
#include <vector>

#include "xjit/ir/reduce_body.h"

namespace xjit {

std::optional<std::pair<int64_t, int64_t>> RowReduceShape(const Instruction& x) {
  if (x.opcode() != Opcode::kReduce || x.operands().size() != 2 || !x.shape().is_array() ||
      !x.operand(0)->shape().is_array() || !RecogniseReduceBody(x).has_value()) {
    return std::nullopt;
  }
  const Shape& in = x.operand(0)->shape();
  std::vector<int64_t> dims = x.attrs<ReduceAttrs>().dimensions;
  std::sort(dims.begin(), dims.end());
  const int64_t rank = in.rank(), k = static_cast<int64_t>(dims.size());
  if (k == 0 || k >= rank) return std::nullopt;
  for (int64_t i = 0; i < k; ++i) {
    if (dims[i] != rank - k + i) return std::nullopt;
  }
  int64_t rows = 1, row_size = 1;
  for (int64_t d = 0; d < rank; ++d) (d < rank - k ? rows : row_size) *= in.dims[d];
  if (rows < 2 || row_size < 2) return std::nullopt;
  return std::make_pair(rows, row_size);
}

// A broadcast_in_dim that spreads value r of its `rows`-element operand over
// row r of the result (the result's leading dims whose product is `rows`).
bool IsRowBroadcast(const Instruction& b, int64_t rows, int64_t elements) {
  if (b.opcode() != Opcode::kBroadcastInDim || !b.shape().is_array() ||
      !b.operand(0)->shape().is_array()) {
    return false;
  }
  const Shape &out = b.shape(), &in = b.operand(0)->shape();
  if (in.num_elements() != rows || out.num_elements() != elements) return false;
  int64_t product = 1, prefix = 0;
  while (prefix < out.rank() && product < rows) product *= out.dims[prefix++];
  if (product != rows) return false;
  const std::vector<int64_t>& to = b.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  std::vector<bool> covered(prefix, false);
  int64_t last = -1;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (in.dims[i] == 1) continue;
    const int64_t d = to[i];
    if (d >= prefix || d <= last || in.dims[i] != out.dims[d]) return false;
    covered[d] = true;
    last = d;
  }
  for (int64_t d = 0; d < prefix; ++d) {
    if (out.dims[d] != 1 && !covered[d]) return false;
  }
  return true;
}

// Which cluster each instruction of the entry joins, and where each cluster
// closes (it is emitted just before that position; n = after the last one).

bool IsRowInvariantBroadcast(const Instruction& b, int64_t row_size) {
  if (b.opcode() != Opcode::kBroadcastInDim || !b.shape().is_array() ||
      !b.operand(0)->shape().is_array()) {
    return false;
  }
  const Shape &out = b.shape(), &in = b.operand(0)->shape();
  if (in.num_elements() != row_size || row_size < 2 || out.num_elements() % row_size != 0) {
    return false;
  }
  int64_t product = 1, suffix = out.rank();
  while (suffix > 0 && product < row_size) product *= out.dims[--suffix];
  if (product != row_size) return false;
  const std::vector<int64_t>& to = b.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  std::vector<bool> covered(out.rank(), false);
  int64_t last = -1;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (in.dims[i] == 1) continue;
    const int64_t d = to[i];
    if (d < suffix || d <= last || in.dims[i] != out.dims[d]) return false;
    covered[d] = true;
    last = d;
  }
  for (int64_t d = suffix; d < out.rank(); ++d) {
    if (out.dims[d] != 1 && !covered[d]) return false;
  }
  return true;
}

}  // namespace xjit
