// Builds one op record (op_text.h) into an instruction of the scope's
// computation through ComputationBuilder::Add, so shape inference and the
// verifier check it; the result types the text states must agree with what
// inference gives.
#pragma once

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "xjit/text/lexer.h"
#include "xjit/text/op_text.h"
#include "xjit/text/value_scope.h"

namespace xjit::text {

// The function a func.call names (used at `use_offset`), built on demand by
// the caller, which knows the module's functions.
using CalleeBuilder =
    absl::FunctionRef<absl::StatusOr<Computation*>(const std::string& name, size_t use_offset)>;

absl::StatusOr<Instruction*> BuildOp(const Lexer& lex, Scope& scope, const OpText& op,
                                     CalleeBuilder build_callee);

}  // namespace xjit::text
