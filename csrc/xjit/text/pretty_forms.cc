#include "xjit/text/pretty_forms.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xjit/ir/opcode.h"
#include "xjit/text/op_names.h"
#include "xjit/text/type_parser.h"

namespace xjit::text {
namespace {

// ---------------------------------------------------------------- values

AttrValue IntsValue(std::vector<int64_t> ints, size_t offset) {
  AttrValue v;
  v.kind = AttrValue::Kind::kArray;
  v.type = "i64";
  v.ints = std::move(ints);
  v.offset = offset;
  return v;
}

AttrValue IntValue(int64_t x, size_t offset) {
  AttrValue v;
  v.kind = AttrValue::Kind::kInteger;
  v.text = absl::StrCat(x);
  v.type = "i64";
  v.offset = offset;
  return v;
}

AttrValue EnumValue(std::string enum_kind, std::string text, size_t offset) {
  AttrValue v;
  v.kind = AttrValue::Kind::kEnum;
  v.enum_kind = std::move(enum_kind);
  v.text = std::move(text);
  v.offset = offset;
  return v;
}

NamedAttr Named(std::string name, AttrValue v) {
  NamedAttr a{std::move(name), v.offset, {}};
  a.value.push_back(std::move(v));
  return a;
}

absl::StatusOr<int64_t> ParseInt(Lexer& lex, absl::string_view what) {
  Token t = lex.Next();
  const bool neg = t.kind == TokenKind::kMinus;
  if (neg) t = lex.Next();
  int64_t x = 0;
  if (t.kind != TokenKind::kNumber || !absl::SimpleAtoi(t.text, &x)) {
    return lex.Error(t.offset, absl::StrCat("expected an integer in ", what, ", got ",
                                            Describe(t)));
  }
  return neg ? -x : x;
}

// '[' [int {',' int}] ']'
absl::StatusOr<std::vector<int64_t>> ParseIntList(Lexer& lex, absl::string_view what) {
  if (absl::Status s = lex.Expect(TokenKind::kLSquare, absl::StrCat("'[' opening ", what));
      !s.ok()) {
    return s;
  }
  std::vector<int64_t> out;
  if (lex.Accept(TokenKind::kRSquare)) return out;
  while (true) {
    absl::StatusOr<int64_t> x = ParseInt(lex, what);
    if (!x.ok()) return x.status();
    out.push_back(*x);
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kRSquare) return out;
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset, absl::StrCat("expected ',' or ']' in ", what, ", got ",
                                                Describe(sep)));
    }
  }
}

absl::StatusOr<Token> ExpectIdent(Lexer& lex, absl::string_view what) {
  Token t = lex.Next();
  if (t.kind != TokenKind::kIdent) {
    return lex.Error(t.offset, absl::StrCat("expected ", what, ", got ", Describe(t)));
  }
  return t;
}

// ---------------------------------------------------------------- pieces

// %a, %b, ... up to the first token that is not an operand. A ',' after the
// last operand (before keyword items) is consumed; `more` says so.
absl::Status ParseLeadingOperands(Lexer& lex, OpText& op, bool& more) {
  more = false;
  if (lex.Peek().kind != TokenKind::kValueId) return absl::OkStatus();
  while (true) {
    absl::StatusOr<OperandRef> ref = ParseOperand(lex);
    if (!ref.ok()) return ref.status();
    op.operands.push_back(*std::move(ref));
    if (!lex.Accept(TokenKind::kComma)) return absl::OkStatus();
    if (lex.Peek().kind != TokenKind::kValueId) {
      more = true;
      return absl::OkStatus();
    }
  }
}

// ':' and either '(' operand types ')' '->' result types, or one type for
// every operand and the result, or (select) the predicate's type and the
// type of the other operands and the result.
absl::Status ParsePrettySignature(Lexer& lex, OpText& op) {
  if (absl::Status s = lex.Expect(TokenKind::kColon, absl::StrCat("':' and the type of ", op.name));
      !s.ok()) {
    return s;
  }
  if (lex.Accept(TokenKind::kLParen)) return ParseFunctionType(lex, op, "'->' and the result type");
  const size_t offset = lex.Peek().offset;
  absl::StatusOr<std::vector<Shape>> types = ParseTypeList(lex, TokenKind::kEof);
  if (!types.ok()) return types.status();
  op.has_signature = true;
  if (types->size() == 1 && lex.Accept(TokenKind::kArrow)) {
    // CHLO's form: one type for the operands, '->', the result's.
    absl::StatusOr<Shape> result = ParseType(lex);
    if (!result.ok()) return result.status();
    op.operand_types.assign(op.operands.size(), (*types)[0]);
    op.result_types = {*result};
    return absl::OkStatus();
  }
  if (types->size() == 1) {
    Shape operand = (*types)[0];
    // complex %re, %im : tensor<4xcomplex<f32>> names the result's type.
    if (op.name == "stablehlo.complex" && IsComplex(operand.dtype)) {
      operand.dtype = ComplexComponent(operand.dtype);
    }
    op.operand_types.assign(op.operands.size(), operand);
    op.result_types = {(*types)[0]};
    return absl::OkStatus();
  }
  if (types->size() == 2 && op.name == "stablehlo.select" && op.operands.size() == 3) {
    op.operand_types = {(*types)[0], (*types)[1], (*types)[1]};
    op.result_types = {(*types)[1]};
    return absl::OkStatus();
  }
  return lex.Error(offset, absl::StrCat(op.name, ": expected one type or '(' operand types ')' "
                                        "'->' result types, got ",
                                        types->size(), " types"));
}

// ---------------------------------------------------------------- keyword forms

enum class ValueKind {
  kInts,        // dims = [1, 0]
  kInt,         // dim = 0
  kEnum,        // algorithm = DEFAULT (enum_kind names the #stablehlo<kind ...>)
  kDimPair,     // contracting_dims = [1] x [0] -> lhs_/rhs_ fields of #stablehlo.dot
  kPrecisions,  // precision = [DEFAULT, HIGH]
  kAlgorithm,   // algorithm = <lhs_precision_type = tf32, ...>
  kFormat,      // format = e5m10 -> exponent_bits, mantissa_bits
  kBool,        // lower = true
};

struct Keyword {
  const char* pretty;  // the word the pretty form writes
  const char* attr;    // the generic attribute (kDimPair: the suffix after lhs_/rhs_)
  ValueKind kind;
  const char* enum_kind = "";
};

struct Form;
using CustomParser = absl::Status (*)(Lexer&, OpText&, RegionParser&, const Form&);

// One op's pretty form: a custom parser, or operands, `keywords`, type.
struct Form {
  std::vector<Keyword> keywords;
  CustomParser custom = nullptr;
};

// #stablehlo.dot<...> fields gathered from dot_general's keywords.
absl::Status ParseKeywordValue(Lexer& lex, OpText& op, const Keyword& k, size_t offset,
                               std::vector<NamedAttr>& dot_fields) {
  switch (k.kind) {
    case ValueKind::kInts: {
      absl::StatusOr<std::vector<int64_t>> ints = ParseIntList(lex, k.pretty);
      if (!ints.ok()) return ints.status();
      op.attrs.push_back(Named(k.attr, IntsValue(*std::move(ints), offset)));
      return absl::OkStatus();
    }
    case ValueKind::kInt: {
      absl::StatusOr<int64_t> x = ParseInt(lex, k.pretty);
      if (!x.ok()) return x.status();
      op.attrs.push_back(Named(k.attr, IntValue(*x, offset)));
      return absl::OkStatus();
    }
    case ValueKind::kEnum: {
      absl::StatusOr<Token> t = ExpectIdent(lex, absl::StrCat("a value of ", k.pretty));
      if (!t.ok()) return t.status();
      op.attrs.push_back(Named(k.attr, EnumValue(k.enum_kind, t->text, t->offset)));
      return absl::OkStatus();
    }
    case ValueKind::kDimPair: {
      absl::StatusOr<std::vector<int64_t>> lhs = ParseIntList(lex, k.pretty);
      if (!lhs.ok()) return lhs.status();
      Token x = lex.Next();
      if (x.kind != TokenKind::kIdent || x.text != "x") {
        return lex.Error(x.offset, absl::StrCat("expected 'x' between the lhs and rhs ", k.pretty,
                                                ", got ", Describe(x)));
      }
      absl::StatusOr<std::vector<int64_t>> rhs = ParseIntList(lex, k.pretty);
      if (!rhs.ok()) return rhs.status();
      dot_fields.push_back(Named(absl::StrCat("lhs_", k.attr), IntsValue(*std::move(lhs), offset)));
      dot_fields.push_back(Named(absl::StrCat("rhs_", k.attr), IntsValue(*std::move(rhs), offset)));
      return absl::OkStatus();
    }
    case ValueKind::kPrecisions: {
      if (absl::Status s = lex.Expect(TokenKind::kLSquare, "'[' opening the precisions"); !s.ok()) {
        return s;
      }
      AttrValue list;
      list.kind = AttrValue::Kind::kList;
      list.offset = offset;
      if (!lex.Accept(TokenKind::kRSquare)) {
        while (true) {
          absl::StatusOr<Token> t = ExpectIdent(lex, "a precision such as DEFAULT");
          if (!t.ok()) return t.status();
          list.list.push_back(EnumValue("precision", t->text, t->offset));
          Token sep = lex.Next();
          if (sep.kind == TokenKind::kRSquare) break;
          if (sep.kind != TokenKind::kComma) {
            return lex.Error(sep.offset, absl::StrCat("expected ',' or ']' in the precisions, got ",
                                                      Describe(sep)));
          }
        }
      }
      op.attrs.push_back(Named(k.attr, std::move(list)));
      return absl::OkStatus();
    }
    case ValueKind::kAlgorithm: {
      absl::StatusOr<absl::string_view> body = lex.TakeAngleBody();
      if (!body.ok()) return body.status();
      AttrValue v;
      v.kind = AttrValue::Kind::kStruct;
      v.text = "stablehlo.dot_algorithm";
      v.offset = offset;
      op.attrs.push_back(Named(k.attr, std::move(v)));
      return absl::OkStatus();
    }
    case ValueKind::kBool: {
      absl::StatusOr<Token> t = ExpectIdent(lex, absl::StrCat("true or false after ", k.pretty));
      if (!t.ok()) return t.status();
      if (t->text != "true" && t->text != "false") {
        return lex.Error(t->offset, absl::StrCat("expected true or false after ", k.pretty,
                                                 ", got '", t->text, "'"));
      }
      AttrValue v;
      v.kind = AttrValue::Kind::kBool;
      v.text = t->text;
      v.offset = t->offset;
      op.attrs.push_back(Named(k.attr, std::move(v)));
      return absl::OkStatus();
    }
    case ValueKind::kFormat: {
      // e5m10: 5 exponent bits, 10 mantissa bits.
      absl::StatusOr<Token> t = ExpectIdent(lex, "a format such as e5m10");
      if (!t.ok()) return t.status();
      absl::string_view rest = t->text;
      int64_t e = 0, m = 0;
      size_t mpos = rest.find('m');
      if (!absl::ConsumePrefix(&rest, "e") || mpos == absl::string_view::npos ||
          !absl::SimpleAtoi(rest.substr(0, mpos - 1), &e) ||
          !absl::SimpleAtoi(rest.substr(mpos), &m)) {
        return lex.Error(t->offset, absl::StrCat("expected a format such as e5m10, got '", t->text,
                                                 "'"));
      }
      op.attrs.push_back(Named("exponent_bits", IntValue(e, offset)));
      op.attrs.push_back(Named("mantissa_bits", IntValue(m, offset)));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

// Operands, then `keyword = value` items separated by ',', then the type.
absl::Status ParseKeywordForm(Lexer& lex, OpText& op, const Form& form, bool more) {
  std::vector<NamedAttr> dot_fields;
  const size_t start = lex.Peek().offset;
  const bool expect_items = more || (op.operands.empty() && lex.Peek().kind == TokenKind::kIdent);
  while (expect_items) {
    absl::StatusOr<Token> word = ExpectIdent(lex, absl::StrCat("a keyword of ", op.name));
    if (!word.ok()) return word.status();
    const Keyword* k = nullptr;
    for (const Keyword& candidate : form.keywords) {
      if (word->text == candidate.pretty) k = &candidate;
    }
    if (k == nullptr) {
      std::string known;
      for (const Keyword& candidate : form.keywords) {
        absl::StrAppend(&known, known.empty() ? "" : ", ", candidate.pretty);
      }
      return lex.Error(word->offset,
                       absl::StrCat(op.name, " has no keyword '", word->text, "'",
                                    known.empty() ? "" : absl::StrCat(" (expected ", known, ")")));
    }
    if (absl::Status s = lex.Expect(TokenKind::kEqual, absl::StrCat("'=' after ", k->pretty));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = ParseKeywordValue(lex, op, *k, word->offset, dot_fields); !s.ok()) {
      return s;
    }
    if (!lex.Accept(TokenKind::kComma)) break;
  }
  if (!dot_fields.empty()) {
    AttrValue dot;
    dot.kind = AttrValue::Kind::kStruct;
    dot.text = "stablehlo.dot";
    dot.offset = start;
    dot.fields = std::move(dot_fields);
    op.attrs.push_back(Named("dot_dimension_numbers", std::move(dot)));
  }
  return ParsePrettySignature(lex, op);
}

// ---------------------------------------------------------------- custom forms

// dense<...> : type, stored as the generic form's "value" attribute.
absl::Status ParseConstant(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  absl::StatusOr<AttrValue> v = ParseAttrValue(lex);
  if (!v.ok()) return v.status();
  if (v->kind != AttrValue::Kind::kDense) {
    return lex.Error(v->offset, absl::StrCat("expected dense<...> : tensor<...> after "
                                             "stablehlo.constant, got ",
                                             v->KindName()));
  }
  op.has_signature = true;
  op.result_types = {v->literal->shape()};
  op.attrs.push_back(Named("value", *std::move(v)));
  return absl::OkStatus();
}

// @f(%a) : (..) -> .., the callee stored as the generic form's attribute.
absl::Status ParseCall(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  Token callee = lex.Next();
  if (callee.kind != TokenKind::kSymbol) {
    return lex.Error(callee.offset,
                     absl::StrCat("expected the callee @name, got ", Describe(callee)));
  }
  AttrValue symbol;
  symbol.kind = AttrValue::Kind::kSymbol;
  symbol.text = callee.text;
  symbol.offset = callee.offset;
  op.attrs.push_back(Named("callee", std::move(symbol)));
  if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening the call's operands");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseOperandList(lex, op, TokenKind::kRParen); !s.ok()) return s;
  if (lex.Peek().kind == TokenKind::kLBrace) {  // discardable attributes
    if (absl::StatusOr<std::vector<NamedAttr>> a = ParseAttrDict(lex); !a.ok()) return a.status();
  }
  return ParseSignature(lex, op);
}

// LT, %a, %b [, FLOAT] : type
absl::Status ParseCompare(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  absl::StatusOr<Token> dir = ExpectIdent(lex, "a comparison direction such as LT");
  if (!dir.ok()) return dir.status();
  op.attrs.push_back(Named("comparison_direction",
                           EnumValue("comparison_direction", dir->text, dir->offset)));
  if (absl::Status s = lex.Expect(TokenKind::kComma, "',' after the comparison direction");
      !s.ok()) {
    return s;
  }
  bool more = false;
  if (absl::Status s = ParseLeadingOperands(lex, op, more); !s.ok()) return s;
  if (more) {
    absl::StatusOr<Token> type = ExpectIdent(lex, "a comparison type such as FLOAT");
    if (!type.ok()) return type.status();
    op.attrs.push_back(Named("compare_type", EnumValue("comparison_type", type->text,
                                                       type->offset)));
  }
  return ParsePrettySignature(lex, op);
}

// %a [0:2, 1:3:1] : type
absl::Status ParseSlice(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  bool more = false;
  if (absl::Status s = ParseLeadingOperands(lex, op, more); !s.ok()) return s;
  const size_t offset = lex.Peek().offset;
  if (absl::Status s = lex.Expect(TokenKind::kLSquare, "'[' opening the slice's ranges");
      !s.ok()) {
    return s;
  }
  std::vector<int64_t> start, limit, strides;
  if (!lex.Accept(TokenKind::kRSquare)) {
    while (true) {
      absl::StatusOr<int64_t> a = ParseInt(lex, "the slice's start");
      if (!a.ok()) return a.status();
      if (absl::Status s = lex.Expect(TokenKind::kColon, "':' after the slice's start"); !s.ok()) {
        return s;
      }
      absl::StatusOr<int64_t> b = ParseInt(lex, "the slice's limit");
      if (!b.ok()) return b.status();
      int64_t stride = 1;
      if (lex.Accept(TokenKind::kColon)) {
        absl::StatusOr<int64_t> c = ParseInt(lex, "the slice's stride");
        if (!c.ok()) return c.status();
        stride = *c;
      }
      start.push_back(*a);
      limit.push_back(*b);
      strides.push_back(stride);
      Token sep = lex.Next();
      if (sep.kind == TokenKind::kRSquare) break;
      if (sep.kind != TokenKind::kComma) {
        return lex.Error(sep.offset, absl::StrCat("expected ',' or ']' in the slice's ranges, got ",
                                                  Describe(sep)));
      }
    }
  }
  op.attrs.push_back(Named("start_indices", IntsValue(std::move(start), offset)));
  op.attrs.push_back(Named("limit_indices", IntsValue(std::move(limit), offset)));
  op.attrs.push_back(Named("strides", IntsValue(std::move(strides), offset)));
  return ParsePrettySignature(lex, op);
}

// %t[0] : (tuple<...>) -> type
absl::Status ParseGetTupleElement(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  absl::StatusOr<OperandRef> ref = ParseOperand(lex);
  if (!ref.ok()) return ref.status();
  op.operands.push_back(*std::move(ref));
  const size_t offset = lex.Peek().offset;
  if (absl::Status s = lex.Expect(TokenKind::kLSquare, "'[' and the element index"); !s.ok()) {
    return s;
  }
  absl::StatusOr<int64_t> index = ParseInt(lex, "the element index");
  if (!index.ok()) return index.status();
  if (absl::Status s = lex.Expect(TokenKind::kRSquare, "']' after the element index"); !s.ok()) {
    return s;
  }
  op.attrs.push_back(Named("index", IntValue(*index, offset)));
  return ParsePrettySignature(lex, op);
}

// %a, %b : tuple<...> (the result's type only)
absl::Status ParseTuple(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  bool more = false;
  if (absl::Status s = ParseLeadingOperands(lex, op, more); !s.ok()) return s;
  if (absl::Status s = lex.Expect(TokenKind::kColon, "':' and the tuple's type"); !s.ok()) return s;
  absl::StatusOr<Shape> type = ParseType(lex);
  if (!type.ok()) return type.status();
  op.has_signature = true;
  op.result_types = {*type};
  if (type->is_tuple) op.operand_types = type->tuple_shapes;
  return absl::OkStatus();
}

// '(' %x 'init:' %c ')' {',' ...} ('applies' op | ) 'across' 'dimensions' '='
// [..] ':' type [reducer (%a: t, %b: t) ... '{' body '}']
absl::Status ParseReduce(Lexer& lex, OpText& op, RegionParser& regions, const Form&) {
  std::vector<OperandRef> inputs, inits;
  while (true) {
    if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening a reduce operand '(%x init: "
                                                        "%c)'");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<OperandRef> x = ParseOperand(lex);
    if (!x.ok()) return x.status();
    Token init = lex.Next();
    if (init.kind != TokenKind::kIdent || init.text != "init") {
      return lex.Error(init.offset, absl::StrCat("expected 'init:' after the reduce operand, got ",
                                                 Describe(init)));
    }
    if (absl::Status s = lex.Expect(TokenKind::kColon, "':' after 'init'"); !s.ok()) return s;
    absl::StatusOr<OperandRef> c = ParseOperand(lex);
    if (!c.ok()) return c.status();
    if (absl::Status s = lex.Expect(TokenKind::kRParen, "')' closing '(%x init: %c)'"); !s.ok()) {
      return s;
    }
    inputs.push_back(*std::move(x));
    inits.push_back(*std::move(c));
    if (!lex.Accept(TokenKind::kComma)) break;
  }
  for (OperandRef& r : inputs) op.operands.push_back(std::move(r));
  for (OperandRef& r : inits) op.operands.push_back(std::move(r));
  const size_t n = inits.size();
  std::string applied;
  size_t applied_offset = 0;
  if (lex.PeekIdent("applies")) {
    lex.Next();
    absl::StatusOr<Token> name = ExpectIdent(lex, "the op the reduction applies");
    if (!name.ok()) return name.status();
    applied = name->text;
    applied_offset = name->offset;
  }
  Token across = lex.Next();
  if (across.kind != TokenKind::kIdent || across.text != "across") {
    return lex.Error(across.offset, absl::StrCat("expected 'across dimensions = [...]', got ",
                                                 Describe(across)));
  }
  Token dims = lex.Next();
  if (dims.kind != TokenKind::kIdent || dims.text != "dimensions") {
    return lex.Error(dims.offset, absl::StrCat("expected 'dimensions' after 'across', got ",
                                               Describe(dims)));
  }
  if (absl::Status s = lex.Expect(TokenKind::kEqual, "'=' after 'dimensions'"); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> dimensions = ParseIntList(lex, "the reduce dimensions");
  if (!dimensions.ok()) return dimensions.status();
  op.attrs.push_back(Named("dimensions", IntsValue(*std::move(dimensions), dims.offset)));
  if (absl::Status s = ParsePrettySignature(lex, op); !s.ok()) return s;
  if (op.operand_types.size() != 2 * n) {
    return lex.Error(op.offset, absl::StrCat("stablehlo.reduce of ", n, " operands must be typed (",
                                             2 * n, " operand types) -> results"));
  }
  if (!applied.empty()) {
    std::vector<Shape> args;
    for (size_t i = 0; i < n; ++i) args.push_back(op.operand_types[n + i]);
    for (size_t i = 0; i < n; ++i) args.push_back(op.operand_types[n + i]);
    absl::StatusOr<Computation*> body = regions.Apply(applied, args, applied_offset);
    if (!body.ok()) return body.status();
    op.regions.push_back(*body);
    return absl::OkStatus();
  }
  // reducer(%a0: t, %b0: t) (%a1: t, %b1: t) ... { body }: the block takes
  // the a's, then the b's.
  Token reducer = lex.Next();
  if (reducer.kind != TokenKind::kIdent || reducer.text != "reducer") {
    return lex.Error(reducer.offset, absl::StrCat("expected 'reducer(...)' or 'applies' giving "
                                                  "the reduction's body, got ",
                                                  Describe(reducer)));
  }
  std::vector<BlockArgument> firsts, seconds;
  for (size_t i = 0; i < n; ++i) {
    if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening a reducer argument pair");
        !s.ok()) {
      return s;
    }
    for (int j = 0; j < 2; ++j) {
      if (j == 1) {
        if (absl::Status s = lex.Expect(TokenKind::kComma, "',' in a reducer argument pair");
            !s.ok()) {
          return s;
        }
      }
      Token name = lex.Next();
      if (name.kind != TokenKind::kValueId) {
        return lex.Error(name.offset, absl::StrCat("expected a block argument %name, got ",
                                                   Describe(name)));
      }
      if (absl::Status s = lex.Expect(TokenKind::kColon, "':' and the argument's type"); !s.ok()) {
        return s;
      }
      absl::StatusOr<Shape> type = ParseType(lex);
      if (!type.ok()) return type.status();
      (j == 0 ? firsts : seconds).push_back({name.text, *type, name.offset});
    }
    if (absl::Status s = lex.Expect(TokenKind::kRParen, "')' closing a reducer argument pair");
        !s.ok()) {
      return s;
    }
  }
  for (BlockArgument& b : seconds) firsts.push_back(std::move(b));
  absl::StatusOr<Computation*> body = regions.ParseWithArguments(firsts);
  if (!body.ok()) return body.status();
  op.regions.push_back(*body);
  return absl::OkStatus();
}

// JAX's while: (%iterArg = %x, ...) : t, ... cond { ... } do { ... }. The
// iteration arguments name both regions' block arguments; the types are the
// operands' and the results'.
absl::Status ParseWhile(Lexer& lex, OpText& op, RegionParser& regions, const Form&) {
  if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening the while's iteration "
                                                      "arguments (%iterArg = %x, ...)");
      !s.ok()) {
    return s;
  }
  std::vector<Token> names;
  if (!lex.Accept(TokenKind::kRParen)) {
    while (true) {
      Token name = lex.Next();
      if (name.kind != TokenKind::kValueId) {
        return lex.Error(name.offset, absl::StrCat("expected an iteration argument %name, got ",
                                                   Describe(name)));
      }
      if (absl::Status s = lex.Expect(TokenKind::kEqual, "'=' and the argument's initial value");
          !s.ok()) {
        return s;
      }
      absl::StatusOr<OperandRef> init = ParseOperand(lex);
      if (!init.ok()) return init.status();
      names.push_back(name);
      op.operands.push_back(*std::move(init));
      if (lex.Accept(TokenKind::kRParen)) break;
      if (absl::Status s = lex.Expect(TokenKind::kComma, "',' or ')' in the iteration arguments");
          !s.ok()) {
        return s;
      }
    }
  }
  std::vector<Shape> types;
  if (!names.empty()) {
    if (absl::Status s = lex.Expect(TokenKind::kColon, "':' and the iteration arguments' types");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::vector<Shape>> parsed = ParseTypeList(lex, TokenKind::kEof);
    if (!parsed.ok()) return parsed.status();
    types = *std::move(parsed);
  }
  if (types.size() != names.size()) {
    return lex.Error(op.offset, absl::StrCat("stablehlo.while has ", names.size(),
                                             " iteration arguments but ", types.size(),
                                             " types"));
  }
  std::vector<BlockArgument> args;
  for (size_t i = 0; i < names.size(); ++i) {
    args.push_back({names[i].text, types[i], names[i].offset});
  }
  for (const char* keyword : {"cond", "do"}) {
    absl::StatusOr<Token> k = ExpectIdent(lex, absl::StrCat("'", keyword, "' and its region"));
    if (!k.ok()) return k.status();
    if (k->text != keyword) {
      return lex.Error(k->offset, absl::StrCat("expected '", keyword, "' and its region, got '",
                                               k->text, "'"));
    }
    absl::StatusOr<Computation*> region = regions.ParseWithArguments(args);
    if (!region.ok()) return region.status();
    op.regions.push_back(*region);
  }
  op.has_signature = true;
  op.operand_types = types;
  op.result_types = std::move(types);
  return absl::OkStatus();
}

// The check dialect of StableHLO's interpreter tests:
//   check.expect_eq %a, %b : t            check.expect_eq_const %a, dense<...> : t
//   check.expect_close %a, %b, max_ulp_difference = 3 : t, t
// The expected constant of a *_const check becomes the attribute "expected".
absl::Status ParseCheck(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  bool more = false;
  if (absl::Status s = ParseLeadingOperands(lex, op, more); !s.ok()) return s;
  if (absl::EndsWith(op.name, "_const")) {
    if (!more) {
      return lex.Error(lex.Peek().offset, absl::StrCat("expected ',' and the expected value "
                                                       "dense<...> : type after ",
                                                       op.name, "'s operand"));
    }
    absl::StatusOr<AttrValue> v = ParseAttrValue(lex);
    if (!v.ok()) return v.status();
    if (v->kind != AttrValue::Kind::kDense) {
      return lex.Error(v->offset, absl::StrCat(op.name, ": expected dense<...> : type, got ",
                                               v->KindName()));
    }
    op.has_signature = true;
    op.operand_types = {v->literal->shape()};
    op.attrs.push_back(Named("expected", *std::move(v)));
    if (lex.Peek().kind == TokenKind::kLBrace) {  // {tolerance = 0.1 : f64}
      absl::StatusOr<std::vector<NamedAttr>> extra = ParseAttrDict(lex);
      if (!extra.ok()) return extra.status();
      for (NamedAttr& a : *extra) op.attrs.push_back(std::move(a));
    }
    return absl::OkStatus();
  }
  // max_ulp_difference = 3, tolerance = 0.1, ...
  while (more) {
    absl::StatusOr<Token> word = ExpectIdent(lex, absl::StrCat("an attribute of ", op.name));
    if (!word.ok()) return word.status();
    if (absl::Status s = lex.Expect(TokenKind::kEqual, absl::StrCat("'=' after ", word->text));
        !s.ok()) {
      return s;
    }
    // A bare number: the ':' after it starts the op's type, not the number's.
    Token t = lex.Next();
    const bool neg = t.kind == TokenKind::kMinus;
    if (neg) t = lex.Next();
    if (t.kind != TokenKind::kNumber) {
      return lex.Error(t.offset, absl::StrCat("expected a number after '", word->text,
                                              " =', got ", Describe(t)));
    }
    AttrValue v;
    v.kind = t.text.find_first_of(".eE") != std::string::npos && t.text.rfind("0x", 0) != 0
                 ? AttrValue::Kind::kFloat
                 : AttrValue::Kind::kInteger;
    v.text = absl::StrCat(neg ? "-" : "", t.text);
    v.offset = t.offset;
    op.attrs.push_back(Named(word->text, std::move(v)));
    more = lex.Accept(TokenKind::kComma);
  }
  if (absl::Status s = lex.Expect(TokenKind::kColon, absl::StrCat("':' and the type of ", op.name));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<Shape>> types = ParseTypeList(lex, TokenKind::kEof);
  if (!types.ok()) return types.status();
  op.has_signature = true;
  if (types->size() == 1) {
    op.operand_types.assign(op.operands.size(), (*types)[0]);
  } else {
    op.operand_types = *std::move(types);
  }
  return absl::OkStatus();
}

// stablehlo.custom_call @target(%a, %b) {attrs} : (t, t) -> t. The target
// becomes the generic form's call_target_name. @check.expect_close and the
// other checks of StableHLO's JAX-generated test files are read as the check
// op they name.
absl::Status ParseCustomCall(Lexer& lex, OpText& op, RegionParser&, const Form&) {
  const Token target = lex.Next();
  if (target.kind != TokenKind::kSymbol) {
    return lex.Error(target.offset,
                     absl::StrCat("expected the custom call's target @name, got ", Describe(target)));
  }
  if (absl::StartsWith(target.text, "check.")) {
    op.name = target.text;
  } else {
    AttrValue name;
    name.kind = AttrValue::Kind::kString;
    name.text = target.text;
    name.offset = target.offset;
    op.attrs.push_back(Named("call_target_name", std::move(name)));
  }
  if (absl::Status s = lex.Expect(TokenKind::kLParen, "'(' opening the custom call's operands");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseOperandList(lex, op, TokenKind::kRParen); !s.ok()) return s;
  if (lex.Peek().kind == TokenKind::kLBrace) {
    absl::StatusOr<std::vector<NamedAttr>> attrs = ParseAttrDict(lex);
    if (!attrs.ok()) return attrs.status();
    for (NamedAttr& a : *attrs) op.attrs.push_back(std::move(a));
  }
  return ParseSignature(lex, op);
}

// ---------------------------------------------------------------- the table

using VK = ValueKind;

const absl::flat_hash_map<std::string, Form>& PrettyForms() {
  static const auto* forms = new absl::flat_hash_map<std::string, Form>{
      {"stablehlo.constant", {{}, ParseConstant}},
      {"check.expect_eq", {{}, ParseCheck}},
      {"check.expect_eq_const", {{}, ParseCheck}},
      {"check.expect_almost_eq", {{}, ParseCheck}},
      {"check.expect_almost_eq_const", {{}, ParseCheck}},
      {"check.expect_close", {{}, ParseCheck}},
      {"stablehlo.custom_call", {{}, ParseCustomCall}},
      {"func.call", {{}, ParseCall}},
      {"call", {{}, ParseCall}},
      {"stablehlo.compare", {{}, ParseCompare}},
      {"stablehlo.slice", {{}, ParseSlice}},
      {"stablehlo.get_tuple_element", {{}, ParseGetTupleElement}},
      {"stablehlo.tuple", {{}, ParseTuple}},
      {"stablehlo.reduce", {{}, ParseReduce}},
      {"stablehlo.while", {{}, ParseWhile}},
      {"stablehlo.broadcast_in_dim", {{{"dims", "broadcast_dimensions", VK::kInts}}}},
      {"stablehlo.transpose", {{{"dims", "permutation", VK::kInts}}}},
      {"stablehlo.reverse", {{{"dims", "dimensions", VK::kInts}}}},
      {"stablehlo.concatenate", {{{"dim", "dimension", VK::kInt}}}},
      {"stablehlo.iota", {{{"dim", "iota_dimension", VK::kInt}}}},
      {"stablehlo.pad",
       {{{"low", "edge_padding_low", VK::kInts},
         {"high", "edge_padding_high", VK::kInts},
         {"interior", "interior_padding", VK::kInts}}}},
      {"stablehlo.dot_general",
       {{{"batching_dims", "batching_dimensions", VK::kDimPair},
         {"contracting_dims", "contracting_dimensions", VK::kDimPair},
         {"precision", "precision_config", VK::kPrecisions},
         {"algorithm", "algorithm", VK::kAlgorithm}}}},
      {"stablehlo.reduce_precision", {{{"format", "", VK::kFormat}}}},
      {"stablehlo.dynamic_slice", {{{"sizes", "slice_sizes", VK::kInts}}}},
      {"stablehlo.rng_bit_generator",
       {{{"algorithm", "rng_algorithm", VK::kEnum, "rng_algorithm"}}}},
      // issue 11 (h-fft): as StableHLO's printer writes them
      {"stablehlo.fft",
       {{{"type", "fft_type", VK::kEnum, "fft_type"}, {"length", "fft_length", VK::kInts}}}},
      {"stablehlo.rng", {{{"distribution", "rng_distribution", VK::kEnum, "rng_distribution"}}}},
      {"stablehlo.get_dimension_size", {{{"dim", "dimension", VK::kInt}}}},
      {"stablehlo.dynamic_iota", {{{"dim", "iota_dimension", VK::kInt}}}},
      // h-linalg: stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
      {"stablehlo.cholesky", {{{"lower", "lower", VK::kBool}}}},
  };
  return *forms;
}

}  // namespace

absl::Status ParsePrettyOp(Lexer& lex, OpText& op, RegionParser& regions) {
  const auto& forms = PrettyForms();
  auto it = forms.find(op.name);
  if (it != forms.end() && it->second.custom != nullptr) {
    return it->second.custom(lex, op, regions, it->second);
  }
  if (it == forms.end()) {
    // Every other op xjit has is "operands : type"; anything else is an op
    // xjit lacks, whose syntax this parser need not know.
    if (!OpcodeForName(op.name).has_value()) {
      return absl::UnimplementedError(absl::StrCat(lex.Location(op.offset), ": op '", op.name,
                                                   "' is not supported by xjit"));
    }
  }
  static const Form kPlain;
  const Form& form = it == forms.end() ? kPlain : it->second;
  bool more = false;
  if (absl::Status s = ParseLeadingOperands(lex, op, more); !s.ok()) return s;
  if (more && form.keywords.empty()) {
    return lex.Error(lex.Peek().offset, absl::StrCat("expected an operand %name, got ",
                                                     Describe(lex.Peek())));
  }
  return ParseKeywordForm(lex, op, form, more);
}

}  // namespace xjit::text
