// Fused element-wise chains of float32, bfloat16 and float16 as generated
// code (xbyak, as oneDNN generates its kernels; AVX-512 in jit_avx512.cc,
// AVX2 in jit_avx2.cc): each value of a fusion region lives in a register
// for 16 (8) elements at a time, so the chain reads its inputs and writes
// its results once and nothing passes through memory between its ops
// (the interpreter, FusedElementwiseThunk, moves every value through an L1
// tile buffer: a load and a store per op). Each op rounds as the
// interpreter's kernel does (scalar_ops.h; exp and tanh as fast_math.h, step
// by step), so both give the same bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// A thunk running `fusion`'s region as generated code, or null when it cannot:
// an op, element type or operand form the generator does not cover (it covers
// add, subtract, multiply, divide, maximum, minimum, negate, abs, sqrt, rsqrt,
// exponential, exponential_minus_one, tanh, log, log_plus_one and logistic
// of float32, bfloat16 and float16, and converts between them, with operands
// of the region's element count or splats of one element), more live values
// than registers, a region under 8K elements, 1K with 16-bit values
// (jit_region.h; the interpreter's flattened steps serve small loop bodies),
// a CPU without AVX-512 (F, BW) or AVX2 with FMA, or the generator turned off.
// `reversed`: per fusion operand, whether its slot holds the operand's
// elements in reverse order (kWhole: a reverse of every dim, absorbed:
// x[::-1] * 2 reads x backwards) or each row of its last dim reversed
// (kRows: flip(x, axis=-1), rows of 256 or more); float32 operands only, on
// AVX-512 (null otherwise).
enum class Reversal : int8_t { kNone, kWhole, kRows };
std::unique_ptr<Thunk> MakeJitFusionThunk(const Instruction& fusion,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs, int64_t* work,
                                          const std::vector<Reversal>& reversed = {});

// A lone exponential, logistic or log of float32 (outside a fusion) as generated
// code, or null as above: for those the generated code beats the
// interpreter's kernel; for other ops (cheap ones are bound by memory) it
// does not.
std::unique_ptr<Thunk> MakeJitUnaryThunk(const Instruction& op, SlotId input, SlotId output,
                                         int64_t* work);

// On by default; tests turn it off to compare with the interpreter. It
// covers the generated row fusions (jit_row.h) too.
void SetFusionJitEnabled(bool enabled);
bool FusionJitEnabled();
// The generator the next kernels come from, element-wise and row fusions:
// the widest the CPU has (kAuto), or AVX2 on a CPU with AVX-512 too (tests
// cover both).
enum class JitIsa { kAuto, kAvx2 };
void SetFusionJitIsa(JitIsa isa);
JitIsa FusionJitIsa();

// Kernels generated so far in this process, element-wise and row fusions
// (tests check the generators ran); CountJitKernel adds one.
int64_t NumJitFusionKernels();
void CountJitKernel();

// Element-wise kernels whose results of one run take this many bytes or more
// store them non-temporally (jit_region.h: WritesPastTheCache). By default
// just over half the last-level cache a core shares; tests set it (negative:
// back to the default).
void SetStreamingStoreBytes(int64_t bytes);
int64_t StreamingStoreBytes();
// Streaming variants generated so far in this process; CountStreamingJitKernel adds one.
int64_t NumStreamingJitKernels();
void CountStreamingJitKernel();

}  // namespace xjit::cpu
