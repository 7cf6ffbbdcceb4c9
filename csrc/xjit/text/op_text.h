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

// A block argument the op's pretty syntax declares before its region's '{'
// (reduce's `reducer(%a: tensor<f32>, %b: tensor<f32>)`).
struct BlockArgument {
  std::string name;
  Shape type;
  size_t offset = 0;
};

// Builds regions. Regions are computations of their own, so the caller (which
// owns the module and the scopes) builds them.
class RegionParser {
 public:
  virtual ~RegionParser() = default;
  // The region whose '{' is the next token: '{' ['^bb0(' args '):'] body '}'.
  virtual absl::StatusOr<Computation*> Parse() = 0;
  // '{' body '}' whose block arguments the op's syntax declared before it.
  virtual absl::StatusOr<Computation*> ParseWithArguments(
      const std::vector<BlockArgument>& args) = 0;
  // The region `applies stablehlo.add` stands for: the op over the block
  // arguments (typed `args`), its result returned.
  virtual absl::StatusOr<Computation*> Apply(const std::string& op_name,
                                             const std::vector<Shape>& args,
                                             size_t offset) = 0;
};

// An op with its result names (%r = ..., %r:2 = ..., %a, %b = ...), generic
// or pretty.
absl::StatusOr<OpText> ParseOpText(Lexer& lex, RegionParser& regions);

// The op ending a body, whose name the caller has seen: "func.return"(...)
// : (...) -> (), stablehlo.return %a, %b : t, t, or a bare 'return'.
absl::StatusOr<OpText> ParseTerminatorText(Lexer& lex);

// Result types after '->': one type, or '(' types ')' each with optional
// attributes.
absl::StatusOr<std::vector<Shape>> ParseResultTypes(Lexer& lex);

// Building blocks shared by the generic form and the pretty forms
// (pretty_forms.h).

// %name or %name#i.
absl::StatusOr<OperandRef> ParseOperand(Lexer& lex);
// Operands separated by ',' up to `close`, which is consumed. The pretty
// form ends at ':' (consumed); the generic one at ')'.
absl::Status ParseOperandList(Lexer& lex, OpText& op, TokenKind close);
// Types separated by ',' up to `close` (consumed); with kEof, up to the
// first token that is not ',' (pretty forms end at the line's last type).
absl::StatusOr<std::vector<Shape>> ParseTypeList(Lexer& lex, TokenKind close);
// operand types ')' '->' result types, after the '('; `arrow` names what
// the '->' introduces, for the message when it is missing.
absl::Status ParseFunctionType(Lexer& lex, OpText& op, absl::string_view arrow);
// ':' '(' operand types ')' '->' (type | '(' types ')')
absl::Status ParseSignature(Lexer& lex, OpText& op);

// "(tensor<2xf32>, tensor<i1>)", for messages comparing signatures.
std::string TypesToString(const std::vector<Shape>& types);

}  // namespace xjit::text
