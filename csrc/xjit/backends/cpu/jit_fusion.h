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
// `reads`: per fusion operand, how its slot holds the operand's elements
// when the lowering reads a producer in place (operand_reads.h): reversed
// (a reverse of every dim: x[::-1] * 2 reads x backwards; or of the last
// dim, rows of 256 or more: flip(x, axis=-1); float32 on AVX-512), or a
// slice of the slot's array (rows of 256 or more unless contiguous), or a
// transpose of 4-byte elements (rows staged through L2-sized blocks). Null
// when the generated kernel cannot read one so.
struct OperandRead {
  enum class Kind : int8_t { kDirect, kReversed, kReversedRows, kSlice, kTransposed };
  Kind kind = Kind::kDirect;
  // kSlice: the operand, as rows of `row` elements, has element (r, c) at
  // offset + r * pitch + c of the slot's array (pitch 0: one run from offset).
  // kTransposed: the operand is batches of [pitch, row] matrices whose slot
  // holds each batch as [row, pitch] (transpose_tiles.h, TransposedRows).
  int64_t offset = 0, pitch = 0, row = 0;
};
// A kTransposed operand is staged this many rows at a time (a cache line of
// 4-byte elements from each source row), rows of at most kMaxTransposedRow
// elements (a block stays in L2) and at least kMinTransposedRow (shorter rows
// read too many source rows a line each: NCHW -> NHWC of 64 channels took as
// long staged as copied by transpose_tiles.h's column bands).
inline constexpr int64_t kTransposedBlockRows = 16;
inline constexpr int64_t kMaxTransposedRow = 8192, kMinTransposedRow = 256;
std::unique_ptr<Thunk> MakeJitFusionThunk(const Instruction& fusion,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs, int64_t* work,
                                          const std::vector<OperandRead>& reads = {});

// A lone exponential, logistic or log of float32 (outside a fusion) as generated
// code, or null as above: for those the generated code beats the
// interpreter's kernel; for other ops (cheap ones are bound by memory) it
// does not.
std::unique_ptr<Thunk> MakeJitUnaryThunk(const Instruction& op, SlotId input, SlotId output,
                                         int64_t* work);

// A lone float32 op the generators cover (jit_region.h) reading some operands
// in place through `reads` (slices, reverses: as MakeJitFusionThunk's), or
// null as above: x[1:] - x[:-1] reads x twice instead of copying two slices.
std::unique_ptr<Thunk> MakeJitLoneOpThunk(const Instruction& op,
                                          const std::vector<SlotId>& inputs, SlotId output,
                                          int64_t* work, const std::vector<OperandRead>& reads);

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
