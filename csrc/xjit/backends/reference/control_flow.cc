// while, if and case on the reference backend: each region is evaluated as a
// whole computation by the same evaluator (evaluator.h).
#include "xjit/backends/reference/control_flow.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/evaluator.h"

namespace xjit::reference {
namespace {

// The op's result: one value as itself, any other count as a tuple
// (shape inference's convention).
Value Pack(std::vector<Value> values) {
  if (values.size() == 1) return std::move(values[0]);
  return Value::Tuple(std::move(values));
}

absl::StatusOr<bool> ScalarBool(const Value& v, absl::string_view what) {
  if (v.is_tuple || v.array.shape() != Shape(DType::kPred, {})) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a tensor<i1>"));
  }
  return v.array.data_as<bool>()[0];
}

}  // namespace

absl::StatusOr<Value> EvalWhile(const Instruction& instr, const std::vector<const Value*>& operands) {
  const auto& called = instr.called_computations();
  if (called.size() != 2) return absl::InvalidArgumentError("needs a cond and a body");
  const Computation& cond = *called[0];
  const Computation& body = *called[1];
  const size_t n = body.results().size();
  if (n > operands.size()) return absl::InvalidArgumentError("body returns too many values");
  std::vector<Value> state;
  state.reserve(operands.size());
  for (const Value* v : operands) state.push_back(*v);
  while (true) {
    absl::StatusOr<std::vector<Value>> c = EvaluateComputation(cond, state);
    if (!c.ok()) return c.status();
    if (c->size() != 1) return absl::InvalidArgumentError("cond must return one value");
    absl::StatusOr<bool> go = ScalarBool((*c)[0], "cond's result");
    if (!go.ok()) return go.status();
    if (!*go) break;
    absl::StatusOr<std::vector<Value>> next = EvaluateComputation(body, state);
    if (!next.ok()) return next.status();
    if (next->size() != n) return absl::InvalidArgumentError("body returned a wrong count");
    for (size_t i = 0; i < n; ++i) state[i] = std::move((*next)[i]);
  }
  state.resize(n);
  return Pack(std::move(state));
}

absl::StatusOr<Value> EvalBranch(const Instruction& instr,
                                 const std::vector<const Value*>& operands) {
  const auto& called = instr.called_computations();
  if (operands.empty() || called.empty()) {
    return absl::InvalidArgumentError("needs a selector operand and branches");
  }
  size_t branch = 0;
  if (instr.opcode() == Opcode::kIf) {
    absl::StatusOr<bool> pred = ScalarBool(*operands[0], "pred");
    if (!pred.ok()) return pred.status();
    branch = *pred ? 0 : 1;
  } else {
    const Value& index = *operands[0];
    if (index.is_tuple || index.array.shape() != Shape(DType::kS32, {})) {
      return absl::InvalidArgumentError("index must be a tensor<i32>");
    }
    const int32_t i = index.array.data_as<int32_t>()[0];
    // Out of range selects the last branch (the spec's semantics).
    branch = (i < 0 || static_cast<size_t>(i) >= called.size()) ? called.size() - 1
                                                                  : static_cast<size_t>(i);
  }
  std::vector<Value> args;
  for (size_t i = 1; i < operands.size(); ++i) args.push_back(*operands[i]);
  absl::StatusOr<std::vector<Value>> out = EvaluateComputation(*called[branch], args);
  if (!out.ok()) return out.status();
  return Pack(*std::move(out));
}

}  // namespace xjit::reference
