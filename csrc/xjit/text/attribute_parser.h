// Attribute values in StableHLO text, parsed without knowing the op: the op
// then reads the names it defines (op_attributes.h). Keeping the two apart
// lets an op reject an attribute it does not know with a precise message
// while the syntax of every attribute form lives in one place.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/literal.h"
#include "xjit/text/lexer.h"

namespace xjit::text {

struct AttrValue;

struct NamedAttr {
  std::string name;
  size_t offset = 0;
  std::vector<AttrValue> value;  // exactly one; a vector because AttrValue is incomplete here
};

struct AttrValue {
  enum class Kind {
    kUnit,      // a name with no value: {foo}
    kInteger,   // 5 : i64 (text holds the digits with sign)
    kFloat,     // 0.5 : f32
    kBool,      // true / false
    kString,    // "..."
    kIdent,     // a bare word inside a structured attribute (tf32)
    kArray,     // array<i64: 1, 2> (values in ints; i1 arrays as 0/1)
    kDense,     // dense<...> : tensor<...>
    kEnum,      // #stablehlo<comparison_direction LT>: enum_kind + text
    kStruct,    // #stablehlo.dot<name = value, ...>: text is "stablehlo.dot"
    kOpaque,    // a #dialect.attr<...> we keep as text only
    kSymbol,    // @foo
    kList,      // [v, v, ...]
    kDict,      // {name = v, ...}
  };
  Kind kind = Kind::kUnit;
  size_t offset = 0;
  std::string text;
  std::string enum_kind;
  std::string type;  // the ": i64" of a scalar, or "" when absent
  std::vector<int64_t> ints;
  std::optional<Literal> literal;
  std::vector<AttrValue> list;
  std::vector<NamedAttr> fields;  // kStruct and kDict
  // The value as written (blanks trimmed), for attributes kept as text
  // (AttrText); set for the values of an attribute dictionary.
  std::string source;

  // The value as a list of integers: array<i64: ...>, [1, 2], or a rank-1
  // dense<...> of integers. Fails with a message naming `what`.
  absl::StatusOr<std::vector<int64_t>> AsInts(const Lexer& lex, absl::string_view what) const;
  absl::StatusOr<int64_t> AsInt(const Lexer& lex, absl::string_view what) const;
  // An f32 attribute: a float (1.0e-05 : f32), an integer, or the bits in
  // hex (0x7FC00000 : f32, how MLIR prints NaN and infinities).
  absl::StatusOr<float> AsF32(const Lexer& lex, absl::string_view what) const;
  // Short description of the form, for "expected X, got Y" messages.
  std::string KindName() const;
};

// A dense<...> attribute other than a constant's `value` lists indices,
// dimensions or padding: this many elements is far beyond any valid one, and a
// huge declared type (a splat) is rejected before it is allocated.
inline constexpr int64_t kMaxDenseIndexAttrElements = int64_t{1} << 20;

// `max_dense_elements` bounds the element count of a dense<...> value (and of
// those nested in lists) before its literal is made.
absl::StatusOr<AttrValue> ParseAttrValue(Lexer& lex,
                                         int64_t max_dense_elements = INT64_MAX);
// '{' [name ['=' value] {',' ...}] '}'.
absl::StatusOr<std::vector<NamedAttr>> ParseAttrDict(Lexer& lex);

}  // namespace xjit::text
