// Value types in StableHLO text: tensor<2x3xf32>, tensor<complex<f64>>,
// tuple<...>, and bare element types (i64 in "1 : i64").
#pragma once

#include "absl/status/statusor.h"
#include "xjit/ir/shape.h"
#include "xjit/text/lexer.h"

namespace xjit::text {

// tensor<...>, tuple<...> or !stablehlo.token, with any element type of the
// spec (quantized ones too). Types xjit cannot represent (dynamic dims) are
// Unimplemented, so callers can tell "not supported" from "malformed". `index_as_i64`: the element type `index`
// (of layout attributes, dense<[0, 1]> : tensor<2xindex>) reads as i64.
absl::StatusOr<Shape> ParseType(Lexer& lex, bool index_as_i64 = false);
// An element type name: i1, i2..i64, si2..si64, ui2..ui64, the small floats
// (f8E4M3FN ...), f16, bf16, f32, f64, complex<f32>, complex<f64>.
absl::StatusOr<DType> ParseElementType(absl::string_view name);

// The text of a quantized element type, "!quant.uniform<...>" whole.
absl::StatusOr<QuantizedType> ParseQuantizedType(absl::string_view text);

}  // namespace xjit::text
