#include "xjit/transforms/batching.h"

#include <numeric>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/transforms/batching_rules.h"
#include "xjit/transforms/collectives.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {

ValueOr BroadcastBatch(Emitter& e, Value x, int64_t axis_size) {
  std::vector<int64_t> dims = {axis_size};
  dims.insert(dims.end(), x->shape().dims.begin(), x->shape().dims.end());
  std::vector<int64_t> bdims(x->shape().rank());
  std::iota(bdims.begin(), bdims.end(), 1);
  return e.BroadcastInDim(x, dims, bdims);
}

ValueOr BatchContext::Batched(int i) {
  if (batched[i]) return operands[i];
  return BroadcastBatch(e, operands[i], axis_size);
}

absl::StatusOr<BatchOut> BatchDriver::Run(const Computation& source, const Parts& params,
                                          const std::vector<bool>& batched) {
  ComputationBuilder& b = emitter_.builder();
  absl::flat_hash_map<const Instruction*, BatchOut> map;
  for (const auto& owned : source.instructions()) {
    const Instruction& old = *owned;
    Opcode op = old.opcode();
    if (op == Opcode::kParameter) {
      int64_t n = old.attrs<ParameterAttrs>().number;
      map[&old] = BatchOut{{params[n]}, {batched[n]}};
      continue;
    }
    if (op == Opcode::kGetTupleElement) {
      const BatchOut& t = map.at(old.operand(0));
      size_t i = static_cast<size_t>(old.attrs<GetTupleElementAttrs>().index);
      map[&old] = BatchOut{{t.values[i]}, {t.batched[i]}};
      continue;
    }
    std::vector<Value> operands;
    std::vector<bool> flags;
    bool any = false;
    for (const Instruction* o : old.operands()) {
      const BatchOut& v = map.at(o);
      if (v.values.size() != 1) {
        return absl::UnimplementedError(
            absl::StrCat("vmap: '", OpcodeName(op), "' with a tuple operand is not supported"));
      }
      operands.push_back(v.values[0]);
      flags.push_back(v.batched[0]);
      any = any || v.batched[0];
    }
    if (op == Opcode::kTuple) {
      map[&old] = BatchOut{operands, flags};
      continue;
    }
    if (!any && !BindsCurrentAxis(old)) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(b, old, operands));
      BatchOut out;
      if (v->shape().is_tuple) {
        for (size_t i = 0; i < v->shape().tuple_shapes.size(); ++i) {
          GetTupleElementAttrs attrs;
          attrs.index = static_cast<int64_t>(i);
          XJIT_TF_ASSIGN_OR_RETURN(Value part, b.Add(Opcode::kGetTupleElement, {v}, attrs));
          out.values.push_back(part);
          out.batched.push_back(false);
        }
      } else {
        out = BatchOut{{v}, {false}};
      }
      map[&old] = std::move(out);
      continue;
    }
    BatchRule rule = BatchRuleFor(op);
    if (rule == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat("vmap: no batching rule for '", OpcodeName(op), "' yet"));
    }
    BatchContext ctx{old, operands, flags, axis_size_, emitter_, *this};
    XJIT_TF_ASSIGN_OR_RETURN(map[&old], rule(ctx));
  }
  BatchOut out;
  for (const Instruction* r : source.results()) {
    const BatchOut& v = map.at(r);
    if (v.values.size() != 1) return absl::UnimplementedError("vmap: a tuple-valued result");
    out.values.push_back(v.values[0]);
    out.batched.push_back(v.batched[0]);
  }
  return out;
}

absl::StatusOr<Computation*> Vmap(const Computation& fn, const std::vector<int64_t>& in_axes,
                                  int64_t axis_size, const std::vector<int64_t>& out_axes,
                                  ModuleBuilder& target, const std::string& name,
                                  int64_t axis_id) {
  // Rules call Vmap for regions (if/while bodies): they keep the axis bound.
  std::optional<ScopedVmapAxis> scope;
  if (axis_id >= 0) scope.emplace(axis_id);
  const std::vector<Instruction*>& params = fn.parameters();
  if (in_axes.size() != params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("vmap: ", in_axes.size(), " in_axes for ",
                                                   params.size(), " parameters of ", fn.name()));
  }
  if (out_axes.size() != fn.results().size()) {
    return absl::InvalidArgumentError(absl::StrCat("vmap: ", out_axes.size(), " out_axes for ",
                                                   fn.results().size(), " results of ",
                                                   fn.name()));
  }
  if (axis_size < 0) {
    return absl::InvalidArgumentError(absl::StrCat("vmap: axis_size ", axis_size, " < 0"));
  }
  ComputationBuilder* b = target.NewComputation(name);
  if (b == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  BatchDriver driver(target, *b, axis_size);
  Emitter& e = driver.emitter();
  Parts inputs;
  std::vector<bool> batched;
  for (size_t i = 0; i < params.size(); ++i) {
    Shape s = params[i]->shape();
    int64_t axis = in_axes[i];
    if (axis == kNotMapped) {
      inputs.push_back(b->Parameter(s));
      batched.push_back(false);
      continue;
    }
    if (axis < 0 || axis > s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("vmap: in_axes entry ", axis,
                                                     " out of range for parameter ", i,
                                                     " of rank ", s.rank()));
    }
    s.dims.insert(s.dims.begin() + axis, axis_size);
    Value p = b->Parameter(s);
    // Move the batch dimension to the front.
    std::vector<int64_t> perm = {axis};
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d != axis) perm.push_back(d);
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value front, e.Transpose(p, perm));
    inputs.push_back(front);
    batched.push_back(true);
  }
  XJIT_TF_ASSIGN_OR_RETURN(BatchOut out, driver.Run(fn, inputs, batched));
  std::vector<Value> results;
  for (size_t i = 0; i < out.values.size(); ++i) {
    Value v = out.values[i];
    int64_t axis = out_axes[i];
    if (axis == kNotMapped) {
      if (out.batched[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "vmap has mapped output (result ", i, ") but out_axes is None"));
      }
      results.push_back(v);
      continue;
    }
    if (!out.batched[i]) {
      XJIT_TF_ASSIGN_OR_RETURN(v, BroadcastBatch(e, v, axis_size));
    }
    int64_t rank = v->shape().rank();
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("vmap: out_axes entry ", axis,
                                                     " out of range for result ", i,
                                                     " of rank ", rank - 1));
    }
    std::vector<int64_t> perm;
    for (int64_t d = 1; d < rank; ++d) perm.push_back(d);
    perm.insert(perm.begin() + axis, 0);
    XJIT_TF_ASSIGN_OR_RETURN(v, e.Transpose(v, perm));
    results.push_back(v);
  }
  return b->Finish(results);
}

}  // namespace xjit::transforms
