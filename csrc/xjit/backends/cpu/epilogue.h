// Epilogues: the element-wise consumers of a producer (a convolution; a
// dot_general could reuse it) that its thunk applies as it writes the result:
// a bias as oneDNN's bias argument (added to the f32 accumulator once, as the
// graph's add), a ReLU as an in-place pass right after the primitive (oneDNN's
// relu and clip post-ops compute max with vmaxps, which turns NaN into 0; the
// graph's maximum keeps NaN). The consumers get no thunk and no buffer.
// Found in the graph the cpu backend lowers, in either form the passes leave
// it in: plain element-wise instructions, or one `fusion` instruction whose
// region is exactly the chain (passes/elementwise_fusion.h).
//
// Matched, in this order (each value in the chain used once, by the next
// step, and not a result of the computation):
//   bias: add(x, broadcast_in_dim(b)) with b holding one value per feature
//         (its elements are contiguous: every other dimension of b is 1);
//   relu: maximum(x, broadcast of the constant +0.0).
// Only float32 chains: f16/bf16 would round between the steps in the graph,
// which the fused primitive does not do.
#pragma once

#include <optional>
#include <vector>

#include "xjit/ir/graph.h"
#include "xjit/ir/users.h"

namespace xjit::cpu {

struct EpilogueStep {
  enum class Kind { kBias, kRelu };
  Kind kind;
  // kBias: the value holding the per-feature vector (its buffer is read as
  // `features` contiguous elements). Null for kRelu.
  const Instruction* operand = nullptr;
};

struct Epilogue {
  std::vector<EpilogueStep> steps;
  // The instructions the fused producer computes instead, in order; the
  // producer writes the last one's value (into the buffers they share).
  std::vector<const Instruction*> absorbed;
};

// The longest epilogue of `producer` (one result) along `feature_dim` of its
// shape, or nullopt when its first consumer is none of the steps. The caller
// checks that the step operands are computed before the producer runs.
std::optional<Epilogue> MatchEpilogue(const Instruction& producer, int64_t feature_dim,
                                      const Users& users);

}  // namespace xjit::cpu
