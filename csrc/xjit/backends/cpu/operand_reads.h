// Producers read in place by their one consumer's generated kernel instead
// of being written out (XLA fuses slices and reverses into their consumers'
// loops the same way): a reverse (of every dim, or of the last dim only), a
// slice (unit strides, its rows at one pitch in the sliced array) or a
// transpose (of two groups of dims) feeding a fusion or a lone element-wise
// op, used by nothing else. The consumer's
// kernel (jit_fusion.h, OperandRead) reads the producer's operand; when no
// kernel is generated the producer runs just before its consumer.
#pragma once

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

struct InPlaceRead {
  const Instruction* producer;  // the reverse or slice, an operand of the consumer
  OperandRead read;             // how the consumer reads producer->operand(0)
};

// By consumer. Instructions in `taken` (computed or read by another thunk
// already) are neither consumers nor producers here.
using OperandReadPlan = absl::flat_hash_map<const Instruction*, std::vector<InPlaceRead>>;
OperandReadPlan PlanOperandReads(const Computation& entry,
                                 const absl::flat_hash_set<const Instruction*>& taken);

// How a slice's elements lie in the sliced array, when they form rows of one
// length at one pitch (or one run); nullopt for other strides or layouts.
std::optional<OperandRead> SliceRead(const Instruction& slice);

// A transpose of 4-byte elements whose result is batches of [R, C] matrices
// held by its operand as [C, R] (x.T, transpose(0, 2, 1), NCHW -> NHWC, unit
// dims aside): pitch R, row C; nullopt for other permutations.
std::optional<OperandRead> TransposeRead(const Instruction& transpose);

}  // namespace xjit::cpu
