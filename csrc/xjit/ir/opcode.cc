#include "xjit/ir/opcode.h"

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

struct OpInfo {
  const char* name;
  OpArity arity;
};

constexpr OpInfo kOps[] = {
#define XJIT_OPCODE_INFO(e, name, arity) {name, OpArity::arity},
    XJIT_OPCODES(XJIT_OPCODE_INFO)
#undef XJIT_OPCODE_INFO
};

}  // namespace

absl::string_view OpcodeName(Opcode op) { return kOps[static_cast<int>(op)].name; }
OpArity OpcodeArity(Opcode op) { return kOps[static_cast<int>(op)].arity; }

absl::StatusOr<Opcode> ParseOpcode(absl::string_view name) {
  absl::ConsumePrefix(&name, "stablehlo.");
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (name == kOps[i].name) return static_cast<Opcode>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown op '", name, "'"));
}

bool IsElementwiseUnary(Opcode op) { return op >= Opcode::kAbs && op <= Opcode::kConvert; }
bool IsElementwiseBinary(Opcode op) { return op >= Opcode::kAdd && op <= Opcode::kCompare; }
bool IsElementwise(Opcode op) { return op >= Opcode::kAbs && op <= Opcode::kClamp; }

}  // namespace xjit
