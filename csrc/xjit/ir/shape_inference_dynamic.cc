// Shape rules of the issue-11 ops whose result shapes come from operand values
// (dynamic_*, get/set_dimension_size, rng) and of optimization_barrier,
// replica_id and partition_id. The values are known only once the shape
// operands are constants (passes/dynamic_shape_lowering.h), so these rules
// check what the types say: the shape operands' ranks, sizes and element
// types, and the declared result's rank and element type.
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit::shape_inference {
namespace {

absl::Status Error(Opcode op, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": ", what));
}

// A 1-D integer tensor of `size` entries (size < 0: any).
absl::Status CheckShapeOperand(Opcode op, absl::string_view what, const Shape& s, int64_t size) {
  if (s.rank() != 1 || !IsInteger(s.dtype) || (size >= 0 && s.dims[0] != size)) {
    return Error(op, absl::StrCat(what, " must be a 1-D integer tensor",
                                  size >= 0 ? absl::StrCat(" of ", size, " entries") : "",
                                  ", got ", s.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Declared(Opcode op, const Shape* declared) {
  if (declared == nullptr || declared->is_tuple) {
    return Error(op, "needs a declared array result type");
  }
  for (int64_t d : declared->dims) {
    if (d < 0) return Error(op, absl::StrCat("result dims must be >= 0, got ", declared->ToString()));
  }
  return *declared;
}

absl::StatusOr<Shape> DeclaredLike(Opcode op, const Shape& x, const Shape* declared,
                                   bool same_rank) {
  absl::StatusOr<Shape> r = Declared(op, declared);
  if (!r.ok()) return r;
  if (r->dtype != x.dtype || (same_rank && r->rank() != x.rank())) {
    return Error(op, absl::StrCat("result ", r->ToString(), " must have the element type",
                                  same_rank ? " and rank" : "", " of the operand ", x.ToString()));
  }
  return r;
}

}  // namespace

absl::StatusOr<Shape> InferDynamicShapeOp(Opcode op, Operands operands, const Attributes& attrs,
                                          const Shape* declared) {
  switch (op) {
    case Opcode::kDynamicBroadcastInDim: {
      const auto& a = attrs.get<DynamicBroadcastInDimAttrs>();
      absl::StatusOr<Shape> r =
          InferBroadcastInDim(*operands[0], BroadcastInDimAttrs{a.broadcast_dimensions}, declared);
      if (!r.ok()) return r;
      if (absl::Status s = CheckShapeOperand(op, "output_dimensions", *operands[1], r->rank());
          !s.ok()) {
        return s;
      }
      for (const auto* known : {&a.known_expanding_dimensions, &a.known_nonexpanding_dimensions}) {
        if (absl::Status s = CheckAxes(op, "known dimensions", *known, operands[0]->rank());
            !s.ok()) {
          return s;
        }
      }
      for (int64_t d : a.known_expanding_dimensions) {
        for (int64_t e : a.known_nonexpanding_dimensions) {
          if (d == e) {
            return Error(op, absl::StrCat("dimension ", d,
                                          " is both known expanding and known non-expanding"));
          }
        }
      }
      return r;
    }
    case Opcode::kDynamicConv: {
      const Shape& lhs = *operands[0];
      if (operands[2]->rank() != 2 || !IsInteger(operands[2]->dtype) ||
          operands[2]->dims[1] != 2 || operands[2]->dims[0] != lhs.rank() - 2) {
        return Error(op, absl::StrCat("padding must be an integer tensor of shape [",
                                      lhs.rank() - 2, ", 2], got ", operands[2]->ToString()));
      }
      absl::StatusOr<Shape> r = Declared(op, declared);
      if (!r.ok()) return r;
      if (r->rank() != lhs.rank()) {
        return Error(op, absl::StrCat("result ", r->ToString(), " must have the rank of lhs ",
                                      lhs.ToString()));
      }
      return r;
    }
    case Opcode::kDynamicGather: {
      if (absl::Status s =
              CheckShapeOperand(op, "slice_sizes", *operands[2], operands[0]->rank());
          !s.ok()) {
        return s;
      }
      return DeclaredLike(op, *operands[0], declared, /*same_rank=*/false);
    }
    case Opcode::kDynamicIota: {
      absl::StatusOr<Shape> r = InferIota(attrs.get<IotaAttrs>(), declared);
      if (!r.ok()) return r;
      if (absl::Status s = CheckShapeOperand(op, "output_shape", *operands[0], r->rank());
          !s.ok()) {
        return s;
      }
      return r;
    }
    case Opcode::kDynamicPad: {
      if (operands.size() != 5) {
        return Error(op, absl::StrCat("expected 5 operands (operand, padding_value, "
                                      "edge_padding_low, edge_padding_high, interior_padding), got ",
                                      operands.size()));
      }
      const Shape& x = *operands[0];
      if (operands[1]->rank() != 0 || operands[1]->dtype != x.dtype) {
        return Error(op, absl::StrCat("padding_value must be a 0-d tensor of the operand's type, "
                                      "got ", operands[1]->ToString()));
      }
      for (int i = 2; i < 5; ++i) {
        if (absl::Status s = CheckShapeOperand(op, "each padding", *operands[i], x.rank());
            !s.ok()) {
          return s;
        }
      }
      return DeclaredLike(op, x, declared, /*same_rank=*/true);
    }
    case Opcode::kDynamicReshape: {
      absl::StatusOr<Shape> r = InferReshape(*operands[0], declared);
      if (!r.ok()) return r;
      if (absl::Status s = CheckShapeOperand(op, "output_shape", *operands[1], r->rank());
          !s.ok()) {
        return s;
      }
      return r;
    }
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize: {
      int64_t d = attrs.get<DimensionSizeAttrs>().dimension;
      const Shape& x = *operands[0];
      if (d < 0 || d >= x.rank()) {
        return absl::OutOfRangeError(absl::StrCat(OpcodeName(op), ": dimension ", d,
                                                  " out of range for ", x.ToString()));
      }
      if (op == Opcode::kGetDimensionSize) return Shape(DType::kS32, {});
      if (operands[1]->rank() != 0 || !IsInteger(operands[1]->dtype)) {
        return Error(op, absl::StrCat("size must be a 0-d integer tensor, got ",
                                      operands[1]->ToString()));
      }
      return x;
    }
    case Opcode::kRng: {
      const Shape& a = *operands[0];
      const Shape& b = *operands[1];
      if (a.rank() != 0 || b.rank() != 0 || a.dtype != b.dtype) {
        return Error(op, absl::StrCat("a and b must be 0-d tensors of one type, got ",
                                      a.ToString(), " and ", b.ToString()));
      }
      bool normal = attrs.get<RngAttrs>().rng_distribution == RngDistribution::kNormal;
      if (normal ? !IsFloat(a.dtype) : !(IsFloat(a.dtype) || IsInteger(a.dtype) || IsPred(a.dtype))) {
        return Error(op, absl::StrCat(normal ? "NORMAL takes floating-point a and b"
                                             : "UNIFORM takes integer, boolean or floating-point "
                                               "a and b",
                                      ", got ", a.ToString()));
      }
      absl::StatusOr<Shape> r = DeclaredLike(op, a, declared, /*same_rank=*/false);
      if (!r.ok()) return r;
      if (absl::Status s = CheckShapeOperand(op, "shape", *operands[2], r->rank()); !s.ok()) {
        return s;
      }
      return r;
    }
    case Opcode::kOptimizationBarrier: {
      if (operands.size() == 1) return *operands[0];
      std::vector<Shape> elements;
      for (const Shape* s : operands) elements.push_back(*s);
      return Shape::Tuple(std::move(elements));
    }
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return Shape(DType::kU32, {});
    default:
      break;
  }
  return absl::InternalError(absl::StrCat(OpcodeName(op), ": not a dynamic-shape op"));
}

}  // namespace xjit::shape_inference
