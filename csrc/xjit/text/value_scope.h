// SSA names of the text and the instructions they stand for. Each function
// body and each region has a scope of its own; a region sees its function's
// scope only to say that xjit regions cannot capture values. Results of a
// multi-result op are named %r#i (or %a, %b = ...) and read through
// get_tuple_element, built once per (instruction, index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/text/lexer.h"
#include "xjit/text/op_text.h"

namespace xjit::text {

// What a name stands for: a whole instruction, or result `index` of a
// multi-result one (%a, %b = ...).
struct Binding {
  Instruction* instr = nullptr;
  int64_t index = -1;
};

// The values of enclosing scopes that the regions of one op use (while, if,
// case capture; other ops may not): each becomes a trailing parameter of
// every region of the op, after the region's block arguments, and an operand
// of the op after its own. While parsing, a region numbers the values it
// captures in the order it meets them; ParseStatement then rebuilds the
// regions whose list differs from the op's (parser.cc).
struct CaptureList {
  std::vector<Instruction*> outer;  // the op's list: every region's, in first-use order
  struct Region {
    Computation* computation;
    int64_t base;                     // its block-argument count
    std::vector<Instruction*> local;  // what it captured, in its parameter order
  };
  std::vector<Region> regions;
};

struct Scope {
  ComputationBuilder* cb = nullptr;
  Scope* parent = nullptr;  // the enclosing function or region, for a region
  // For a region: its op's capture list, and the parameters standing for
  // each captured outer value.
  CaptureList* captures = nullptr;
  std::vector<Instruction*> local_captures;
  absl::flat_hash_map<Instruction*, Instruction*> captured;
  absl::flat_hash_map<std::string, Binding> values;
  absl::flat_hash_map<std::pair<Instruction*, int64_t>, Instruction*> elements;
  // Example mode: undefined names become parameters.
  std::vector<std::string>* free_parameters = nullptr;
};

// Ops whose tuple result the text spells as several results (%3:2), as the
// printer does; any other tuple-typed value is one value.
bool IsMultiResult(const Instruction& instr);

// The types the text writes for the instruction's results.
std::vector<Shape> ResultTypes(const Instruction& instr);
// ResultTypes(instr) == types, without copying them.
bool HasResultTypes(const Instruction& instr, const std::vector<Shape>& types);

// Binds %name (defined at `offset`); redefining a name is an error.
absl::Status BindName(const Lexer& lex, Scope& scope, const std::string& name, size_t offset,
                      Binding binding);

// Result `index` of a multi-result instruction.
absl::StatusOr<Instruction*> TupleElement(const Lexer& lex, Scope& scope, Instruction* instr,
                                          int64_t index, size_t offset);

// The values of the op's operands, checked against the types its signature
// states (which also type free values in example mode).
absl::StatusOr<std::vector<Instruction*>> ResolveOperands(const Lexer& lex, Scope& scope,
                                                          const OpText& op);

// Binds the op's result names to what `instr` computes.
absl::Status BindOutputs(const Lexer& lex, Scope& scope, const OpText& op, Instruction* instr);

}  // namespace xjit::text
