// The pretty (custom) forms of ops, as MLIR's StableHLO printer and JAX write
// them:
//   stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (...) -> ...
//   stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : ...
//   stablehlo.compare LT, %a, %b, FLOAT : (...) -> ...
// Each form is read into the same OpText the generic form gives (the
// attributes under their generic names), so one builder serves both.
//
// The forms are a table keyed by op name (pretty_forms.cc, PrettyForms()):
// most ops are "operands, then `keyword = value` items, then the type", and
// adding such an op is one entry listing its keywords; ops with a syntax of
// their own (reduce, slice, compare) name a function.
#pragma once

#include "absl/status/status.h"
#include "xjit/text/lexer.h"
#include "xjit/text/op_text.h"

namespace xjit::text {

// Reads the rest of a pretty-form op whose name (op.name) was just read.
// An op name xjit does not know is Unimplemented, naming the op.
absl::Status ParsePrettyOp(Lexer& lex, OpText& op, RegionParser& regions);

}  // namespace xjit::text
