#include "xjit/text/op_builder.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xjit/text/op_attributes.h"
#include "xjit/text/op_names.h"

namespace xjit::text {
namespace {

// The opcode the op's name spells, or Unimplemented for names xjit does not
// have (and for stablehlo names of things the text cannot write as ops).
absl::StatusOr<Opcode> OpcodeOf(const Lexer& lex, const OpText& op) {
  if (std::optional<Opcode> opcode = OpcodeForName(op.name)) return *opcode;
  return absl::UnimplementedError(absl::StrCat(lex.Location(op.offset), ": op '", op.name,
                                               "' is not supported by xjit"));
}

absl::Status CheckRegionCount(const Lexer& lex, const OpText& op, Opcode opcode) {
  const size_t regions = NumRegions(opcode);
  if (regions == 0 && !op.regions.empty()) {
    return lex.Error(op.offset, absl::StrCat("'", op.name, "' takes no regions"));
  }
  if (HasVariadicRegions(opcode) && op.regions.size() >= regions) return absl::OkStatus();
  if (regions > 0 && op.regions.size() != regions) {
    std::string want = regions == 1 ? "one region" : absl::StrCat(regions, " regions");
    return lex.Error(op.offset, absl::StrCat("'", op.name, "' takes exactly ", want, ", got ",
                                             op.regions.size()));
  }
  return absl::OkStatus();
}

absl::Status ResultMismatch(const Lexer& lex, const OpText& op, const Instruction& instr) {
  return lex.Error(op.offset, absl::StrCat("'", op.name, "' is typed ",
                                           TypesToString(op.result_types), " but its result is ",
                                           TypesToString(ResultTypes(instr))));
}

}  // namespace

absl::StatusOr<Instruction*> BuildOp(const Lexer& lex, Scope& scope, const OpText& op,
                                     CalleeBuilder build_callee) {
  // An op xjit lacks is reported by name before anything about its operands.
  absl::StatusOr<Opcode> opcode = OpcodeOf(lex, op);
  if (!opcode.ok()) return opcode.status();
  absl::StatusOr<std::vector<Instruction*>> operands = ResolveOperands(lex, scope, op);
  if (!operands.ok()) return operands.status();
  if (IsSquare(op.name) && operands->size() == 1) operands->push_back((*operands)[0]);
  Attributes attrs;
  std::string callee;
  if (absl::Status s = ApplyOpAttributes(*opcode, op.name, op.attrs, op.offset, lex, attrs, callee);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckRegionCount(lex, op, *opcode); !s.ok()) return s;
  if (!op.captures.empty()) {
    if (OpcodeFamily(*opcode) != OpFamily::kControlFlow) {
      return absl::UnimplementedError(absl::StrCat(
          lex.Location(op.offset), ": the region of '", op.name,
          "' uses a value defined outside it; xjit regions cannot capture values except "
          "those of while, if and case"));
    }
    operands->insert(operands->end(), op.captures.begin(), op.captures.end());
  }

  if (*opcode == Opcode::kConstant) {
    if (!operands->empty()) return lex.Error(op.offset, "'stablehlo.constant' takes no operands");
    Instruction* c = scope.cb->Constant(std::move(attrs.get<ConstantAttrs>().value));
    if (!HasResultTypes(*c, op.result_types)) {
      return ResultMismatch(lex, op, *c);
    }
    return c;
  }
  std::vector<Computation*> called = op.regions;
  if (CallsFunction(*opcode)) {
    absl::StatusOr<Computation*> fn = build_callee(callee, op.offset);
    if (!fn.ok()) return fn.status();
    called = {*fn};
  }
  // Ops whose result type is not a function of their operands read it from
  // the signature.
  absl::StatusOr<Instruction*> instr;
  if (DeclaresResultType(*opcode)) {
    // An op with several results (rng_bit_generator) declares them all.
    // custom_call may have none (a host callback for its side effect).
    const bool several = HasMultipleResults(*opcode) &&
                         (op.result_types.size() > 1 ||
                          (op.result_types.empty() && *opcode == Opcode::kCustomCall));
    if (op.result_types.size() != 1 && !several) {
      return lex.Error(op.offset, absl::StrCat("'", op.name, "' must have one result type"));
    }
    instr = scope.cb->AddWithResultType(
        *opcode, several ? Shape::Tuple(op.result_types) : op.result_types[0],
        *std::move(operands), std::move(attrs), std::move(called));
  } else if (op.result_types.size() == 1 && op.result_types[0].is_quantized()) {
    // A quantized result is not a function of the operands: it is declared
    // (shape_inference.h, ComputesOnQuantizedTypes).
    instr = scope.cb->AddWithResultType(*opcode, op.result_types[0], *std::move(operands),
                                        std::move(attrs), std::move(called));
  } else {
    instr = scope.cb->Add(*opcode, *std::move(operands), std::move(attrs), std::move(called));
  }
  if (!instr.ok()) {
    return absl::Status(instr.status().code(), absl::StrCat(lex.Location(op.offset), ": ",
                                                            instr.status().message()));
  }
  if (!HasResultTypes(**instr, op.result_types)) return ResultMismatch(lex, op, **instr);
  return *instr;
}

}  // namespace xjit::text
