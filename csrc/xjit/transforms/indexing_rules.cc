#include "xjit/transforms/indexing_rules.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

using Dir = ComparisonDirection;

JvpOut One(Value t) { return JvpOut{{}, {t}}; }

bool Contains(const std::vector<int64_t>& v, int64_t d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

std::vector<int64_t> Shifted(const std::vector<int64_t>& dims, int64_t by = 1) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d + by);
  return out;
}

std::vector<int64_t> Prepend(int64_t first, const std::vector<int64_t>& rest) {
  std::vector<int64_t> out = {first};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> out(std::max<int64_t>(0, to - from));
  std::iota(out.begin(), out.end(), from);
  return out;
}

// A rank-1 integer constant of `dtype`.
Value IntVector(ComputationBuilder& b, DType dtype, const std::vector<int64_t>& values) {
  Literal l(Shape(dtype, {static_cast<int64_t>(values.size())}));
  DispatchDType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) l.mutable_data_as<T>()[i] = T(values[i]);
    }
  });
  return b.Constant(std::move(l));
}

// (current, update) -> update: scatter's "set" body.
absl::StatusOr<Computation*> SetBody(Emitter& e, DType dtype) {
  ComputationBuilder* body = e.module().NewComputation(
      absl::StrCat("scatter_set_", NumpyName(dtype), "_body"));
  if (body == nullptr) return absl::FailedPreconditionError("transform: module already built");
  body->Parameter(Shape(dtype, {}));
  Value u = body->Parameter(Shape(dtype, {}));
  return body->Finish({u});
}

// Whether scatter's body returns its update parameter (set), or is add.
bool IsSetBody(const Computation& body) {
  return body.parameters().size() == 2 && body.results().size() == 1 &&
         body.results()[0] == body.parameters()[1];
}
bool IsAddBody(const Computation& body) {
  std::optional<Opcode> op = ReduceBodyOp(body);
  return op.has_value() && *op == Opcode::kAdd;
}

GatherAttrs GatherFromScatter(const ScatterAttrs& s, const Shape& input, const Shape& update) {
  const ScatterDimensionNumbers& sd = s.scatter_dimension_numbers;
  GatherAttrs g;
  GatherDimensionNumbers& gd = g.dimension_numbers;
  gd.offset_dims = sd.update_window_dims;
  gd.collapsed_slice_dims = sd.inserted_window_dims;
  gd.operand_batching_dims = sd.input_batching_dims;
  gd.start_indices_batching_dims = sd.scatter_indices_batching_dims;
  gd.start_index_map = sd.scatter_dims_to_operand_dims;
  gd.index_vector_dim = sd.index_vector_dim;
  g.indices_are_sorted = s.indices_are_sorted;
  size_t w = 0;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (Contains(sd.inserted_window_dims, d) || Contains(sd.input_batching_dims, d)) {
      g.slice_sizes.push_back(1);
    } else {
      g.slice_sizes.push_back(update.dims[sd.update_window_dims[w++]]);
    }
  }
  return g;
}

ScatterAttrs ScatterFromGather(const GatherAttrs& g) {
  const GatherDimensionNumbers& gd = g.dimension_numbers;
  ScatterAttrs s;
  ScatterDimensionNumbers& sd = s.scatter_dimension_numbers;
  sd.update_window_dims = gd.offset_dims;
  sd.inserted_window_dims = gd.collapsed_slice_dims;
  sd.input_batching_dims = gd.operand_batching_dims;
  sd.scatter_indices_batching_dims = gd.start_indices_batching_dims;
  sd.scatter_dims_to_operand_dims = gd.start_index_map;
  sd.index_vector_dim = gd.index_vector_dim;
  s.indices_are_sorted = g.indices_are_sorted;
  return s;
}

// Component k of the index vectors of `idx` (shape without index_vector_dim).
ValueOr IndexComponent(Emitter& e, Value idx, int64_t ivd, int64_t k) {
  const Shape& s = idx->shape();
  if (ivd == s.rank()) return idx;
  std::vector<int64_t> start(s.rank(), 0), limit = s.dims, strides(s.rank(), 1);
  start[ivd] = k;
  limit[ivd] = k + 1;
  XJIT_TF_ASSIGN_OR_RETURN(Value sl, e.Slice(idx, start, limit, strides));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d != ivd) dims.push_back(s.dims[d]);
  }
  return e.Reshape(sl, dims);
}

// `idx` with component k clamped to [0, upper[k]] (what gather does to its starts).
ValueOr ClampIndices(Emitter& e, Value idx, int64_t ivd, const std::vector<int64_t>& upper) {
  const Shape& s = idx->shape();
  ComputationBuilder& b = e.builder();
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(s.dtype, s.dims, 0.0));
  Value hi;
  if (ivd == s.rank()) {
    XJIT_TF_ASSIGN_OR_RETURN(hi, e.Full(s.dtype, s.dims, static_cast<double>(upper[0])));
  } else {
    XJIT_TF_ASSIGN_OR_RETURN(hi, e.BroadcastInDim(IntVector(b, s.dtype, upper), s.dims, {ivd}));
  }
  return b.Add(Opcode::kClamp, {zero, idx, hi});
}

// Per index vector: whether every component k lies in [0, upper[k]].
ValueOr InBounds(Emitter& e, Value idx, int64_t ivd, const std::vector<int64_t>& upper) {
  Value mask = nullptr;
  for (size_t k = 0; k < upper.size(); ++k) {
    XJIT_TF_ASSIGN_OR_RETURN(Value c, IndexComponent(e, idx, ivd, static_cast<int64_t>(k)));
    XJIT_TF_ASSIGN_OR_RETURN(Value lo, e.FullLike(c, 0.0));
    XJIT_TF_ASSIGN_OR_RETURN(Value hi, e.FullLike(c, static_cast<double>(upper[k])));
    XJIT_TF_ASSIGN_OR_RETURN(Value a, e.Compare(Dir::kGe, c, lo));
    XJIT_TF_ASSIGN_OR_RETURN(Value z, e.Compare(Dir::kLe, c, hi));
    XJIT_TF_ASSIGN_OR_RETURN(Value ok, e.Binary(Opcode::kAnd, a, z));
    if (mask == nullptr) {
      mask = ok;
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(mask, e.Binary(Opcode::kAnd, mask, ok));
    }
  }
  return mask;
}

// The upper bound of each start component of a scatter (input dim - window).
std::vector<int64_t> ScatterUpper(const ScatterAttrs& a, const Shape& input, const Shape& update) {
  GatherAttrs g = GatherFromScatter(a, input, update);
  std::vector<int64_t> upper;
  for (int64_t d : a.scatter_dimension_numbers.scatter_dims_to_operand_dims) {
    upper.push_back(input.dims[d] - g.slice_sizes[d]);
  }
  return upper;
}

// The non-window dims of a scatter's updates, in order.
std::vector<int64_t> UpdateScatterDims(const ScatterAttrs& a, int64_t update_rank) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < update_rank; ++d) {
    if (!Contains(a.scatter_dimension_numbers.update_window_dims, d)) out.push_back(d);
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------------- JVP

absl::StatusOr<JvpOut> GatherJvp(JvpContext& ctx) {
  if (ctx.t(0) == nullptr) return One(nullptr);
  XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, {ctx.t(0), ctx.x(1)}));
  return One(t);
}

absl::StatusOr<JvpOut> DynamicSliceJvp(JvpContext& ctx) {
  if (ctx.t(0) == nullptr) return One(nullptr);
  std::vector<Value> ops = {ctx.t(0)};
  for (size_t i = 1; i < ctx.primal_operands.size(); ++i) ops.push_back(ctx.x(i));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, ops));
  return One(t);
}

absl::StatusOr<JvpOut> DynamicUpdateSliceJvp(JvpContext& ctx) {
  if (ctx.t(0) == nullptr && ctx.t(1) == nullptr) return One(nullptr);
  XJIT_TF_ASSIGN_OR_RETURN(Value t0, ctx.TOrZeros(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value t1, ctx.TOrZeros(1));
  std::vector<Value> ops = {t0, t1};
  for (size_t i = 2; i < ctx.primal_operands.size(); ++i) ops.push_back(ctx.x(i));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(ctx.e.builder(), ctx.old, ops));
  return One(t);
}

absl::StatusOr<JvpOut> ScatterJvp(JvpContext& ctx) {
  if (ctx.primal_operands.size() != 3) {
    return absl::UnimplementedError("jvp: no JVP rule for a variadic 'scatter' yet");
  }
  if (ctx.t(0) == nullptr && ctx.t(2) == nullptr) return One(nullptr);
  const Computation& body = *ctx.old.called_computations()[0];
  Emitter& e = ctx.e;
  ComputationBuilder& b = e.builder();
  if (IsAddBody(body)) {  // linear: scatter-add of the tangents
    XJIT_TF_ASSIGN_OR_RETURN(Value t0, ctx.TOrZeros(0));
    XJIT_TF_ASSIGN_OR_RETURN(Value t2, ctx.TOrZeros(2));
    XJIT_TF_ASSIGN_OR_RETURN(Value t, CloneOnto(b, ctx.old, {t0, ctx.x(1), t2}));
    return One(t);
  }
  if (!IsSetBody(body)) {
    return absl::UnimplementedError(
        "jvp: no JVP rule for 'scatter' with this update computation yet (add and set bodies "
        "are differentiable)");
  }
  // JAX's _scatter_jvp: which duplicate update wins is unspecified, so tag
  // each update with an id, scatter the ids, gather them back, and keep only
  // the winning update and the operand elements no update reached; the
  // tangent is then a scatter-add of the masked tangents.
  const ScatterAttrs& a = ctx.old.attrs<ScatterAttrs>();
  Value x = ctx.x(0), idx = ctx.x(1), u = ctx.x(2);
  const Shape &xs = x->shape(), &us = u->shape();
  const std::vector<int64_t> sdims = UpdateScatterDims(a, us.rank());
  std::vector<int64_t> id_dims;
  int64_t num_ids = 1;
  for (int64_t d : sdims) {
    id_dims.push_back(us.dims[d]);
    num_ids *= us.dims[d];
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value iota,
                           b.AddWithResultType(Opcode::kIota, Shape(DType::kS32, {num_ids}), {},
                                               IotaAttrs{0}));
  XJIT_TF_ASSIGN_OR_RETURN(Value one, e.FullLike(iota, 1.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value ids1, e.Add(iota, one));
  XJIT_TF_ASSIGN_OR_RETURN(Value ids2, e.Reshape(ids1, id_dims));
  XJIT_TF_ASSIGN_OR_RETURN(Value ids, e.BroadcastInDim(ids2, us.dims, sdims));
  XJIT_TF_ASSIGN_OR_RETURN(Value zeros_i, e.Full(DType::kS32, xs.dims, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * set, SetBody(e, DType::kS32));
  ScatterAttrs plain = a;
  XJIT_TF_ASSIGN_OR_RETURN(Value scattered, b.Add(Opcode::kScatter, {zeros_i, idx, ids}, plain,
                                                  {set}));
  XJIT_TF_ASSIGN_OR_RETURN(Value gathered, b.Add(Opcode::kGather, {scattered, idx},
                                                 GatherFromScatter(a, xs, us)));
  XJIT_TF_ASSIGN_OR_RETURN(Value zi, e.FullLike(scattered, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value untouched, e.Compare(Dir::kEq, scattered, zi));
  XJIT_TF_ASSIGN_OR_RETURN(Value winner, e.Compare(Dir::kEq, ids, gathered));
  XJIT_TF_ASSIGN_OR_RETURN(Value t0, ctx.TOrZeros(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value t2, ctx.TOrZeros(2));
  XJIT_TF_ASSIGN_OR_RETURN(Value z0, e.FullLike(t0, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value z2, e.FullLike(t2, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value m0, e.Select(untouched, t0, z0));
  XJIT_TF_ASSIGN_OR_RETURN(Value m2, e.Select(winner, t2, z2));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * add, e.ScalarBody(Opcode::kAdd, t0->shape().dtype));
  XJIT_TF_ASSIGN_OR_RETURN(Value t, b.Add(Opcode::kScatter, {m0, idx, m2}, a, {add}));
  return One(t);
}

absl::StatusOr<JvpOut> SortJvp(JvpContext& ctx) {
  const size_t n = ctx.primal_operands.size();
  bool any = false;
  for (size_t i = 0; i < n; ++i) any = any || ctx.t(static_cast<int>(i)) != nullptr;
  if (!any) return JvpOut{{}, Parts(n, nullptr)};
  Emitter& e = ctx.e;
  ComputationBuilder& b = e.builder();
  const Shape& s = ctx.x(0)->shape();
  const int64_t rank = s.rank();
  int64_t dim = ctx.old.attrs<SortAttrs>().dimension;
  if (dim < 0) dim += rank;
  // The comparator with two more (ignored) parameters for the iota.
  const Computation& cmp = *ctx.old.called_computations()[0];
  ComputationBuilder* cb = e.module().NewComputation(absl::StrCat(cmp.name(), "_with_iota"));
  if (cb == nullptr) return absl::FailedPreconditionError("transform: module already built");
  ValueMap map;
  for (const Instruction* p : cmp.parameters()) map[p] = cb->Parameter(p->shape());
  cb->Parameter(Shape(DType::kS32, {}));
  cb->Parameter(Shape(DType::kS32, {}));
  Cloner cloner(e.module(), CloneOptions{{}, CalleePolicy::kShare});
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Instruction*> rs, cloner.CloneBody(cmp, *cb, map));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * cmp2, cb->Finish(rs));
  XJIT_TF_ASSIGN_OR_RETURN(Value iota, b.AddWithResultType(Opcode::kIota, Shape(DType::kS32, s.dims),
                                                           {}, IotaAttrs{dim}));
  std::vector<Value> ops;
  for (size_t i = 0; i < n; ++i) ops.push_back(ctx.x(static_cast<int>(i)));
  ops.push_back(iota);
  XJIT_TF_ASSIGN_OR_RETURN(Value sorted,
                           b.Add(Opcode::kSort, ops, ctx.old.attrs<SortAttrs>(), {cmp2}));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(b, sorted));
  std::vector<int64_t> perm_dims = s.dims;
  perm_dims.push_back(1);
  XJIT_TF_ASSIGN_OR_RETURN(Value perm, e.Reshape(parts.back(), perm_dims));
  // take_along_axis(t, perm, dim): every other dimension batched.
  GatherAttrs g;
  std::vector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim) others.push_back(d);
  }
  g.dimension_numbers.collapsed_slice_dims = {dim};
  g.dimension_numbers.start_index_map = {dim};
  g.dimension_numbers.operand_batching_dims = others;
  g.dimension_numbers.start_indices_batching_dims = others;
  g.dimension_numbers.index_vector_dim = rank;
  g.slice_sizes.assign(rank, 1);
  Parts tangents;
  for (size_t i = 0; i < n; ++i) {
    Value t = ctx.t(static_cast<int>(i));
    if (t == nullptr) {
      tangents.push_back(nullptr);
      continue;
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value gt, b.Add(Opcode::kGather, {t, perm}, g));
    tangents.push_back(gt);
  }
  return JvpOut{{}, tangents};
}

// ------------------------------------------------------------- transpose

absl::StatusOr<std::vector<Value>> GatherT(TransposeContext& ctx) {
  std::vector<Value> cts(2, nullptr);
  if (!ctx.linear[0] || ctx.ct == nullptr) return cts;
  Emitter& e = ctx.e;
  const GatherAttrs& g = ctx.old.attrs<GatherAttrs>();
  const Shape& xs = ctx.operand_shape(0);
  std::vector<int64_t> upper;
  for (int64_t d : g.dimension_numbers.start_index_map) upper.push_back(xs.dims[d] - g.slice_sizes[d]);
  XJIT_TF_ASSIGN_OR_RETURN(Value idx, ClampIndices(e, ctx.primal[1],
                                                   g.dimension_numbers.index_vector_dim, upper));
  XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(Shape(ctx.ct->shape().dtype, xs.dims)));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * add, e.ScalarBody(Opcode::kAdd, ctx.ct->shape().dtype));
  XJIT_TF_ASSIGN_OR_RETURN(cts[0], e.builder().Add(Opcode::kScatter, {zeros, idx, ctx.ct},
                                                   ScatterFromGather(g), {add}));
  return cts;
}

absl::StatusOr<std::vector<Value>> DynamicSliceT(TransposeContext& ctx) {
  std::vector<Value> cts(ctx.old.operands().size(), nullptr);
  if (!ctx.linear[0] || ctx.ct == nullptr) return cts;
  Emitter& e = ctx.e;
  XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(Shape(ctx.ct->shape().dtype,
                                                          ctx.operand_shape(0).dims)));
  std::vector<Value> ops = {zeros, ctx.ct};
  for (size_t i = 1; i < ctx.primal.size(); ++i) ops.push_back(ctx.primal[i]);
  XJIT_TF_ASSIGN_OR_RETURN(cts[0], e.builder().Add(Opcode::kDynamicUpdateSlice, ops, NoAttrs{}));
  return cts;
}

absl::StatusOr<std::vector<Value>> DynamicUpdateSliceT(TransposeContext& ctx) {
  std::vector<Value> cts(ctx.old.operands().size(), nullptr);
  if (ctx.ct == nullptr) return cts;
  Emitter& e = ctx.e;
  std::vector<Value> starts(ctx.primal.begin() + 2, ctx.primal.end());
  const Shape& us = ctx.operand_shape(1);
  if (ctx.linear[0]) {
    XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(Shape(ctx.ct->shape().dtype, us.dims)));
    std::vector<Value> ops = {ctx.ct, zeros};
    ops.insert(ops.end(), starts.begin(), starts.end());
    XJIT_TF_ASSIGN_OR_RETURN(cts[0], e.builder().Add(Opcode::kDynamicUpdateSlice, ops, NoAttrs{}));
  }
  if (ctx.linear[1]) {
    std::vector<Value> ops = {ctx.ct};
    ops.insert(ops.end(), starts.begin(), starts.end());
    XJIT_TF_ASSIGN_OR_RETURN(cts[1], e.builder().Add(Opcode::kDynamicSlice, ops,
                                                     DynamicSliceAttrs{us.dims}));
  }
  return cts;
}

absl::StatusOr<std::vector<Value>> ScatterT(TransposeContext& ctx) {
  std::vector<Value> cts(ctx.old.operands().size(), nullptr);
  if (ctx.old.operands().size() != 3 || !IsAddBody(*ctx.old.called_computations()[0])) {
    return absl::UnimplementedError(
        "vjp: no transpose rule for 'scatter' other than a single-input scatter-add");
  }
  if (ctx.ct == nullptr) return cts;
  if (ctx.linear[1]) return absl::InvalidArgumentError("vjp: scatter indices cannot be linear");
  Emitter& e = ctx.e;
  const ScatterAttrs& a = ctx.old.attrs<ScatterAttrs>();
  if (ctx.linear[0]) cts[0] = ctx.ct;
  if (ctx.linear[2]) {
    const Shape &xs = ctx.operand_shape(0), &us = ctx.operand_shape(2);
    Value idx = ctx.primal[1];
    XJIT_TF_ASSIGN_OR_RETURN(Value g, e.builder().Add(Opcode::kGather, {ctx.ct, idx},
                                                      GatherFromScatter(a, xs, us)));
    // Updates the scatter skipped (windows out of bounds) get no cotangent;
    // gather clamps, so mask them.
    const int64_t ivd = a.scatter_dimension_numbers.index_vector_dim;
    XJIT_TF_ASSIGN_OR_RETURN(Value ok, InBounds(e, idx, ivd, ScatterUpper(a, xs, us)));
    if (ok != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(Value okb, e.BroadcastInDim(ok, us.dims,
                                                           UpdateScatterDims(a, us.rank())));
      XJIT_TF_ASSIGN_OR_RETURN(Value z, e.FullLike(g, 0.0));
      XJIT_TF_ASSIGN_OR_RETURN(g, e.Select(okb, g, z));
    }
    cts[2] = g;
  }
  return cts;
}

// -------------------------------------------------------------- batching

absl::StatusOr<BatchOut> GatherB(BatchContext& ctx) {
  GatherAttrs a = ctx.old.attrs<GatherAttrs>();
  GatherDimensionNumbers& dn = a.dimension_numbers;
  const bool bo = ctx.batched[0], bi = ctx.batched[1];
  dn.collapsed_slice_dims = Shifted(dn.collapsed_slice_dims, bo ? 1 : 0);
  dn.start_index_map = Shifted(dn.start_index_map, bo ? 1 : 0);
  if (bo && !bi) {
    dn.offset_dims = Prepend(0, Shifted(dn.offset_dims));
    dn.operand_batching_dims = Shifted(dn.operand_batching_dims);
    a.slice_sizes = Prepend(ctx.axis_size, a.slice_sizes);
  } else if (!bo && bi) {
    dn.offset_dims = Shifted(dn.offset_dims);
    dn.start_indices_batching_dims = Shifted(dn.start_indices_batching_dims);
    dn.index_vector_dim += 1;
  } else {
    dn.offset_dims = Shifted(dn.offset_dims);
    dn.operand_batching_dims = Prepend(0, Shifted(dn.operand_batching_dims));
    dn.start_indices_batching_dims = Prepend(0, Shifted(dn.start_indices_batching_dims));
    dn.index_vector_dim += 1;
    a.slice_sizes = Prepend(1, a.slice_sizes);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(Opcode::kGather,
                                                        {ctx.operands[0], ctx.operands[1]}, a));
  return BatchOut{{r}, {true}};
}

absl::StatusOr<BatchOut> ScatterB(BatchContext& ctx) {
  const size_t n = (ctx.operands.size() - 1) / 2;
  ScatterAttrs a = ctx.old.attrs<ScatterAttrs>();
  ScatterDimensionNumbers& dn = a.scatter_dimension_numbers;
  std::vector<Value> ops;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    if (i == n) {
      ops.push_back(ctx.operands[i]);
      continue;
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    ops.push_back(v);
  }
  dn.inserted_window_dims = Shifted(dn.inserted_window_dims);
  dn.scatter_dims_to_operand_dims = Shifted(dn.scatter_dims_to_operand_dims);
  if (!ctx.batched[n]) {
    dn.update_window_dims = Prepend(0, Shifted(dn.update_window_dims));
    dn.input_batching_dims = Shifted(dn.input_batching_dims);
  } else {
    dn.update_window_dims = Shifted(dn.update_window_dims);
    dn.input_batching_dims = Prepend(0, Shifted(dn.input_batching_dims));
    dn.scatter_indices_batching_dims = Prepend(0, Shifted(dn.scatter_indices_batching_dims));
    dn.index_vector_dim += 1;
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(Opcode::kScatter, ops, a,
                                                        ctx.old.called_computations()));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(ctx.e.builder(), r));
  return BatchOut{parts, std::vector<bool>(parts.size(), true)};
}

namespace {

// The start scalars (each [] or [B]) stacked into [B, r] indices, clamped
// per component to [0, upper[k]] when `upper` is given.
ValueOr StackStarts(BatchContext& ctx, size_t first, const std::vector<int64_t>* upper) {
  Emitter& e = ctx.e;
  std::vector<Value> cols;
  for (size_t i = first; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value s, ctx.Batched(static_cast<int>(i)));
    if (upper != nullptr) {
      XJIT_TF_ASSIGN_OR_RETURN(Value lo, e.FullLike(s, 0.0));
      XJIT_TF_ASSIGN_OR_RETURN(Value hi, e.FullLike(s, static_cast<double>((*upper)[i - first])));
      XJIT_TF_ASSIGN_OR_RETURN(s, e.builder().Add(Opcode::kClamp, {lo, s, hi}));
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value c, e.Reshape(s, {ctx.axis_size, 1}));
    cols.push_back(c);
  }
  return e.builder().Add(Opcode::kConcatenate, cols, ConcatenateAttrs{1});
}

bool AnyBatched(const BatchContext& ctx, size_t first) {
  for (size_t i = first; i < ctx.batched.size(); ++i) {
    if (ctx.batched[i]) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<BatchOut> DynamicSliceB(BatchContext& ctx) {
  Emitter& e = ctx.e;
  const std::vector<int64_t>& sizes = ctx.old.attrs<DynamicSliceAttrs>().slice_sizes;
  const int64_t r = static_cast<int64_t>(sizes.size());
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  if (!AnyBatched(ctx, 1)) {
    const DType it = ctx.operands[1]->shape().dtype;
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(it, {}, 0.0));
    std::vector<Value> ops = {x, zero};
    ops.insert(ops.end(), ctx.operands.begin() + 1, ctx.operands.end());
    XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kDynamicSlice, ops,
                                                      DynamicSliceAttrs{Prepend(ctx.axis_size, sizes)}));
    return BatchOut{{v}, {true}};
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value idx, StackStarts(ctx, 1, nullptr));
  GatherAttrs g;
  g.dimension_numbers.offset_dims = Range(1, r + 1);
  g.dimension_numbers.operand_batching_dims = {0};
  g.dimension_numbers.start_indices_batching_dims = {0};
  g.dimension_numbers.start_index_map = Range(1, r + 1);
  g.dimension_numbers.index_vector_dim = 1;
  g.slice_sizes = Prepend(1, sizes);
  XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kGather, {x, idx}, g));
  return BatchOut{{v}, {true}};
}

absl::StatusOr<BatchOut> DynamicUpdateSliceB(BatchContext& ctx) {
  Emitter& e = ctx.e;
  XJIT_TF_ASSIGN_OR_RETURN(Value x, ctx.Batched(0));
  XJIT_TF_ASSIGN_OR_RETURN(Value u, ctx.Batched(1));
  const Shape& xs = ctx.old.operand(0)->shape();
  const Shape& us = ctx.old.operand(1)->shape();
  const int64_t r = xs.rank();
  if (!AnyBatched(ctx, 2)) {
    const DType it = ctx.operands[2]->shape().dtype;
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(it, {}, 0.0));
    std::vector<Value> ops = {x, u, zero};
    ops.insert(ops.end(), ctx.operands.begin() + 2, ctx.operands.end());
    XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kDynamicUpdateSlice, ops, NoAttrs{}));
    return BatchOut{{v}, {true}};
  }
  std::vector<int64_t> upper;
  for (int64_t d = 0; d < r; ++d) upper.push_back(xs.dims[d] - us.dims[d]);
  XJIT_TF_ASSIGN_OR_RETURN(Value idx, StackStarts(ctx, 2, &upper));
  ScatterAttrs a;
  a.scatter_dimension_numbers.update_window_dims = Range(1, r + 1);
  a.scatter_dimension_numbers.input_batching_dims = {0};
  a.scatter_dimension_numbers.scatter_indices_batching_dims = {0};
  a.scatter_dimension_numbers.scatter_dims_to_operand_dims = Range(1, r + 1);
  a.scatter_dimension_numbers.index_vector_dim = 1;
  a.unique_indices = true;
  XJIT_TF_ASSIGN_OR_RETURN(Computation * set, SetBody(e, xs.dtype));
  XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().Add(Opcode::kScatter, {x, idx, u}, a, {set}));
  return BatchOut{{v}, {true}};
}

}  // namespace xjit::transforms
