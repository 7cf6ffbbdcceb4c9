#include "xjit/transforms/window_rules.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/window_attrs.h"
#include "xjit/transforms/region_jvp.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

using Cts = std::vector<Value>;
using Pairs = std::vector<std::pair<int64_t, int64_t>>;

JvpOut OneTangent(Value t) { return JvpOut{{}, {t}}; }

int64_t Dilate(int64_t d, int64_t k) { return d == 0 ? 0 : 1 + k * (d - 1); }

// JAX's conv dimension-number triples: lhs (batch, feature, spatial...),
// rhs (out feature, in feature, spatial...), out (batch, feature, spatial...).
struct Specs {
  std::vector<int64_t> lhs, rhs, out;
};

Specs ToSpecs(const ConvDimensionNumbers& d) {
  Specs s;
  s.lhs = {d.input_batch_dimension, d.input_feature_dimension};
  s.rhs = {d.kernel_output_feature_dimension, d.kernel_input_feature_dimension};
  s.out = {d.output_batch_dimension, d.output_feature_dimension};
  s.lhs.insert(s.lhs.end(), d.input_spatial_dimensions.begin(), d.input_spatial_dimensions.end());
  s.rhs.insert(s.rhs.end(), d.kernel_spatial_dimensions.begin(), d.kernel_spatial_dimensions.end());
  s.out.insert(s.out.end(), d.output_spatial_dimensions.begin(), d.output_spatial_dimensions.end());
  return s;
}

ConvDimensionNumbers FromSpecs(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                               const std::vector<int64_t>& out) {
  ConvDimensionNumbers d;
  d.input_batch_dimension = lhs[0];
  d.input_feature_dimension = lhs[1];
  d.input_spatial_dimensions.assign(lhs.begin() + 2, lhs.end());
  d.kernel_output_feature_dimension = rhs[0];
  d.kernel_input_feature_dimension = rhs[1];
  d.kernel_spatial_dimensions.assign(rhs.begin() + 2, rhs.end());
  d.output_batch_dimension = out[0];
  d.output_feature_dimension = out[1];
  d.output_spatial_dimensions.assign(out.begin() + 2, out.end());
  return d;
}

std::vector<int64_t> SwapFirstTwo(std::vector<int64_t> spec) {
  std::swap(spec[0], spec[1]);
  return spec;
}

std::vector<int64_t> Take(const std::vector<int64_t>& dims, const std::vector<int64_t>& idx,
                          size_t from = 2) {
  std::vector<int64_t> out;
  for (size_t i = from; i < idx.size(); ++i) out.push_back(dims[idx[i]]);
  return out;
}

// JAX's _reshape_axis_out_of: dimension `src` becomes (size1, dims[src] / size1).
ValueOr ReshapeAxisOutOf(Emitter& e, int64_t src, int64_t size1, Value x) {
  std::vector<int64_t> dims = x->shape().dims;
  const int64_t size2 = dims[src] / size1;
  dims[src] = size2;
  dims.insert(dims.begin() + src, size1);
  return e.Reshape(x, dims);
}

// JAX's _reshape_axis_into: dimension `src` merged into `dst` (numbered after
// `src` is removed) as its major part.
ValueOr ReshapeAxisInto(Emitter& e, int64_t src, int64_t dst, Value x) {
  const int64_t rank = x->shape().rank();
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != src) perm.push_back(i);
  }
  perm.insert(perm.begin() + dst, src);
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != src) dims.push_back(x->shape().dims[i]);
  }
  dims[dst] *= x->shape().dims[src];
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i) identity = identity && perm[i] == i;
  if (!identity) {
    XJIT_TF_ASSIGN_OR_RETURN(x, e.Transpose(x, perm));
  }
  return e.Reshape(x, dims);
}

// Moves dimension `from` to position 0.
ValueOr MoveToFront(Emitter& e, Value x, int64_t from) {
  if (from == 0) return x;
  std::vector<int64_t> perm = {from};
  for (int64_t i = 0; i < x->shape().rank(); ++i) {
    if (i != from) perm.push_back(i);
  }
  return e.Transpose(x, perm);
}

ValueOr Reverse(Emitter& e, Value x, std::vector<int64_t> dims) {
  if (dims.empty()) return x;
  ReverseAttrs a;
  a.dimensions = std::move(dims);
  return e.builder().Add(Opcode::kReverse, {x}, a);
}

ValueOr Conv(Emitter& e, Value lhs, Value rhs, std::vector<int64_t> strides, const Pairs& pads,
             std::vector<int64_t> lhs_dilation, std::vector<int64_t> rhs_dilation,
             ConvDimensionNumbers dn, int64_t fgc, int64_t bgc) {
  ConvolutionAttrs a;
  a.window_strides = std::move(strides);
  a.padding = PaddingLiteral(pads);
  a.lhs_dilation = std::move(lhs_dilation);
  a.rhs_dilation = std::move(rhs_dilation);
  a.window_reversal.assign(a.window_strides.size(), 0);
  a.dimension_numbers = std::move(dn);
  a.feature_group_count = fgc;
  a.batch_group_count = bgc;
  return e.builder().Add(Opcode::kConvolution, {lhs, rhs}, a);
}

// The kernel dims window_reversal flips.
std::vector<int64_t> ReversedKernelDims(const ConvolutionAttrs& a) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < a.window_reversal.size(); ++i) {
    if (a.window_reversal[i] != 0) dims.push_back(a.dimension_numbers.kernel_spatial_dimensions[i]);
  }
  return dims;
}

absl::StatusOr<Pairs> Padding(const Literal& padding, int64_t n) {
  auto p = PaddingPairs(padding, n);
  if (!p.ok()) return absl::InternalError(std::string(p.status().message()));
  return *p;
}

// JAX's _conv_general_vjp_lhs_padding.
Pairs VjpLhsPadding(const std::vector<int64_t>& in, const std::vector<int64_t>& window,
                    const std::vector<int64_t>& strides, const std::vector<int64_t>& out,
                    const Pairs& padding, const std::vector<int64_t>& lhs_dilation,
                    const std::vector<int64_t>& rhs_dilation) {
  Pairs pads;
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t ld = Dilate(in[i], lhs_dilation[i]), rd = Dilate(window[i], rhs_dilation[i]);
    const int64_t od = Dilate(out[i], strides[i]);
    const int64_t before = rd - padding[i].first - 1;
    pads.emplace_back(before, ld + rd - 1 - od - before);
  }
  return pads;
}

// JAX's _conv_general_vjp_rhs_padding.
Pairs VjpRhsPadding(const std::vector<int64_t>& in, const std::vector<int64_t>& window,
                    const std::vector<int64_t>& strides, const std::vector<int64_t>& out,
                    const Pairs& padding, const std::vector<int64_t>& lhs_dilation,
                    const std::vector<int64_t>& rhs_dilation) {
  Pairs pads;
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t ld = Dilate(in[i], lhs_dilation[i]), rd = Dilate(window[i], rhs_dilation[i]);
    const int64_t od = Dilate(out[i], strides[i]);
    const int64_t lo = padding[i].first;
    pads.emplace_back(lo, (od - ld) + (rd - lo - 1));
  }
  return pads;
}

// The lowest (GE/GT) or highest (LE/LT) value of `t`: padding no window picks.
Literal ChooserIdentity(DType t, bool lowest) {
  Literal l(Shape(t, {}));
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      l.mutable_data_as<T>()[0] = !lowest;
    } else if constexpr (std::is_integral_v<T>) {
      l.mutable_data_as<T>()[0] =
          lowest ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    } else if constexpr (is_complex_v<T>) {
      l.mutable_data_as<T>()[0] = T(0);
    } else {
      l.mutable_data_as<T>()[0] = T(lowest ? -INFINITY : INFINITY);
    }
  });
  return l;
}

// (av, at, bv, bt) -> compare(av, bv, dir) ? (av, at) : (bv, bt).
absl::StatusOr<Computation*> ChooserBody(Emitter& e, DType value, DType tangent,
                                         ComparisonDirection dir) {
  ComputationBuilder* b = e.module().NewComputation("window_chooser");
  if (b == nullptr) return absl::FailedPreconditionError("transform: module already built");
  Value av = b->Parameter(Shape(value, {}));
  Value at = b->Parameter(Shape(tangent, {}));
  Value bv = b->Parameter(Shape(value, {}));
  Value bt = b->Parameter(Shape(tangent, {}));
  CompareAttrs c;
  c.comparison_direction = dir;
  XJIT_TF_ASSIGN_OR_RETURN(Value keep, b->Add(Opcode::kCompare, {av, bv}, c));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, b->Add(Opcode::kSelect, {keep, av, bv}));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, b->Add(Opcode::kSelect, {keep, at, bt}));
  return b->Finish({v, t});
}

// `tangent` at the position each window of `operand` selects (JAX's
// select_and_gather_add): a variadic reduce_window of (operand, tangent).
ValueOr SelectAndGather(Emitter& e, Value operand, Value operand_init, Value tangent,
                        ReduceWindowAttrs attrs, ComparisonDirection dir) {
  XJIT_TF_ASSIGN_OR_RETURN(Computation * body, ChooserBody(e, operand->shape().dtype,
                                                           tangent->shape().dtype, dir));
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(tangent->shape().dtype, {}, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(Opcode::kReduceWindow,
                                                    {operand, tangent, operand_init, zero},
                                                    std::move(attrs), {body}));
  GetTupleElementAttrs g;
  g.index = 1;
  return e.builder().Add(Opcode::kGetTupleElement, {r}, g);
}

// The scatter (or select) region is `op(p0, p1)` / the select a compare of (p0, p1).
std::optional<ComparisonDirection> SelectDirection(const Computation& select) {
  if (select.results().size() != 1 || select.parameters().size() != 2) return std::nullopt;
  const Instruction* r = select.results()[0];
  if (r->opcode() != Opcode::kCompare || r->operand(0) != select.parameters()[0] ||
      r->operand(1) != select.parameters()[1]) {
    return std::nullopt;
  }
  return r->attrs<CompareAttrs>().comparison_direction;
}

// The direction of a chooser body made by ChooserBody (or a user's equivalent).
std::optional<ComparisonDirection> ChooserDirection(const Computation& body) {
  if (body.parameters().size() != 4 || body.results().size() != 2) return std::nullopt;
  const Instruction* v = body.results()[0];
  const Instruction* t = body.results()[1];
  if (v->opcode() != Opcode::kSelect || t->opcode() != Opcode::kSelect ||
      v->operand(0) != t->operand(0)) {
    return std::nullopt;
  }
  const Instruction* c = v->operand(0);
  const auto& p = body.parameters();
  if (c->opcode() != Opcode::kCompare || c->operand(0) != p[0] || c->operand(1) != p[2] ||
      v->operand(1) != p[0] || v->operand(2) != p[2] || t->operand(1) != p[1] ||
      t->operand(2) != p[3]) {
    return std::nullopt;
  }
  return c->attrs<CompareAttrs>().comparison_direction;
}

bool LowestFirst(ComparisonDirection d) {
  return d == ComparisonDirection::kGe || d == ComparisonDirection::kGt;
}

absl::StatusOr<Computation*> CompareRegion(Emitter& e, DType t, ComparisonDirection dir) {
  ComputationBuilder* b = e.module().NewComputation("window_select");
  if (b == nullptr) return absl::FailedPreconditionError("transform: module already built");
  Value x = b->Parameter(Shape(t, {}));
  Value y = b->Parameter(Shape(t, {}));
  CompareAttrs c;
  c.comparison_direction = dir;
  XJIT_TF_ASSIGN_OR_RETURN(Value r, b->Add(Opcode::kCompare, {x, y}, c));
  return b->Finish({r});
}

}  // namespace

// ------------------------------------------------------------------- JVP

absl::StatusOr<JvpOut> ConvolutionJvp(JvpContext& ctx) {
  Value a = nullptr, b = nullptr;
  if (ctx.t(0) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(a, CloneOnto(ctx.e.builder(), ctx.old, {ctx.t(0), ctx.x(1)}));
  }
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(b, CloneOnto(ctx.e.builder(), ctx.old, {ctx.x(0), ctx.t(1)}));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, ctx.e.AddAny(a, b));
  return OneTangent(t);
}

absl::StatusOr<JvpOut> ReduceWindowJvp(JvpContext& ctx) {
  if (ctx.primal_operands.size() == 4) {
    // The chooser of a max/min pooling JVP (operand, tangent): both results
    // are gathered at the chosen positions, so their tangents are too.
    std::optional<ComparisonDirection> dir = ChooserDirection(*ctx.old.called_computations()[0]);
    if (!dir.has_value()) return GeneralReduceWindowJvp(ctx);
    JvpOut out;
    for (int i = 0; i < 2; ++i) {
      Value t = nullptr;
      if (ctx.t(i) != nullptr) {
        XJIT_TF_ASSIGN_OR_RETURN(t, SelectAndGather(ctx.e, ctx.x(0), ctx.x(2), ctx.t(i),
                                                    ctx.old.attrs<ReduceWindowAttrs>(), *dir));
      }
      out.tangents.push_back(t);
    }
    return out;
  }
  if (ctx.primal_operands.size() != 2) return GeneralReduceWindowJvp(ctx);
  std::optional<Opcode> op = ReduceBodyOp(*ctx.old.called_computations()[0]);
  if (op == Opcode::kAdd) {  // linear in (operand, init value)
    if (ctx.t(0) == nullptr && ctx.t(1) == nullptr) return OneTangent(nullptr);
    XJIT_TF_ASSIGN_OR_RETURN(Value tx, ctx.TOrZeros(0));
    XJIT_TF_ASSIGN_OR_RETURN(Value ti, ctx.TOrZeros(1));
    XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, {tx, ti}));
    return OneTangent(t);
  }
  if (op == Opcode::kMaximum || op == Opcode::kMinimum) {
    // JAX's _reduce_window_chooser_jvp_rule; the init value's tangent is dropped.
    if (ctx.t(0) == nullptr) return OneTangent(nullptr);
    const ComparisonDirection dir =
        op == Opcode::kMaximum ? ComparisonDirection::kGe : ComparisonDirection::kLe;
    XJIT_TF_ASSIGN_OR_RETURN(Value t, SelectAndGather(ctx.e, ctx.x(0), ctx.x(1), ctx.t(0),
                                                      ctx.old.attrs<ReduceWindowAttrs>(), dir));
    return OneTangent(t);
  }
  return GeneralReduceWindowJvp(ctx);
}

absl::StatusOr<JvpOut> SelectAndScatterJvp(JvpContext& ctx) {
  const Computation& scatter = *ctx.old.called_computations()[1];
  if (ReduceBodyOp(scatter) != Opcode::kAdd ||
      !SelectDirection(*ctx.old.called_computations()[0]).has_value()) {
    return absl::UnimplementedError(
        "jvp: 'select_and_scatter' is differentiable with a compare select and an add scatter");
  }
  // Piecewise constant in the operand; linear in (source, init value).
  if (ctx.t(1) == nullptr && ctx.t(2) == nullptr) return OneTangent(nullptr);
  XJIT_TF_ASSIGN_OR_RETURN(Value ts, ctx.TOrZeros(1));
  XJIT_TF_ASSIGN_OR_RETURN(Value ti, ctx.TOrZeros(2));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, {ctx.x(0), ts, ti}));
  return OneTangent(t);
}

// ------------------------------------------------------------- transpose

absl::StatusOr<Cts> ConvolutionTranspose(TransposeContext& ctx) {
  if (ctx.linear[0] && ctx.linear[1]) {
    return absl::InternalError("vjp: a convolution of two tangents is not linear");
  }
  Emitter& e = ctx.e;
  const ConvolutionAttrs& a = ctx.old.attrs<ConvolutionAttrs>();
  const Specs s = ToSpecs(a.dimension_numbers);
  const Shape& lhs_shape = ctx.operand_shape(0);
  const Shape& rhs_shape = ctx.operand_shape(1);
  const size_t ns = s.lhs.size() - 2;
  XJIT_TF_ASSIGN_OR_RETURN(Pairs padding, Padding(a.padding, static_cast<int64_t>(ns)));
  const std::vector<int64_t> lhs_sp = Take(lhs_shape.dims, s.lhs);
  const std::vector<int64_t> rhs_sp = Take(rhs_shape.dims, s.rhs);
  const std::vector<int64_t> out_sp = Take(ctx.ct->shape().dims, s.out);
  const int64_t fgc = a.feature_group_count, bgc = a.batch_group_count;
  const std::vector<int64_t> reversed = ReversedKernelDims(a);
  Cts out(2, nullptr);
  if (ctx.linear[0]) {  // JAX's _conv_general_dilated_transpose_lhs
    Value rhs = ctx.primal[1];
    XJIT_TF_ASSIGN_OR_RETURN(rhs, Reverse(e, rhs, reversed));
    const int64_t groups = std::max(fgc, bgc);
    if (groups > 1) {
      XJIT_TF_ASSIGN_OR_RETURN(rhs, ReshapeAxisOutOf(e, s.rhs[0], groups, rhs));
      XJIT_TF_ASSIGN_OR_RETURN(rhs, ReshapeAxisInto(e, s.rhs[0], s.rhs[1], rhs));
    }
    ConvDimensionNumbers dn = FromSpecs(s.out, SwapFirstTwo(s.rhs), s.lhs);
    Pairs pads = VjpLhsPadding(lhs_sp, rhs_sp, a.window_strides, out_sp, padding, a.lhs_dilation,
                               a.rhs_dilation);
    XJIT_TF_ASSIGN_OR_RETURN(rhs, Reverse(e, rhs, std::vector<int64_t>(s.rhs.begin() + 2,
                                                                       s.rhs.end())));
    XJIT_TF_ASSIGN_OR_RETURN(Value g, Conv(e, ctx.ct, rhs, a.lhs_dilation, pads, a.window_strides,
                                           a.rhs_dilation, dn, groups, 1));
    if (bgc > 1) {
      XJIT_TF_ASSIGN_OR_RETURN(g, ReshapeAxisOutOf(e, s.lhs[1], bgc, g));
      XJIT_TF_ASSIGN_OR_RETURN(g, ReshapeAxisInto(e, s.lhs[1], s.lhs[0], g));
    }
    out[0] = g;
  } else {  // JAX's _conv_general_dilated_transpose_rhs
    if (ctx.ct->shape().num_elements() == 0) {
      XJIT_TF_ASSIGN_OR_RETURN(out[1], e.ZerosLike(rhs_shape));
      return out;
    }
    int64_t new_fgc = fgc, new_bgc = bgc;
    if (bgc > 1) {
      new_fgc = bgc;
      new_bgc = 1;
    } else if (fgc > 1) {
      new_bgc = fgc;
      new_fgc = 1;
    }
    ConvDimensionNumbers dn = FromSpecs(SwapFirstTwo(s.lhs), SwapFirstTwo(s.out),
                                        SwapFirstTwo(s.rhs));
    Pairs pads = VjpRhsPadding(lhs_sp, rhs_sp, a.window_strides, out_sp, padding, a.lhs_dilation,
                               a.rhs_dilation);
    XJIT_TF_ASSIGN_OR_RETURN(Value g, Conv(e, ctx.primal[0], ctx.ct, a.rhs_dilation, pads,
                                           a.lhs_dilation, a.window_strides, dn, new_fgc,
                                           new_bgc));
    XJIT_TF_ASSIGN_OR_RETURN(out[1], Reverse(e, g, reversed));
  }
  return out;
}

absl::StatusOr<Cts> ReduceWindowTranspose(TransposeContext& ctx) {
  Emitter& e = ctx.e;
  const ReduceWindowAttrs& a = ctx.old.attrs<ReduceWindowAttrs>();
  const Computation& body = *ctx.old.called_computations()[0];
  const int64_t rank = ctx.operand_shape(0).rank();
  XJIT_TF_ASSIGN_OR_RETURN(Pairs padding, Padding(a.padding, rank));
  if (ctx.linear.size() == 2 && ReduceBodyOp(body) == Opcode::kAdd) {
    Cts out(2, nullptr);
    const Shape& in = ctx.operand_shape(0);
    XJIT_TF_ASSIGN_OR_RETURN(Computation * add, e.ScalarBody(Opcode::kAdd, ctx.ct->shape().dtype));
    if (ctx.linear[1]) {
      // Each output adds the init value once, plus once per window position
      // in padding or a dilation hole: 1 + window size - real elements.
      int64_t window = 1;
      for (int64_t w : a.window_dimensions) window *= w;
      const DType t = ctx.ct->shape().dtype;
      XJIT_TF_ASSIGN_OR_RETURN(Value ones, e.Full(t, in.dims, 1.0));
      XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(t, {}, 0.0));
      XJIT_TF_ASSIGN_OR_RETURN(Value real, e.builder().Add(Opcode::kReduceWindow, {ones, zero}, a,
                                                           {add}));
      XJIT_TF_ASSIGN_OR_RETURN(Value total, e.Full(t, ctx.ct->shape().dims,
                                                   static_cast<double>(1 + window)));
      XJIT_TF_ASSIGN_OR_RETURN(Value times, e.Sub(total, real));
      XJIT_TF_ASSIGN_OR_RETURN(Value weighted, e.Mul(ctx.ct, times));
      std::vector<int64_t> all;
      for (int64_t d = 0; d < rank; ++d) all.push_back(d);
      XJIT_TF_ASSIGN_OR_RETURN(out[1], e.ReduceSum(weighted, all));
    }
    if (!ctx.linear[0]) return out;
    // JAX's _reduce_window_sum_transpose_rule.
    Pairs pads = VjpLhsPadding(in.dims, a.window_dimensions, a.window_strides, ctx.ct->shape().dims,
                               padding, a.base_dilations, a.window_dilations);
    std::vector<int64_t> lo, hi, interior;
    bool plain_padding = true;  // no interior padding and none negative
    for (int64_t i = 0; i < rank; ++i) {
      lo.push_back(pads[i].first);
      hi.push_back(pads[i].second);
      interior.push_back(a.window_strides[i] - 1);
      plain_padding &= interior.back() == 0 && lo.back() >= 0 && hi.back() >= 0;
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(ctx.ct->shape().dtype, {}, 0.0));
    ReduceWindowAttrs sum;
    sum.window_dimensions = a.window_dimensions;
    sum.window_strides = a.base_dilations;
    sum.base_dilations.assign(rank, 1);
    sum.window_dilations = a.window_dilations;
    Value padded = ctx.ct;
    if (plain_padding) {
      // The window's own padding (zeros, the init): no padded copy, and a
      // cumulative sum's transpose stays one (cpu/cumulative_sum.h).
      sum.padding = PaddingLiteral(pads);
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(padded, e.Pad(ctx.ct, zero, lo, hi, interior));
      sum.padding = PaddingLiteral(Pairs(rank, {0, 0}));
    }
    XJIT_TF_ASSIGN_OR_RETURN(out[0], e.builder().Add(Opcode::kReduceWindow, {padded, zero}, sum,
                                                         {add}));
    return out;
  }
  std::optional<ComparisonDirection> dir = ChooserDirection(body);
  if (ctx.linear.size() == 4 && dir.has_value() && !ctx.linear[0] && ctx.linear[1] &&
      !ctx.linear[2] && !ctx.linear[3]) {
    // JAX's _select_and_gather_add_transpose: select_and_scatter with an add scatter.
    Value ct = ctx.ct_parts.size() > 1 ? ctx.ct_parts[1] : nullptr;
    if (ct == nullptr) return Cts(4, nullptr);
    for (int64_t d : a.window_dilations) {
      if (d != 1) {
        return absl::UnimplementedError(
            "vjp: the max/min pooling gradient with window dilation is not implemented");
      }
    }
    Value operand = ctx.primal[0];
    const DType t = operand->shape().dtype;
    bool base_dilated = false;
    std::vector<int64_t> interior;
    for (int64_t d : a.base_dilations) {
      base_dilated = base_dilated || d != 1;
      interior.push_back(d - 1);
    }
    if (base_dilated) {
      Value fill = e.builder().Constant(ChooserIdentity(t, LowestFirst(*dir)));
      XJIT_TF_ASSIGN_OR_RETURN(operand, e.Pad(operand, fill, std::vector<int64_t>(rank, 0),
                                              std::vector<int64_t>(rank, 0), interior));
    }
    SelectAndScatterAttrs sa;
    sa.window_dimensions = a.window_dimensions;
    sa.window_strides = a.window_strides;
    sa.padding = a.padding;
    XJIT_TF_ASSIGN_OR_RETURN(Computation * select, CompareRegion(e, t, *dir));
    XJIT_TF_ASSIGN_OR_RETURN(Computation * add, e.ScalarBody(Opcode::kAdd, ct->shape().dtype));
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(ct->shape().dtype, {}, 0.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(Opcode::kSelectAndScatter,
                                                      {operand, ct, zero}, sa, {select, add}));
    if (base_dilated) {
      XJIT_TF_ASSIGN_OR_RETURN(r, e.Slice(r, std::vector<int64_t>(rank, 0), r->shape().dims,
                                          a.base_dilations));
    }
    return Cts{nullptr, r, nullptr, nullptr};
  }
  return absl::UnimplementedError(
      "vjp: only sum and max/min-chooser 'reduce_window' values of tangents can be transposed");
}

absl::StatusOr<Cts> SelectAndScatterTranspose(TransposeContext& ctx) {
  Emitter& e = ctx.e;
  std::optional<ComparisonDirection> dir = SelectDirection(*ctx.old.called_computations()[0]);
  if (ctx.linear[0] || !dir.has_value() ||
      ReduceBodyOp(*ctx.old.called_computations()[1]) != Opcode::kAdd) {
    return absl::UnimplementedError(
        "vjp: only 'select_and_scatter' with a compare select and an add scatter, linear in "
        "source and init value, can be transposed");
  }
  Cts out(3, nullptr);
  const SelectAndScatterAttrs& a = ctx.old.attrs<SelectAndScatterAttrs>();
  Value operand = ctx.primal[0];
  if (ctx.linear[1]) {
    ReduceWindowAttrs rw;
    rw.window_dimensions = a.window_dimensions;
    rw.window_strides = a.window_strides;
    const int64_t rank = operand->shape().rank();
    rw.base_dilations.assign(rank, 1);
    rw.window_dilations.assign(rank, 1);
    rw.padding = a.padding;
    Value init = e.builder().Constant(ChooserIdentity(operand->shape().dtype, LowestFirst(*dir)));
    XJIT_TF_ASSIGN_OR_RETURN(out[1], SelectAndGather(e, operand, init, ctx.ct, rw, *dir));
  }
  if (ctx.linear[2]) {  // every result element starts from the init value
    std::vector<int64_t> all;
    for (int64_t d = 0; d < ctx.ct->shape().rank(); ++d) all.push_back(d);
    XJIT_TF_ASSIGN_OR_RETURN(out[2], e.ReduceSum(ctx.ct, all));
  }
  return out;
}

// -------------------------------------------------------------- batching

absl::StatusOr<BatchOut> ConvolutionBatch(BatchContext& ctx) {
  Emitter& e = ctx.e;
  const ConvolutionAttrs& a = ctx.old.attrs<ConvolutionAttrs>();
  const Specs s = ToSpecs(a.dimension_numbers);
  const int64_t B = ctx.axis_size;
  const bool lb = ctx.batched[0], rb = ctx.batched[1];
  ConvolutionAttrs na = a;
  Value lhs = ctx.operands[0], rhs = ctx.operands[1];
  Value r = nullptr;
  int64_t split_dim = 0;
  const int64_t groups = a.feature_group_count;
  const int64_t bgroups = a.batch_group_count;
  bool regroup = false;  // output features come out as (G, B, O/G)
  // Splits dimension `d` (of the unbatched numbering, shifted by the leading
  // batch) into (G, rest) and moves the vmapped dimension inside: (G, B, rest).
  auto group_outermost = [&](Value x, int64_t d, int64_t g) -> ValueOr {
    const int64_t at = d + 1;
    XJIT_TF_ASSIGN_OR_RETURN(x, ReshapeAxisOutOf(e, at, g, x));
    XJIT_TF_ASSIGN_OR_RETURN(x, ReshapeAxisInto(e, 0, at, x));
    return ReshapeAxisInto(e, at - 1, at - 1, x);
  };
  if (lb && !rb) {
    if (bgroups == 1) {
      XJIT_TF_ASSIGN_OR_RETURN(lhs, ReshapeAxisInto(e, 0, s.lhs[0], lhs));
    } else {  // batch groups stay outermost: (G, B, N/G)
      XJIT_TF_ASSIGN_OR_RETURN(lhs, group_outermost(lhs, s.lhs[0], bgroups));
    }
    split_dim = s.out[0];
  } else if (rb && !lb) {
    if (groups == 1 && bgroups == 1) {
      XJIT_TF_ASSIGN_OR_RETURN(rhs, ReshapeAxisInto(e, 0, s.rhs[0], rhs));
    } else {  // (G, O/G) -> (G, B, O/G), so each group keeps its own kernels
      XJIT_TF_ASSIGN_OR_RETURN(rhs, group_outermost(rhs, s.rhs[0], std::max(groups, bgroups)));
      regroup = true;
    }
    split_dim = s.out[1];
  } else {
    // One group per (batch element, group): kernel output features (B, O);
    // lhs features (B, C) for feature groups, lhs batch (B, N) for batch groups.
    if (bgroups > 1) {
      XJIT_TF_ASSIGN_OR_RETURN(lhs, ReshapeAxisInto(e, 0, s.lhs[0], lhs));
      na.batch_group_count = B * bgroups;
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(lhs, ReshapeAxisInto(e, 0, s.lhs[1], lhs));
      na.feature_group_count = B * groups;
    }
    XJIT_TF_ASSIGN_OR_RETURN(rhs, ReshapeAxisInto(e, 0, s.rhs[0], rhs));
    split_dim = s.out[1];
  }
  if (regroup) {
    XJIT_TF_ASSIGN_OR_RETURN(r, e.builder().Add(Opcode::kConvolution, {lhs, rhs}, na));
    const int64_t f = s.out[1];
    XJIT_TF_ASSIGN_OR_RETURN(r, ReshapeAxisOutOf(e, f, std::max(groups, bgroups), r));
    XJIT_TF_ASSIGN_OR_RETURN(r, ReshapeAxisOutOf(e, f + 1, B, r));
    XJIT_TF_ASSIGN_OR_RETURN(r, MoveToFront(e, r, f + 1));
    std::vector<int64_t> dims = r->shape().dims;
    dims[f + 1] *= dims[f + 2];
    dims.erase(dims.begin() + f + 2);
    XJIT_TF_ASSIGN_OR_RETURN(r, e.Reshape(r, dims));
    return BatchOut{{r}, {true}};
  }
  XJIT_TF_ASSIGN_OR_RETURN(r, e.builder().Add(Opcode::kConvolution, {lhs, rhs}, na));
  XJIT_TF_ASSIGN_OR_RETURN(r, ReshapeAxisOutOf(e, split_dim, B, r));
  XJIT_TF_ASSIGN_OR_RETURN(r, MoveToFront(e, r, split_dim));
  return BatchOut{{r}, {true}};
}

namespace {

// The window of a batched operand: a size-1 window over the leading dimension.
template <typename A>
void PrependUnitWindow(A& a) {
  a.window_dimensions.insert(a.window_dimensions.begin(), 1);
  a.window_strides.insert(a.window_strides.begin(), 1);
  auto pads = PaddingPairs(a.padding, static_cast<int64_t>(a.window_dimensions.size()) - 1);
  Pairs p = pads.ok() ? *pads : Pairs();
  p.insert(p.begin(), {0, 0});
  a.padding = PaddingLiteral(p);
}

}  // namespace

// A batched init value, for a body of one add, multiply, max, min, and, or,
// xor (JAX has no rule at all): the padding and base-dilation holes, which
// hold the init value, are made explicit with each lane's value; the windows
// then reduce from the op's identity, and each lane's init is combined with
// its results once.
absl::StatusOr<BatchOut> ReduceWindowBatchedInit(BatchContext& ctx) {
  std::optional<Opcode> op = ReduceBodyOp(*ctx.old.called_computations()[0]);
  std::optional<Literal> identity;
  if (ctx.operands.size() == 2 && op.has_value()) {
    identity = BodyIdentity(*op, ctx.old.operand(1)->shape().dtype);
  }
  if (!identity.has_value()) {
    return absl::UnimplementedError(
        "reduce_window batching is not implemented for initial values with a body other than "
        "one add, multiply, max, min, and, or, xor");
  }
  Emitter& e = ctx.e;
  const ReduceWindowAttrs& old = ctx.old.attrs<ReduceWindowAttrs>();
  const int64_t rank = ctx.old.operand(0)->shape().rank();
  XJIT_TF_ASSIGN_OR_RETURN(Pairs padding, Padding(old.padding, rank));
  std::vector<int64_t> lo = {0}, hi = {0}, interior = {0};
  bool pads = false;
  for (int64_t d = 0; d < rank; ++d) {
    lo.push_back(padding[d].first);
    hi.push_back(padding[d].second);
    interior.push_back(old.base_dilations[d] - 1);
    pads = pads || lo.back() != 0 || hi.back() != 0 || interior.back() != 0;
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  Value init = ctx.operands[1];
  if (pads) {
    XJIT_TF_ASSIGN_OR_RETURN(x, PadWithLanes(e, x, init, lo, hi, interior));
  }
  ReduceWindowAttrs a;
  a.window_dimensions = old.window_dimensions;
  a.window_strides = old.window_strides;
  a.padding = PaddingLiteral(Pairs(rank, {0, 0}));
  PrependUnitWindow(a);
  a.base_dilations.assign(rank + 1, 1);
  a.window_dilations = old.window_dilations;
  a.window_dilations.insert(a.window_dilations.begin(), 1);
  Value identity_value = e.builder().Constant(*std::move(identity));
  XJIT_TF_ASSIGN_OR_RETURN(Value r, e.builder().Add(Opcode::kReduceWindow, {x, identity_value}, a,
                                                    ctx.old.called_computations()));
  XJIT_TF_ASSIGN_OR_RETURN(Value lanes,
                           e.BroadcastInDim(init, r->shape().dims, std::vector<int64_t>{0}));
  XJIT_TF_ASSIGN_OR_RETURN(Value out, e.Binary(*op, lanes, r));
  return BatchOut{{out}, {true}};
}

absl::StatusOr<BatchOut> ReduceWindowBatch(BatchContext& ctx) {
  const size_t n = ctx.operands.size() / 2;
  for (size_t i = n; i < ctx.operands.size(); ++i) {
    if (ctx.batched[i]) return ReduceWindowBatchedInit(ctx);
  }
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    Value v = ctx.operands[i];
    if (i < n) {
      XJIT_TF_ASSIGN_OR_RETURN(v, ctx.Batched(static_cast<int>(i)));
    }
    ops.push_back(v);
  }
  ReduceWindowAttrs a = ctx.old.attrs<ReduceWindowAttrs>();
  PrependUnitWindow(a);
  a.base_dilations.insert(a.base_dilations.begin(), 1);
  a.window_dilations.insert(a.window_dilations.begin(), 1);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(Opcode::kReduceWindow, ops, a,
                                                        ctx.old.called_computations()));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(ctx.e.builder(), r));
  BatchOut out;
  out.values = parts;
  out.batched.assign(parts.size(), true);
  return out;
}

absl::StatusOr<BatchOut> SelectAndScatterBatch(BatchContext& ctx) {
  if (ctx.batched[2]) {
    return absl::UnimplementedError(
        "vmap: no batching rule for 'select_and_scatter' with a batched init value yet");
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value src, ctx.Batched(1));
  SelectAndScatterAttrs a = ctx.old.attrs<SelectAndScatterAttrs>();
  PrependUnitWindow(a);
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(Opcode::kSelectAndScatter,
                                                        {x, src, ctx.operands[2]}, a,
                                                        ctx.old.called_computations()));
  return BatchOut{{r}, {true}};
}

}  // namespace xjit::transforms
