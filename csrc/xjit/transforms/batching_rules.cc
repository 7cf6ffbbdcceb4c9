// One batching rule per op. Operands arrive batched along dimension 0 (or
// unbatched); each rule rewrites its op for the extra leading dimension,
// as JAX's batching rules do with bdim moved to 0.
#include "xjit/transforms/fft_rules.h"
#include "xjit/transforms/control_flow_rules.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/custom_call_rules.h"

#include <limits>
#include <numeric>
#include <optional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/literal.h"
#include "xjit/transforms/batch_norm_rules.h"
#include "xjit/transforms/linalg_rules.h"
#include "xjit/transforms/custom_rules.h"
#include "xjit/transforms/indexing_rules.h"
#include "xjit/transforms/collectives.h"
#include "xjit/transforms/status_macros.h"
#include "xjit/transforms/window_rules.h"
#include "xjit/transforms/stop_gradient.h"

namespace xjit::transforms {

// The identity of a reduce body's op for `dtype` (nullopt if it has none here).
std::optional<Literal> BodyIdentity(Opcode op, DType dtype) {
  Literal lit{Shape(dtype, {})};
  bool ok = true;
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>();
    if (op == Opcode::kAdd || op == Opcode::kOr || op == Opcode::kXor) {
      *out = T(0.0f);
    } else if (op == Opcode::kMultiply) {
      *out = T(1.0f);
    } else if constexpr (std::is_same_v<T, bool>) {
      *out = op == Opcode::kAnd || op == Opcode::kMinimum;
    } else if constexpr (std::is_integral_v<T>) {
      if (op == Opcode::kAnd) {
        *out = static_cast<T>(~T(0));
      } else if (op == Opcode::kMaximum) {
        *out = std::numeric_limits<T>::lowest();
      } else if (op == Opcode::kMinimum) {
        *out = std::numeric_limits<T>::max();
      } else {
        ok = false;
      }
    } else if constexpr (is_complex_v<T>) {
      ok = false;
    } else if (op == Opcode::kMaximum || op == Opcode::kMinimum) {
      float inf = std::numeric_limits<float>::infinity();
      *out = T(op == Opcode::kMaximum ? -inf : inf);
    } else {
      ok = false;
    }
  });
  if (!ok) return std::nullopt;
  return lit;
}

// Pad with zeros, then select the per-lane value wherever a padded mask of
// ones says "padding".
ValueOr PadWithLanes(Emitter& e, Value x, Value value, const std::vector<int64_t>& low,
                     const std::vector<int64_t>& high, const std::vector<int64_t>& interior) {
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(x->shape().dtype, {}, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value padded, e.Pad(x, zero, low, high, interior));
  XJIT_TF_ASSIGN_OR_RETURN(Value ones, e.Full(DType::kPred, x->shape().dims, 1.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value no, e.Full(DType::kPred, {}, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value mask, e.Pad(ones, no, low, high, interior));
  XJIT_TF_ASSIGN_OR_RETURN(Value lanes, e.BroadcastInDim(value, padded->shape().dims,
                                                         std::vector<int64_t>{0}));
  return e.Select(mask, padded, lanes);
}

namespace {

std::vector<int64_t> WithBatch(int64_t axis_size, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out = {axis_size};
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

std::vector<int64_t> Shifted(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d + 1);
  return out;
}

BatchOut One(Value v) { return BatchOut{{v}, {true}}; }

// A multi-result op's result: each element batched (a single result as is).
absl::StatusOr<BatchOut> AllBatched(BatchContext& ctx, Value r) {
  if (!r->shape().is_tuple) return One(r);
  BatchOut out;
  for (size_t i = 0; i < r->shape().tuple_shapes.size(); ++i) {
    GetTupleElementAttrs g;
    g.index = static_cast<int64_t>(i);
    XJIT_TF_ASSIGN_OR_RETURN(Value part, ctx.e.builder().Add(Opcode::kGetTupleElement, {r}, g));
    out.values.push_back(part);
    out.batched.push_back(true);
  }
  return out;
}

// Appends `old`'s op with new operands and attributes, its result of type [B] + old type.
ValueOr AddBatched(BatchContext& ctx, std::vector<Value> operands, Attributes attrs) {
  const Shape& s = ctx.old.shape();
  if (DeclaresResultType(ctx.old.opcode())) {
    return ctx.e.builder().AddWithResultType(ctx.old.opcode(),
                                             Shape(s.dtype, WithBatch(ctx.axis_size, s.dims)),
                                             std::move(operands), std::move(attrs),
                                             ctx.old.called_computations());
  }
  return ctx.e.builder().Add(ctx.old.opcode(), std::move(operands), std::move(attrs),
                             ctx.old.called_computations());
}

// Element-wise ops (convert and compare included): batch every operand; a
// scalar operand that the op allows beside arrays (select's predicate,
// clamp's bounds) stays scalar when unbatched, else becomes [B] + dims.
absl::StatusOr<BatchOut> ElementwiseB(BatchContext& ctx) {
  const std::vector<int64_t>& dims = ctx.old.shape().dims;
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    Value v = ctx.operands[i];
    bool scalar = ctx.old.operand(i)->shape().rank() == 0 && !dims.empty();
    if (ctx.batched[i]) {
      if (scalar) {
        XJIT_TF_ASSIGN_OR_RETURN(
            v, ctx.e.BroadcastInDim(v, WithBatch(ctx.axis_size, dims), std::vector<int64_t>{0}));
      }
    } else if (!scalar) {
      XJIT_TF_ASSIGN_OR_RETURN(v, BroadcastBatch(ctx.e, v, ctx.axis_size));
    }
    ops.push_back(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, ops, ctx.old.attributes()));
  return One(r);
}

absl::StatusOr<BatchOut> BroadcastInDimB(BatchContext& ctx) {
  BroadcastInDimAttrs a = ctx.old.attrs<BroadcastInDimAttrs>();
  std::vector<int64_t> bd = {0};
  for (int64_t d : a.broadcast_dimensions) bd.push_back(d + 1);
  a.broadcast_dimensions = bd;
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, a));
  return One(r);
}

absl::StatusOr<BatchOut> ReshapeB(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, {}));
  return One(r);
}

absl::StatusOr<BatchOut> TransposeB(BatchContext& ctx) {
  TransposeAttrs a = ctx.old.attrs<TransposeAttrs>();
  std::vector<int64_t> perm = {0};
  for (int64_t p : a.permutation) perm.push_back(p + 1);
  a.permutation = perm;
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, a));
  return One(r);
}

absl::StatusOr<BatchOut> SliceB(BatchContext& ctx) {
  SliceAttrs a = ctx.old.attrs<SliceAttrs>();
  a.start_indices.insert(a.start_indices.begin(), 0);
  a.limit_indices.insert(a.limit_indices.begin(), ctx.axis_size);
  if (a.strides.empty()) a.strides.assign(a.start_indices.size() - 1, 1);
  a.strides.insert(a.strides.begin(), 1);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, a));
  return One(r);
}

absl::StatusOr<BatchOut> ReverseB(BatchContext& ctx) {
  ReverseAttrs a = ctx.old.attrs<ReverseAttrs>();
  a.dimensions = Shifted(a.dimensions);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, a));
  return One(r);
}

absl::StatusOr<BatchOut> ConcatenateB(BatchContext& ctx) {
  ConcatenateAttrs a = ctx.old.attrs<ConcatenateAttrs>();
  a.dimension += 1;
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    ops.push_back(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, ops, a));
  return One(r);
}

absl::StatusOr<BatchOut> PadB(BatchContext& ctx) {
  PadAttrs a = ctx.old.attrs<PadAttrs>();
  a.edge_padding_low.insert(a.edge_padding_low.begin(), 0);
  a.edge_padding_high.insert(a.edge_padding_high.begin(), 0);
  a.interior_padding.insert(a.interior_padding.begin(), 0);
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  if (!ctx.batched[1]) {
    XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {x, ctx.operands[1]}, a));
    return One(r);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, PadWithLanes(ctx.e, x, ctx.operands[1], a.edge_padding_low,
                                                 a.edge_padding_high, a.interior_padding));
  return One(r);
}

absl::StatusOr<BatchOut> DotGeneralB(BatchContext& ctx) {
  DotDimensionNumbers d = ctx.old.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  Value lhs = ctx.operands[0], rhs = ctx.operands[1];
  bool bl = ctx.batched[0], br = ctx.batched[1];
  if (bl) {
    d.lhs_batching_dimensions = Shifted(d.lhs_batching_dimensions);
    d.lhs_contracting_dimensions = Shifted(d.lhs_contracting_dimensions);
  }
  if (br) {
    d.rhs_batching_dimensions = Shifted(d.rhs_batching_dimensions);
    d.rhs_contracting_dimensions = Shifted(d.rhs_contracting_dimensions);
  }
  int64_t nbatch = static_cast<int64_t>(d.lhs_batching_dimensions.size());
  int64_t position;  // where the batch lands in the dot's result
  if (bl && br) {
    // A new batching pair, first: the result starts with it.
    d.lhs_batching_dimensions.insert(d.lhs_batching_dimensions.begin(), 0);
    d.rhs_batching_dimensions.insert(d.rhs_batching_dimensions.begin(), 0);
    position = 0;
  } else if (bl) {
    position = nbatch;  // the lhs's first free dimension
  } else {
    int64_t lhs_free = lhs->shape().rank() - nbatch -
                       static_cast<int64_t>(d.lhs_contracting_dimensions.size());
    position = nbatch + lhs_free;  // the rhs's first free dimension
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value dot, ctx.e.DotGeneral(lhs, rhs, d));
  std::vector<int64_t> perm = {position};
  for (int64_t i = 0; i < dot->shape().rank(); ++i) {
    if (i != position) perm.push_back(i);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.Transpose(dot, perm));
  return One(r);
}

// A batched init value: reduce from the identity of the body's op, then
// combine each lane's init with its result.
absl::StatusOr<BatchOut> ReduceBatchedInitB(BatchContext& ctx) {
  std::optional<Opcode> op = ReduceBodyOp(*ctx.old.called_computations()[0]);
  std::optional<Literal> identity;
  if (ctx.operands.size() == 2 && op.has_value()) {
    identity = BodyIdentity(*op, ctx.operands[1]->shape().dtype);
  }
  if (!identity.has_value()) {
    return absl::UnimplementedError(
        "vmap: no batching rule for 'reduce' with a batched init value and a body other than "
        "one add, multiply, max, min, and, or, xor yet");
  }
  Emitter& e = ctx.e;
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  Value init = e.builder().Constant(*std::move(identity));
  ReduceAttrs a = ctx.old.attrs<ReduceAttrs>();
  a.dimensions = Shifted(a.dimensions);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(Opcode::kReduce, {x, init}, a,
                                                    ctx.old.called_computations()));
  XJIT_TF_ASSIGN_OR_RETURN(Value lanes,
                           e.BroadcastInDim(ctx.operands[1], r->shape().dims, std::vector<int64_t>{0}));
  XJIT_TF_ASSIGN_OR_RETURN(Value out, e.Binary(*op, lanes, r));
  return One(out);
}

absl::StatusOr<BatchOut> ReduceB(BatchContext& ctx) {
  size_t n = ctx.operands.size() / 2;
  for (size_t i = n; i < ctx.operands.size(); ++i) {
    if (ctx.batched[i]) return ReduceBatchedInitB(ctx);
  }
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    Value v = ctx.operands[i];
    if (i < n) {
      XJIT_TF_ASSIGN_OR_RETURN(v, ctx.Batched(static_cast<int>(i)));
    }
    ops.push_back(v);
  }
  ReduceAttrs a = ctx.old.attrs<ReduceAttrs>();
  a.dimensions = Shifted(a.dimensions);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(Opcode::kReduce, ops, a,
                                                        ctx.old.called_computations()));
  return AllBatched(ctx, r);
}

// sort: every operand batched, the sorted dimension shifted past the batch
// (a negative one counts from the end and stays).
absl::StatusOr<BatchOut> SortB(BatchContext& ctx) {
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    ops.push_back(v);
  }
  SortAttrs a = ctx.old.attrs<SortAttrs>();
  if (a.dimension >= 0) a.dimension += 1;
  XJIT_TF_ASSIGN_OR_RETURN(
      Value r, ctx.e.builder().Add(Opcode::kSort, ops, a, ctx.old.called_computations()));
  return AllBatched(ctx, r);
}

// map: every operand batched, the batch dimension mapped too.
absl::StatusOr<BatchOut> MapB(BatchContext& ctx) {
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    ops.push_back(v);
  }
  MapAttrs a = ctx.old.attrs<MapAttrs>();
  a.dimensions = WithBatch(0, Shifted(a.dimensions));
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, ops, a));
  return One(r);
}

// bitcast_convert: per element; a width change adds or drops a minor dim.
absl::StatusOr<BatchOut> BitcastConvertB(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value r, AddBatched(ctx, {ctx.operands[0]}, ctx.old.attributes()));
  return One(r);
}

// rng_bit_generator with a batched key: JAX's rule. The first lane's key
// makes all the lanes' bits ([B] + shape at once); it alone advances, the
// other keys come back as they were.
absl::StatusOr<BatchOut> RngBitGeneratorB(BatchContext& ctx) {
  Emitter& e = ctx.e;
  Value keys = ctx.operands[0];
  const Shape& key_shape = ctx.old.operand(0)->shape();
  const int64_t b = ctx.axis_size;
  std::vector<int64_t> start(key_shape.rank() + 1, 0), limit = WithBatch(1, key_shape.dims);
  const std::vector<int64_t> unit(start.size(), 1);
  XJIT_TF_ASSIGN_OR_RETURN(Value first, e.Slice(keys, start, limit, unit));
  XJIT_TF_ASSIGN_OR_RETURN(Value key, e.Reshape(first, key_shape.dims));
  const Shape& bits = ctx.old.shape().tuple_shapes[1];
  XJIT_TF_ASSIGN_OR_RETURN(
      Value r, e.builder().AddWithResultType(
                   Opcode::kRngBitGenerator,
                   Shape::Tuple({key_shape, Shape(bits.dtype, WithBatch(b, bits.dims))}), {key},
                   ctx.old.attributes()));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(e.builder(), r));
  XJIT_TF_ASSIGN_OR_RETURN(Value new_key, e.Reshape(parts[0], limit));
  start[0] = 1;
  XJIT_TF_ASSIGN_OR_RETURN(Value rest, e.Slice(keys, start, WithBatch(b, key_shape.dims), unit));
  ConcatenateAttrs c;
  c.dimension = 0;
  XJIT_TF_ASSIGN_OR_RETURN(Value new_keys, e.builder().Add(Opcode::kConcatenate, {new_key, rest}, c));
  return BatchOut{{new_keys, parts[1]}, {true, true}};
}

// call, fusion: the body is batched in place (inlined).
absl::StatusOr<BatchOut> InlineB(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(std::optional<CustomCall> custom, AsCustomCall(ctx.old));
  if (custom.has_value()) {
    return CustomCallBatch(ctx.e, ctx.old, *custom, ctx.operands, ctx.batched, ctx.axis_size);
  }
  if (std::optional<Collective> c = AsCollective(*ctx.old.called_computations()[0])) {
    return CollectiveBatch(ctx, *c);
  }
  if (IsStopGradient(*ctx.old.called_computations()[0])) {  // keep the marker
    XJIT_TF_ASSIGN_OR_RETURN(Value v, StopGradient(ctx.e, ctx.operands[0]));
    return One(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(
      BatchOut out, ctx.driver.Run(*ctx.old.called_computations()[0], ctx.operands, ctx.batched));
  return out;
}

}  // namespace

BatchRule BatchRuleFor(Opcode op) {
  switch (op) {
#define XJIT_BATCH_ELEMENTWISE(e, name, family, arity, attrs, regions, flags) \
  case Opcode::k##e:                                                           \
    return ElementwiseB;
    XJIT_ELEMENTWISE_OPS(XJIT_BATCH_ELEMENTWISE)
#undef XJIT_BATCH_ELEMENTWISE
    case Opcode::kBroadcastInDim: return BroadcastInDimB;
    case Opcode::kReshape: return ReshapeB;
    case Opcode::kTranspose: return TransposeB;
    case Opcode::kSlice: return SliceB;
    case Opcode::kConcatenate: return ConcatenateB;
    case Opcode::kPad: return PadB;
    case Opcode::kReverse: return ReverseB;
    case Opcode::kDotGeneral: return DotGeneralB;
    case Opcode::kReduce: return ReduceB;
    case Opcode::kCall:
    case Opcode::kComposite:  // its decomposition, batched in place
    case Opcode::kFusion:
      return InlineB;
    // Nullary ops are never batched; tuples are handled by the driver.
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
      return nullptr;
    case Opcode::kRngBitGenerator: return RngBitGeneratorB;
    case Opcode::kSort: return SortB;
    case Opcode::kMap: return MapB;
    case Opcode::kBitcastConvert: return BitcastConvertB;
    case Opcode::kGather: return GatherB;
    case Opcode::kScatter: return ScatterB;
    case Opcode::kDynamicSlice: return DynamicSliceB;
    case Opcode::kDynamicUpdateSlice: return DynamicUpdateSliceB;
    case Opcode::kIf:
    case Opcode::kCase:
      return BranchBatch;
    case Opcode::kWhile:
      return WhileBatch;
    case Opcode::kConvolution: return ConvolutionBatch;
    case Opcode::kReduceWindow: return ReduceWindowBatch;
    case Opcode::kSelectAndScatter: return SelectAndScatterBatch;
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      return BatchNormBatch;
    XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
      return LinalgBatch;
    // issue 11 (h-fft)
    case Opcode::kFft: return FftBatch;
    case Opcode::kOptimizationBarrier: return OptimizationBarrierBatch;
    case Opcode::kReplicaId:  // nullary: never batched
    case Opcode::kPartitionId:
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
    case Opcode::kUniformQuantize:  // lowered with their types first
    case Opcode::kUniformDequantize:
    // A host transfer of a batched value has no one meaning (one transfer of
    // the stacked values, or one per element): refused, as JAX refuses it.
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      return nullptr;
    // Host callbacks batch as their vmap_method says; other targets refuse.
    case Opcode::kCustomCall:
      return CustomCallBatch;
  }
  return nullptr;
}

}  // namespace xjit::transforms
