// Literal values in StableHLO text: the body of dense<...> and the values the
// spec examples write in comments. Both use nested lists in row-major order,
// a bare scalar for a splat (or a rank-0 value), true/false, (re, im) for
// complex, decimal or raw-bit hex (0x7FC00000, exactly bits/4 digits) floats,
// and inf/nan with an optional sign. The body is read before its type is
// known (dense<...> : tensor<...>), so parsing and typing are two steps.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/literal.h"
#include "xjit/text/lexer.h"

namespace xjit {

// Parses a whole string as a literal of `shape` (an array shape).
absl::StatusOr<Literal> ParseLiteral(absl::string_view text, const Shape& shape);

namespace text {

struct ElementText {
  // part[0] is the value ("-1.5", "0x7FC00000", "true", "-nan"); part[1] the
  // imaginary part of a complex (re, im) element.
  std::string part[2];
  bool is_complex = false;
  size_t offset = 0;
};

struct DenseText {
  std::vector<ElementText> elements;
  std::vector<int64_t> dims;  // nesting of the brackets; empty for a bare scalar
  bool bracketed = false;
  std::string hex_blob;       // dense<"0x0102..."> raw little-endian bytes
  size_t offset = 0;
};

// Reads one literal body from the lexer (stops before whatever follows it).
absl::StatusOr<DenseText> ParseDenseText(Lexer& lex);
// Types a parsed body. A bare scalar fills every element (splat).
absl::StatusOr<Literal> DenseToLiteral(const DenseText& dense, const Shape& shape,
                                       const Lexer& lex);

}  // namespace text
}  // namespace xjit
