#include "xjit/transforms/emitter.h"

#include <complex>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/literal.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {

bool IsDifferentiable(DType dtype) { return IsFloat(dtype) || IsComplex(dtype); }

ValueOr Emitter::Full(DType dtype, absl::Span<const int64_t> dims, double value) {
  Literal scalar(Shape(dtype, {}));
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = scalar.mutable_data_as<T>();
    if constexpr (std::is_same_v<T, bool>) {
      *out = value != 0;
    } else if constexpr (is_half_v<T>) {
      *out = T(static_cast<float>(value));
    } else if constexpr (is_complex_v<T>) {
      *out = T(static_cast<typename T::value_type>(value), 0);
    } else {
      *out = static_cast<T>(value);
    }
  });
  Value c = b_.Constant(std::move(scalar));
  if (dims.empty()) return c;
  return BroadcastInDim(c, dims, {});
}

ValueOr Emitter::MulConst(Value x, double c) {
  XJIT_TF_ASSIGN_OR_RETURN(Value k, FullLike(x, c));
  return Mul(x, k);
}

ValueOr Emitter::AddAny(Value x, Value y) {
  if (x == nullptr) return y;
  if (y == nullptr) return x;
  return Add(x, y);
}

ValueOr Emitter::Compare(ComparisonDirection dir, Value x, Value y) {
  CompareAttrs attrs;
  attrs.comparison_direction = dir;
  return b_.Add(Opcode::kCompare, {x, y}, attrs);
}

ValueOr Emitter::Select(Value pred, Value on_true, Value on_false) {
  return b_.Add(Opcode::kSelect, {pred, on_true, on_false});
}

ValueOr Emitter::Convert(Value x, DType dtype) {
  if (x->shape().dtype == dtype) return x;
  return b_.AddWithResultType(Opcode::kConvert, Shape(dtype, x->shape().dims), {x});
}

ValueOr Emitter::BroadcastInDim(Value x, absl::Span<const int64_t> dims,
                                absl::Span<const int64_t> broadcast_dimensions) {
  BroadcastInDimAttrs attrs;
  attrs.broadcast_dimensions.assign(broadcast_dimensions.begin(), broadcast_dimensions.end());
  return b_.AddWithResultType(Opcode::kBroadcastInDim,
                              Shape(x->shape().dtype, {dims.begin(), dims.end()}), {x}, attrs);
}

ValueOr Emitter::Reshape(Value x, absl::Span<const int64_t> dims) {
  if (x->shape().dims == std::vector<int64_t>(dims.begin(), dims.end())) return x;
  return b_.AddWithResultType(Opcode::kReshape, Shape(x->shape().dtype, {dims.begin(), dims.end()}),
                              {x});
}

ValueOr Emitter::Transpose(Value x, absl::Span<const int64_t> permutation) {
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) identity = identity && permutation[i] == int64_t(i);
  if (identity) return x;
  TransposeAttrs attrs;
  attrs.permutation.assign(permutation.begin(), permutation.end());
  return b_.Add(Opcode::kTranspose, {x}, attrs);
}

ValueOr Emitter::Slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
                       std::vector<int64_t> strides) {
  SliceAttrs attrs;
  attrs.start_indices = std::move(start);
  attrs.limit_indices = std::move(limit);
  attrs.strides = std::move(strides);
  return b_.Add(Opcode::kSlice, {x}, attrs);
}

ValueOr Emitter::Pad(Value x, Value padding_value, std::vector<int64_t> low,
                     std::vector<int64_t> high, std::vector<int64_t> interior) {
  PadAttrs attrs;
  attrs.edge_padding_low = std::move(low);
  attrs.edge_padding_high = std::move(high);
  attrs.interior_padding = std::move(interior);
  return b_.Add(Opcode::kPad, {x, padding_value}, attrs);
}

ValueOr Emitter::DotGeneral(Value lhs, Value rhs, DotDimensionNumbers dnums) {
  DotGeneralAttrs attrs;
  attrs.dot_dimension_numbers = std::move(dnums);
  return b_.Add(Opcode::kDotGeneral, {lhs, rhs}, attrs);
}

absl::StatusOr<Computation*> Emitter::ScalarBody(Opcode op, DType dtype) {
  auto key = std::make_pair(static_cast<int>(op), static_cast<int>(dtype));
  auto it = bodies_.find(key);
  if (it != bodies_.end()) return it->second;
  ComputationBuilder* body = module_.NewComputation(
      absl::StrCat(OpcodeName(op), "_", NumpyName(dtype), "_body"));
  if (body == nullptr) return absl::FailedPreconditionError("transform: module already built");
  Value a = body->Parameter(Shape(dtype, {}));
  Value b = body->Parameter(Shape(dtype, {}));
  XJIT_TF_ASSIGN_OR_RETURN(Value r, body->Add(op, {a, b}));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * c, body->Finish({r}));
  bodies_[key] = c;
  return c;
}

ValueOr Emitter::ReduceSum(Value x, absl::Span<const int64_t> dims) {
  if (dims.empty()) return x;
  DType dtype = x->shape().dtype;
  XJIT_TF_ASSIGN_OR_RETURN(Computation * body, ScalarBody(Opcode::kAdd, dtype));
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, Full(dtype, {}, 0.0));
  ReduceAttrs attrs;
  attrs.dimensions.assign(dims.begin(), dims.end());
  return b_.Add(Opcode::kReduce, {x, zero}, attrs, {body});
}

ValueOr Emitter::BroadcastScalarTo(Value x, absl::Span<const int64_t> dims) {
  if (x->shape().dims == std::vector<int64_t>(dims.begin(), dims.end())) return x;
  if (x->shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("transform: cannot broadcast ",
                                                   x->shape().ToString(), " to a different shape"));
  }
  return BroadcastInDim(x, dims, {});
}

absl::StatusOr<std::vector<Value>> SplitTuple(ComputationBuilder& b, Value v) {
  if (!v->shape().is_tuple) return std::vector<Value>{v};
  std::vector<Value> parts;
  for (size_t i = 0; i < v->shape().tuple_shapes.size(); ++i) {
    GetTupleElementAttrs attrs;
    attrs.index = static_cast<int64_t>(i);
    XJIT_TF_ASSIGN_OR_RETURN(Value part, b.Add(Opcode::kGetTupleElement, {v}, attrs));
    parts.push_back(part);
  }
  return parts;
}

}  // namespace xjit::transforms
