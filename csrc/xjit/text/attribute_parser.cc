#include "xjit/text/attribute_parser.h"

#include "absl/strings/ascii.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/text/literal_parser.h"
#include "xjit/text/type_parser.h"

namespace xjit::text {
namespace {

bool IsFloatText(absl::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return false;
  return s.find_first_of(".eE") != absl::string_view::npos;
}

// Optional ": type" after a scalar.
absl::Status ParseScalarType(Lexer& lex, AttrValue& v) {
  if (lex.Peek().kind != TokenKind::kColon) return absl::OkStatus();
  lex.Next();
  Token t = lex.Next();
  if (t.kind != TokenKind::kIdent) {
    return lex.Error(t.offset, absl::StrCat("expected a scalar type such as i64, got ",
                                            Describe(t)));
  }
  v.type = t.text;
  return absl::OkStatus();
}

// array<i64: 1, 2> or array<i1: true, false>; '<' not yet consumed.
absl::Status ParseArrayBody(Lexer& lex, AttrValue& v) {
  v.kind = AttrValue::Kind::kArray;
  if (absl::Status s = lex.Expect(TokenKind::kLess, "'<' after array"); !s.ok()) return s;
  Token type = lex.Next();
  if (type.kind != TokenKind::kIdent) {
    return lex.Error(type.offset,
                     absl::StrCat("expected an element type in array<...>, got ", Describe(type)));
  }
  v.type = type.text;
  if (lex.Peek().kind == TokenKind::kGreater) {
    lex.Next();
    return absl::OkStatus();
  }
  if (absl::Status s = lex.Expect(TokenKind::kColon, "':' after the array element type");
      !s.ok()) {
    return s;
  }
  while (true) {
    Token t = lex.Next();
    bool neg = t.kind == TokenKind::kMinus;
    if (neg) t = lex.Next();
    int64_t x = 0;
    if (t.kind == TokenKind::kIdent && (t.text == "true" || t.text == "false") && !neg) {
      x = t.text == "true";
    } else if (t.kind != TokenKind::kNumber || !absl::SimpleAtoi(t.text, &x)) {
      return lex.Error(t.offset,
                       absl::StrCat("expected an integer in array<...>, got ", Describe(t)));
    }
    v.ints.push_back(neg ? -x : x);
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kGreater) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset,
                       absl::StrCat("expected ',' or '>' in array<...>, got ", Describe(sep)));
    }
  }
}

// Items separated by ',' up to `close`; the opening token is consumed.
template <typename ParseItem>
absl::Status ParseSeparated(Lexer& lex, TokenKind close, absl::string_view close_text,
                            absl::string_view where, ParseItem item) {
  if (lex.Peek().kind == close) {
    lex.Next();
    return absl::OkStatus();
  }
  while (true) {
    if (absl::Status s = item(); !s.ok()) return s;
    Token sep = lex.Next();
    if (sep.kind == close) return absl::OkStatus();
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset, absl::StrCat("expected ',' or '", close_text, "' in ", where,
                                                ", got ", Describe(sep)));
    }
  }
}

// name ['=' value]; `fields_need_value` for #stablehlo.dot<...> fields.
absl::StatusOr<NamedAttr> ParseNamedAttr(Lexer& lex, bool value_required) {
  Token name = lex.Next();
  if (name.kind != TokenKind::kIdent && name.kind != TokenKind::kString) {
    return lex.Error(name.offset, absl::StrCat("expected an attribute name, got ", Describe(name)));
  }
  NamedAttr attr;
  attr.name = name.text;
  attr.offset = name.offset;
  if (lex.Peek().kind != TokenKind::kEqual) {
    if (value_required) {
      return lex.Error(lex.Peek().offset, absl::StrCat("expected '=' after '", name.text,
                                                       "', got ", Describe(lex.Peek())));
    }
    AttrValue unit;
    unit.offset = name.offset;
    attr.value.push_back(std::move(unit));
    return attr;
  }
  lex.Next();
  const size_t start = lex.Peek().offset;
  absl::StatusOr<AttrValue> value =
      ParseAttrValue(lex, attr.name == "value" ? INT64_MAX : kMaxDenseIndexAttrElements);
  if (!value.ok()) return value.status();
  const size_t end = lex.Peek().offset;
  if (end > start) {
    value->source = std::string(absl::StripAsciiWhitespace(lex.text().substr(start, end - start)));
  }
  attr.value.push_back(*std::move(value));
  return attr;
}

}  // namespace

absl::StatusOr<std::vector<NamedAttr>> ParseAttrDict(Lexer& lex) {
  if (absl::Status s = lex.Expect(TokenKind::kLBrace, "'{'"); !s.ok()) return s;
  std::vector<NamedAttr> attrs;
  absl::Status s = ParseSeparated(lex, TokenKind::kRBrace, "}", "attribute dictionary", [&] {
    absl::StatusOr<NamedAttr> a = ParseNamedAttr(lex, /*value_required=*/false);
    if (!a.ok()) return a.status();
    for (const NamedAttr& other : attrs) {
      if (other.name == a->name) {
        return lex.Error(a->offset, absl::StrCat("duplicate attribute '", a->name, "'"));
      }
    }
    attrs.push_back(*std::move(a));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return attrs;
}

absl::StatusOr<AttrValue> ParseAttrValue(Lexer& lex, int64_t max_dense_elements) {
  AttrValue v;
  Token t = lex.Next();
  v.offset = t.offset;
  switch (t.kind) {
    case TokenKind::kMinus:
    case TokenKind::kNumber: {
      std::string text = t.text;
      if (t.kind == TokenKind::kMinus) {
        Token n = lex.Next();
        if (n.kind != TokenKind::kNumber) {
          return lex.Error(n.offset, absl::StrCat("expected a number after '-', got ", Describe(n)));
        }
        text = absl::StrCat("-", n.text);
      }
      v.kind = IsFloatText(text) ? AttrValue::Kind::kFloat : AttrValue::Kind::kInteger;
      v.text = std::move(text);
      if (absl::Status s = ParseScalarType(lex, v); !s.ok()) return s;
      return v;
    }
    case TokenKind::kString:
      v.kind = AttrValue::Kind::kString;
      v.text = t.text;
      if (absl::Status s = ParseScalarType(lex, v); !s.ok()) return s;
      return v;
    case TokenKind::kSymbol:
      v.kind = AttrValue::Kind::kSymbol;
      v.text = t.text;
      return v;
    case TokenKind::kLSquare: {
      v.kind = AttrValue::Kind::kList;
      absl::Status s = ParseSeparated(lex, TokenKind::kRSquare, "]", "list", [&] {
        absl::StatusOr<AttrValue> item = ParseAttrValue(lex, max_dense_elements);
        if (!item.ok()) return item.status();
        v.list.push_back(*std::move(item));
        return absl::OkStatus();
      });
      if (!s.ok()) return s;
      return v;
    }
    case TokenKind::kLBrace: {
      lex.Seek(t.offset);
      absl::StatusOr<std::vector<NamedAttr>> fields = ParseAttrDict(lex);
      if (!fields.ok()) return fields.status();
      v.kind = AttrValue::Kind::kDict;
      v.fields = *std::move(fields);
      return v;
    }
    case TokenKind::kIdent:
      if (t.text == "true" || t.text == "false") {
        v.kind = AttrValue::Kind::kBool;
        v.text = t.text;
        if (absl::Status s = ParseScalarType(lex, v); !s.ok()) return s;
        return v;
      }
      if (t.text == "array") {
        if (absl::Status s = ParseArrayBody(lex, v); !s.ok()) return s;
        return v;
      }
      if (t.text == "dense") {
        if (absl::Status s = lex.Expect(TokenKind::kLess, "'<' after dense"); !s.ok()) return s;
        absl::StatusOr<DenseText> body = ParseDenseText(lex);
        if (!body.ok()) return body.status();
        if (absl::Status s = lex.Expect(TokenKind::kGreater, "'>' closing dense<...>"); !s.ok()) {
          return s;
        }
        if (absl::Status s = lex.Expect(TokenKind::kColon, "':' and the type after dense<...>");
            !s.ok()) {
          return s;
        }
        const size_t type_offset = lex.Peek().offset;
        absl::StatusOr<Shape> type = ParseType(lex, /*index_as_i64=*/true);
        if (!type.ok()) return type.status();
        if (type->num_elements() > max_dense_elements) {
          return lex.Error(type_offset, absl::StrCat("a dense<...> attribute of ",
                                                     type->num_elements(),
                                                     " elements; index attributes hold at most ",
                                                     max_dense_elements));
        }
        absl::StatusOr<Literal> lit = DenseToLiteral(*body, *type, lex);
        if (!lit.ok()) return lit.status();
        v.kind = AttrValue::Kind::kDense;
        v.literal = *std::move(lit);
        return v;
      }
      v.kind = AttrValue::Kind::kIdent;
      v.text = t.text;
      return v;
    case TokenKind::kHashIdent: {
      v.text = t.text;
      if (t.text == "stablehlo") {
        // #stablehlo<comparison_direction LT>
        if (absl::Status s = lex.Expect(TokenKind::kLess, "'<' after #stablehlo"); !s.ok()) {
          return s;
        }
        Token kind = lex.Next(), value = lex.Next();
        if (kind.kind != TokenKind::kIdent || value.kind != TokenKind::kIdent) {
          return lex.Error(kind.offset, "expected '#stablehlo<kind VALUE>' such as "
                                        "#stablehlo<comparison_direction LT>");
        }
        if (absl::Status s = lex.Expect(TokenKind::kGreater, "'>' closing #stablehlo<...>");
            !s.ok()) {
          return s;
        }
        v.kind = AttrValue::Kind::kEnum;
        v.enum_kind = kind.text;
        v.text = value.text;
        return v;
      }
      if (t.text == "stablehlo.dot" || t.text == "stablehlo.dot_algorithm" ||
          t.text == "stablehlo.gather" || t.text == "stablehlo.scatter") {
        if (absl::Status s = lex.Expect(TokenKind::kLess, "'<'"); !s.ok()) return s;
        v.kind = AttrValue::Kind::kStruct;
        absl::Status s = ParseSeparated(lex, TokenKind::kGreater, ">", v.text, [&] {
          absl::StatusOr<NamedAttr> field = ParseNamedAttr(lex, /*value_required=*/true);
          if (!field.ok()) return field.status();
          v.fields.push_back(*std::move(field));
          return absl::OkStatus();
        });
        if (!s.ok()) return s;
        return v;
      }
      // Other dialect attributes (#stablehlo.conv<[b, 0, 1, f]x...>, channel
      // handles) have their own grammars; no op we support
      // takes them, so they are kept as text for the op to reject by name.
      v.kind = AttrValue::Kind::kOpaque;
      if (lex.NextCharIs('<')) {
        absl::StatusOr<absl::string_view> body = lex.TakeAngleBody();
        if (!body.ok()) return body.status();
        v.text = absl::StrCat(t.text, "<", *body, ">");
      }
      return v;
    }
    default:
      break;
  }
  return lex.Error(t.offset, absl::StrCat("expected an attribute value, got ", Describe(t)));
}

absl::StatusOr<std::vector<int64_t>> AttrValue::AsInts(const Lexer& lex,
                                                       absl::string_view what) const {
  if (kind == Kind::kArray) return ints;
  if (kind == Kind::kList) {
    std::vector<int64_t> out;
    for (const AttrValue& item : list) {
      absl::StatusOr<int64_t> x = item.AsInt(lex, what);
      if (!x.ok()) return x.status();
      out.push_back(*x);
    }
    return out;
  }
  // The older form: permutation = dense<[2, 1, 0]> : tensor<3xi64>.
  if (kind == Kind::kDense && literal->shape().rank() <= 1 && IsInteger(literal->shape().dtype)) {
    std::vector<int64_t> out;
    DispatchDType(literal->shape().dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        for (int64_t i = 0; i < literal->shape().num_elements(); ++i) {
          out.push_back(static_cast<int64_t>(literal->data_as<T>()[i]));
        }
      }
    });
    return out;
  }
  return lex.Error(offset, absl::StrCat(what, ": expected array<i64: ...>, got ", KindName()));
}

absl::StatusOr<int64_t> AttrValue::AsInt(const Lexer& lex, absl::string_view what) const {
  int64_t x = 0;
  if (kind == Kind::kInteger && absl::SimpleAtoi(text, &x)) return x;
  return lex.Error(offset, absl::StrCat(what, ": expected an integer such as '1 : i64', got ",
                                        KindName()));
}

absl::StatusOr<float> AttrValue::AsF32(const Lexer& lex, absl::string_view what) const {
  if (!type.empty() && type != "f32") {
    return lex.Error(offset, absl::StrCat(what, ": expected an f32 value, got type ", type));
  }
  absl::string_view digits = text;
  if (kind == Kind::kInteger && digits.size() > 2 && digits[0] == '0' &&
      (digits[1] == 'x' || digits[1] == 'X')) {
    uint32_t bits = 0;
    if (digits.size() <= 10 && absl::SimpleHexAtoi(digits.substr(2), &bits)) {
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
  } else if (kind == Kind::kFloat || kind == Kind::kInteger) {
    float f = 0;
    if (absl::SimpleAtof(digits, &f)) return f;
  }
  return lex.Error(offset, absl::StrCat(what, ": expected an f32 value such as '1.0e-05 : f32', got ",
                                        KindName()));
}

std::string AttrValue::KindName() const {
  switch (kind) {
    case Kind::kUnit: return "a unit attribute";
    case Kind::kInteger: return absl::StrCat("integer ", text);
    case Kind::kFloat: return absl::StrCat("float ", text);
    case Kind::kBool: return text;
    case Kind::kString: return absl::StrCat("string \"", text, "\"");
    case Kind::kIdent: return absl::StrCat("'", text, "'");
    case Kind::kArray: return "an array<...>";
    case Kind::kDense: return "a dense<...> literal";
    case Kind::kEnum: return absl::StrCat("#stablehlo<", enum_kind, " ", text, ">");
    case Kind::kStruct: return absl::StrCat("#", text, "<...>");
    case Kind::kOpaque: return absl::StrCat("#", text);
    case Kind::kSymbol: return absl::StrCat("@", text);
    case Kind::kList: return "a list [...]";
    case Kind::kDict: return "a dictionary {...}";
  }
  return "an attribute";
}

}  // namespace xjit::text
