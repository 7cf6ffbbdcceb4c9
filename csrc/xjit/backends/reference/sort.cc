// sort and map: the region is evaluated on 0-d literals, one call per
// comparison (sort) or per index (map). Plain loops: the ground truth the cpu
// backend is tested against.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include <cstring>
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

// Element `i` (row-major) of `x` as a 0-d literal.
Literal ElementAt(const Literal& x, int64_t i) {
  const int64_t w = ByteWidth(x.shape().dtype);
  return Literal(Shape(x.shape().dtype, {}), x.data() + i * w);
}

absl::Status CheckSameDims(absl::string_view op, absl::Span<const Literal* const> inputs) {
  if (inputs.empty()) return absl::InvalidArgumentError(absl::StrCat(op, ": no inputs"));
  for (const Literal* x : inputs) {
    if (x->shape().dims != inputs[0]->shape().dims) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": inputs differ in shape"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<Literal>> EvalSort(absl::Span<const Literal* const> inputs,
                                              int64_t dimension, const SortComparator& less) {
  if (absl::Status s = CheckSameDims("sort", inputs); !s.ok()) return s;
  const std::vector<int64_t>& dims = inputs[0]->shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t d = dimension < 0 ? dimension + rank : dimension;
  if (d < 0 || d >= rank) return absl::InvalidArgumentError("sort: dimension out of range");
  int64_t inner = 1;
  for (int64_t k = d + 1; k < rank; ++k) inner *= dims[k];
  const int64_t n = dims[d];
  const int64_t outer = n == 0 ? 0 : inputs[0]->shape().num_elements() / (n * inner);
  std::vector<Literal> results;
  for (const Literal* x : inputs) results.emplace_back(*x);
  absl::Status status;
  std::vector<int64_t> order(n);
  for (int64_t o = 0; o < outer && status.ok(); ++o) {
    for (int64_t in = 0; in < inner && status.ok(); ++in) {
      const int64_t base = o * n * inner + in;
      std::iota(order.begin(), order.end(), 0);
      // Always stable: a stable order is also a valid unstable one.
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        if (!status.ok()) return false;
        std::vector<Literal> args;
        for (const Literal* x : inputs) {
          args.push_back(ElementAt(*x, base + a * inner));
          args.push_back(ElementAt(*x, base + b * inner));
        }
        absl::StatusOr<bool> r = less(std::move(args));
        if (!r.ok()) {
          status = r.status();
          return false;
        }
        return *r;
      });
      for (size_t k = 0; k < inputs.size(); ++k) {
        const int64_t w = ByteWidth(inputs[k]->shape().dtype);
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(results[k].mutable_data() + (base + i * inner) * w,
                      inputs[k]->data() + (base + order[i] * inner) * w, w);
        }
      }
    }
  }
  if (!status.ok()) return status;
  return results;
}

absl::StatusOr<Literal> EvalMap(absl::Span<const Literal* const> inputs, DType result_type,
                                const MapComputation& fn) {
  if (absl::Status s = CheckSameDims("map", inputs); !s.ok()) return s;
  Literal out(Shape(result_type, inputs[0]->shape().dims));
  const int64_t w = ByteWidth(result_type);
  for (int64_t i = 0, n = out.shape().num_elements(); i < n; ++i) {
    std::vector<Literal> args;
    for (const Literal* x : inputs) args.push_back(ElementAt(*x, i));
    absl::StatusOr<Literal> r = fn(std::move(args));
    if (!r.ok()) return r.status();
    if (r->shape() != Shape(result_type, {})) {
      return absl::InvalidArgumentError(
          absl::StrCat("map: computation returned ", r->shape().ToString()));
    }
    std::memcpy(out.mutable_data() + i * w, r->data(), w);
  }
  return out;
}

}  // namespace xjit::reference
