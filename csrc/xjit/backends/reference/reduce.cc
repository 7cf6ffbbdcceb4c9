// Variadic reduce: for every result index, start from the init values and
// apply the body to each input element of the reduced sub-space in row-major
// index order (a left fold, one valid choice of the spec's reduction tree).
#include <algorithm>

#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

absl::Status BadReduce(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("reference backend: reduce: ", what));
}

Literal ElementAsScalar(const Literal& x, int64_t i) {
  const int64_t w = ByteWidth(x.shape().dtype);
  return Literal(Shape(x.shape().dtype, {}), x.data() + i * w);
}

}  // namespace

absl::StatusOr<std::vector<Literal>> EvalReduce(absl::Span<const Literal* const> inputs,
                                                absl::Span<const Literal* const> init_values,
                                                absl::Span<const int64_t> dimensions,
                                                const ReduceBody& body) {
  const size_t n = inputs.size();
  if (n == 0 || init_values.size() != n) return BadReduce("needs N inputs and N init values");
  const Shape& in_shape = inputs[0]->shape();
  for (const Literal* in : inputs) {
    if (in->shape().dims != in_shape.dims) return BadReduce("inputs differ in shape");
  }
  for (const Literal* init : init_values) {
    if (init->shape().rank() != 0) return BadReduce("init values must be 0-d");
  }
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : dimensions) {
    if (d < 0 || d >= in_shape.rank() || reduced[d]) return BadReduce("bad dimensions");
    reduced[d] = true;
  }
  std::vector<int64_t> kept_dims, reduced_dims;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    (reduced[d] ? reduced_dims : kept_dims).push_back(in_shape.dims[d]);
  }

  // Results take the init values' element types (the accumulator type).
  std::vector<Literal> results;
  for (const Literal* init : init_values) {
    results.emplace_back(Shape(init->shape().dtype, kept_dims));
  }
  absl::Status status;
  std::vector<int64_t> full(in_shape.rank());
  ForEachIndex(kept_dims, [&](const std::vector<int64_t>& ki) {
    if (!status.ok()) return;
    std::vector<Literal> acc;
    for (const Literal* init : init_values) acc.push_back(*init);
    ForEachIndex(reduced_dims, [&](const std::vector<int64_t>& si) {
      if (!status.ok()) return;
      for (int64_t d = 0, k = 0, s = 0; d < in_shape.rank(); ++d) {
        full[d] = reduced[d] ? si[s++] : ki[k++];
      }
      const int64_t linear = LinearIndex(full, in_shape.dims);
      std::vector<Literal> args = std::move(acc);
      for (const Literal* in : inputs) args.push_back(ElementAsScalar(*in, linear));
      absl::StatusOr<std::vector<Literal>> next = body(std::move(args));
      if (!next.ok()) { status = next.status(); return; }
      if (next->size() != n) { status = BadReduce("body returned the wrong number of values"); return; }
      for (size_t j = 0; j < n; ++j) {
        if ((*next)[j].shape() != init_values[j]->shape()) {
          status = BadReduce("body result type differs from the init value type");
          return;
        }
      }
      acc = std::move(*next);
    });
    if (!status.ok()) return;
    const int64_t out_i = LinearIndex(ki, kept_dims);
    for (size_t j = 0; j < n; ++j) {
      const int64_t w = acc[j].size_bytes();
      std::memcpy(results[j].mutable_data() + out_i * w, acc[j].data(), w);
    }
  });
  if (!status.ok()) return status;
  return results;
}

}  // namespace xjit::reference
