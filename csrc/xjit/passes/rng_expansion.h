// rng (UNIFORM on [a, b), NORMAL with mean a and standard deviation b) built
// from rng_bit_generator (THREE_FRY on a constant state made from `seed`)
// and element-wise arithmetic, as XLA's RngExpander does: the bits are
// implementation-defined, so every backend runs the same expansion and they
// agree with each other. Float: 23 (52) random mantissa bits give a uniform
// in [0, 1); NORMAL by Box-Muller; integers: a + bits mod (b - a).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/attributes.h"

namespace xjit::passes {

absl::StatusOr<Instruction*> ExpandRng(ComputationBuilder& b, Instruction* lo, Instruction* hi,
                                       const Shape& result, RngDistribution distribution,
                                       uint64_t seed);

}  // namespace xjit::passes
