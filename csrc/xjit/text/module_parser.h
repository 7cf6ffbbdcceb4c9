// The parser behind parser.h: the module, its functions, their bodies and
// regions (parser.cc), and the spec examples' bare op sequences
// (op_sequence_parser.cc). Functions are indexed first (name -> offset) and
// built on demand, so a func.call may name a function defined later in the
// text; the lexer seeks to it and back. Regions become computations of their
// own, built before the op that owns them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/builder/builder.h"
#include "xjit/text/lexer.h"
#include "xjit/text/op_text.h"
#include "xjit/text/parser.h"
#include "xjit/text/value_scope.h"

namespace xjit::text {

class ModuleParser {
 public:
  explicit ModuleParser(absl::string_view text) : lex_(text) {}

  // `entry` names the function to build as the module's entry; empty means
  // @main, or the only function.
  absl::StatusOr<std::unique_ptr<Module>> ParseModule(const std::string& entry = "");
  absl::StatusOr<ParsedOps> ParseOps();
  absl::StatusOr<ParsedTest> ParseTest(const std::string& entry);

 private:
  struct FuncInfo {
    size_t offset = 0;
    Computation* built = nullptr;
    bool in_progress = false;
  };

  absl::Status IndexFunctions(bool wrapped);
  absl::Status SkipBalancedBraces();
  absl::StatusOr<Computation*> BuildFunction(const std::string& name, size_t use_offset);
  absl::StatusOr<Computation*> ParseFunction();
  // Function arguments and a region's block arguments: the same list, told
  // apart in messages, and only the former may carry attributes.
  struct ArgumentSyntax {
    absl::string_view one;   // "an argument"
    absl::string_view list;  // "the argument list"
    bool allows_attributes;
  };
  static constexpr ArgumentSyntax kFunctionArguments{"an argument", "the argument list", true};
  static constexpr ArgumentSyntax kBlockArguments{"a block argument", "the block arguments",
                                                  false};
  // %name ':' type {',' ...} ')' after the '(', each becoming a parameter
  // of the scope's computation.
  absl::Status ParseArguments(Scope& scope, const ArgumentSyntax& syntax);
  // Ops up to and including the terminator; returns the values returned.
  absl::StatusOr<std::vector<Instruction*>> ParseBody(Scope& scope, bool is_region,
                                                      std::vector<Shape>* returned_types);
  // '{' [^bb0(args):] body '}'; `declared` are block arguments the op's
  // pretty syntax gave before the '{' (then no ^bb0 may follow). Values of
  // enclosing scopes the body uses are captured (value_scope.h).
  absl::StatusOr<Computation*> ParseRegion(Scope& parent, CaptureList& captures,
                                           const std::vector<BlockArgument>* declared);
  // The op's regions, each taking every value the op captures (value_scope.h).
  absl::StatusOr<std::vector<Computation*>> UnifyCaptures(const CaptureList& captures);
  // The region of `applies stablehlo.add`: the op over the arguments.
  absl::StatusOr<Computation*> ApplyRegion(const std::string& op_name,
                                           const std::vector<Shape>& args, size_t offset);
  // Skips a top-level op other than func.func that does not change what the
  // module computes (sdy.mesh @mesh = <...>); false when the next one is not.
  absl::StatusOr<bool> SkipTopLevelDeclaration();
  bool IsTerminator(bool is_region);
  // One op: read, built into the scope's computation, its results named.
  absl::StatusOr<Instruction*> ParseStatement(Scope& scope, OpText& op);

  // The RegionParser op_text.h reads regions through.
  class Regions : public RegionParser {
   public:
    Regions(ModuleParser& p, Scope& scope, CaptureList& captures)
        : p_(p), scope_(scope), captures_(captures) {}
    absl::StatusOr<Computation*> Parse() override {
      return p_.ParseRegion(scope_, captures_, nullptr);
    }
    absl::StatusOr<Computation*> ParseWithArguments(
        const std::vector<BlockArgument>& args) override {
      return p_.ParseRegion(scope_, captures_, &args);
    }
    absl::StatusOr<Computation*> Apply(const std::string& op_name, const std::vector<Shape>& args,
                                       size_t offset) override {
      return p_.ApplyRegion(op_name, args, offset);
    }

   private:
    ModuleParser& p_;
    Scope& scope_;
    CaptureList& captures_;
  };

  // A check-dialect op in the tested function's body: its values are kept
  // for the entry's results.
  absl::Status AddCheck(Scope& scope, const OpText& op);

  Lexer lex_;
  // Test mode (ParseTest): the function whose checks are collected, its
  // scope while it is parsed, the checks and their (actual, expected) values.
  std::string checked_function_;
  const Scope* checked_scope_ = nullptr;
  std::vector<ParsedCheck> checks_;
  std::vector<Instruction*> check_values_;
  std::unique_ptr<ModuleBuilder> mb_;
  absl::flat_hash_map<std::string, FuncInfo> funcs_;
  std::vector<std::string> func_order_;
  int64_t region_count_ = 0;
  // `applies op` regions made so far, by op and argument types: reductions
  // that apply the same op share one region (JAX writes one per reduce;
  // a 10,000-op module would otherwise carry a thousand copies of `add`).
  absl::flat_hash_map<std::pair<std::string, std::vector<Shape>>, Computation*> applied_regions_;
};

}  // namespace xjit::text
