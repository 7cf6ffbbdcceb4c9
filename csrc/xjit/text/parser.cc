// The module, function, body and region levels of the parser
// (module_parser.h), and the public ParseModule.
#include "xjit/text/parser.h"

#include <utility>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/builder/rewriter.h"
#include "xjit/text/attribute_parser.h"
#include "xjit/text/module_parser.h"
#include "xjit/text/op_builder.h"
#include "xjit/text/type_parser.h"

namespace xjit {
namespace text {

// ---------------------------------------------------------------- module

absl::StatusOr<std::unique_ptr<Module>> ModuleParser::ParseModule() {
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
  std::string entry_name = funcs_.contains("main") ? "main" : "";
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
  for (const std::string& f : func_order_) {
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
      if (s.kind == TokenKind::kLParen) ++parens;
      if (s.kind == TokenKind::kRParen) --parens;
      after_attributes = s.kind == TokenKind::kIdent && s.text == "attributes";
      lex_.Next();
    }
  }
}

absl::Status ModuleParser::SkipBalancedBraces() {
  Token open = lex_.Next();
  if (open.kind != TokenKind::kLBrace) {
    return lex_.Error(open.offset, absl::StrCat("expected '{', got ", Describe(open)));
  }
  int depth = 1;
  while (depth > 0) {
    Token t = lex_.Next();
    if (t.kind == TokenKind::kEof) return lex_.Error(open.offset, "unterminated '{': expected '}'");
    if (t.kind == TokenKind::kError) return lex_.Error(t.offset, t.text);
    if (t.kind == TokenKind::kLBrace) ++depth;
    if (t.kind == TokenKind::kRBrace) --depth;
  }
  return absl::OkStatus();
}

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
  absl::StatusOr<OpText> text =
      ParseOpText(lex_, [&] { return ParseRegion(scope, captures); });
  if (!text.ok()) return text.status();
  op = *std::move(text);
  if (absl::StatusOr<std::vector<Computation*>> regions = UnifyCaptures(captures);
      !regions.ok()) {
    return regions.status();
  } else if (!captures.outer.empty()) {
    op.regions = *std::move(regions);
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

absl::StatusOr<Computation*> ModuleParser::ParseRegion(Scope& parent, CaptureList& captures) {
  if (absl::Status s = lex_.Expect(TokenKind::kLBrace, "'{' opening a region"); !s.ok()) return s;
  Scope scope;
  scope.parent = &parent;
  scope.captures = &captures;
  scope.cb = mb_->NewComputation(absl::StrCat("region", region_count_++));
  if (lex_.Peek().kind == TokenKind::kBlockLabel) {
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

}  // namespace text

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text) {
  return text::ModuleParser(text).ParseModule();
}

}  // namespace xjit
