// rng_bit_generator's bits, as XLA computes them (xla/hlo/builder/lib/prng.cc
// and the RngBitGenerator expander), so programs that print the op's output
// agree with XLA on the same state:
//
// * THREE_FRY: state [key, counter]; threefry2x32 (20 rounds) keyed by the two
//   halves of `key` hashes counter + i. 64-bit outputs take both words of one
//   hash (low word first); 32-bit and narrower outputs take one word each: the
//   shape is split in two halves along its first even dimension (else its
//   largest), the first word filling the even and the second the odd indices
//   of that dimension; narrow types keep the low bits of the word.
// * PHILOX (and DEFAULT, which is PHILOX on the host backends as on XLA's CPU):
//   philox4x32-10 keyed by `key` over a 128-bit counter (state[1], state[2]),
//   or (state[1], state[0]) for a two-word state; each block gives four
//   consecutive 32-bit outputs (two consecutive 64-bit ones).
// The output state is the input with the counter advanced by the blocks used.
// A ui32 state holds each 64-bit word as a little-endian pair.
//
// The work is split into independent blocks so a backend may run any range.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/shape.h"

namespace xjit::rng {

// Everything a run needs, decided from the types.
struct RngPlan {
  RngAlgorithm algorithm = RngAlgorithm::kPhilox;  // never kDefault
  int bit_width = 32;        // of the output elements
  int64_t num_elements = 0;  // of the output
  int64_t num_blocks = 0;    // counters consumed (the state advances by this)
  int64_t state_words = 2;   // 64-bit words of the state
  bool state_is_u32 = false;
  // Three-fry narrow split: the output seen as [outer, split, inner]; block b
  // is (o, q, i) of [outer, ceil(split / 2), inner].
  int64_t outer = 1, split = 1, half = 1, inner = 1;
};

absl::StatusOr<RngPlan> MakeRngPlan(RngAlgorithm algorithm, const Shape& state,
                                    const Shape& output);

// The state's 64-bit words.
std::array<uint64_t, 3> ReadState(const RngPlan& plan, const void* state);
// Writes the advanced state in the input's layout.
void WriteNextState(const RngPlan& plan, const std::array<uint64_t, 3>& words, void* out);
// Fills the output elements of blocks [begin, end).
void GenerateBlocks(const RngPlan& plan, const std::array<uint64_t, 3>& words, int64_t begin,
                    int64_t end, void* output);

}  // namespace xjit::rng
