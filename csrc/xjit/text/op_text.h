// One op as the text writes it, read into a record before anything is built:
// the names it defines, the operands it names, its regions, attributes and
// the types its signature states. Building the record into an instruction is
// op_builder.h's job; keeping the two apart lets one reader serve both the
// generic ("stablehlo.add"(%a, %b) : ...) and the pretty (stablehlo.add %a,
// %b : ...) forms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/shape.h"
#include "xjit/text/attribute_parser.h"
#include "xjit/text/lexer.h"

namespace xjit::text {

struct OperandRef {
  std::string name;
  int64_t index = -1;  // %x#index
  size_t offset = 0;
};

struct OutputName {
  std::string name;
  int64_t count = -1;  // %x:count
  size_t offset = 0;
};

struct OpText {
  size_t offset = 0;
  std::string name;
  std::vector<OutputName> outputs;
  std::vector<OperandRef> operands;
  std::vector<Computation*> regions;
  // Values of the enclosing scope the regions use (value_scope.h CaptureList).
  std::vector<Instruction*> captures;
  std::vector<NamedAttr> attrs;
  bool has_signature = false;
  std::vector<Shape> operand_types;
  std::vector<Shape> result_types;
};

// Builds the region whose '{' is the next token. Regions are computations of
// their own, so the caller (which owns the module and the scopes) builds them.
using RegionParser = absl::FunctionRef<absl::StatusOr<Computation*>()>;

// An op with its result names (%r = ..., %r:2 = ..., %a, %b = ...), generic
// or pretty.
absl::StatusOr<OpText> ParseOpText(Lexer& lex, RegionParser parse_region);

// The op ending a body, whose name the caller has seen: "func.return"(...)
// : (...) -> (), stablehlo.return %a, %b : t, t, or a bare 'return'.
absl::StatusOr<OpText> ParseTerminatorText(Lexer& lex);

// Result types after '->': one type, or '(' types ')' each with optional
// attributes.
absl::StatusOr<std::vector<Shape>> ParseResultTypes(Lexer& lex);

// "(tensor<2xf32>, tensor<i1>)", for messages comparing signatures.
std::string TypesToString(const std::vector<Shape>& types);

}  // namespace xjit::text
