// Shape and data-movement ops. Each loops over the result index space and
// computes the operand index with the spec's formula; elements are copied
// as raw bytes, so one loop serves every element type.
#include <cstring>

#include "xjit/backends/reference/elementwise_util.h"
#include "xjit/backends/reference/index_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {
namespace {

absl::Status BadAttr(absl::string_view op, absl::string_view what, const Shape& shape) {
  return absl::InvalidArgumentError(
      absl::StrCat("reference backend: ", op, ": ", what, " (operand ", shape.ToString(), ")"));
}

void CopyElement(const Literal& from, int64_t from_i, Literal& to, int64_t to_i) {
  const int64_t w = ByteWidth(to.shape().dtype);
  std::memcpy(to.mutable_data() + to_i * w, from.data() + from_i * w, w);
}

// Fills `out` by out[ri] = x[operand_index(ri)]; operand_index writes `oi`.
template <typename IndexFn>
absl::Status Gather(absl::string_view op, const Literal& x, Literal& out, IndexFn operand_index) {
  const auto& xd = x.shape().dims;
  const auto& rd = out.shape().dims;
  std::vector<int64_t> oi(xd.size());
  bool ok = true;
  ForEachIndex(rd, [&](const std::vector<int64_t>& ri) {
    if (!ok) return;
    operand_index(ri, oi);
    if (!InBounds(oi, xd)) { ok = false; return; }
    CopyElement(x, LinearIndex(oi, xd), out, LinearIndex(ri, rd));
  });
  if (!ok) return BadAttr(op, "operand index out of bounds", x.shape());
  return absl::OkStatus();
}

}  // namespace

// result[ri] = operand[oi], oi[d] = 0 if dim(operand, d) == 1 else ri[dims[d]].
absl::StatusOr<Literal> EvalBroadcastInDim(const Literal& x, absl::Span<const int64_t> dims,
                                           const Shape& result_shape) {
  const Shape& xs = x.shape();
  if (static_cast<int64_t>(dims.size()) != xs.rank()) {
    return BadAttr("broadcast_in_dim", "broadcast_dimensions size != operand rank", xs);
  }
  for (int64_t d = 0; d < xs.rank(); ++d) {
    if (dims[d] < 0 || dims[d] >= result_shape.rank() ||
        (xs.dims[d] != 1 && xs.dims[d] != result_shape.dims[dims[d]])) {
      return BadAttr("broadcast_in_dim", "incompatible broadcast_dimensions", xs);
    }
  }
  Literal out(Shape(xs.dtype, result_shape.dims));
  absl::Status s = Gather("broadcast_in_dim", x, out, [&](const auto& ri, auto& oi) {
    for (size_t d = 0; d < oi.size(); ++d) oi[d] = xs.dims[d] == 1 ? 0 : ri[dims[d]];
  });
  if (!s.ok()) return s;
  return out;
}

// Row-major element order is unchanged: only the dims change.
absl::StatusOr<Literal> EvalReshape(const Literal& x, const Shape& result_shape) {
  Shape s(x.shape().dtype, result_shape.dims);
  if (s.num_elements() != x.shape().num_elements()) {
    return BadAttr("reshape", absl::StrCat("cannot reshape to ", s.ToString()), x.shape());
  }
  return Literal(s, x.data());
}

// result_index[d] = operand_index[permutation[d]].
absl::StatusOr<Literal> EvalTranspose(const Literal& x, absl::Span<const int64_t> permutation) {
  const Shape& xs = x.shape();
  if (static_cast<int64_t>(permutation.size()) != xs.rank()) {
    return BadAttr("transpose", "permutation size != rank", xs);
  }
  std::vector<int64_t> rd(permutation.size());
  std::vector<bool> seen(permutation.size(), false);
  for (size_t d = 0; d < permutation.size(); ++d) {
    int64_t p = permutation[d];
    if (p < 0 || p >= xs.rank() || seen[p]) return BadAttr("transpose", "not a permutation", xs);
    seen[p] = true;
    rd[d] = xs.dims[p];
  }
  Literal out(Shape(xs.dtype, rd));
  absl::Status s = Gather("transpose", x, out, [&](const auto& ri, auto& oi) {
    for (size_t d = 0; d < ri.size(); ++d) oi[permutation[d]] = ri[d];
  });
  if (!s.ok()) return s;
  return out;
}

// operand_index = start + result_index * strides; size = ceil((limit-start)/stride).
absl::StatusOr<Literal> EvalSlice(const Literal& x, absl::Span<const int64_t> start,
                                  absl::Span<const int64_t> limit,
                                  absl::Span<const int64_t> strides) {
  const Shape& xs = x.shape();
  const size_t r = xs.dims.size();
  if (start.size() != r || limit.size() != r || strides.size() != r) {
    return BadAttr("slice", "start/limit/strides sizes != rank", xs);
  }
  std::vector<int64_t> rd(r);
  for (size_t d = 0; d < r; ++d) {
    if (strides[d] <= 0 || start[d] < 0 || start[d] > limit[d] || limit[d] > xs.dims[d]) {
      return BadAttr("slice", "bad start/limit/strides", xs);
    }
    // ceil((limit - start) / stride) without overflowing for a huge stride.
    rd[d] = limit[d] == start[d] ? 0 : (limit[d] - start[d] - 1) / strides[d] + 1;
  }
  Literal out(Shape(xs.dtype, rd));
  absl::Status s = Gather("slice", x, out, [&](const auto& ri, auto& oi) {
    for (size_t d = 0; d < r; ++d) oi[d] = start[d] + ri[d] * strides[d];
  });
  if (!s.ok()) return s;
  return out;
}

// Inputs laid end to end along `dimension`, in operand order.
absl::StatusOr<Literal> EvalConcatenate(absl::Span<const Literal* const> inputs,
                                        int64_t dimension) {
  if (inputs.empty()) return absl::InvalidArgumentError("reference backend: concatenate of nothing");
  const Shape& first = inputs[0]->shape();
  if (dimension < 0 || dimension >= first.rank()) {
    return BadAttr("concatenate", "dimension out of range", first);
  }
  std::vector<int64_t> rd = first.dims;
  rd[dimension] = 0;
  for (const Literal* in : inputs) {
    const Shape& s = in->shape();
    bool compatible = s.dtype == first.dtype && s.rank() == first.rank();
    for (int64_t d = 0; compatible && d < s.rank(); ++d) {
      compatible = d == dimension || s.dims[d] == first.dims[d];
    }
    if (!compatible) return BadAttr("concatenate", "operands disagree", s);
    rd[dimension] += s.dims[dimension];
  }
  Literal out(Shape(first.dtype, rd));
  int64_t offset = 0;
  std::vector<int64_t> ri;
  for (const Literal* in : inputs) {
    const auto& xd = in->shape().dims;
    ForEachIndex(xd, [&](const std::vector<int64_t>& oi) {
      ri = oi;
      ri[dimension] += offset;
      CopyElement(*in, LinearIndex(oi, xd), out, LinearIndex(ri, rd));
    });
    offset += xd[dimension];
  }
  return out;
}

// Interior padding first, then edge padding (negative edges crop):
// result[low + i * (interior + 1)] = operand[i]; everything else is the
// padding value.
absl::StatusOr<Literal> EvalPad(const Literal& x, const Literal& padding_value,
                                absl::Span<const int64_t> low, absl::Span<const int64_t> high,
                                absl::Span<const int64_t> interior) {
  const Shape& xs = x.shape();
  const size_t r = xs.dims.size();
  if (low.size() != r || high.size() != r || interior.size() != r) {
    return BadAttr("pad", "padding sizes != rank", xs);
  }
  if (padding_value.shape() != Shape(xs.dtype, {})) {
    return BadAttr("pad", "padding value is not a 0-d tensor of the operand type", xs);
  }
  std::vector<int64_t> rd(r);
  for (size_t d = 0; d < r; ++d) {
    if (interior[d] < 0) return BadAttr("pad", "negative interior padding", xs);
    int64_t inner = xs.dims[d] == 0 ? 0 : xs.dims[d] + (xs.dims[d] - 1) * interior[d];
    rd[d] = low[d] + inner + high[d];
    if (rd[d] < 0) return BadAttr("pad", "negative result dimension", xs);
  }
  Literal out(Shape(xs.dtype, rd));
  for (int64_t i = 0, n = out.shape().num_elements(); i < n; ++i) CopyElement(padding_value, 0, out, i);
  std::vector<int64_t> ri(r);
  ForEachIndex(xs.dims, [&](const std::vector<int64_t>& oi) {
    for (size_t d = 0; d < r; ++d) ri[d] = low[d] + oi[d] * (interior[d] + 1);
    if (InBounds(ri, rd)) CopyElement(x, LinearIndex(oi, xs.dims), out, LinearIndex(ri, rd));
  });
  return out;
}

// Along each listed dimension, index i reads dim - 1 - i.
absl::StatusOr<Literal> EvalReverse(const Literal& x, absl::Span<const int64_t> dims) {
  const Shape& xs = x.shape();
  std::vector<bool> reversed(xs.dims.size(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= xs.rank()) return BadAttr("reverse", "dimension out of range", xs);
    reversed[d] = true;
  }
  Literal out(xs);
  absl::Status s = Gather("reverse", x, out, [&](const auto& ri, auto& oi) {
    for (size_t d = 0; d < ri.size(); ++d) oi[d] = reversed[d] ? xs.dims[d] - 1 - ri[d] : ri[d];
  });
  if (!s.ok()) return s;
  return out;
}

// output[i] = i[iota_dimension], converted to the element type.
absl::StatusOr<Literal> EvalIota(const Shape& shape, int64_t iota_dimension) {
  if (shape.is_tuple || iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return BadAttr("iota", "iota_dimension out of range", shape);
  }
  Literal out(shape);
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.mutable_data_as<T>();
    ForEachIndex(shape.dims, [&](const std::vector<int64_t>& i) {
      o[LinearIndex(i, shape.dims)] = ConvertElement<T, int64_t>(i[iota_dimension]);
    });
  });
  return out;
}

}  // namespace xjit::reference
