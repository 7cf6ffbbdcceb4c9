#include "xjit/text/literal_parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/narrow_convert.h"
#include "xjit/ir/narrow_float.h"

namespace xjit {
namespace text {
namespace {

bool IsHex(absl::string_view s) { return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

// One signed scalar token sequence: [-|+] (number | true | false | inf | nan).
absl::StatusOr<std::string> ParseScalarText(Lexer& lex) {
  Token t = lex.Next();
  std::string sign;
  if (t.kind == TokenKind::kMinus || t.kind == TokenKind::kPlus) {
    if (t.kind == TokenKind::kMinus) sign = "-";
    t = lex.Next();
  }
  if (t.kind == TokenKind::kNumber) return sign + t.text;
  if (t.kind == TokenKind::kIdent) {
    std::string word = absl::AsciiStrToLower(t.text);
    if (word == "inf" || word == "infinity" || word == "nan") return sign + word;
    if (sign.empty() && (word == "true" || word == "false")) return word;
  }
  return lex.Error(t.offset, absl::StrCat("expected a number, true, false, inf or nan, got ",
                                          Describe(t)));
}

absl::StatusOr<ElementText> ParseElement(Lexer& lex) {
  ElementText e;
  e.offset = lex.Peek().offset;
  if (lex.Peek().kind == TokenKind::kLParen) {
    lex.Next();
    e.is_complex = true;
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<std::string> part = ParseScalarText(lex);
      if (!part.ok()) return part.status();
      e.part[i] = *std::move(part);
      Token sep = lex.Next();
      TokenKind want = i == 0 ? TokenKind::kComma : TokenKind::kRParen;
      if (sep.kind != want) {
        return lex.Error(sep.offset, absl::StrCat("expected '", i == 0 ? "," : ")",
                                                  "' in complex value (re, im), got ",
                                                  Describe(sep)));
      }
    }
    return e;
  }
  absl::StatusOr<std::string> part = ParseScalarText(lex);
  if (!part.ok()) return part.status();
  e.part[0] = *std::move(part);
  return e;
}

// '[' item {',' item} ']' where every item is an element or a nested list of
// the same shape; returns the dims of the list.
absl::StatusOr<std::vector<int64_t>> ParseList(Lexer& lex, std::vector<ElementText>& out) {
  Token open = lex.Next();  // '['
  if (lex.Peek().kind == TokenKind::kRSquare) {
    lex.Next();
    return std::vector<int64_t>{0};
  }
  std::vector<int64_t> child_dims;
  bool child_is_list = lex.Peek().kind == TokenKind::kLSquare;
  int64_t count = 0;
  while (true) {
    size_t at = lex.Peek().offset;
    bool is_list = lex.Peek().kind == TokenKind::kLSquare;
    if (is_list != child_is_list) {
      return lex.Error(at, "nested list mixes scalars and lists");
    }
    if (is_list) {
      absl::StatusOr<std::vector<int64_t>> dims = ParseList(lex, out);
      if (!dims.ok()) return dims.status();
      if (count > 0 && *dims != child_dims) {
        return lex.Error(at, absl::StrCat("ragged nested list: expected a list of shape [",
                                          absl::StrJoin(child_dims, ", "), "], got [",
                                          absl::StrJoin(*dims, ", "), "]"));
      }
      child_dims = *std::move(dims);
    } else {
      absl::StatusOr<ElementText> e = ParseElement(lex);
      if (!e.ok()) return e.status();
      out.push_back(*std::move(e));
    }
    ++count;
    Token sep = lex.Next();
    if (sep.kind == TokenKind::kRSquare) break;
    if (sep.kind != TokenKind::kComma) {
      return lex.Error(sep.offset,
                       absl::StrCat("expected ',' or ']' in list, got ", Describe(sep)));
    }
  }
  (void)open;
  std::vector<int64_t> dims = {count};
  dims.insert(dims.end(), child_dims.begin(), child_dims.end());
  return dims;
}

// Integer text (decimal or hex) as a two's-complement value of `bits` width.
absl::StatusOr<uint64_t> IntegerBits(absl::string_view s, DType t) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  const int bits = BitWidth(t);
  uint64_t mag = 0;
  bool hex = IsHex(s);
  bool ok = hex ? absl::SimpleHexAtoi(s.substr(2), &mag) : absl::SimpleAtoi(s, &mag);
  if (!ok) return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not an integer"));
  std::string shown = absl::StrCat(neg ? "-" : "", s);
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (hex) {
    // Hex gives the bit pattern, as MLIR reads it.
    if (neg || mag > all) {
      return absl::InvalidArgumentError(
          absl::StrCat(shown, " does not fit in ", bits, " bits of ", StableHloName(t)));
    }
    return mag;
  }
  bool fits;
  if (IsSignedInt(t)) {
    uint64_t max_pos = all >> 1;
    fits = neg ? mag <= max_pos + 1 : mag <= max_pos;
  } else {
    fits = neg ? mag == 0 : mag <= all;
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        absl::StrCat(shown, " is out of range for ", StableHloName(t)));
  }
  return neg ? (~mag + 1) & all : mag;
}

absl::StatusOr<double> FloatValue(absl::string_view s, DType t, uint64_t* raw_bits,
                                  bool* is_raw) {
  *is_raw = false;
  absl::string_view body = s;
  bool neg = !body.empty() && body[0] == '-';
  if (neg) body.remove_prefix(1);
  if (IsHex(body)) {
    const int bits = BitWidth(t);
    const int digits = (bits + 3) / 4;
    if (neg || static_cast<int>(body.size()) - 2 != digits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hex float '", s, "' must give exactly ", digits, " hex digits (the raw bits of ",
          StableHloName(t), ")"));
    }
    if (!absl::SimpleHexAtoi(body.substr(2), raw_bits)) {
      return absl::InvalidArgumentError(absl::StrCat("bad hex float '", s, "'"));
    }
    *is_raw = true;
    return 0.0;
  }
  if (body == "inf" || body == "infinity") {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (body == "nan") {
    return neg ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
  }
  if (body == "true" || body == "false") {
    return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not a ", StableHloName(t)));
  }
  std::string str(s);
  char* end = nullptr;
  errno = 0;
  double v = t == DType::kF32 ? std::strtof(str.c_str(), &end) : std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size()) {
    return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not a number"));
  }
  return v;
}

template <typename T>
T FromRawBits(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));  // little-endian host
  return v;
}

// A narrow element (ir/dtype.h): its storage byte.
absl::Status StoreNarrowElement(const ElementText& e, Literal& lit, int64_t i) {
  const DType t = lit.shape().dtype;
  uint8_t* out = lit.mutable_data() + i;
  if (e.is_complex) {
    return absl::InvalidArgumentError(absl::StrCat("complex value (", e.part[0], ", ", e.part[1],
                                                   ") for ", StableHloName(t)));
  }
  if (IsInteger(t)) {
    absl::StatusOr<uint64_t> bits = IntegerBits(e.part[0], t);
    if (!bits.ok()) return bits.status();
    *out = NarrowStorageOfCode(t, static_cast<uint8_t>(*bits));
    return absl::OkStatus();
  }
  uint64_t raw = 0;
  bool is_raw = false;
  absl::StatusOr<double> v = FloatValue(e.part[0], t, &raw, &is_raw);
  if (!v.ok()) return v.status();
  if (is_raw && raw >= (uint64_t{1} << BitWidth(t))) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", e.part[0], "' does not fit in ", BitWidth(t), " bits of ", StableHloName(t)));
  }
  *out = is_raw ? static_cast<uint8_t>(raw) : EncodeNarrowFloat(t, *v);
  return absl::OkStatus();
}

// Stores element text into slot i of the literal.
absl::Status StoreElement(const ElementText& e, Literal& lit, int64_t i) {
  const DType t = lit.shape().dtype;
  if (IsNarrow(t)) return StoreNarrowElement(e, lit, i);
  if (e.is_complex != IsComplex(t)) {
    return absl::InvalidArgumentError(
        e.is_complex ? absl::StrCat("complex value (", e.part[0], ", ", e.part[1], ") for ",
                                    StableHloName(t))
                     : absl::StrCat("'", e.part[0], "' is not a complex (re, im) value for ",
                                    StableHloName(t)));
  }
  absl::Status status;
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>() + i;
    if constexpr (std::is_same_v<T, bool>) {
      const std::string& s = e.part[0];
      if (s == "true" || s == "1") {
        *out = true;
      } else if (s == "false" || s == "0") {
        *out = false;
      } else {
        status = absl::InvalidArgumentError(absl::StrCat("'", s, "' is not an i1 (true/false)"));
      }
    } else if constexpr (std::is_integral_v<T>) {
      absl::StatusOr<uint64_t> bits = IntegerBits(e.part[0], t);
      if (!bits.ok()) {
        status = bits.status();
        return;
      }
      *out = static_cast<T>(*bits);
    } else {
      DType component = ComplexComponent(t);
      double parts[2] = {0, 0};
      for (int p = 0; p < (e.is_complex ? 2 : 1); ++p) {
        uint64_t raw = 0;
        bool is_raw = false;
        absl::StatusOr<double> v = FloatValue(e.part[p], component, &raw, &is_raw);
        if (!v.ok()) {
          status = v.status();
          return;
        }
        parts[p] = *v;
        if (is_raw) {
          switch (component) {
            case DType::kF64: parts[p] = FromRawBits<double>(raw); break;
            case DType::kF32: parts[p] = FromRawBits<float>(raw); break;
            case DType::kF16: parts[p] = f16::ToFloat(static_cast<uint16_t>(raw)); break;
            default: parts[p] = BitsToFloat(static_cast<uint32_t>(raw) << 16); break;  // bf16
          }
        }
      }
      if constexpr (is_complex_v<T>) {
        using C = typename T::value_type;
        *out = T(static_cast<C>(parts[0]), static_cast<C>(parts[1]));
      } else if constexpr (is_half_v<T>) {
        *out = T(static_cast<float>(parts[0]));
      } else {
        *out = static_cast<T>(parts[0]);
      }
    }
  });
  return status;
}

}  // namespace

absl::StatusOr<DenseText> ParseDenseText(Lexer& lex) {
  DenseText dense;
  dense.offset = lex.Peek().offset;
  if (lex.Peek().kind == TokenKind::kString) {
    Token t = lex.Next();
    if (!IsHex(t.text) || t.text.size() % 2 != 0) {
      return lex.Error(t.offset, "expected a hex string \"0x...\" with two digits per byte");
    }
    dense.hex_blob = t.text.substr(2);
    return dense;
  }
  if (lex.Peek().kind == TokenKind::kGreater) {  // dense<> : tensor<0x...>, as MLIR prints it
    dense.bracketed = true;
    dense.dims = {0};
    return dense;
  }
  if (lex.Peek().kind == TokenKind::kLSquare) {
    dense.bracketed = true;
    absl::StatusOr<std::vector<int64_t>> dims = ParseList(lex, dense.elements);
    if (!dims.ok()) return dims.status();
    dense.dims = *std::move(dims);
    return dense;
  }
  absl::StatusOr<ElementText> e = ParseElement(lex);
  if (!e.ok()) return e.status();
  dense.elements.push_back(*std::move(e));
  return dense;
}

absl::StatusOr<Literal> DenseToLiteral(const DenseText& dense, const Shape& shape,
                                       const Lexer& lex) {
  if (shape.is_tuple) {
    return lex.Error(dense.offset, absl::StrCat("a literal of tuple type ", shape.ToString(),
                                                " is not supported"));
  }
  // Every check on the declared type comes before allocating its bytes: a
  // short text may declare a huge type.
  if (absl::Status size = CheckShapeSize(shape, "literal"); !size.ok()) {
    return lex.Error(dense.offset, size.message());
  }
  const int64_t n = shape.num_elements();
  if (!dense.hex_blob.empty()) {
    const int64_t bytes = static_cast<int64_t>(dense.hex_blob.size()) / 2;
    const int64_t width = ByteWidth(shape.dtype);
    if (bytes != shape.byte_size() && !(bytes == width && n > 0)) {
      return lex.Error(dense.offset, absl::StrCat("hex data has ", bytes, " bytes; ",
                                                  shape.ToString(), " needs ", shape.byte_size()));
    }
    Literal lit(shape);
    for (int64_t b = 0; b < lit.size_bytes(); ++b) {
      int64_t src = b % bytes;
      lit.mutable_data()[b] = static_cast<uint8_t>(
          std::stoi(dense.hex_blob.substr(2 * src, 2), nullptr, 16));
      // MLIR writes a sub-byte element's bits in the low bits of its byte.
      if (IsNarrow(shape.dtype)) {
        lit.mutable_data()[b] = NarrowStorageOfCode(shape.dtype, lit.mutable_data()[b]);
      }
    }
    return lit;
  }
  if (!dense.bracketed) {
    Literal lit(shape);
    for (int64_t i = 0; i < n; ++i) {
      if (absl::Status s = StoreElement(dense.elements[0], lit, i); !s.ok()) {
        return lex.Error(dense.elements[0].offset, s.message());
      }
    }
    return lit;
  }
  bool empty_ok = n == 0 && dense.elements.empty();
  if (!empty_ok && dense.dims != shape.dims) {
    return lex.Error(dense.offset,
                     absl::StrCat("literal has shape [", absl::StrJoin(dense.dims, ", "),
                                  "] but the type is ", shape.ToString()));
  }
  Literal lit(shape);
  for (int64_t i = 0; i < n; ++i) {
    if (absl::Status s = StoreElement(dense.elements[i], lit, i); !s.ok()) {
      return lex.Error(dense.elements[i].offset, s.message());
    }
  }
  return lit;
}

}  // namespace text

absl::StatusOr<Literal> ParseLiteral(absl::string_view text, const Shape& shape) {
  text::Lexer lex(text);
  absl::StatusOr<text::DenseText> dense = text::ParseDenseText(lex);
  if (!dense.ok()) return dense.status();
  const text::Token& rest = lex.Peek();
  if (rest.kind != text::TokenKind::kEof) {
    return lex.Error(rest.offset,
                     absl::StrCat("expected the end of the value, got ", text::Describe(rest)));
  }
  return text::DenseToLiteral(*dense, shape, lex);
}

}  // namespace xjit
