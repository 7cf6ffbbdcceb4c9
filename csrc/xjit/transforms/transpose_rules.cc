// One transpose rule per op that the JVP rules apply to tangents. Each is
// the adjoint of its op as a linear map of the linear operands (JAX's
// transpose rules in jax/_src/lax/).
#include "xjit/transforms/fft_rules.h"
#include "xjit/transforms/control_flow_rules.h"
#include "xjit/transforms/transpose_rules.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "xjit/transforms/custom_rules.h"
#include "xjit/transforms/indexing_rules.h"
#include "xjit/transforms/collectives.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/window_rules.h"
#include "xjit/transforms/linalg_rules.h"

namespace xjit::transforms {
namespace {

using Cts = std::vector<Value>;

absl::Status NotLinear(const TransposeContext& ctx) {
  return absl::InvalidArgumentError(absl::StrCat(
      "vjp: '", OpcodeName(ctx.old.opcode()),
      "' is not linear in its tangent operands (both operands depend on tangents)"));
}

absl::StatusOr<Cts> AddT(TransposeContext& ctx) { return Cts{ctx.ct, ctx.ct}; }

absl::StatusOr<Cts> SubtractT(TransposeContext& ctx) {
  Value neg = nullptr;
  if (ctx.linear[1]) {
    XJIT_TF_ASSIGN_OR_RETURN(neg, ctx.e.Neg(ctx.ct));
  }
  return Cts{ctx.ct, neg};
}

absl::StatusOr<Cts> NegateT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Neg(ctx.ct));
  return Cts{v};
}

absl::StatusOr<Cts> MultiplyT(TransposeContext& ctx) {
  if (ctx.linear[0] && ctx.linear[1]) return NotLinear(ctx);
  int lin = ctx.linear[0] ? 0 : 1;
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Mul(ctx.ct, ctx.primal[1 - lin]));
  Cts out(2, nullptr);
  out[lin] = v;
  return out;
}

absl::StatusOr<Cts> DivideT(TransposeContext& ctx) {
  if (ctx.linear[1]) return NotLinear(ctx);
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Div(ctx.ct, ctx.primal[1]));
  return Cts{v, nullptr};
}

absl::StatusOr<Cts> ConvertT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Convert(ctx.ct, ctx.operand_shape(0).dtype));
  return Cts{v};
}

absl::StatusOr<Cts> ReducePrecisionT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(
      Value v, ctx.e.builder().Add(Opcode::kReducePrecision, {ctx.ct}, ctx.old.attributes()));
  return Cts{v};
}

// real(z) -> complex(ct, 0); imag(z) -> complex(0, -ct) (JAX's rules).
absl::StatusOr<Cts> RealT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, ctx.e.FullLike(ctx.ct, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Binary(Opcode::kComplex, ctx.ct, zero));
  return Cts{v};
}

absl::StatusOr<Cts> ImagT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, ctx.e.FullLike(ctx.ct, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value neg, ctx.e.Neg(ctx.ct));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Binary(Opcode::kComplex, zero, neg));
  return Cts{v};
}

// complex(a, b) -> (real(ct), -imag(ct))... as JAX: [real(t), imag(neg(t))].
absl::StatusOr<Cts> ComplexT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value re, ctx.e.Unary(Opcode::kReal, ctx.ct));
  XJIT_TF_ASSIGN_OR_RETURN(Value neg, ctx.e.Neg(ctx.ct));
  XJIT_TF_ASSIGN_OR_RETURN(Value im, ctx.e.Unary(Opcode::kImag, neg));
  return Cts{re, im};
}

absl::StatusOr<Cts> SelectT(TransposeContext& ctx) {
  if (ctx.linear[0]) return NotLinear(ctx);
  Emitter& e = ctx.e;
  Value pred = ctx.primal[0];
  if (pred->shape().rank() == 0 && ctx.ct->shape().rank() != 0) {
    XJIT_TF_ASSIGN_OR_RETURN(pred, e.BroadcastInDim(pred, ctx.ct->shape().dims, {}));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.FullLike(ctx.ct, 0.0));
  Cts out(3, nullptr);
  if (ctx.linear[1]) {
    XJIT_TF_ASSIGN_OR_RETURN(out[1], e.Select(pred, ctx.ct, zero));
  }
  if (ctx.linear[2]) {
    XJIT_TF_ASSIGN_OR_RETURN(out[2], e.Select(pred, zero, ctx.ct));
  }
  return out;
}

absl::StatusOr<Cts> BroadcastInDimT(TransposeContext& ctx) {
  // Sum over the new dims and over the operand's size-1 dims that were
  // stretched, then reshape to the operand's dims.
  const Shape& in = ctx.operand_shape(0);
  const std::vector<int64_t>& bdims = ctx.old.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  std::vector<bool> keep(ctx.ct->shape().rank(), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (in.dims[i] != 1) keep[bdims[i]] = true;
  }
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < ctx.ct->shape().rank(); ++d) {
    if (!keep[d]) axes.push_back(d);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value s, ctx.e.ReduceSum(ctx.ct, axes));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Reshape(s, in.dims));
  return Cts{v};
}

absl::StatusOr<Cts> ReshapeT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Reshape(ctx.ct, ctx.operand_shape(0).dims));
  return Cts{v};
}

absl::StatusOr<Cts> TransposeT(TransposeContext& ctx) {
  const std::vector<int64_t>& perm = ctx.old.attrs<TransposeAttrs>().permutation;
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Transpose(ctx.ct, inverse));
  return Cts{v};
}

absl::StatusOr<Cts> ReverseT(TransposeContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v,
                           ctx.e.builder().Add(Opcode::kReverse, {ctx.ct}, ctx.old.attributes()));
  return Cts{v};
}

absl::StatusOr<Cts> SliceT(TransposeContext& ctx) {
  // Zero-pad the cotangent back into the operand's dims, strides as interior padding.
  const SliceAttrs& a = ctx.old.attrs<SliceAttrs>();
  const Shape& in = ctx.operand_shape(0);
  const std::vector<int64_t>& out = ctx.old.shape().dims;
  std::vector<int64_t> low, high, interior;
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t stride = a.strides.empty() ? 1 : a.strides[d];
    int64_t covered = out[d] == 0 ? 0 : (out[d] - 1) * stride + 1;
    low.push_back(out[d] == 0 ? in.dims[d] : a.start_indices[d]);
    high.push_back(in.dims[d] - low.back() - covered);
    interior.push_back(out[d] == 0 ? 0 : stride - 1);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, ctx.e.Full(ctx.ct->shape().dtype, {}, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.Pad(ctx.ct, zero, low, high, interior));
  return Cts{v};
}

absl::StatusOr<Cts> PadT(TransposeContext& ctx) {
  // JAX's _pad_transpose: undo the edge padding with a negative pad, drop the
  // interior padding with a strided slice; the padding value gets the rest.
  const PadAttrs& a = ctx.old.attrs<PadAttrs>();
  Emitter& e = ctx.e;
  Cts out(2, nullptr);
  Value operand_ct = nullptr;
  int64_t rank = ctx.ct->shape().rank();
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(ctx.ct->shape().dtype, {}, 0.0));
  if (ctx.linear[0] || ctx.linear[1]) {
    std::vector<int64_t> low, high, none(rank, 0);
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(-a.edge_padding_low[d]);
      high.push_back(-a.edge_padding_high[d]);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value unpadded, e.Pad(ctx.ct, zero, low, high, none));
    std::vector<int64_t> start(rank, 0), strides;
    for (int64_t d = 0; d < rank; ++d) strides.push_back(a.interior_padding[d] + 1);
    XJIT_TF_ASSIGN_OR_RETURN(operand_ct, e.Slice(unpadded, start, unpadded->shape().dims, strides));
    if (ctx.linear[0]) out[0] = operand_ct;
  }
  if (ctx.linear[1]) {
    std::vector<int64_t> all(rank);
    std::iota(all.begin(), all.end(), 0);
    XJIT_TF_ASSIGN_OR_RETURN(Value total, e.ReduceSum(ctx.ct, all));
    XJIT_TF_ASSIGN_OR_RETURN(Value inner, e.ReduceSum(operand_ct, all));
    XJIT_TF_ASSIGN_OR_RETURN(out[1], e.Sub(total, inner));
  }
  return out;
}

absl::StatusOr<Cts> ConcatenateT(TransposeContext& ctx) {
  int64_t dim = ctx.old.attrs<ConcatenateAttrs>().dimension;
  const std::vector<int64_t>& dims = ctx.ct->shape().dims;
  Cts out;
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.linear.size(); ++i) {
    int64_t size = ctx.operand_shape(static_cast<int>(i)).dims[dim];
    Value v = nullptr;
    if (ctx.linear[i]) {
      std::vector<int64_t> start(dims.size(), 0), limit = dims, strides(dims.size(), 1);
      start[dim] = offset;
      limit[dim] = offset + size;
      XJIT_TF_ASSIGN_OR_RETURN(v, ctx.e.Slice(ctx.ct, start, limit, strides));
    }
    out.push_back(v);
    offset += size;
  }
  return out;
}

// Consecutive index ranges of the given lengths: ranges_like in JAX.
std::vector<std::vector<int64_t>> RangesLike(std::initializer_list<size_t> lengths) {
  std::vector<std::vector<int64_t>> out;
  int64_t start = 0;
  for (size_t n : lengths) {
    std::vector<int64_t> r(n);
    std::iota(r.begin(), r.end(), start);
    start += static_cast<int64_t>(n);
    out.push_back(r);
  }
  return out;
}

std::vector<int64_t> Remaining(int64_t rank, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) {
      out.push_back(d);
    }
  }
  return out;
}

// JAX's _dot_general_transpose_lhs: the cotangent of x in dot_general(x, y).
ValueOr DotTransposeLhs(Emitter& e, Value g, int64_t x_rank, Value y,
                        const std::vector<int64_t>& x_contract,
                        const std::vector<int64_t>& y_contract,
                        const std::vector<int64_t>& x_batch, const std::vector<int64_t>& y_batch,
                        bool swap_ans) {
  std::vector<int64_t> x_kept = Remaining(x_rank, x_contract, x_batch);
  std::vector<int64_t> y_kept = Remaining(y->shape().rank(), y_contract, y_batch);
  std::vector<int64_t> ans_batch, ans_y;
  if (swap_ans) {
    auto r = RangesLike({x_batch.size(), y_kept.size(), x_kept.size()});
    ans_batch = r[0];
    ans_y = r[1];
  } else {
    auto r = RangesLike({x_batch.size(), x_kept.size(), y_kept.size()});
    ans_batch = r[0];
    ans_y = r[2];
  }
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = ans_y;
  d.rhs_contracting_dimensions = y_kept;
  d.lhs_batching_dimensions = ans_batch;
  d.rhs_batching_dimensions = y_batch;
  // x_contract sorted by y_contract, then out_axes = argsort(x_batch + x_kept + that).
  std::vector<size_t> order(y_contract.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return y_contract[a] < y_contract[b]; });
  std::vector<int64_t> layout = x_batch;
  layout.insert(layout.end(), x_kept.begin(), x_kept.end());
  for (size_t i : order) layout.push_back(x_contract[i]);
  // dot_general(y, g) lays its result out as (batch, y's free dims, g's free
  // dims): when that is x's own layout it needs no transpose (the weight
  // gradient of a matmul, x^T g), so prefer it over dot_general(g, y).
  std::vector<int64_t> swapped = x_batch;
  for (size_t i : order) swapped.push_back(x_contract[i]);
  swapped.insert(swapped.end(), x_kept.begin(), x_kept.end());
  if (std::is_sorted(swapped.begin(), swapped.end()) &&
      !std::is_sorted(layout.begin(), layout.end())) {
    DotDimensionNumbers ds;
    ds.lhs_contracting_dimensions = d.rhs_contracting_dimensions;
    ds.rhs_contracting_dimensions = d.lhs_contracting_dimensions;
    ds.lhs_batching_dimensions = d.rhs_batching_dimensions;
    ds.rhs_batching_dimensions = d.lhs_batching_dimensions;
    return e.DotGeneral(y, g, ds);
  }
  std::vector<int64_t> out_axes(layout.size());
  std::iota(out_axes.begin(), out_axes.end(), 0);
  std::sort(out_axes.begin(), out_axes.end(),
            [&](int64_t a, int64_t b) { return layout[a] < layout[b]; });
  XJIT_TF_ASSIGN_OR_RETURN(Value dot, e.DotGeneral(g, y, d));
  return e.Transpose(dot, out_axes);
}

absl::StatusOr<Cts> DotGeneralT(TransposeContext& ctx) {
  if (ctx.linear[0] && ctx.linear[1]) return NotLinear(ctx);
  const DotDimensionNumbers& d = ctx.old.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  Cts out(2, nullptr);
  if (ctx.linear[0]) {
    XJIT_TF_ASSIGN_OR_RETURN(
        out[0], DotTransposeLhs(ctx.e, ctx.ct, ctx.operand_shape(0).rank(), ctx.primal[1],
                                d.lhs_contracting_dimensions, d.rhs_contracting_dimensions,
                                d.lhs_batching_dimensions, d.rhs_batching_dimensions, false));
  } else {
    XJIT_TF_ASSIGN_OR_RETURN(
        out[1], DotTransposeLhs(ctx.e, ctx.ct, ctx.operand_shape(1).rank(), ctx.primal[0],
                                d.rhs_contracting_dimensions, d.lhs_contracting_dimensions,
                                d.rhs_batching_dimensions, d.lhs_batching_dimensions, true));
  }
  return out;
}

absl::StatusOr<Cts> ReduceT(TransposeContext& ctx) {
  // Only sums reach the linear part (jvp_rules.cc builds them with a zero init).
  if (ctx.linear.size() != 2 || ctx.linear[1]) {
    return absl::UnimplementedError("vjp: only a sum 'reduce' of a tangent can be transposed");
  }
  const Computation& body = *ctx.old.called_computations()[0];
  const Instruction* r = body.results()[0];
  if (r->opcode() != Opcode::kAdd) {
    return absl::UnimplementedError("vjp: only a sum 'reduce' of a tangent can be transposed");
  }
  const std::vector<int64_t>& dims = ctx.old.attrs<ReduceAttrs>().dimensions;
  const Shape& in = ctx.operand_shape(0);
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.e.BroadcastInDim(ctx.ct, in.dims, kept));
  return Cts{v, nullptr};
}

// Only a custom_vjp's linearisation and a linear_call are linear calls
// (other calls are inlined by the JVP): their transpose is the user's rule.
absl::StatusOr<Cts> CallT(TransposeContext& ctx) {
  if (std::optional<Collective> c = AsCollective(*ctx.old.called_computations()[0])) {
    return CollectiveTranspose(ctx.e, ctx.old, *c, ctx.ct);
  }
  XJIT_TF_ASSIGN_OR_RETURN(std::optional<CustomCall> custom, AsCustomCall(ctx.old));
  if (!custom.has_value() ||
      (custom->kind != CustomKind::kLin && custom->kind != CustomKind::kLinearCall)) {
    return absl::UnimplementedError("vjp: no transpose rule for 'call' yet");
  }
  std::vector<Value> residuals;
  for (int64_t i = 0; i < custom->count; ++i) {
    if (ctx.linear[i]) {
      return absl::InvalidArgumentError(
          "vjp: a residual of a custom_vjp or linear_call depends on a tangent");
    }
    residuals.push_back(ctx.primal[i]);
  }
  std::vector<Value> cts = ctx.ct_parts.empty() ? std::vector<Value>{ctx.ct} : ctx.ct_parts;
  return CustomLinTranspose(ctx.e, ctx.old, *custom, residuals, cts);
}

}  // namespace

TransposeRule TransposeRuleFor(Opcode op) {
  switch (op) {
    case Opcode::kAdd: return AddT;
    case Opcode::kSubtract: return SubtractT;
    case Opcode::kNegate: return NegateT;
    case Opcode::kMultiply: return MultiplyT;
    case Opcode::kDivide: return DivideT;
    case Opcode::kConvert: return ConvertT;
    case Opcode::kReal: return RealT;
    case Opcode::kImag: return ImagT;
    case Opcode::kComplex: return ComplexT;
    case Opcode::kSelect: return SelectT;
    case Opcode::kBroadcastInDim: return BroadcastInDimT;
    case Opcode::kReshape: return ReshapeT;
    case Opcode::kTranspose: return TransposeT;
    case Opcode::kReverse: return ReverseT;
    case Opcode::kSlice: return SliceT;
    case Opcode::kPad: return PadT;
    case Opcode::kConcatenate: return ConcatenateT;
    case Opcode::kDotGeneral: return DotGeneralT;
    case Opcode::kReduce: return ReduceT;
    // Not linear in any operand: the JVP rules never apply them to tangents.
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kAbs:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kCosine:
    case Opcode::kCountLeadingZeros:
    case Opcode::kErf:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kFloor:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSine:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kAtan2:
    case Opcode::kCompare:
    case Opcode::kClamp:
    // Inlined by the JVP (call, fusion) or never linear values (tuples).
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kFusion:
    case Opcode::kRngBitGenerator:  // integer bits: never a linear value
    case Opcode::kSort: case Opcode::kMap:
    case Opcode::kBitcastConvert:
    case Opcode::kWhile:
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)  // not linear in any operand
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)        // tokens and host transfers: primal only
    case Opcode::kCustomCall:  // an opaque host function
      return nullptr;
    case Opcode::kReducePrecision: return ReducePrecisionT;
    case Opcode::kGather: return GatherT;
    case Opcode::kScatter: return ScatterT;
    case Opcode::kDynamicSlice: return DynamicSliceT;
    case Opcode::kDynamicUpdateSlice: return DynamicUpdateSliceT;
    case Opcode::kIf:
    case Opcode::kCase:
      return BranchTranspose;
    case Opcode::kCall: return CallT;
    case Opcode::kConvolution: return ConvolutionTranspose;
    case Opcode::kReduceWindow: return ReduceWindowTranspose;
    case Opcode::kSelectAndScatter: return SelectAndScatterTranspose;
    case Opcode::kCholesky: return nullptr;  // not linear
    case Opcode::kTriangularSolve: return TriangularSolveTranspose;
    // issue 11 (h-fft)
    case Opcode::kFft: return FftTranspose;
    // Tangents pass around the barrier (fft_rules.h); a composite's JVP
    // inlines its decomposition; the rest is not linear.
    XJIT_SPECIAL_OPS(XJIT_OPCODE_CASE)
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
      return nullptr;
  }
  return nullptr;
}

}  // namespace xjit::transforms
