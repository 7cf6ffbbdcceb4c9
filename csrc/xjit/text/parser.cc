// The module, function, body and region levels of the parser
// (module_parser.h), and the public ParseModule.
#include "xjit/text/parser.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xjit/builder/rewriter.h"
#include "xjit/text/attribute_parser.h"
#include "xjit/text/module_parser.h"
#include "xjit/text/op_builder.h"
#include "xjit/text/op_names.h"
#include "xjit/text/type_parser.h"

namespace xjit {
namespace text {

// ---------------------------------------------------------------- module

absl::StatusOr<std::unique_ptr<Module>> ModuleParser::ParseModule(const std::string& entry_function) {
  std::string name = "module";
  bool wrapped = false;
  if (lex_.PeekIdent("module") || lex_.PeekIdent("builtin.module")) {
    lex_.Next();
    wrapped = true;
    if (lex_.Peek().kind == TokenKind::kSymbol) name = lex_.Next().text;
    if (lex_.PeekIdent("attributes")) {
      lex_.Next();
      if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) {
        return a.status();
      }
    }
    if (absl::Status s = lex_.Expect(TokenKind::kLBrace, "'{' opening the module body");
        !s.ok()) {
      return s;
    }
  }
  mb_ = std::make_unique<ModuleBuilder>(name);
  if (absl::Status s = IndexFunctions(wrapped); !s.ok()) return s;
  if (func_order_.empty()) return lex_.Error(0, "expected at least one func.func");
  std::string entry_name = !entry_function.empty()    ? entry_function
                           : funcs_.contains("main") ? "main"
                                                     : "";
  if (!entry_function.empty() && !funcs_.contains(entry_function)) {
    return absl::NotFoundError(absl::StrCat("the module has no function @", entry_function));
  }
  if (entry_name.empty()) {
    if (func_order_.size() != 1) {
      return lex_.Error(0, "a module with several functions needs one named @main");
    }
    entry_name = func_order_[0];
  }
  absl::StatusOr<Computation*> entry = BuildFunction(entry_name, 0);
  if (!entry.ok()) return entry.status();
  // Functions main never calls are still checked, though the printer (which
  // prints what main reaches) will not show them.
  // (In test mode the file's other test functions hold checks of their own
  // and are left alone.)
  for (const std::string& f : func_order_) {
    if (!checked_function_.empty()) break;
    if (absl::StatusOr<Computation*> c = BuildFunction(f, 0); !c.ok()) return c.status();
  }
  return mb_->Build(*entry);
}

absl::Status ModuleParser::IndexFunctions(bool wrapped) {
  while (true) {
    const Token& t = lex_.Peek();
    if (wrapped && t.kind == TokenKind::kRBrace) {
      lex_.Next();
      const Token& rest = lex_.Peek();
      if (rest.kind != TokenKind::kEof) {
        return lex_.Error(rest.offset, absl::StrCat("expected the end of the input after the "
                                                    "module, got ",
                                                    Describe(rest)));
      }
      return absl::OkStatus();
    }
    if (!wrapped && t.kind == TokenKind::kEof) return absl::OkStatus();
    absl::StatusOr<bool> skipped = SkipTopLevelDeclaration();
    if (!skipped.ok()) return skipped.status();
    if (*skipped) continue;
    if (t.kind != TokenKind::kIdent || t.text != "func.func") {
      return lex_.Error(t.offset, absl::StrCat("expected func.func", wrapped ? " or '}'" : "",
                                               ", got ", Describe(t)));
    }
    size_t offset = t.offset;
    lex_.Next();
    if (lex_.PeekIdent("public") || lex_.PeekIdent("private")) lex_.Next();
    Token name = lex_.Next();
    if (name.kind != TokenKind::kSymbol) {
      return lex_.Error(name.offset,
                        absl::StrCat("expected the function name @name, got ", Describe(name)));
    }
    if (funcs_.contains(name.text)) {
      return lex_.Error(name.offset, absl::StrCat("redefinition of function @", name.text));
    }
    funcs_[name.text].offset = offset;
    func_order_.push_back(name.text);
    // Skip the signature, then the body: the first '{' outside parentheses
    // that does not follow 'attributes'.
    int parens = 0;
    bool after_attributes = false;
    while (true) {
      const Token& s = lex_.Peek();
      if (s.kind == TokenKind::kEof) {
        return lex_.Error(offset, "unterminated func.func: expected its body '{ ... }'");
      }
      if (s.kind == TokenKind::kError) return lex_.Error(s.offset, s.text);
      if (s.kind == TokenKind::kLBrace && parens == 0) {
        bool is_body = !after_attributes;
        if (absl::Status st = SkipBalancedBraces(); !st.ok()) return st;
        if (is_body) break;
        after_attributes = false;
        continue;
      }
      if (s.kind == TokenKind::kIdent && s.text == "tensor") {
        // A type is skipped whole: a quantized one holds '{'.
        lex_.Next();
        if (absl::StatusOr<absl::string_view> body = lex_.TakeAngleBody(/*is_type=*/true); !body.ok()) {
          return body.status();
        }
        after_attributes = false;
        continue;
      }
      if (s.kind == TokenKind::kLParen) ++parens;
      if (s.kind == TokenKind::kRParen) --parens;
      after_attributes = s.kind == TokenKind::kIdent && s.text == "attributes";
      lex_.Next();
    }
  }
}

absl::StatusOr<bool> ModuleParser::SkipTopLevelDeclaration() {
  const Token& t = lex_.Peek();
  if (t.kind != TokenKind::kIdent || (t.text != "sdy.mesh" && t.text != "sdy.manual_axes")) {
    return false;
  }
  lex_.Next();
  Token name = lex_.Next();
  if (name.kind != TokenKind::kSymbol) {
    return lex_.Error(name.offset, absl::StrCat("expected a symbol @name, got ", Describe(name)));
  }
  if (absl::Status s = lex_.Expect(TokenKind::kEqual, "'='"); !s.ok()) return s;
  if (lex_.NextCharIs('<')) {
    if (absl::StatusOr<absl::string_view> b = lex_.TakeAngleBody(); !b.ok()) return b.status();
  } else if (absl::StatusOr<AttrValue> v = ParseAttrValue(lex_); !v.ok()) {
    return v.status();
  }
  return true;
}

absl::Status ModuleParser::SkipBalancedBraces() { return lex_.SkipBraces(); }

absl::StatusOr<Computation*> ModuleParser::BuildFunction(const std::string& name,
                                                        size_t use_offset) {
  auto it = funcs_.find(name);
  if (it == funcs_.end()) {
    return lex_.Error(use_offset, absl::StrCat("call to undefined function @", name));
  }
  FuncInfo& info = it->second;
  if (info.built != nullptr) return info.built;
  if (info.in_progress) {
    return absl::UnimplementedError(absl::StrCat(
        lex_.Location(use_offset), ": recursive call to @", name, " is not supported"));
  }
  info.in_progress = true;
  size_t saved = lex_.position();
  lex_.Seek(info.offset);
  absl::StatusOr<Computation*> c = ParseFunction();
  lex_.Seek(saved);
  // funcs_ may have rehashed while parsing callees.
  FuncInfo& after = funcs_[name];
  after.in_progress = false;
  if (c.ok()) after.built = *c;
  return c;
}

absl::StatusOr<Computation*> ModuleParser::ParseFunction() {
  lex_.Next();  // func.func (checked by IndexFunctions)
  if (lex_.PeekIdent("public") || lex_.PeekIdent("private")) lex_.Next();
  Token name = lex_.Next();
  Scope scope;
  scope.cb = mb_->NewComputation(name.text);
  const bool checked = !checked_function_.empty() && name.text == checked_function_;
  if (checked) checked_scope_ = &scope;
  if (absl::Status s = lex_.Expect(TokenKind::kLParen, "'(' opening the argument list"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseArguments(scope, kFunctionArguments); !s.ok()) return s;
  std::vector<Shape> declared;
  if (lex_.Accept(TokenKind::kArrow)) {
    absl::StatusOr<std::vector<Shape>> r = ParseResultTypes(lex_);
    if (!r.ok()) return r.status();
    declared = *std::move(r);
  }
  if (lex_.PeekIdent("attributes")) {
    lex_.Next();
    if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) return a.status();
  }
  size_t body_offset = lex_.Peek().offset;
  if (absl::Status s = lex_.Expect(TokenKind::kLBrace, "'{' opening the function body"); !s.ok()) {
    return s;
  }
  std::vector<Shape> returned;
  absl::StatusOr<std::vector<Instruction*>> results = ParseBody(scope, false, &returned);
  if (!results.ok()) return results.status();
  if (returned != declared) {
    return lex_.Error(body_offset,
                      absl::StrCat("@", name.text, " declares results ", TypesToString(declared),
                                   " but returns ", TypesToString(returned)));
  }
  if (checked) {
    checked_scope_ = nullptr;
    for (Instruction* v : check_values_) results->push_back(v);
  }
  return scope.cb->Finish(*std::move(results));
}

absl::Status ModuleParser::ParseArguments(Scope& scope, const ArgumentSyntax& syntax) {
  if (lex_.Accept(TokenKind::kRParen)) return absl::OkStatus();
  while (true) {
    Token arg = lex_.Next();
    if (arg.kind != TokenKind::kValueId) {
      return lex_.Error(arg.offset, absl::StrCat("expected ", syntax.one, " %name, got ",
                                                 Describe(arg)));
    }
    if (absl::Status s = lex_.Expect(TokenKind::kColon, "':' and the argument type"); !s.ok()) {
      return s;
    }
    absl::StatusOr<Shape> type = ParseType(lex_);
    if (!type.ok()) return type.status();
    if (syntax.allows_attributes && lex_.Peek().kind == TokenKind::kLBrace) {
      if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) {
        return a.status();
      }
    }
    if (absl::Status s = BindName(lex_, scope, arg.text, arg.offset,
                                  Binding{scope.cb->Parameter(*type)});
        !s.ok()) {
      return s;
    }
    Token sep = lex_.Next();
    if (sep.kind == TokenKind::kRParen) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex_.Error(sep.offset, absl::StrCat("expected ',' or ')' in ", syntax.list,
                                                 ", got ", Describe(sep)));
    }
  }
}

// ---------------------------------------------------------------- bodies

bool ModuleParser::IsTerminator(bool is_region) {
  const Token& t = lex_.Peek();
  if (t.kind != TokenKind::kString && t.kind != TokenKind::kIdent) return false;
  if (is_region) return t.text == "stablehlo.return";
  return t.text == "func.return" || (t.kind == TokenKind::kIdent && t.text == "return");
}

absl::StatusOr<Instruction*> ModuleParser::ParseStatement(Scope& scope, OpText& op) {
  CaptureList captures;
  Regions regions(*this, scope, captures);
  absl::StatusOr<OpText> text = ParseOpText(lex_, regions);
  if (!text.ok()) return text.status();
  op = *std::move(text);
  if (absl::StartsWith(op.name, "check.")) {
    if (absl::Status s = AddCheck(scope, op); !s.ok()) return s;
    return nullptr;
  }
  if (absl::StatusOr<std::vector<Computation*>> unified = UnifyCaptures(captures);
      !unified.ok()) {
    return unified.status();
  } else if (!captures.outer.empty()) {
    op.regions = *std::move(unified);
  }
  op.captures = captures.outer;
  absl::StatusOr<Instruction*> instr =
      BuildOp(lex_, scope, op, [&](const std::string& callee, size_t use_offset) {
        return BuildFunction(callee, use_offset);
      });
  if (!instr.ok()) return instr.status();
  if (absl::Status s = BindOutputs(lex_, scope, op, *instr); !s.ok()) return s;
  return instr;
}

absl::StatusOr<std::vector<Instruction*>> ModuleParser::ParseBody(
    Scope& scope, bool is_region, std::vector<Shape>* returned_types) {
  while (!IsTerminator(is_region)) {
    const Token& t = lex_.Peek();
    if (t.kind == TokenKind::kRBrace || t.kind == TokenKind::kEof) {
      return lex_.Error(t.offset, is_region ? "expected \"stablehlo.return\" ending the region"
                                            : "expected \"func.return\" ending the function");
    }
    OpText op;
    if (absl::StatusOr<Instruction*> instr = ParseStatement(scope, op); !instr.ok()) {
      return instr.status();
    }
  }
  absl::StatusOr<OpText> ret = ParseTerminatorText(lex_);
  if (!ret.ok()) return ret.status();
  absl::StatusOr<std::vector<Instruction*>> values = ResolveOperands(lex_, scope, *ret);
  if (!values.ok()) return values.status();
  for (Instruction* v : *values) returned_types->push_back(v->shape());
  if (absl::Status s = lex_.Expect(TokenKind::kRBrace, is_region ? "'}' closing the region"
                                                                 : "'}' closing the function");
      !s.ok()) {
    return s;
  }
  return values;
}

absl::StatusOr<Computation*> ModuleParser::ParseRegion(
    Scope& parent, CaptureList& captures, const std::vector<BlockArgument>* declared) {
  if (absl::Status s = lex_.Expect(TokenKind::kLBrace, "'{' opening a region"); !s.ok()) return s;
  Scope scope;
  scope.parent = &parent;
  scope.captures = &captures;
  scope.cb = mb_->NewComputation(absl::StrCat("region", region_count_++));
  if (declared != nullptr) {
    for (const BlockArgument& a : *declared) {
      if (absl::Status s = BindName(lex_, scope, a.name, a.offset,
                                    Binding{scope.cb->Parameter(a.type)});
          !s.ok()) {
        return s;
      }
    }
  } else if (lex_.Peek().kind == TokenKind::kBlockLabel) {
    lex_.Next();
    if (absl::Status s = lex_.Expect(TokenKind::kLParen, "'(' after the block label"); !s.ok()) {
      return s;
    }
    if (absl::Status s = ParseArguments(scope, kBlockArguments); !s.ok()) return s;
    if (absl::Status s = lex_.Expect(TokenKind::kColon, "':' after the block arguments");
        !s.ok()) {
      return s;
    }
  }
  const auto base = static_cast<int64_t>(scope.cb->computation()->parameters().size());
  std::vector<Shape> returned;
  absl::StatusOr<std::vector<Instruction*>> results = ParseBody(scope, true, &returned);
  if (!results.ok()) return results.status();
  absl::StatusOr<Computation*> region = scope.cb->Finish(*std::move(results));
  if (region.ok()) {
    captures.regions.push_back({*region, base, std::move(scope.local_captures)});
  }
  return region;
}

absl::StatusOr<std::vector<Computation*>> ModuleParser::UnifyCaptures(
    const CaptureList& captures) {
  std::vector<Computation*> out;
  for (const CaptureList::Region& r : captures.regions) {
    if (r.local == captures.outer) {
      out.push_back(r.computation);
      continue;
    }
    // Rebuilt with the op's capture list: block arguments, then every
    // captured value in the op's order (the ones it does not use unused).
    ComputationBuilder* cb = mb_->NewComputation(absl::StrCat("region", region_count_++));
    ValueMap map;
    const auto& params = r.computation->parameters();
    for (int64_t i = 0; i < r.base; ++i) map[params[i]] = cb->Parameter(params[i]->shape());
    for (Instruction* outer : captures.outer) {
      Instruction* p = cb->Parameter(outer->shape());
      auto it = std::find(r.local.begin(), r.local.end(), outer);
      if (it != r.local.end()) map[params[r.base + (it - r.local.begin())]] = p;
    }
    Cloner cloner(*mb_, CloneOptions{{}, CalleePolicy::kShare});
    absl::StatusOr<std::vector<Instruction*>> results =
        cloner.CloneBody(*r.computation, *cb, map);
    if (!results.ok()) return results.status();
    absl::StatusOr<Computation*> c = cb->Finish(*std::move(results));
    if (!c.ok()) return c.status();
    out.push_back(*c);
  }
  return out;
}

absl::Status ModuleParser::AddCheck(Scope& scope, const OpText& op) {
  static constexpr absl::string_view kKinds[] = {"expect_eq", "expect_eq_const",
                                                 "expect_almost_eq", "expect_almost_eq_const",
                                                 "expect_close"};
  absl::string_view kind = absl::StripPrefix(op.name, "check.");
  if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds)) {
    return absl::UnimplementedError(absl::StrCat(lex_.Location(op.offset), ": op '", op.name,
                                                 "' is not supported by xjit"));
  }
  if (&scope != checked_scope_) {
    return absl::UnimplementedError(absl::StrCat(
        lex_.Location(op.offset), ": ", op.name,
        " is evaluated only in the body of the function under test (python -m xjit.stablehlo "
        "test)"));
  }
  absl::StatusOr<std::vector<Instruction*>> values = ResolveOperands(lex_, scope, op);
  if (!values.ok()) return values.status();
  ParsedCheck check{std::string(absl::StripSuffix(kind, "_const")), lex_.Location(op.offset), {}};
  const bool is_const = absl::EndsWith(kind, "_const");
  for (const NamedAttr& a : op.attrs) {
    const AttrValue& v = a.value[0];
    if (is_const && (a.name == "expected" || a.name == "value") &&
        v.kind == AttrValue::Kind::kDense) {
      values->push_back(scope.cb->Constant(*v.literal));
      continue;
    }
    // Settings of a custom call (has_side_effect, call_target_name) say
    // nothing about the check.
    if (a.name == "has_side_effect" || a.name == "call_target_name" ||
        a.name == "backend_config" || a.name == "api_version") {
      continue;
    }
    double x = 0;
    if ((v.kind != AttrValue::Kind::kInteger && v.kind != AttrValue::Kind::kFloat) ||
        !absl::SimpleAtod(v.text, &x)) {
      return lex_.Error(v.offset, absl::StrCat(op.name, ": ", a.name, " must be a number, got ",
                                               v.KindName()));
    }
    check.options.emplace_back(a.name, x);
  }
  if (values->size() != 2) {
    return lex_.Error(op.offset, absl::StrCat(op.name, " compares two values, got ",
                                              values->size()));
  }
  if ((*values)[0]->shape() != (*values)[1]->shape()) {
    return lex_.Error(op.offset, absl::StrCat(op.name, ": the actual value is ",
                                              (*values)[0]->shape().ToString(),
                                              " but the expected one is ",
                                              (*values)[1]->shape().ToString()));
  }
  check_values_.push_back((*values)[0]);
  check_values_.push_back((*values)[1]);
  checks_.push_back(std::move(check));
  return absl::OkStatus();
}

absl::StatusOr<ParsedTest> ModuleParser::ParseTest(const std::string& entry) {
  checked_function_ = entry;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(entry);
  if (!module.ok()) return module.status();
  ParsedTest test;
  test.module = *std::move(module);
  test.num_results =
      static_cast<int64_t>(test.module->ResultShapes().size()) - 2 * checks_.size();
  test.checks = std::move(checks_);
  return test;
}

absl::StatusOr<Computation*> ModuleParser::ApplyRegion(const std::string& op_name,
                                                      const std::vector<Shape>& args,
                                                      size_t offset) {
  std::optional<Opcode> opcode = OpcodeForName(op_name);
  if (!opcode.has_value() || CallsFunction(*opcode) || IsSquare(op_name)) {
    return absl::UnimplementedError(absl::StrCat(lex_.Location(offset), ": op '", op_name,
                                                 "' is not supported by xjit"));
  }
  if (args.size() != 2) {
    return lex_.Error(offset, absl::StrCat("'applies ", op_name, "' needs a reduction of one "
                                           "operand; write the body as reducer(...) {...}"));
  }
  Computation*& shared = applied_regions_[{op_name, args}];
  if (shared != nullptr) return shared;
  ComputationBuilder* cb = mb_->NewComputation(absl::StrCat("region", region_count_++));
  std::vector<Instruction*> params;
  for (const Shape& a : args) params.push_back(cb->Parameter(a));
  absl::StatusOr<Instruction*> r =
      cb->Add(*opcode, params, Attributes::Default(OpcodeAttrsKind(*opcode)), {});
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat(lex_.Location(offset), ": ", r.status().message()));
  }
  absl::StatusOr<Computation*> region = cb->Finish({*r});
  if (region.ok()) shared = *region;
  return region;
}

}  // namespace text

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text) {
  return text::ModuleParser(text).ParseModule();
}

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text,
                                                    const std::string& entry) {
  return text::ModuleParser(text).ParseModule(entry);
}

absl::StatusOr<ParsedTest> ParseTestFunction(absl::string_view text, const std::string& entry) {
  return text::ModuleParser(text).ParseTest(entry);
}

}  // namespace xjit
