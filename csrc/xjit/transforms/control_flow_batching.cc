// vmap of while, if and case (control_flow_rules.h).
#include <optional>
#include <utility>
#include <vector>

#include "xjit/transforms/batching.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/control_flow_rules.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

std::vector<Shape> ShapesOf(const std::vector<Value>& values) {
  std::vector<Shape> out;
  for (Value v : values) out.push_back(v->shape());
  return out;
}

std::vector<Shape> LeafShapes(const Shape& s) {
  return s.is_tuple ? s.tuple_shapes : std::vector<Shape>{s};
}

// `pred` ([B] i1) broadcast to `like`'s shape ([B, ...]).
ValueOr LaneMask(Emitter& e, Value pred, Value like) {
  return e.BroadcastInDim(pred, like->shape().dims, {0});
}

}  // namespace

absl::StatusOr<BatchOut> BranchBatch(BatchContext& ctx) {
  const Instruction& old = ctx.old;
  Emitter& e = ctx.e;
  const int num = static_cast<int>(old.operands().size());
  const auto& branches = old.called_computations();
  const int n_out = static_cast<int>(LeafShapes(old.shape()).size());
  if (!ctx.batched[0]) {  // the same op on batched branches
    std::vector<int64_t> in_axes;
    for (int i = 1; i < num; ++i) in_axes.push_back(ctx.batched[i] ? 0 : kNotMapped);
    std::vector<Computation*> batched_branches;
    for (const Computation* branch : branches) {
      XJIT_TF_ASSIGN_OR_RETURN(
          Computation * c, Vmap(*branch, in_axes, ctx.axis_size, std::vector<int64_t>(n_out, 0),
                                e.module(), branch->name() + "_vmap"));
      batched_branches.push_back(c);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value v,
                             e.builder().Add(old.opcode(), ctx.operands, {}, batched_branches));
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(e.builder(), v));
    return BatchOut{parts, std::vector<bool>(parts.size(), true)};
  }
  // A batched selector: run every branch, select per lane.
  Parts caps(ctx.operands.begin() + 1, ctx.operands.end());
  std::vector<bool> caps_batched(ctx.batched.begin() + 1, ctx.batched.end());
  std::vector<std::vector<Value>> outs;
  for (const Computation* branch : branches) {
    XJIT_TF_ASSIGN_OR_RETURN(BatchOut o, ctx.driver.Run(*branch, caps, caps_batched));
    for (size_t i = 0; i < o.values.size(); ++i) {
      if (!o.batched[i]) {
        XJIT_TF_ASSIGN_OR_RETURN(o.values[i], BroadcastBatch(e, o.values[i], ctx.axis_size));
      }
    }
    outs.push_back(o.values);
  }
  Value sel = ctx.operands[0];
  Parts result = outs.back();
  for (int k = static_cast<int>(outs.size()) - 2; k >= 0; --k) {
    Value take;  // lanes that take branch k
    if (old.opcode() == Opcode::kIf) {  // branch 0 when true, 1 when false
      take = sel;
    } else {
      XJIT_TF_ASSIGN_OR_RETURN(Value kv, e.Full(DType::kS32, sel->shape().dims, k));
      XJIT_TF_ASSIGN_OR_RETURN(take, e.Compare(ComparisonDirection::kEq, sel, kv));
    }
    for (size_t i = 0; i < result.size(); ++i) {
      XJIT_TF_ASSIGN_OR_RETURN(Value mask, LaneMask(e, take, result[i]));
      XJIT_TF_ASSIGN_OR_RETURN(result[i], e.Select(mask, outs[k][i], result[i]));
    }
  }
  return BatchOut{result, std::vector<bool>(result.size(), true)};
}

namespace {

// Which results of `fn` are batched when its parameters are batched as
// `batched` says (batched in a scratch computation left unused).
absl::StatusOr<std::vector<bool>> BatchedResults(ModuleBuilder& mb, const Computation& fn,
                                                 const std::vector<Shape>& shapes,
                                                 const std::vector<bool>& batched,
                                                 int64_t axis_size) {
  ComputationBuilder* b = mb.NewComputation(fn.name() + "_probe");
  if (b == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  Parts params;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<int64_t> dims = shapes[i].dims;
    if (batched[i]) dims.insert(dims.begin(), axis_size);
    params.push_back(b->Parameter(Shape(shapes[i].dtype, dims)));
  }
  BatchDriver driver(mb, *b, axis_size);
  XJIT_TF_ASSIGN_OR_RETURN(BatchOut out, driver.Run(fn, params, batched));
  XJIT_TF_RETURN_IF_ERROR(b->Finish(out.values).status());
  return out.batched;
}

// A loop whose condition no batched value reaches: the same loop on the
// batched body, carried values batched only where a lane can change them
// (the fixed point of "batched in, or made batched by the body").
// Returns null when the condition depends on the batch.
absl::StatusOr<std::optional<BatchOut>> UnmaskedWhileBatch(BatchContext& ctx) {
  const Instruction& old = ctx.old;
  ModuleBuilder& mb = ctx.e.module();
  const Computation& cond = *old.called_computations()[0];
  const Computation& body = *old.called_computations()[1];
  const int total = static_cast<int>(old.operands().size());
  const int n = static_cast<int>(body.results().size());
  std::vector<Shape> shapes;
  for (const Instruction* o : old.operands()) shapes.push_back(o->shape());
  std::vector<bool> flags = ctx.batched;
  for (int round = 0; round <= n; ++round) {
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<bool> out,
                             BatchedResults(mb, body, shapes, flags, ctx.axis_size));
    bool changed = false;
    for (int i = 0; i < n; ++i) {
      if (out[i] && !flags[i]) flags[i] = changed = true;
    }
    if (!changed) break;
  }
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<bool> pred,
                           BatchedResults(mb, cond, shapes, flags, ctx.axis_size));
  if (pred[0]) return std::optional<BatchOut>();
  std::vector<Value> operands;
  std::vector<int64_t> in_axes, out_axes;
  for (int i = 0; i < total; ++i) {
    Value v = ctx.operands[i];
    if (flags[i] && !ctx.batched[i]) {
      XJIT_TF_ASSIGN_OR_RETURN(v, ctx.Batched(i));
    }
    operands.push_back(v);
    in_axes.push_back(flags[i] ? 0 : kNotMapped);
    if (i < n) out_axes.push_back(flags[i] ? 0 : kNotMapped);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Computation * new_cond, Vmap(cond, in_axes, ctx.axis_size,
                                                        {kNotMapped}, mb, cond.name() + "_vmap"));
  XJIT_TF_ASSIGN_OR_RETURN(Computation * new_body, Vmap(body, in_axes, ctx.axis_size, out_axes,
                                                        mb, body.name() + "_vmap"));
  XJIT_TF_ASSIGN_OR_RETURN(Value w, ctx.e.builder().Add(Opcode::kWhile, operands, {},
                                                        {new_cond, new_body}));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(ctx.e.builder(), w));
  return std::optional<BatchOut>(
      BatchOut{parts, std::vector<bool>(flags.begin(), flags.begin() + n)});
}

}  // namespace

absl::StatusOr<BatchOut> WhileBatch(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(std::optional<BatchOut> unmasked, UnmaskedWhileBatch(ctx));
  if (unmasked.has_value()) return *std::move(unmasked);
  const Instruction& old = ctx.old;
  Emitter& e = ctx.e;
  ModuleBuilder& mb = e.module();
  const Computation& cond = *old.called_computations()[0];
  const Computation& body = *old.called_computations()[1];
  const int total = static_cast<int>(old.operands().size());
  const int n = static_cast<int>(body.results().size());
  // Every carried value batched (a lane may change any of them); captured
  // values as they are.
  std::vector<Value> operands;
  std::vector<int64_t> in_axes;
  for (int i = 0; i < total; ++i) {
    if (i < n) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(i));
      operands.push_back(v);
      in_axes.push_back(0);
    } else {
      operands.push_back(ctx.operands[i]);
      in_axes.push_back(ctx.batched[i] ? 0 : kNotMapped);
    }
  }
  XJIT_TF_ASSIGN_OR_RETURN(Computation * lanes, Vmap(cond, in_axes, ctx.axis_size, {0}, mb,
                                                     cond.name() + "_vmap"));
  XJIT_TF_ASSIGN_OR_RETURN(
      Computation * step, Vmap(body, in_axes, ctx.axis_size, std::vector<int64_t>(n, 0), mb,
                               body.name() + "_vmap"));
  const std::vector<Shape> shapes = ShapesOf(operands);
  // cond: any lane still running.
  ComputationBuilder* cb = mb.NewComputation(cond.name() + "_any");
  if (cb == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  {
    Emitter ce(mb, *cb);
    std::vector<Value> params;
    for (const Shape& s : shapes) params.push_back(cb->Parameter(s));
    XJIT_TF_ASSIGN_OR_RETURN(Value pred, cb->Add(Opcode::kCall, params, {}, {lanes}));
    XJIT_TF_ASSIGN_OR_RETURN(Value count, ce.Convert(pred, DType::kS32));
    XJIT_TF_ASSIGN_OR_RETURN(Value sum, ce.ReduceSum(count, {0}));
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, ce.Full(DType::kS32, {}, 0));
    XJIT_TF_ASSIGN_OR_RETURN(Value any, ce.Compare(ComparisonDirection::kGt, sum, zero));
    XJIT_TF_RETURN_IF_ERROR(cb->Finish({any}).status());
  }
  Computation* new_cond = cb->computation();
  // body: lanes whose condition holds take a step; the others keep their values.
  ComputationBuilder* bb = mb.NewComputation(body.name() + "_masked");
  if (bb == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  {
    Emitter be(mb, *bb);
    std::vector<Value> params;
    for (const Shape& s : shapes) params.push_back(bb->Parameter(s));
    XJIT_TF_ASSIGN_OR_RETURN(Value pred, bb->Add(Opcode::kCall, params, {}, {lanes}));
    XJIT_TF_ASSIGN_OR_RETURN(Value next, bb->Add(Opcode::kCall, params, {}, {step}));
    XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> nexts, SplitTuple(*bb, next));
    std::vector<Value> results;
    for (int i = 0; i < n; ++i) {
      XJIT_TF_ASSIGN_OR_RETURN(Value mask, LaneMask(be, pred, params[i]));
      XJIT_TF_ASSIGN_OR_RETURN(Value r, be.Select(mask, nexts[i], params[i]));
      results.push_back(r);
    }
    XJIT_TF_RETURN_IF_ERROR(bb->Finish(results).status());
  }
  Computation* new_body = bb->computation();
  XJIT_TF_ASSIGN_OR_RETURN(Value w, e.builder().Add(Opcode::kWhile, operands, {},
                                                    {new_cond, new_body}));
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(e.builder(), w));
  return BatchOut{parts, std::vector<bool>(parts.size(), true)};
}

}  // namespace xjit::transforms
