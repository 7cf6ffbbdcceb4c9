// The module/function/op level of the parser. Functions are indexed first
// (name -> offset) and built on demand, so a func.call may name a function
// defined later in the text; the lexer seeks to it and back. Regions become
// computations of their own, built before the op that owns them.
#include "xjit/text/parser.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/builder/builder.h"
#include "xjit/text/attribute_parser.h"
#include "xjit/text/lexer.h"
#include "xjit/text/op_attributes.h"
#include "xjit/text/type_parser.h"

namespace xjit {
namespace text {
namespace {

// Ops whose tuple result the text spells as several results (%3:2), as the
// printer does; any other tuple-typed value is one value.
bool IsMultiResult(const Instruction& instr) {
  return instr.shape().is_tuple &&
         (instr.opcode() == Opcode::kReduce || instr.opcode() == Opcode::kCall);
}

std::vector<Shape> ResultTypes(const Instruction& instr) {
  if (IsMultiResult(instr)) return instr.shape().tuple_shapes;
  return {instr.shape()};
}

std::string TypesToString(const std::vector<Shape>& types) {
  std::vector<std::string> parts;
  for (const Shape& s : types) parts.push_back(s.ToString());
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

// What a name stands for: a whole instruction, or result `index` of a
// multi-result one (%a, %b = ...).
struct Binding {
  Instruction* instr = nullptr;
  int64_t index = -1;
};

struct Scope {
  ComputationBuilder* cb = nullptr;
  const Scope* parent = nullptr;  // the enclosing function, for a region
  absl::flat_hash_map<std::string, Binding> values;
  absl::flat_hash_map<std::pair<Instruction*, int64_t>, Instruction*> elements;
  // Example mode: undefined names become parameters.
  std::vector<std::string>* free_parameters = nullptr;
};

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

// One op as written, before it is built.
struct OpText {
  size_t offset = 0;
  std::string name;
  std::vector<OutputName> outputs;
  std::vector<OperandRef> operands;
  std::vector<Computation*> regions;
  std::vector<NamedAttr> attrs;
  bool has_signature = false;
  std::vector<Shape> operand_types;
  std::vector<Shape> result_types;
};

class Parser {
 public:
  explicit Parser(absl::string_view text) : lex_(text) {}

  absl::StatusOr<std::unique_ptr<Module>> ParseModule();
  absl::StatusOr<ParsedOps> ParseOps();

 private:
  struct FuncInfo {
    size_t offset = 0;
    Computation* built = nullptr;
    bool in_progress = false;
  };

  absl::Status Expect(TokenKind kind, absl::string_view what) {
    Token t = lex_.Next();
    if (t.kind == kind) return absl::OkStatus();
    return lex_.Error(t.offset, absl::StrCat("expected ", what, ", got ", Describe(t)));
  }
  bool Accept(TokenKind kind) {
    if (lex_.Peek().kind != kind) return false;
    lex_.Next();
    return true;
  }
  bool PeekIdent(absl::string_view word) {
    return lex_.Peek().kind == TokenKind::kIdent && lex_.Peek().text == word;
  }

  absl::Status IndexFunctions(bool wrapped);
  absl::Status SkipBalancedBraces();
  absl::StatusOr<Computation*> BuildFunction(const std::string& name, size_t use_offset);
  absl::StatusOr<Computation*> ParseFunction();
  absl::StatusOr<std::vector<Shape>> ParseFunctionResults();
  // Ops up to and including the terminator; returns the values returned.
  absl::StatusOr<std::vector<Instruction*>> ParseBody(Scope& scope, bool is_region,
                                                      std::vector<Shape>* returned_types);
  absl::StatusOr<Computation*> ParseRegion(const Scope& parent);

  absl::StatusOr<OpText> ParseOpText(const Scope& scope);
  absl::Status ParseOutputs(OpText& op);
  absl::Status ParseOperandList(OpText& op, TokenKind close);
  absl::StatusOr<OperandRef> ParseOperand();
  absl::Status ParseSignature(OpText& op);
  absl::StatusOr<std::vector<Shape>> ParseTypeList(TokenKind close);
  absl::Status ParsePrettyOp(OpText& op);
  bool IsTerminator(bool is_region);

  absl::StatusOr<Instruction*> Resolve(Scope& scope, const OperandRef& ref, const Shape* type);
  absl::StatusOr<std::vector<Instruction*>> ResolveOperands(Scope& scope, const OpText& op);
  absl::StatusOr<Instruction*> Element(Scope& scope, Instruction* instr, int64_t index,
                                       size_t offset);
  absl::StatusOr<Instruction*> BuildOp(Scope& scope, OpText& op);
  absl::Status BindOutputs(Scope& scope, const OpText& op, Instruction* instr);

  Lexer lex_;
  std::unique_ptr<ModuleBuilder> mb_;
  absl::flat_hash_map<std::string, FuncInfo> funcs_;
  std::vector<std::string> func_order_;
  int64_t region_count_ = 0;
};

// ---------------------------------------------------------------- module

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  std::string name = "module";
  bool wrapped = false;
  if (PeekIdent("module") || PeekIdent("builtin.module")) {
    lex_.Next();
    wrapped = true;
    if (lex_.Peek().kind == TokenKind::kSymbol) name = lex_.Next().text;
    if (PeekIdent("attributes")) {
      lex_.Next();
      if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) {
        return a.status();
      }
    }
    if (absl::Status s = Expect(TokenKind::kLBrace, "'{' opening the module body"); !s.ok()) {
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

absl::Status Parser::IndexFunctions(bool wrapped) {
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
    if (PeekIdent("public") || PeekIdent("private")) lex_.Next();
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

absl::Status Parser::SkipBalancedBraces() {
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

absl::StatusOr<Computation*> Parser::BuildFunction(const std::string& name, size_t use_offset) {
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

absl::StatusOr<Computation*> Parser::ParseFunction() {
  lex_.Next();  // func.func (checked by IndexFunctions)
  if (PeekIdent("public") || PeekIdent("private")) lex_.Next();
  Token name = lex_.Next();
  Scope scope;
  scope.cb = mb_->NewComputation(name.text);
  if (absl::Status s = Expect(TokenKind::kLParen, "'(' opening the argument list"); !s.ok()) {
    return s;
  }
  if (!Accept(TokenKind::kRParen)) {
    while (true) {
      Token arg = lex_.Next();
      if (arg.kind != TokenKind::kValueId) {
        return lex_.Error(arg.offset,
                          absl::StrCat("expected an argument %name, got ", Describe(arg)));
      }
      if (absl::Status s = Expect(TokenKind::kColon, "':' and the argument type"); !s.ok()) {
        return s;
      }
      absl::StatusOr<Shape> type = ParseType(lex_);
      if (!type.ok()) return type.status();
      if (lex_.Peek().kind == TokenKind::kLBrace) {  // argument attributes
        if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) {
          return a.status();
        }
      }
      if (scope.values.contains(arg.text)) {
        return lex_.Error(arg.offset, absl::StrCat("redefinition of %", arg.text));
      }
      scope.values[arg.text] = Binding{scope.cb->Parameter(*type)};
      Token sep = lex_.Next();
      if (sep.kind == TokenKind::kRParen) break;
      if (sep.kind != TokenKind::kComma) {
        return lex_.Error(sep.offset,
                          absl::StrCat("expected ',' or ')' in the argument list, got ",
                                       Describe(sep)));
      }
    }
  }
  std::vector<Shape> declared;
  bool has_results = Accept(TokenKind::kArrow);
  if (has_results) {
    absl::StatusOr<std::vector<Shape>> r = ParseFunctionResults();
    if (!r.ok()) return r.status();
    declared = *std::move(r);
  }
  if (PeekIdent("attributes")) {
    lex_.Next();
    if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) return a.status();
  }
  size_t body_offset = lex_.Peek().offset;
  if (absl::Status s = Expect(TokenKind::kLBrace, "'{' opening the function body"); !s.ok()) {
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

absl::StatusOr<std::vector<Shape>> Parser::ParseFunctionResults() {
  std::vector<Shape> types;
  if (!Accept(TokenKind::kLParen)) {
    absl::StatusOr<Shape> t = ParseType(lex_);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    return types;
  }
  if (Accept(TokenKind::kRParen)) return types;
  while (true) {
    absl::StatusOr<Shape> t = ParseType(lex_);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    if (lex_.Peek().kind == TokenKind::kLBrace) {  // result attributes
      if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex_); !a.ok()) {
        return a.status();
      }
    }
    Token sep = lex_.Next();
    if (sep.kind == TokenKind::kRParen) return types;
    if (sep.kind != TokenKind::kComma) {
      return lex_.Error(sep.offset, absl::StrCat("expected ',' or ')' in the result types, got ",
                                                 Describe(sep)));
    }
  }
}

// ---------------------------------------------------------------- bodies

bool Parser::IsTerminator(bool is_region) {
  const Token& t = lex_.Peek();
  if (t.kind != TokenKind::kString && t.kind != TokenKind::kIdent) return false;
  if (is_region) return t.text == "stablehlo.return";
  return t.text == "func.return" || (t.kind == TokenKind::kIdent && t.text == "return");
}

absl::StatusOr<std::vector<Instruction*>> Parser::ParseBody(Scope& scope, bool is_region,
                                                            std::vector<Shape>* returned_types) {
  while (!IsTerminator(is_region)) {
    const Token& t = lex_.Peek();
    if (t.kind == TokenKind::kRBrace || t.kind == TokenKind::kEof) {
      return lex_.Error(t.offset, is_region ? "expected \"stablehlo.return\" ending the region"
                                            : "expected \"func.return\" ending the function");
    }
    absl::StatusOr<OpText> op = ParseOpText(scope);
    if (!op.ok()) return op.status();
    absl::StatusOr<Instruction*> instr = BuildOp(scope, *op);
    if (!instr.ok()) return instr.status();
    if (absl::Status s = BindOutputs(scope, *op, *instr); !s.ok()) return s;
  }
  // The terminator, generic or pretty.
  OpText ret;
  ret.offset = lex_.Peek().offset;
  Token name = lex_.Next();
  ret.name = name.text;
  if (name.kind == TokenKind::kString) {
    if (absl::Status s = Expect(TokenKind::kLParen, "'(' after the op name"); !s.ok()) return s;
    if (absl::Status s = ParseOperandList(ret, TokenKind::kRParen); !s.ok()) return s;
    if (absl::Status s = ParseSignature(ret); !s.ok()) return s;
    if (!ret.result_types.empty()) {
      return lex_.Error(ret.offset, absl::StrCat(ret.name, " has no results; its type must end "
                                                 "in '-> ()'"));
    }
  } else if (lex_.Peek().kind == TokenKind::kValueId) {
    // stablehlo.return %a, %b : tensor<i64>, tensor<i64>
    if (absl::Status s = ParseOperandList(ret, TokenKind::kColon); !s.ok()) return s;
    absl::StatusOr<std::vector<Shape>> types = ParseTypeList(TokenKind::kEof);
    if (!types.ok()) return types.status();
    ret.has_signature = true;
    ret.operand_types = *std::move(types);
  } else {
    ret.has_signature = true;  // a bare 'return' returns nothing
  }
  absl::StatusOr<std::vector<Instruction*>> values = ResolveOperands(scope, ret);
  if (!values.ok()) return values.status();
  for (Instruction* v : *values) returned_types->push_back(v->shape());
  if (absl::Status s = Expect(TokenKind::kRBrace, is_region ? "'}' closing the region"
                                                            : "'}' closing the function");
      !s.ok()) {
    return s;
  }
  return values;
}

absl::StatusOr<Computation*> Parser::ParseRegion(const Scope& parent) {
  if (absl::Status s = Expect(TokenKind::kLBrace, "'{' opening a region"); !s.ok()) return s;
  Scope scope;
  scope.parent = &parent;
  scope.cb = mb_->NewComputation(absl::StrCat("region", region_count_++));
  if (lex_.Peek().kind == TokenKind::kBlockLabel) {
    lex_.Next();
    if (absl::Status s = Expect(TokenKind::kLParen, "'(' after the block label"); !s.ok()) {
      return s;
    }
    if (!Accept(TokenKind::kRParen)) {
      while (true) {
        Token arg = lex_.Next();
        if (arg.kind != TokenKind::kValueId) {
          return lex_.Error(arg.offset,
                            absl::StrCat("expected a block argument %name, got ", Describe(arg)));
        }
        if (absl::Status s = Expect(TokenKind::kColon, "':' and the argument type"); !s.ok()) {
          return s;
        }
        absl::StatusOr<Shape> type = ParseType(lex_);
        if (!type.ok()) return type.status();
        if (scope.values.contains(arg.text)) {
          return lex_.Error(arg.offset, absl::StrCat("redefinition of %", arg.text));
        }
        scope.values[arg.text] = Binding{scope.cb->Parameter(*type)};
        Token sep = lex_.Next();
        if (sep.kind == TokenKind::kRParen) break;
        if (sep.kind != TokenKind::kComma) {
          return lex_.Error(sep.offset, absl::StrCat("expected ',' or ')' in the block "
                                                     "arguments, got ",
                                                     Describe(sep)));
        }
      }
    }
    if (absl::Status s = Expect(TokenKind::kColon, "':' after the block arguments"); !s.ok()) {
      return s;
    }
  }
  std::vector<Shape> returned;
  absl::StatusOr<std::vector<Instruction*>> results = ParseBody(scope, true, &returned);
  if (!results.ok()) return results.status();
  return scope.cb->Finish(*std::move(results));
}

// ---------------------------------------------------------------- op text

absl::Status Parser::ParseOutputs(OpText& op) {
  while (true) {
    Token t = lex_.Next();
    if (t.kind != TokenKind::kValueId || absl::StrContains(t.text, '#')) {
      return lex_.Error(t.offset, absl::StrCat("expected a result name %name, got ", Describe(t)));
    }
    OutputName out{t.text, -1, t.offset};
    if (Accept(TokenKind::kColon)) {
      Token n = lex_.Next();
      if (n.kind != TokenKind::kNumber || !absl::SimpleAtoi(n.text, &out.count) || out.count < 0) {
        return lex_.Error(n.offset, absl::StrCat("expected a result count after '%", t.text,
                                                 ":', got ", Describe(n)));
      }
    }
    op.outputs.push_back(std::move(out));
    Token sep = lex_.Next();
    if (sep.kind == TokenKind::kEqual) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex_.Error(sep.offset,
                        absl::StrCat("expected ',' or '=' after the result names, got ",
                                     Describe(sep)));
    }
  }
}

absl::StatusOr<OperandRef> Parser::ParseOperand() {
  Token t = lex_.Next();
  if (t.kind != TokenKind::kValueId) {
    return lex_.Error(t.offset, absl::StrCat("expected an operand %name, got ", Describe(t)));
  }
  OperandRef ref{t.text, -1, t.offset};
  size_t hash = t.text.find('#');
  if (hash != std::string::npos) {
    ref.name = t.text.substr(0, hash);
    if (!absl::SimpleAtoi(t.text.substr(hash + 1), &ref.index)) {
      return lex_.Error(t.offset, "result number is too large");
    }
  }
  return ref;
}

// Operands separated by ',' up to `close`, which is consumed. The pretty
// form ends at ':' (not consumed); the generic one at ')'.
absl::Status Parser::ParseOperandList(OpText& op, TokenKind close) {
  if (close == TokenKind::kRParen && Accept(TokenKind::kRParen)) return absl::OkStatus();
  while (true) {
    absl::StatusOr<OperandRef> ref = ParseOperand();
    if (!ref.ok()) return ref.status();
    op.operands.push_back(*std::move(ref));
    if (close == TokenKind::kColon && lex_.Peek().kind == TokenKind::kColon) {
      lex_.Next();
      return absl::OkStatus();
    }
    Token sep = lex_.Next();
    if (sep.kind == close) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex_.Error(sep.offset, absl::StrCat("expected ',' or '",
                                                 close == TokenKind::kColon ? ":" : ")",
                                                 "' in the operand list, got ", Describe(sep)));
    }
  }
}

// Types separated by ',' up to `close` (consumed); with kEof, up to the
// first token that is not ',' (pretty forms end at the line's last type).
absl::StatusOr<std::vector<Shape>> Parser::ParseTypeList(TokenKind close) {
  std::vector<Shape> types;
  if (close != TokenKind::kEof && Accept(close)) return types;
  while (true) {
    absl::StatusOr<Shape> t = ParseType(lex_);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    if (close == TokenKind::kEof) {
      if (!Accept(TokenKind::kComma)) return types;
      continue;
    }
    Token sep = lex_.Next();
    if (sep.kind == close) return types;
    if (sep.kind != TokenKind::kComma) {
      return lex_.Error(sep.offset,
                        absl::StrCat("expected ',' or ')' in the type list, got ", Describe(sep)));
    }
  }
}

// ':' '(' operand types ')' '->' (type | '(' types ')')
absl::Status Parser::ParseSignature(OpText& op) {
  if (absl::Status s = Expect(TokenKind::kColon, "':' and the op's type"); !s.ok()) return s;
  if (absl::Status s = Expect(TokenKind::kLParen, "'(' opening the operand types"); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<Shape>> in = ParseTypeList(TokenKind::kRParen);
  if (!in.ok()) return in.status();
  if (absl::Status s = Expect(TokenKind::kArrow, "'->' and the result types"); !s.ok()) return s;
  absl::StatusOr<std::vector<Shape>> out = ParseFunctionResults();
  if (!out.ok()) return out.status();
  op.has_signature = true;
  op.operand_types = *std::move(in);
  op.result_types = *std::move(out);
  return absl::OkStatus();
}

// stablehlo.constant dense<...> : type | func.call @f(%a) : (..) -> .. |
// stablehlo.op %a, %b : type | stablehlo.op %a : (type) -> type
absl::Status Parser::ParsePrettyOp(OpText& op) {
  if (op.name == "stablehlo.constant") {
    absl::StatusOr<AttrValue> v = ParseAttrValue(lex_);
    if (!v.ok()) return v.status();
    if (v->kind != AttrValue::Kind::kDense) {
      return lex_.Error(v->offset, absl::StrCat("expected dense<...> : tensor<...> after "
                                                "stablehlo.constant, got ",
                                                v->KindName()));
    }
    op.has_signature = true;
    op.result_types = {v->literal->shape()};
    NamedAttr attr{"value", v->offset, {}};
    attr.value.push_back(*std::move(v));
    op.attrs.push_back(std::move(attr));
    return absl::OkStatus();
  }
  if (op.name == "func.call" || op.name == "call") {
    Token callee = lex_.Next();
    if (callee.kind != TokenKind::kSymbol) {
      return lex_.Error(callee.offset, absl::StrCat("expected the callee @name, got ",
                                                    Describe(callee)));
    }
    // Stored as the generic form's attribute so one path reads it.
    NamedAttr attr{"callee", callee.offset, {}};
    AttrValue symbol;
    symbol.kind = AttrValue::Kind::kSymbol;
    symbol.text = callee.text;
    symbol.offset = callee.offset;
    attr.value.push_back(std::move(symbol));
    op.attrs.push_back(std::move(attr));
    if (absl::Status s = Expect(TokenKind::kLParen, "'(' opening the call's operands"); !s.ok()) {
      return s;
    }
    if (absl::Status s = ParseOperandList(op, TokenKind::kRParen); !s.ok()) return s;
    return ParseSignature(op);
  }
  if (absl::Status s = ParseOperandList(op, TokenKind::kColon); !s.ok()) return s;
  if (lex_.Peek().kind == TokenKind::kLParen) {
    lex_.Next();
    absl::StatusOr<std::vector<Shape>> in = ParseTypeList(TokenKind::kRParen);
    if (!in.ok()) return in.status();
    if (absl::Status s = Expect(TokenKind::kArrow, "'->' and the result type"); !s.ok()) return s;
    absl::StatusOr<std::vector<Shape>> out = ParseFunctionResults();
    if (!out.ok()) return out.status();
    op.operand_types = *std::move(in);
    op.result_types = *std::move(out);
  } else {
    // One type for every operand and the result (element-wise ops).
    absl::StatusOr<Shape> t = ParseType(lex_);
    if (!t.ok()) return t.status();
    op.operand_types.assign(op.operands.size(), *t);
    op.result_types = {*t};
  }
  op.has_signature = true;
  return absl::OkStatus();
}

absl::StatusOr<OpText> Parser::ParseOpText(const Scope& scope) {
  OpText op;
  op.offset = lex_.Peek().offset;
  if (lex_.Peek().kind == TokenKind::kValueId) {
    if (absl::Status s = ParseOutputs(op); !s.ok()) return s;
  }
  Token name = lex_.Next();
  op.name = name.text;
  if (name.kind == TokenKind::kIdent) {
    if (absl::Status s = ParsePrettyOp(op); !s.ok()) return s;
    return op;
  }
  if (name.kind != TokenKind::kString) {
    return lex_.Error(name.offset, absl::StrCat("expected an op such as \"stablehlo.add\"(...), "
                                                "got ",
                                                Describe(name)));
  }
  if (absl::Status s = Expect(TokenKind::kLParen, "'(' opening the operand list"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseOperandList(op, TokenKind::kRParen); !s.ok()) return s;
  if (lex_.Peek().kind == TokenKind::kLParen) {
    lex_.Next();
    while (true) {
      absl::StatusOr<Computation*> region = ParseRegion(scope);
      if (!region.ok()) return region.status();
      op.regions.push_back(*region);
      Token sep = lex_.Next();
      if (sep.kind == TokenKind::kRParen) break;
      if (sep.kind != TokenKind::kComma) {
        return lex_.Error(sep.offset,
                          absl::StrCat("expected ',' or ')' after a region, got ", Describe(sep)));
      }
    }
  }
  if (lex_.Peek().kind == TokenKind::kLBrace) {
    absl::StatusOr<std::vector<NamedAttr>> attrs = ParseAttrDict(lex_);
    if (!attrs.ok()) return attrs.status();
    op.attrs = *std::move(attrs);
  }
  if (absl::Status s = ParseSignature(op); !s.ok()) return s;
  return op;
}

// ---------------------------------------------------------------- building

absl::StatusOr<Instruction*> Parser::Element(Scope& scope, Instruction* instr, int64_t index,
                                             size_t offset) {
  auto key = std::make_pair(instr, index);
  auto it = scope.elements.find(key);
  if (it != scope.elements.end()) return it->second;
  Attributes attrs;
  attrs.dimension = index;
  absl::StatusOr<Instruction*> gte = scope.cb->Add(Opcode::kGetTupleElement, {instr}, attrs);
  if (!gte.ok()) return lex_.Error(offset, gte.status().message());
  scope.elements[key] = *gte;
  return *gte;
}

absl::StatusOr<Instruction*> Parser::Resolve(Scope& scope, const OperandRef& ref,
                                             const Shape* type) {
  auto it = scope.values.find(ref.name);
  if (it == scope.values.end()) {
    for (const Scope* s = scope.parent; s != nullptr; s = s->parent) {
      if (s->values.contains(ref.name)) {
        return absl::UnimplementedError(absl::StrCat(
            lex_.Location(ref.offset), ": %", ref.name,
            " is defined outside this region; xjit regions cannot capture values"));
      }
    }
    if (scope.free_parameters == nullptr || ref.index >= 0) {
      return lex_.Error(ref.offset, absl::StrCat("use of undefined value %", ref.name));
    }
    if (type == nullptr) {
      return lex_.Error(ref.offset, absl::StrCat("the type of free value %", ref.name,
                                                 " is not given by the op's signature"));
    }
    scope.free_parameters->push_back(ref.name);
    it = scope.values.emplace(ref.name, Binding{scope.cb->Parameter(*type)}).first;
  }
  const Binding& b = it->second;
  if (b.index >= 0) {
    if (ref.index >= 0) {
      return lex_.Error(ref.offset, absl::StrCat("%", ref.name, " is a single value; drop '#",
                                                 ref.index, "'"));
    }
    return Element(scope, b.instr, b.index, ref.offset);
  }
  const int64_t n = IsMultiResult(*b.instr) ? b.instr->shape().tuple_shapes.size() : 1;
  if (ref.index < 0) {
    if (IsMultiResult(*b.instr)) {
      return lex_.Error(ref.offset, absl::StrCat("%", ref.name, " has ", n,
                                                 " results; name one as %", ref.name, "#0"));
    }
    return b.instr;
  }
  if (!IsMultiResult(*b.instr) || ref.index >= n) {
    return lex_.Error(ref.offset, absl::StrCat("%", ref.name, " has ", n, " result(s); there is no #",
                                               ref.index));
  }
  return Element(scope, b.instr, ref.index, ref.offset);
}

absl::StatusOr<std::vector<Instruction*>> Parser::ResolveOperands(Scope& scope, const OpText& op) {
  if (op.has_signature && op.operand_types.size() != op.operands.size()) {
    return lex_.Error(op.offset, absl::StrCat("'", op.name, "' has ", op.operands.size(),
                                              " operand(s) but its type lists ",
                                              op.operand_types.size()));
  }
  std::vector<Instruction*> values;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Shape* type = op.has_signature ? &op.operand_types[i] : nullptr;
    absl::StatusOr<Instruction*> v = Resolve(scope, op.operands[i], type);
    if (!v.ok()) return v.status();
    if (type != nullptr && (*v)->shape() != *type) {
      return lex_.Error(op.operands[i].offset,
                        absl::StrCat("%", op.operands[i].name, " has type ",
                                     (*v)->shape().ToString(), " but '", op.name,
                                     "' lists operand ", i, " as ", type->ToString()));
    }
    values.push_back(*v);
  }
  return values;
}

absl::StatusOr<Instruction*> Parser::BuildOp(Scope& scope, OpText& op) {
  absl::StatusOr<std::vector<Instruction*>> operands = ResolveOperands(scope, op);
  if (!operands.ok()) return operands.status();
  auto mismatch = [&](const Instruction& instr) {
    return lex_.Error(op.offset, absl::StrCat("'", op.name, "' is typed ",
                                              TypesToString(op.result_types), " but its result is ",
                                              TypesToString(ResultTypes(instr))));
  };

  std::optional<Opcode> opcode;
  if (op.name == "func.call" || op.name == "call") {
    opcode = Opcode::kCall;
  } else if (absl::StartsWith(op.name, "stablehlo.")) {
    absl::StatusOr<Opcode> parsed = ParseOpcode(op.name);
    if (parsed.ok() && *parsed != Opcode::kParameter && *parsed != Opcode::kCall) opcode = *parsed;
  }
  if (!opcode) {
    return absl::UnimplementedError(absl::StrCat(lex_.Location(op.offset), ": op '", op.name,
                                                 "' is not supported by xjit"));
  }
  Attributes attrs;
  std::string callee;
  if (absl::Status s = ApplyOpAttributes(*opcode, op.name, op.attrs, op.offset, lex_, attrs, callee);
      !s.ok()) {
    return s;
  }
  const bool takes_regions = *opcode == Opcode::kReduce;
  if (!takes_regions && !op.regions.empty()) {
    return lex_.Error(op.offset, absl::StrCat("'", op.name, "' takes no regions"));
  }
  if (takes_regions && op.regions.size() != 1) {
    return lex_.Error(op.offset, absl::StrCat("'", op.name, "' takes exactly one region, got ",
                                              op.regions.size()));
  }

  if (*opcode == Opcode::kConstant) {
    if (!operands->empty()) return lex_.Error(op.offset, "'stablehlo.constant' takes no operands");
    Instruction* c = scope.cb->Constant(*std::move(attrs.literal));
    if (op.result_types.size() != 1 || op.result_types[0] != c->shape()) return mismatch(*c);
    return c;
  }
  std::vector<Computation*> called = op.regions;
  if (*opcode == Opcode::kCall) {
    absl::StatusOr<Computation*> fn = BuildFunction(callee, op.offset);
    if (!fn.ok()) return fn.status();
    called = {*fn};
  }
  // Ops whose result type is not a function of their operands read it from
  // the signature.
  if (*opcode == Opcode::kIota || *opcode == Opcode::kReshape ||
      *opcode == Opcode::kBroadcastInDim || *opcode == Opcode::kConvert) {
    if (op.result_types.size() != 1) {
      return lex_.Error(op.offset, absl::StrCat("'", op.name, "' must have one result type"));
    }
    attrs.result_shape = op.result_types[0];
  }
  absl::StatusOr<Instruction*> instr =
      scope.cb->Add(*opcode, *std::move(operands), std::move(attrs), std::move(called));
  if (!instr.ok()) {
    return absl::Status(instr.status().code(), absl::StrCat(lex_.Location(op.offset), ": ",
                                                            instr.status().message()));
  }
  if (ResultTypes(**instr) != op.result_types) return mismatch(**instr);
  return *instr;
}

absl::Status Parser::BindOutputs(Scope& scope, const OpText& op, Instruction* instr) {
  const int64_t n = IsMultiResult(*instr) ? instr->shape().tuple_shapes.size() : 1;
  auto bind = [&](const OutputName& out, Binding b) -> absl::Status {
    if (scope.values.contains(out.name)) {
      return lex_.Error(out.offset, absl::StrCat("redefinition of %", out.name));
    }
    scope.values[out.name] = b;
    return absl::OkStatus();
  };
  if (op.outputs.empty()) return absl::OkStatus();
  if (op.outputs.size() == 1) {
    const OutputName& out = op.outputs[0];
    int64_t want = out.count < 0 ? 1 : out.count;
    if (want != n || (out.count < 0 && IsMultiResult(*instr))) {
      return lex_.Error(out.offset, absl::StrCat("'", op.name, "' has ", n, " result(s); write %",
                                                 out.name, n == 1 ? "" : absl::StrCat(":", n)));
    }
    return bind(out, Binding{instr});
  }
  if (static_cast<int64_t>(op.outputs.size()) != n || !IsMultiResult(*instr)) {
    return lex_.Error(op.offset, absl::StrCat("'", op.name, "' has ", n, " result(s) but ",
                                              op.outputs.size(), " names are given"));
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    if (op.outputs[i].count >= 0) {
      return lex_.Error(op.outputs[i].offset, "a result count ':N' needs a single result name");
    }
    if (absl::Status s = bind(op.outputs[i], Binding{instr, static_cast<int64_t>(i)}); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- examples

absl::StatusOr<ParsedOps> Parser::ParseOps() {
  mb_ = std::make_unique<ModuleBuilder>("example");
  ParsedOps parsed;
  Scope scope;
  scope.cb = mb_->NewComputation("main");
  scope.free_parameters = &parsed.parameter_names;
  std::optional<OpText> last;
  Instruction* last_instr = nullptr;
  while (lex_.Peek().kind != TokenKind::kEof) {
    absl::StatusOr<OpText> op = ParseOpText(scope);
    if (!op.ok()) return op.status();
    absl::StatusOr<Instruction*> instr = BuildOp(scope, *op);
    if (!instr.ok()) return instr.status();
    if (absl::Status s = BindOutputs(scope, *op, *instr); !s.ok()) return s;
    last = *std::move(op);
    last_instr = *instr;
  }
  if (!last) return lex_.Error(0, "expected at least one op");
  std::vector<Instruction*> results;
  if (!IsMultiResult(*last_instr)) {
    results.push_back(last_instr);
    parsed.result_names.push_back(last->outputs.empty() ? "" : last->outputs[0].name);
  } else {
    for (size_t i = 0; i < last_instr->shape().tuple_shapes.size(); ++i) {
      absl::StatusOr<Instruction*> e = Element(scope, last_instr, i, last->offset);
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

}  // namespace
}  // namespace text

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text) {
  return text::Parser(text).ParseModule();
}

absl::StatusOr<ParsedOps> ParseOps(absl::string_view text) {
  return text::Parser(text).ParseOps();
}

}  // namespace xjit
