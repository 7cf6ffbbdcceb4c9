// A counted while loop with an element-wise body (a fori_loop of
// `v = v * a + b`, fixed-point or Newton steps per element) as one generated
// AVX2 function: each 8 elements of the carried float32 arrays stay in
// registers for all the trips, so a trip costs its ops and nothing else (the
// while thunk otherwise runs the body's kernels once per trip). Valid
// because every element's trajectory is independent of the others'. The
// ops round as the interpreter's kernels do (jit_avx2_code.h), so the
// results are the same bits.
#pragma once

#include <cstdint>
#include <memory>

#include "xjit/ir/graph.h"

namespace xjit::cpu {

class GeneratedLoop {
 public:
  // The loop's function, or null when `while_instr` is not of that form:
  // the condition `i < bound` on a signed 32/64-bit counter i (a carried
  // value) and a constant or loop-invariant bound; the body `i + 1` for the
  // counter and, for every other carried value, either itself (invariant)
  // or float32 element-wise ops (jit_region.h's JitCovers) of the carried
  // values (all of one element count, a multiple of 8), invariant operands
  // and float32 constants, directly or through fusions; the counter read by
  // nothing else. Also null without AVX2 and FMA, or with the generator
  // turned off (SetFusionJitEnabled).
  static std::unique_ptr<GeneratedLoop> Make(const Instruction& while_instr);
  virtual ~GeneratedLoop() = default;

  // Runs the loop: `operands` are the while's operands, `results` its
  // results (one per carried value; a result may be its operand's buffer).
  virtual void Run(const void* const* operands, void* const* results) const = 0;
};

}  // namespace xjit::cpu
