#include "xjit/text/op_names.h"

#include "absl/strings/match.h"

namespace xjit::text {

std::optional<Opcode> OpcodeForName(absl::string_view name) {
  if (name == "func.call" || name == "call") return Opcode::kCall;
  if (name == "xjit.fusion") return Opcode::kFusion;
  if (name == "chlo.erf") return Opcode::kErf;
  if (name == "chlo.tan") return Opcode::kTan;
  if (IsSquare(name)) return Opcode::kMultiply;
  // create_token is the deprecated spelling of after_all with no operands.
  if (name == "stablehlo.create_token") return Opcode::kAfterAll;
  if (absl::StartsWith(name, "stablehlo.")) {
    absl::StatusOr<Opcode> parsed = ParseOpcode(name);
    // Parameters are func arguments; calls are spelled func.call.
    // composite (issue 11) names its function in an attribute, as a call does.
    if (parsed.ok() && *parsed != Opcode::kParameter &&
        (!CallsFunction(*parsed) || *parsed == Opcode::kComposite)) {
      return *parsed;
    }
  }
  return std::nullopt;
}

}  // namespace xjit::text
