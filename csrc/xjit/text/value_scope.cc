#include "xjit/text/value_scope.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"

namespace xjit::text {
namespace {

absl::StatusOr<Instruction*> Resolve(const Lexer& lex, Scope& scope, const OperandRef& ref,
                                     const Shape* type) {
  auto it = scope.values.find(ref.name);
  if (it == scope.values.end() && scope.parent != nullptr && scope.captures != nullptr) {
    // A value of an enclosing scope: resolved there, then captured.
    absl::StatusOr<Instruction*> outer = Resolve(lex, *scope.parent, ref, type);
    if (!outer.ok()) return outer.status();
    if ((*outer)->opcode() == Opcode::kConstant) {
      // A constant defined outside (as StableHLO's test files write them) is
      // copied in rather than captured: every op with a region can read it.
      Instruction* copy = scope.cb->Constant((*outer)->attrs<ConstantAttrs>().value);
      return scope.values.emplace(ref.name, Binding{copy}).first->second.instr;
    }
    auto known = scope.captured.find(*outer);
    if (known != scope.captured.end()) return known->second;
    std::vector<Instruction*>& list = scope.captures->outer;
    if (std::find(list.begin(), list.end(), *outer) == list.end()) list.push_back(*outer);
    Instruction* param = scope.cb->Parameter((*outer)->shape());
    scope.local_captures.push_back(*outer);
    scope.captured[*outer] = param;
    return param;
  }
  if (it == scope.values.end()) {
    if (scope.free_parameters == nullptr || ref.index >= 0) {
      return lex.Error(ref.offset, absl::StrCat("use of undefined value %", ref.name));
    }
    if (type == nullptr) {
      return lex.Error(ref.offset, absl::StrCat("the type of free value %", ref.name,
                                                " is not given by the op's signature"));
    }
    scope.free_parameters->push_back(ref.name);
    it = scope.values.emplace(ref.name, Binding{scope.cb->Parameter(*type)}).first;
  }
  const Binding& b = it->second;
  if (b.index >= 0) {
    if (ref.index >= 0) {
      return lex.Error(ref.offset, absl::StrCat("%", ref.name, " is a single value; drop '#",
                                                ref.index, "'"));
    }
    return TupleElement(lex, scope, b.instr, b.index, ref.offset);
  }
  const int64_t n = IsMultiResult(*b.instr) ? b.instr->shape().tuple_shapes.size() : 1;
  if (ref.index < 0) {
    if (IsMultiResult(*b.instr)) {
      return lex.Error(ref.offset, absl::StrCat("%", ref.name, " has ", n,
                                                " results; name one as %", ref.name, "#0"));
    }
    return b.instr;
  }
  if (!IsMultiResult(*b.instr) || ref.index >= n) {
    return lex.Error(ref.offset, absl::StrCat("%", ref.name, " has ", n,
                                              " result(s); there is no #", ref.index));
  }
  return TupleElement(lex, scope, b.instr, ref.index, ref.offset);
}

}  // namespace

bool IsMultiResult(const Instruction& instr) {
  return instr.shape().is_tuple && HasMultipleResults(instr.opcode());
}

std::vector<Shape> ResultTypes(const Instruction& instr) {
  if (IsMultiResult(instr)) return instr.shape().tuple_shapes;
  return {instr.shape()};
}

bool HasResultTypes(const Instruction& instr, const std::vector<Shape>& types) {
  if (IsMultiResult(instr)) return instr.shape().tuple_shapes == types;
  return types.size() == 1 && types[0] == instr.shape();
}

absl::Status BindName(const Lexer& lex, Scope& scope, const std::string& name, size_t offset,
                      Binding binding) {
  if (!scope.values.try_emplace(name, binding).second) {
    return lex.Error(offset, absl::StrCat("redefinition of %", name));
  }
  return absl::OkStatus();
}

absl::StatusOr<Instruction*> TupleElement(const Lexer& lex, Scope& scope, Instruction* instr,
                                          int64_t index, size_t offset) {
  auto key = std::make_pair(instr, index);
  auto it = scope.elements.find(key);
  if (it != scope.elements.end()) return it->second;
  absl::StatusOr<Instruction*> gte =
      scope.cb->Add(Opcode::kGetTupleElement, {instr}, GetTupleElementAttrs{index});
  if (!gte.ok()) return lex.Error(offset, gte.status().message());
  scope.elements[key] = *gte;
  return *gte;
}

absl::StatusOr<std::vector<Instruction*>> ResolveOperands(const Lexer& lex, Scope& scope,
                                                          const OpText& op) {
  if (op.has_signature && op.operand_types.size() != op.operands.size()) {
    return lex.Error(op.offset, absl::StrCat("'", op.name, "' has ", op.operands.size(),
                                             " operand(s) but its type lists ",
                                             op.operand_types.size()));
  }
  std::vector<Instruction*> values;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Shape* type = op.has_signature ? &op.operand_types[i] : nullptr;
    absl::StatusOr<Instruction*> v = Resolve(lex, scope, op.operands[i], type);
    if (!v.ok()) return v.status();
    if (type != nullptr && (*v)->shape() != *type) {
      return lex.Error(op.operands[i].offset,
                       absl::StrCat("%", op.operands[i].name, " has type ",
                                    (*v)->shape().ToString(), " but '", op.name,
                                    "' lists operand ", i, " as ", type->ToString()));
    }
    values.push_back(*v);
  }
  return values;
}

absl::Status BindOutputs(const Lexer& lex, Scope& scope, const OpText& op, Instruction* instr) {
  const int64_t n = IsMultiResult(*instr) ? instr->shape().tuple_shapes.size() : 1;
  if (op.outputs.empty()) return absl::OkStatus();
  if (op.outputs.size() == 1) {
    const OutputName& out = op.outputs[0];
    int64_t want = out.count < 0 ? 1 : out.count;
    if (want != n || (out.count < 0 && IsMultiResult(*instr))) {
      return lex.Error(out.offset, absl::StrCat("'", op.name, "' has ", n, " result(s); write %",
                                                out.name, n == 1 ? "" : absl::StrCat(":", n)));
    }
    return BindName(lex, scope, out.name, out.offset, Binding{instr});
  }
  if (static_cast<int64_t>(op.outputs.size()) != n || !IsMultiResult(*instr)) {
    return lex.Error(op.offset, absl::StrCat("'", op.name, "' has ", n, " result(s) but ",
                                             op.outputs.size(), " names are given"));
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const OutputName& out = op.outputs[i];
    if (out.count >= 0) {
      return lex.Error(out.offset, "a result count ':N' needs a single result name");
    }
    if (absl::Status s =
            BindName(lex, scope, out.name, out.offset, Binding{instr, static_cast<int64_t>(i)});
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace xjit::text
