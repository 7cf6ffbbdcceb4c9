#include "xjit/ir/opcode.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace xjit {
namespace {

const absl::flat_hash_map<std::string, Opcode>& OpcodesByName() {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string, Opcode>();
    for (int i = 0; i < kNumOpcodes; ++i) m->emplace(kOpTraits[i].name, static_cast<Opcode>(i));
    return m;
  }();
  return *kByName;
}

constexpr const char* kAttrsKindNames[] = {
#define XJIT_ATTRS_KIND_NAME(s) #s,
    XJIT_ATTRS_STRUCTS(XJIT_ATTRS_KIND_NAME)
#undef XJIT_ATTRS_KIND_NAME
};

}  // namespace

std::vector<Opcode> OpcodesWhere(bool (*pred)(Opcode)) {
  std::vector<Opcode> ops;
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (pred(static_cast<Opcode>(i))) ops.push_back(static_cast<Opcode>(i));
  }
  return ops;
}

absl::StatusOr<Opcode> ParseOpcode(absl::string_view name) {
  absl::ConsumePrefix(&name, "stablehlo.");
  const auto& by_name = OpcodesByName();
  auto it = by_name.find(name);
  if (it != by_name.end()) return it->second;
  return absl::InvalidArgumentError(absl::StrCat("unknown op '", name, "'"));
}

absl::string_view OpFamilyName(OpFamily family) {
  switch (family) {
    case OpFamily::kStructural: return "structural";
    case OpFamily::kElementwiseUnary: return "elementwise_unary";
    case OpFamily::kElementwiseBinary: return "elementwise_binary";
    case OpFamily::kElementwiseTernary: return "elementwise_ternary";
    case OpFamily::kDataMovement: return "data_movement";
    case OpFamily::kContraction: return "contraction";
    case OpFamily::kReduction: return "reduction";
    case OpFamily::kTuple: return "tuple";
    case OpFamily::kCall: return "call";
    case OpFamily::kFusion: return "fusion";
    case OpFamily::kRandom: return "random";
    case OpFamily::kSort: return "sort";
    case OpFamily::kMap: return "map";
    case OpFamily::kIndexing: return "indexing";
    case OpFamily::kControlFlow: return "control_flow";
    case OpFamily::kWindow: return "window";
    case OpFamily::kNormalization: return "normalization";
    case OpFamily::kHostIo: return "host_io";
    case OpFamily::kLinearAlgebra: return "linear_algebra";
    case OpFamily::kCustomCall: return "custom_call";
    case OpFamily::kSpectral: return "spectral";
    case OpFamily::kDynamicShape: return "dynamic_shape";
    case OpFamily::kSpecial: return "special";
  }
  return "?";
}

absl::string_view OpArityName(OpArity arity) {
  switch (arity) {
    case OpArity::kNullary: return "nullary";
    case OpArity::kUnary: return "unary";
    case OpArity::kBinary: return "binary";
    case OpArity::kTernary: return "ternary";
    case OpArity::kVariadic: return "variadic";
  }
  return "?";
}

absl::string_view AttrsKindName(AttrsKind kind) { return kAttrsKindNames[static_cast<int>(kind)]; }

}  // namespace xjit
