#include "xjit/passes/rng_expansion.h"

#include <cmath>
#include <utility>
#include <vector>

#include "xjit/passes/built_value.h"

namespace xjit::passes {
namespace {

// Small helpers over ComputationBuilder; each returns its value or the error.
struct Emit {
  ComputationBuilder& b;

  Built Splat(Literal scalar, const Shape& shape) {
    Instruction* c = b.Constant(std::move(scalar));
    if (shape.rank() == 0) return c;
    return b.AddWithResultType(Opcode::kBroadcastInDim, shape, {c}, BroadcastInDimAttrs{});
  }
  Built Broadcast(Instruction* scalar, const Shape& shape) {
    if (shape.rank() == 0) return scalar;
    return b.AddWithResultType(Opcode::kBroadcastInDim, Shape(scalar->shape().dtype, shape.dims),
                               {scalar}, BroadcastInDimAttrs{});
  }
  Built Op(Opcode op, Instruction* x, Instruction* y = nullptr) {
    std::vector<Instruction*> operands = {x};
    if (y != nullptr) operands.push_back(y);
    return b.Add(op, std::move(operands));
  }
  Built Convert(Instruction* x, DType to) {
    if (x->shape().dtype == to) return x;
    return b.AddWithResultType(Opcode::kConvert, Shape(to, x->shape().dims), {x});
  }
  Built Bitcast(Instruction* x, DType to) {
    return b.AddWithResultType(Opcode::kBitcastConvert, Shape(to, x->shape().dims), {x});
  }
};


// Random bits of `shape` (u32 or u64) from THREE_FRY on a constant state.
Built Bits(Emit& e, const Shape& shape, uint64_t seed) {
  Literal state(Shape(DType::kU64, {2}));
  state.mutable_data_as<uint64_t>()[0] = seed;
  state.mutable_data_as<uint64_t>()[1] = 0x5851f42d4c957f2dULL;
  Instruction* s = e.b.Constant(std::move(state));
  XJIT_ASSIGN_OR_RETURN(gen, e.b.AddWithResultType(Opcode::kRngBitGenerator,
                                         Shape::Tuple({Shape(DType::kU64, {2}), shape}), {s},
                                         RngBitGeneratorAttrs{RngAlgorithm::kThreeFry}));
  return e.b.Add(Opcode::kGetTupleElement, {gen}, GetTupleElementAttrs{1});
}

// Uniform floats in [0, 1) of `dtype` (f32 or f64) from `bits` (u32 or u64).
Built UnitUniform(Emit& e, Instruction* bits, DType dtype) {
  const Shape& s = bits->shape();
  const bool f64 = dtype == DType::kF64;
  XJIT_ASSIGN_OR_RETURN(shift, f64 ? e.Splat(Literal::Scalar(DType::kU64, uint64_t{12}), s)
                         : e.Splat(Literal::Scalar(DType::kU32, uint32_t{9}), s));
  XJIT_ASSIGN_OR_RETURN(one_bits, f64 ? e.Splat(Literal::Scalar(DType::kU64, uint64_t{0x3ff0000000000000ULL}), s)
                            : e.Splat(Literal::Scalar(DType::kU32, uint32_t{0x3f800000u}), s));
  XJIT_ASSIGN_OR_RETURN(mantissa, e.Op(Opcode::kShiftRightLogical, bits, shift));
  XJIT_ASSIGN_OR_RETURN(in_one_two, e.Op(Opcode::kOr, mantissa, one_bits));
  XJIT_ASSIGN_OR_RETURN(x, e.Bitcast(in_one_two, dtype));
  Shape fs(dtype, s.dims);
  XJIT_ASSIGN_OR_RETURN(one, f64 ? e.Splat(Literal::Scalar(DType::kF64, 1.0), fs)
                       : e.Splat(Literal::Scalar(DType::kF32, 1.0f), fs));
  return e.Op(Opcode::kSubtract, x, one);
}

Built Slice0(Emit& e, Instruction* x, int64_t i, const Shape& result) {
  std::vector<int64_t> start(x->shape().rank(), 0), limit = x->shape().dims;
  start[0] = i;
  limit[0] = i + 1;
  XJIT_ASSIGN_OR_RETURN(s, e.b.Add(Opcode::kSlice, {x}, SliceAttrs{start, limit, {}}));
  return e.b.AddWithResultType(Opcode::kReshape, Shape(x->shape().dtype, result.dims), {s});
}

}  // namespace

absl::StatusOr<Instruction*> ExpandRng(ComputationBuilder& b, Instruction* lo, Instruction* hi,
                                       const Shape& result, RngDistribution distribution,
                                       uint64_t seed) {
  Emit e{b};
  const DType t = result.dtype;
  if (IsPred(t)) return e.Broadcast(lo, result);  // [a, b) holds a alone
  const bool wide = t == DType::kF64 || t == DType::kS64 || t == DType::kU64;
  const DType bits_type = wide ? DType::kU64 : DType::kU32;
  if (IsInteger(t)) {
    XJIT_ASSIGN_OR_RETURN(bits, Bits(e, Shape(bits_type, result.dims), seed));
    XJIT_ASSIGN_OR_RETURN(lo_u, e.Convert(lo, bits_type));
    XJIT_ASSIGN_OR_RETURN(hi_u, e.Convert(hi, bits_type));
    XJIT_ASSIGN_OR_RETURN(range, e.Op(Opcode::kSubtract, hi_u, lo_u));  // wraps: b - a as unsigned
    XJIT_ASSIGN_OR_RETURN(range_b, e.Broadcast(range, bits->shape()));
    XJIT_ASSIGN_OR_RETURN(offset, e.Op(Opcode::kRemainder, bits, range_b));
    XJIT_ASSIGN_OR_RETURN(lo_b, e.Broadcast(lo_u, bits->shape()));
    XJIT_ASSIGN_OR_RETURN(sum, e.Op(Opcode::kAdd, lo_b, offset));
    return e.Convert(sum, t);
  }
  // Floats: computed in f32 (f16, bf16, f32) or f64.
  const DType ct = t == DType::kF64 ? DType::kF64 : DType::kF32;
  const Shape cshape(ct, result.dims);
  XJIT_ASSIGN_OR_RETURN(lo_c, e.Convert(lo, ct));
  XJIT_ASSIGN_OR_RETURN(hi_c, e.Convert(hi, ct));
  XJIT_ASSIGN_OR_RETURN(lo_b, e.Broadcast(lo_c, cshape));
  XJIT_ASSIGN_OR_RETURN(hi_b, e.Broadcast(hi_c, cshape));
  Instruction* value = nullptr;
  if (distribution == RngDistribution::kUniform) {
    XJIT_ASSIGN_OR_RETURN(bits, Bits(e, Shape(bits_type, result.dims), seed));
    XJIT_ASSIGN_OR_RETURN(u, UnitUniform(e, bits, ct));
    XJIT_ASSIGN_OR_RETURN(width, e.Op(Opcode::kSubtract, hi_b, lo_b));
    XJIT_ASSIGN_OR_RETURN(scaled, e.Op(Opcode::kMultiply, width, u));
    XJIT_ASSIGN_OR_RETURN(sum, e.Op(Opcode::kAdd, lo_b, scaled));
    value = sum;
  } else {
    std::vector<int64_t> two = {2};
    two.insert(two.end(), result.dims.begin(), result.dims.end());
    XJIT_ASSIGN_OR_RETURN(bits, Bits(e, Shape(bits_type, two), seed));
    XJIT_ASSIGN_OR_RETURN(u, UnitUniform(e, bits, ct));
    XJIT_ASSIGN_OR_RETURN(u1, Slice0(e, u, 0, cshape));
    XJIT_ASSIGN_OR_RETURN(u2, Slice0(e, u, 1, cshape));
    auto scalar = [&](double v) {
      return ct == DType::kF64 ? Literal::Scalar(DType::kF64, v)
                               : Literal::Scalar(DType::kF32, static_cast<float>(v));
    };
    XJIT_ASSIGN_OR_RETURN(one, e.Splat(scalar(1.0), cshape));
    XJIT_ASSIGN_OR_RETURN(minus_two, e.Splat(scalar(-2.0), cshape));
    XJIT_ASSIGN_OR_RETURN(two_pi, e.Splat(scalar(2.0 * M_PI), cshape));
    XJIT_ASSIGN_OR_RETURN(one_minus, e.Op(Opcode::kSubtract, one, u1));  // in (0, 1]: log is finite
    XJIT_ASSIGN_OR_RETURN(log, e.Op(Opcode::kLog, one_minus));
    XJIT_ASSIGN_OR_RETURN(r2, e.Op(Opcode::kMultiply, minus_two, log));
    XJIT_ASSIGN_OR_RETURN(r, e.Op(Opcode::kSqrt, r2));
    XJIT_ASSIGN_OR_RETURN(angle, e.Op(Opcode::kMultiply, two_pi, u2));
    XJIT_ASSIGN_OR_RETURN(c, e.Op(Opcode::kCosine, angle));
    XJIT_ASSIGN_OR_RETURN(z, e.Op(Opcode::kMultiply, r, c));
    XJIT_ASSIGN_OR_RETURN(scaled, e.Op(Opcode::kMultiply, hi_b, z));
    XJIT_ASSIGN_OR_RETURN(sum, e.Op(Opcode::kAdd, lo_b, scaled));
    value = sum;
  }
  return e.Convert(value, t);
}


}  // namespace xjit::passes
