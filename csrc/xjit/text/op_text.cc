#include "xjit/text/op_text.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/text/op_names.h"
#include "xjit/text/pretty_forms.h"
#include "xjit/text/type_parser.h"

namespace xjit::text {
namespace {

// %a, %b:2 = ... up to and including the '='.
absl::Status ParseOutputs(Lexer& lex, OpText& op) {
  while (true) {
    Token t = lex.Next();
    if (t.kind != TokenKind::kValueId || absl::StrContains(t.text, '#')) {
      return lex.Error(t.offset, absl::StrCat("expected a result name %name, got ", Describe(t)));
    }
    OutputName out{t.text, -1, t.offset};
    if (lex.Accept(TokenKind::kColon)) {
      Token n = lex.Next();
      if (n.kind != TokenKind::kNumber || !absl::SimpleAtoi(n.text, &out.count) || out.count < 0) {
        return lex.Error(n.offset, absl::StrCat("expected a result count after '%", t.text,
                                                ":', got ", Describe(n)));
      }
    }
    op.outputs.push_back(std::move(out));
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kEqual) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset,
                       absl::StrCat("expected ',' or '=' after the result names, got ",
                                    Describe(sep)));
    }
  }
}

}  // namespace

absl::StatusOr<OperandRef> ParseOperand(Lexer& lex) {
  Token t = lex.Next();
  if (t.kind != TokenKind::kValueId) {
    return lex.Error(t.offset, absl::StrCat("expected an operand %name, got ", Describe(t)));
  }
  OperandRef ref{t.text, -1, t.offset};
  size_t hash = t.text.find('#');
  if (hash != std::string::npos) {
    ref.name = t.text.substr(0, hash);
    if (!absl::SimpleAtoi(t.text.substr(hash + 1), &ref.index)) {
      return lex.Error(t.offset, "result number is too large");
    }
  }
  return ref;
}

// Operands separated by ',' up to `close`, which is consumed. The pretty
// form ends at ':' (not consumed); the generic one at ')'.
absl::Status ParseOperandList(Lexer& lex, OpText& op, TokenKind close) {
  if (close == TokenKind::kRParen && lex.Accept(TokenKind::kRParen)) return absl::OkStatus();
  while (true) {
    absl::StatusOr<OperandRef> ref = ParseOperand(lex);
    if (!ref.ok()) return ref.status();
    op.operands.push_back(*std::move(ref));
    if (close == TokenKind::kColon && lex.Peek().kind == TokenKind::kColon) {
      lex.Next();
      return absl::OkStatus();
    }
    Token sep = lex.Next();
    if (sep.kind == close) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset, absl::StrCat("expected ',' or '",
                                                close == TokenKind::kColon ? ":" : ")",
                                                "' in the operand list, got ", Describe(sep)));
    }
  }
}

// Types separated by ',' up to `close` (consumed); with kEof, up to the
// first token that is not ',' (pretty forms end at the line's last type).
absl::StatusOr<std::vector<Shape>> ParseTypeList(Lexer& lex, TokenKind close) {
  std::vector<Shape> types;
  if (close != TokenKind::kEof && lex.Accept(close)) return types;
  while (true) {
    absl::StatusOr<Shape> t = ParseType(lex);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    if (close == TokenKind::kEof) {
      if (!lex.Accept(TokenKind::kComma)) return types;
      continue;
    }
    Token sep = lex.Next();
    if (sep.kind == close) return types;
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset,
                       absl::StrCat("expected ',' or ')' in the type list, got ", Describe(sep)));
    }
  }
}

// operand types ')' '->' result types, after the '('. `arrow` names what the
// '->' introduces, for the message when it is missing.
absl::Status ParseFunctionType(Lexer& lex, OpText& op, absl::string_view arrow) {
  absl::StatusOr<std::vector<Shape>> in = ParseTypeList(lex, TokenKind::kRParen);
  if (!in.ok()) return in.status();
  if (absl::Status s = lex.Expect(TokenKind::kArrow, arrow); !s.ok()) return s;
  absl::StatusOr<std::vector<Shape>> out = ParseResultTypes(lex);
  if (!out.ok()) return out.status();
  op.has_signature = true;
  op.operand_types = *std::move(in);
  op.result_types = *std::move(out);
  return absl::OkStatus();
}

// ':' '(' operand types ')' '->' (type | '(' types ')')
absl::Status ParseSignature(Lexer& lex, OpText& op) {
  if (absl::Status s = lex.Expect(TokenKind::kColon, "':' and the op's type"); !s.ok()) return s;
  if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening the operand types"); !s.ok()) {
    return s;
  }
  return ParseFunctionType(lex, op, "'->' and the result types");
}

namespace {

// '(' region {',' region} ')' after a generic op's operands.
absl::Status ParseRegionList(Lexer& lex, OpText& op, RegionParser& regions) {
  lex.Next();  // '('
  while (true) {
    absl::StatusOr<Computation*> region = regions.Parse();
    if (!region.ok()) return region.status();
    op.regions.push_back(*region);
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kRParen) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset,
                       absl::StrCat("expected ',' or ')' after a region, got ", Describe(sep)));
    }
  }
}

}  // namespace

absl::StatusOr<OpText> ParseOpText(Lexer& lex, RegionParser& regions) {
  OpText op;
  op.offset = lex.Peek().offset;
  if (lex.Peek().kind == TokenKind::kValueId) {
    if (absl::Status s = ParseOutputs(lex, op); !s.ok()) return s;
  }
  Token name = lex.Next();
  op.name = name.text;
  if (name.kind == TokenKind::kIdent) {
    if (absl::Status s = ParsePrettyOp(lex, op, regions); !s.ok()) return s;
    return op;
  }
  if (name.kind != TokenKind::kString) {
    return lex.Error(name.offset, absl::StrCat("expected an op such as \"stablehlo.add\"(...), "
                                               "got ",
                                               Describe(name)));
  }
  // An op xjit lacks is reported by name before its regions are read (a
  // custom call once its target is known).
  if (!OpcodeForName(op.name).has_value() && !absl::StartsWith(op.name, "check.") &&
      op.name != "stablehlo.custom_call") {
    return absl::UnimplementedError(absl::StrCat(lex.Location(op.offset), ": op '", op.name,
                                                 "' is not supported by xjit"));
  }
  if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening the operand list"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseOperandList(lex, op, TokenKind::kRParen); !s.ok()) return s;
  // MLIR's properties, <{dimension = 0 : i64}>, read like attributes.
  if (lex.Accept(TokenKind::kLess)) {
    absl::StatusOr<std::vector<NamedAttr>> props = ParseAttrDict(lex);
    if (!props.ok()) return props.status();
    op.attrs = *std::move(props);
    if (absl::Status s = lex.Expect(TokenKind::kGreater, "'>' closing the properties <{...}>");
        !s.ok()) {
      return s;
    }
  }
  if (lex.Peek().kind == TokenKind::kLParen) {
    if (absl::Status s = ParseRegionList(lex, op, regions); !s.ok()) return s;
  }
  if (lex.Peek().kind == TokenKind::kLBrace) {
    absl::StatusOr<std::vector<NamedAttr>> attrs = ParseAttrDict(lex);
    if (!attrs.ok()) return attrs.status();
    for (NamedAttr& a : *attrs) op.attrs.push_back(std::move(a));
  }
  if (absl::Status s = ParseSignature(lex, op); !s.ok()) return s;
  if (op.name == "stablehlo.custom_call") {
    // call_target_name = "check.expect_eq": the check op it names; any other
    // target is a custom_call op.
    for (const NamedAttr& a : op.attrs) {
      if (a.name == "call_target_name" && a.value[0].kind == AttrValue::Kind::kString &&
          absl::StartsWith(a.value[0].text, "check.")) {
        op.name = a.value[0].text;
      }
    }
  }
  return op;
}

absl::StatusOr<OpText> ParseTerminatorText(Lexer& lex) {
  OpText ret;
  ret.offset = lex.Peek().offset;
  Token name = lex.Next();
  ret.name = name.text;
  if (name.kind == TokenKind::kString) {
    if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' after the op name"); !s.ok()) {
      return s;
    }
    if (absl::Status s = ParseOperandList(lex, ret, TokenKind::kRParen); !s.ok()) return s;
    if (absl::Status s = ParseSignature(lex, ret); !s.ok()) return s;
    if (!ret.result_types.empty()) {
      return lex.Error(ret.offset, absl::StrCat(ret.name, " has no results; its type must end "
                                                "in '-> ()'"));
    }
  } else if (lex.Peek().kind == TokenKind::kValueId) {
    // stablehlo.return %a, %b : tensor<i64>, tensor<i64>
    if (absl::Status s = ParseOperandList(lex, ret, TokenKind::kColon); !s.ok()) return s;
    absl::StatusOr<std::vector<Shape>> types = ParseTypeList(lex, TokenKind::kEof);
    if (!types.ok()) return types.status();
    ret.has_signature = true;
    ret.operand_types = *std::move(types);
  } else {
    ret.has_signature = true;  // a bare 'return' returns nothing
  }
  return ret;
}

absl::StatusOr<std::vector<Shape>> ParseResultTypes(Lexer& lex) {
  std::vector<Shape> types;
  if (!lex.Accept(TokenKind::kLParen)) {
    absl::StatusOr<Shape> t = ParseType(lex);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    return types;
  }
  if (lex.Accept(TokenKind::kRParen)) return types;
  while (true) {
    absl::StatusOr<Shape> t = ParseType(lex);
    if (!t.ok()) return t.status();
    types.push_back(*std::move(t));
    if (lex.Peek().kind == TokenKind::kLBrace) {  // result attributes
      if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex); !a.ok()) {
        return a.status();
      }
    }
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kRParen) return types;
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset, absl::StrCat("expected ',' or ')' in the result types, got ",
                                                Describe(sep)));
    }
  }
}

std::string TypesToString(const std::vector<Shape>& types) {
  std::vector<std::string> parts;
  for (const Shape& s : types) parts.push_back(s.ToString());
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

}  // namespace xjit::text
