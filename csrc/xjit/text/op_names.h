// The op names the text may use for xjit's opcodes: "stablehlo.add",
// func.call / call, xjit.fusion, and the CHLO ops JAX writes that are one
// xjit op (chlo.erf, chlo.tan; chlo.square is multiply of the operand by
// itself).
#pragma once

#include <optional>

#include "absl/strings/string_view.h"
#include "xjit/ir/opcode.h"

namespace xjit::text {

// The opcode `name` spells, or nullopt for an op xjit does not have.
std::optional<Opcode> OpcodeForName(absl::string_view name);

// chlo.square x: built as multiply(x, x).
inline bool IsSquare(absl::string_view name) { return name == "chlo.square"; }

}  // namespace xjit::text
