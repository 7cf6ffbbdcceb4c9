// Small graph-building vocabulary shared by the JVP, transpose and batching
// rules: each helper appends one or a few instructions through the
// ComputationBuilder (so every shape is inferred and checked) and returns
// the new value. Scalar constants are broadcast to the shape asked for.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/graph.h"

namespace xjit::transforms {

using Value = Instruction*;
using ValueOr = absl::StatusOr<Instruction*>;

class Emitter {
 public:
  // `module` makes the reduce bodies (one per element type, made once).
  Emitter(ModuleBuilder& module, ComputationBuilder& builder) : module_(module), b_(builder) {}

  ComputationBuilder& builder() { return b_; }
  ModuleBuilder& module() { return module_; }

  // `value` (converted to `dtype`) broadcast to `dims`.
  ValueOr Full(DType dtype, absl::Span<const int64_t> dims, double value);
  ValueOr ZerosLike(const Shape& shape) { return Full(shape.dtype, shape.dims, 0.0); }
  ValueOr FullLike(Value like, double value) {
    return Full(like->shape().dtype, like->shape().dims, value);
  }

  ValueOr Unary(Opcode op, Value x) { return b_.Add(op, {x}); }
  ValueOr Binary(Opcode op, Value x, Value y) { return b_.Add(op, {x, y}); }
  ValueOr Add(Value x, Value y) { return Binary(Opcode::kAdd, x, y); }
  ValueOr Sub(Value x, Value y) { return Binary(Opcode::kSubtract, x, y); }
  ValueOr Mul(Value x, Value y) { return Binary(Opcode::kMultiply, x, y); }
  ValueOr Div(Value x, Value y) { return Binary(Opcode::kDivide, x, y); }
  ValueOr Neg(Value x) { return Unary(Opcode::kNegate, x); }
  // x * c for a scalar constant c.
  ValueOr MulConst(Value x, double c);
  // x + y where either may be null (a symbolic zero): null + null is null.
  ValueOr AddAny(Value x, Value y);
  ValueOr Compare(ComparisonDirection dir, Value x, Value y);
  ValueOr Select(Value pred, Value on_true, Value on_false);
  ValueOr Convert(Value x, DType dtype);
  ValueOr BroadcastInDim(Value x, absl::Span<const int64_t> dims,
                         absl::Span<const int64_t> broadcast_dimensions);
  ValueOr Reshape(Value x, absl::Span<const int64_t> dims);
  ValueOr Transpose(Value x, absl::Span<const int64_t> permutation);
  ValueOr Slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
                std::vector<int64_t> strides);
  ValueOr Pad(Value x, Value padding_value, std::vector<int64_t> low, std::vector<int64_t> high,
              std::vector<int64_t> interior);
  ValueOr DotGeneral(Value lhs, Value rhs, DotDimensionNumbers dnums);
  // Sum over `dims` (a reduce with an add body and a zero init).
  ValueOr ReduceSum(Value x, absl::Span<const int64_t> dims);
  // `x` (of `shape`'s dims or broadcastable by broadcast_in_dim rules) as `like`'s dims:
  // a scalar is broadcast; anything else must already match.
  ValueOr BroadcastScalarTo(Value x, absl::Span<const int64_t> dims);
  // The scalar reduce body (a, b) -> op(a, b) of `dtype`, made once per (op, dtype).
  absl::StatusOr<Computation*> ScalarBody(Opcode op, DType dtype);

 private:
  ModuleBuilder& module_;
  ComputationBuilder& b_;
  absl::flat_hash_map<std::pair<int, int>, Computation*> bodies_;
};

// `v` split into parts: a tuple-shaped value into one get_tuple_element per
// element, anything else into itself.
absl::StatusOr<std::vector<Value>> SplitTuple(ComputationBuilder& b, Value v);

// Whether values of `dtype` carry tangents (float and complex types).
bool IsDifferentiable(DType dtype);

}  // namespace xjit::transforms
