// The pretty form of one op, as JAX and MLIR's StableHLO printer write it
// (the inverse of pretty_forms.h), for PrintModule(module, /*pretty=*/true):
//   stablehlo.add %0, %1 : tensor<4xf32>
//   stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (...) -> ...
//   stablehlo.reduce(%0 init: %1) applies stablehlo.add across dimensions = [0] : ...
// Ops with regions other than reduce's one-op body (sort, map, fusion) and
// calls have no form here; the printer writes those itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "xjit/ir/graph.h"

namespace xjit::text {

// The text after "%N = ": the op name, its operands (`operands`, already
// spelled %name) and attributes, ':' and its type. nullopt when the op has
// no pretty form here.
std::optional<std::string> PrettyOpText(const Instruction& instr,
                                        const std::vector<std::string>& operands);

}  // namespace xjit::text
