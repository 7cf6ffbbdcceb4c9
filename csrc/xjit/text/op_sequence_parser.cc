// The spec examples' form: ops outside any function, whose free values
// become parameters and whose last op gives the results (parser.h, ParseOps).
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/text/module_parser.h"

namespace xjit {
namespace text {

absl::StatusOr<ParsedOps> ModuleParser::ParseOps() {
  mb_ = std::make_unique<ModuleBuilder>("example");
  ParsedOps parsed;
  Scope scope;
  scope.cb = mb_->NewComputation("main");
  scope.free_parameters = &parsed.parameter_names;
  std::optional<OpText> last;
  Instruction* last_instr = nullptr;
  while (lex_.Peek().kind != TokenKind::kEof) {
    OpText op;
    absl::StatusOr<Instruction*> instr = ParseStatement(scope, op);
    if (!instr.ok()) return instr.status();
    if (*instr == nullptr) continue;
    last = std::move(op);
    last_instr = *instr;
  }
  if (!last) return lex_.Error(0, "expected at least one op");
  std::vector<Instruction*> results;
  if (!IsMultiResult(*last_instr)) {
    results.push_back(last_instr);
    parsed.result_names.push_back(last->outputs.empty() ? "" : last->outputs[0].name);
  } else {
    for (size_t i = 0; i < last_instr->shape().tuple_shapes.size(); ++i) {
      absl::StatusOr<Instruction*> e = TupleElement(lex_, scope, last_instr, i, last->offset);
      if (!e.ok()) return e.status();
      results.push_back(*e);
      parsed.result_names.push_back(last->outputs.size() == 1
                                        ? absl::StrCat(last->outputs[0].name, "#", i)
                                        : last->outputs[i].name);
    }
  }
  absl::StatusOr<Computation*> main = scope.cb->Finish(std::move(results));
  if (!main.ok()) return main.status();
  absl::StatusOr<std::unique_ptr<Module>> module = mb_->Build(*main);
  if (!module.ok()) return module.status();
  parsed.module = *std::move(module);
  return parsed;
}

}  // namespace text

absl::StatusOr<ParsedOps> ParseOps(absl::string_view text) {
  return text::ModuleParser(text).ParseOps();
}

}  // namespace xjit
