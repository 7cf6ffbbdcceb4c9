// Prints a module as StableHLO text in the generic MLIR syntax, e.g.
//   func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
//     %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
//     "func.return"(%0) : (tensor<2xf32>) -> ()
//   }
#pragma once

#include <string>

#include "xjit/ir/graph.h"

namespace xjit {

// `pretty`: the pretty form JAX writes where an op has one
// (text/pretty_printer.h), e.g. `%0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>`
// and `return %0 : tensor<2xf32>`; the parser reads both, and print -> parse
// -> print is a fixed point in either.
std::string PrintModule(const Module& module, bool pretty = false);

}  // namespace xjit
