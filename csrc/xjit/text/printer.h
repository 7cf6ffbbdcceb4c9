// Prints a module as StableHLO text in the generic MLIR syntax, e.g.
//   func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
//     %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
//     "func.return"(%0) : (tensor<2xf32>) -> ()
//   }
#pragma once

#include <string>

#include "xjit/ir/graph.h"

namespace xjit {

std::string PrintModule(const Module& module);

}  // namespace xjit
