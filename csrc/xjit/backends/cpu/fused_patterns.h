// Groups of element-wise ops in a fusion region that the cpu backend runs as
// one kernel instead of one pass per op (fusion.h): the tiled chain pays a
// load and a store per op and element, which dominates long chains of cheap
// ops such as threefry's rounds and the float32 math of xla_math.py.
//  - fma through float64 (xla_math.fma):
//      convert<f32>(add(multiply(convert<f64>(a), convert<f64>(b)), convert<f64>(c)))
//    computed as float(double(a) * double(b) + double(c)): the same roundings.
//  - rotate: or(shift_left(x, a), shift_right_logical(x, b)) of one x, with
//    each shift's out-of-range rule.
//  - multiply-add: add(multiply(p, q), r) in float32/float64, rounded twice
//    as the two ops are (a * x + b chains, loop bodies).
// A pattern's inner ops must have no other user and not be region results.
#pragma once

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

struct FusedPattern {
  ElementwiseKernel kernel;
  std::vector<const Instruction*> operands;  // what the kernel reads, in order
};

struct RegionPatterns {
  absl::flat_hash_map<const Instruction*, FusedPattern> at_root;  // keyed by the last op
  absl::flat_hash_set<const Instruction*> absorbed;  // inner ops: not run on their own
};

RegionPatterns FindFusedPatterns(const Computation& region);

}  // namespace xjit::cpu
