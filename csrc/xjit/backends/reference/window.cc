// reduce_window and select_and_scatter, element by element as the spec
// writes them. reduce_window pads (and fills dilation holes) with the init
// values, so its body also sees those; select_and_scatter selects among the
// window's elements that lie inside the operand (in row-major window order:
// the running choice is kept while select(chosen, candidate) is true) and
// scatters each source element onto the chosen position, in row-major source
// order, starting from init_value everywhere.
#include <cstring>

#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::reference {
namespace {

Literal ScalarAt(const Literal& x, int64_t linear) {
  const int64_t w = ByteWidth(x.shape().dtype);
  return Literal(Shape(x.shape().dtype, {}), x.data() + linear * w);
}

void StoreAt(Literal& x, int64_t linear, const Literal& scalar) {
  const int64_t w = ByteWidth(x.shape().dtype);
  std::memcpy(x.mutable_data() + linear * w, scalar.data(), w);
}

}  // namespace

absl::StatusOr<std::vector<Literal>> EvalReduceWindow(absl::Span<const Literal* const> inputs,
                                                      absl::Span<const Literal* const> inits,
                                                      const ReduceWindowAttrs& attrs,
                                                      const ReduceBody& body) {
  const size_t n = inputs.size();
  const std::vector<int64_t>& in_dims = inputs[0]->shape().dims;
  const std::vector<WindowDimension> window = ReduceWindowWindow(attrs);
  const size_t rank = window.size();
  if (rank != in_dims.size()) {
    return absl::InvalidArgumentError("reference backend: reduce_window: window rank mismatch");
  }
  std::vector<int64_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = window[i].NumWindows(in_dims[i]);
  std::vector<Literal> results;
  for (size_t k = 0; k < n; ++k) results.emplace_back(Shape(inputs[k]->shape().dtype, out_dims));
  absl::Status status = absl::OkStatus();
  std::vector<int64_t> x(rank);
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& oi) {
    if (!status.ok()) return;
    std::vector<Literal> acc;
    for (size_t k = 0; k < n; ++k) acc.push_back(*inits[k]);
    ForEachIndex(attrs.window_dimensions, [&](const std::vector<int64_t>& wi) {
      if (!status.ok()) return;
      bool inside = true;
      for (size_t i = 0; i < rank && inside; ++i) {
        x[i] = window[i].BaseIndex(in_dims[i], oi[i], wi[i]);
        inside = x[i] >= 0;
      }
      std::vector<Literal> args = acc;
      const int64_t linear = inside ? LinearIndex(x, in_dims) : 0;
      for (size_t k = 0; k < n; ++k) args.push_back(inside ? ScalarAt(*inputs[k], linear) : *inits[k]);
      absl::StatusOr<std::vector<Literal>> next = body(std::move(args));
      if (!next.ok()) {
        status = next.status();
        return;
      }
      acc = *std::move(next);
    });
    if (!status.ok()) return;
    const int64_t o = LinearIndex(oi, out_dims);
    for (size_t k = 0; k < n; ++k) StoreAt(results[k], o, acc[k]);
  });
  if (!status.ok()) return status;
  return results;
}

absl::StatusOr<Literal> EvalSelectAndScatter(const Literal& operand, const Literal& source,
                                             const Literal& init_value,
                                             const SelectAndScatterAttrs& attrs,
                                             const SelectFn& select, const ScatterFn& scatter) {
  const std::vector<int64_t>& dims = operand.shape().dims;
  const std::vector<WindowDimension> window = SelectAndScatterWindow(attrs);
  const size_t rank = window.size();
  Literal out(operand.shape());
  const int64_t total = operand.shape().num_elements();
  for (int64_t i = 0; i < total; ++i) StoreAt(out, i, init_value);
  absl::Status status = absl::OkStatus();
  std::vector<int64_t> x(rank);
  ForEachIndex(source.shape().dims, [&](const std::vector<int64_t>& si) {
    if (!status.ok()) return;
    int64_t chosen = -1;
    Literal chosen_value;
    ForEachIndex(attrs.window_dimensions, [&](const std::vector<int64_t>& wi) {
      if (!status.ok()) return;
      for (size_t i = 0; i < rank; ++i) {
        x[i] = window[i].BaseIndex(dims[i], si[i], wi[i]);
        if (x[i] < 0) return;
      }
      const int64_t linear = LinearIndex(x, dims);
      Literal candidate = ScalarAt(operand, linear);
      if (chosen >= 0) {
        absl::StatusOr<bool> keep = select(chosen_value, candidate);
        if (!keep.ok()) {
          status = keep.status();
          return;
        }
        if (*keep) return;
      }
      chosen = linear;
      chosen_value = std::move(candidate);
    });
    if (!status.ok() || chosen < 0) return;
    absl::StatusOr<Literal> updated =
        scatter(ScalarAt(out, chosen), ScalarAt(source, LinearIndex(si, source.shape().dims)));
    if (!updated.ok()) {
      status = updated.status();
      return;
    }
    StoreAt(out, chosen, *updated);
  });
  if (!status.ok()) return status;
  return out;
}

}  // namespace xjit::reference
