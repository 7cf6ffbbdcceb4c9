#include "xjit/text/type_parser.h"

#include <cctype>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xjit::text {

absl::StatusOr<DType> ParseElementType(absl::string_view name) {
  // The grammar spells signed integers siN; MLIR and our printer write iN.
  absl::string_view spelled = absl::StartsWith(name, "si") ? name.substr(1) : name;
  // Only StableHLO spellings: numpy names (float32, bool) are not types here.
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    if (StableHloName(t) == spelled) return t;
  }
  return absl::UnimplementedError(
      absl::StrCat("element type '", name, "' is not supported by xjit"));
}

namespace {

// A cursor over the text of one !quant.uniform<...> type.
struct QuantText {
  absl::string_view s;
  size_t i = 0;
  void Blanks() { while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i; }
  bool Take(char c) {
    Blanks();
    if (i < s.size() && s[i] == c) { ++i; return true; }
    return false;
  }
  absl::string_view Word() {  // an element type, integer or float literal
    Blanks();
    size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                            s[i] == '-' || s[i] == '+' || s[i] == '_')) {
      // '-'/'+' only lead a number or follow its exponent
      if ((s[i] == '-' || s[i] == '+') && i > start && s[i - 1] != 'e' && s[i - 1] != 'E') break;
      ++i;
    }
    return s.substr(start, i - start);
  }
};

absl::Status QuantError(absl::string_view text, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("bad quantized type '", text, "': expected ", what));
}

}  // namespace

// !quant.uniform<storage[<min:max>]:expressed[:dim], scale[:zp] | {scale[:zp], ...}>
absl::StatusOr<QuantizedType> ParseQuantizedType(absl::string_view text) {
  QuantText t{text};
  t.i = std::string_view("!quant.uniform<").size();
  QuantizedType q;
  absl::StatusOr<DType> storage = ParseElementType(t.Word());
  if (!storage.ok() || !IsInteger(*storage)) return QuantError(text, "an integer storage type");
  q.storage = *storage;
  q.storage_min = StorageMin(q.storage);
  q.storage_max = StorageMax(q.storage);
  if (t.Take('<')) {
    if (!absl::SimpleAtoi(t.Word(), &q.storage_min) || !t.Take(':') ||
        !absl::SimpleAtoi(t.Word(), &q.storage_max) || !t.Take('>')) {
      return QuantError(text, "<min:max> after the storage type");
    }
  }
  if (!t.Take(':')) return QuantError(text, "':' and the expressed type");
  absl::StatusOr<DType> expressed = ParseElementType(t.Word());
  if (!expressed.ok()) return QuantError(text, "a float expressed type");
  q.expressed = *expressed;
  if (t.Take(':')) {
    if (!absl::SimpleAtoi(t.Word(), &q.quantized_dimension) || q.quantized_dimension < 0) {
      return QuantError(text, "a quantized dimension");
    }
  }
  if (!t.Take(',')) return QuantError(text, "',' and the scale");
  auto scale_and_zero_point = [&]() -> bool {
    double scale = 0;
    int64_t zp = 0;
    if (!absl::SimpleAtod(t.Word(), &scale)) return false;
    if (t.Take(':') && !absl::SimpleAtoi(t.Word(), &zp)) return false;
    q.scales.push_back(scale);
    q.zero_points.push_back(zp);
    return true;
  };
  if (q.per_axis()) {
    if (!t.Take('{')) return QuantError(text, "'{' and one scale per slice");
    do {
      if (!scale_and_zero_point()) return QuantError(text, "scale[:zero_point]");
    } while (t.Take(','));
    if (!t.Take('}')) return QuantError(text, "'}' after the scales");
  } else if (!scale_and_zero_point()) {
    return QuantError(text, "scale[:zero_point]");
  }
  if (!t.Take('>')) return QuantError(text, "'>' closing the type");
  t.Blanks();
  if (t.i != text.size()) return QuantError(text, "nothing after '>'");
  return q;
}

absl::StatusOr<Shape> ParseType(Lexer& lex, bool index_as_i64) {
  Token t = lex.Next();
  if (t.kind == TokenKind::kIdent && t.text == "tensor") {
    absl::StatusOr<absl::string_view> body = lex.TakeAngleBody(/*is_type=*/true);
    if (!body.ok()) return body.status();
    const size_t base = static_cast<size_t>(body->data() - lex.text().data());
    absl::string_view s = *body;
    std::vector<int64_t> dims;
    size_t i = 0;
    auto skip_blanks = [&] {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    };
    skip_blanks();
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '?')) {
      size_t start = i;
      if (s[i] == '?') {
        return absl::UnimplementedError(absl::StrCat(
            lex.Location(base + i), ": dynamic dimensions ('?') are not supported by xjit"));
      }
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      int64_t d = 0;
      if (!absl::SimpleAtoi(s.substr(start, i - start), &d)) {
        return lex.Error(base + start, "dimension size is too large");
      }
      if (i >= s.size() || s[i] != 'x') {
        return lex.Error(base + i, "expected 'x' after a dimension size in tensor<...>");
      }
      ++i;
      dims.push_back(d);
    }
    absl::string_view element = s.substr(i);
    while (!element.empty() && std::isspace(static_cast<unsigned char>(element.back()))) {
      element.remove_suffix(1);
    }
    if (element.empty()) return lex.Error(base + i, "expected an element type in tensor<...>");
    if (absl::StartsWith(element, "!quant.uniform<")) {
      absl::StatusOr<QuantizedType> q = ParseQuantizedType(element);
      if (!q.ok()) return lex.Error(base + i, q.status().message());
      Shape shape(q->storage, std::move(dims));
      const int64_t axis = q->quantized_dimension;
      const int64_t axis_size = axis >= 0 && axis < shape.rank() ? shape.dims[axis] : -1;
      if (absl::Status st = CheckQuantizedType(*q, shape.rank(), axis_size); !st.ok()) {
        return lex.Error(base + i, st.message());
      }
      shape.quant = std::make_shared<const QuantizedType>(*std::move(q));
      return shape;
    }
    absl::StatusOr<DType> dtype =
        index_as_i64 && element == "index" ? DType::kS64 : ParseElementType(element);
    if (!dtype.ok()) {
      return absl::Status(dtype.status().code(),
                          absl::StrCat(lex.Location(base + i), ": ", dtype.status().message()));
    }
    Shape shape(*dtype, std::move(dims));
    if (absl::Status size = CheckShapeSize(shape, "tensor type"); !size.ok()) {
      return lex.Error(base, size.message());
    }
    return shape;
  }
  if (t.kind == TokenKind::kIdent && t.text == "tuple") {
    Token open = lex.Next();
    if (open.kind != TokenKind::kLess) {
      return lex.Error(open.offset, absl::StrCat("expected '<' after tuple, got ", Describe(open)));
    }
    std::vector<Shape> parts;
    if (lex.Peek().kind == TokenKind::kGreater) {
      lex.Next();
      return Shape::Tuple(std::move(parts));
    }
    while (true) {
      absl::StatusOr<Shape> part = ParseType(lex);
      if (!part.ok()) return part.status();
      parts.push_back(*std::move(part));
      Token sep = lex.Next();
      if (sep.kind == TokenKind::kGreater) break;
      if (sep.kind != TokenKind::kComma) {
        return lex.Error(sep.offset,
                         absl::StrCat("expected ',' or '>' in tuple<...>, got ", Describe(sep)));
      }
    }
    return Shape::Tuple(std::move(parts));
  }
  if (t.kind == TokenKind::kBangIdent && t.text == "stablehlo.token") return Shape::Token();
  if (t.kind == TokenKind::kBangIdent) {
    return absl::UnimplementedError(absl::StrCat(lex.Location(t.offset), ": type '!", t.text,
                                                 "' is not supported by xjit"));
  }
  return lex.Error(t.offset, absl::StrCat("expected a type (tensor<...> or tuple<...>), got ",
                                          Describe(t)));
}

}  // namespace xjit::text
