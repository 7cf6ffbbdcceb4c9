#include "xjit/ir/row_geometry.h"

#include <algorithm>
#include <vector>

#include "xjit/ir/reduce_body.h"

namespace xjit {

namespace {

// (product of the leading dims, product of the others) of a recognised
// reduce's input when its reduced dims are the trailing ones (`trailing`) or
// the leading ones, and neither product is under 2; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> SplitReduce(const Instruction& x, bool trailing) {
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
    if (dims[i] != (trailing ? rank - k + i : i)) return std::nullopt;
  }
  const int64_t split = trailing ? rank - k : k;
  int64_t leading = 1, rest = 1;
  for (int64_t d = 0; d < rank; ++d) (d < split ? leading : rest) *= in.dims[d];
  if (leading < 2 || rest < 2) return std::nullopt;
  return std::make_pair(leading, rest);
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> RowReduceShape(const Instruction& x) {
  return SplitReduce(x, /*trailing=*/true);
}

std::optional<std::pair<int64_t, int64_t>> ColumnReduceShape(const Instruction& x) {
  return SplitReduce(x, /*trailing=*/false);
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
