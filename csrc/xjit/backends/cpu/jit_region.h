// What the fused element-wise kernel generators (jit_avx512.cc, jit_avx2.cc)
// share: the analysis of a fusion region they can cover, and the thunk that
// runs a generated kernel over the elements in parallel chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

#if defined(__x86_64__)
#include <xbyak/xbyak.h>
#endif

namespace xjit::cpu {

// Regions under this many elements stay interpreted (the interpreter's
// flattened steps serve small loop bodies better); regions with 16-bit
// float values from a smaller count, since the interpreter converts each
// of their elements one by one (4K float16 `x * 2 + 1`: 18 us interpreted).
inline constexpr int64_t kMinJitElements = 8 * 1024;
inline constexpr int64_t kMinJitElementsOf16Bit = 1024;
// Rows of a spread input at least this long: a kernel call a row costs some
// 20 ns, which shorter rows do not repay (the interpreter reads them instead).
inline constexpr int64_t kMinJitPeriod = 256;

// A fusion region of float32 element-wise ops the generators cover, with
// every value at the region's element count or a splat of one element, or an
// input spread over rows by a broadcast (InputSpread).
// Values may also be bfloat16 or float16 (JitCarries): a lane holds one as
// the float32 of the same value, so a load widens it, an op computes in
// float32 and rounds its result to the 16-bit type (scalar_ops.h's kernels
// compute them the same way, Compute<T>), and a store narrows it (exactly:
// it is rounded already).
struct JitRegion {
  int64_t n = 0;                                 // elements of every value
  // The values read from the kernel's inputs (the region's parameters, or a
  // lone op's operand), in order, and their input index.
  std::vector<const Instruction*> parameters;
  absl::flat_hash_map<const Instruction*, int> input_number;
  std::vector<bool> input_splat;                 // by input index
  // Inputs read through a broadcast over rows of `period` elements: one row
  // the same for every row (x + b[None, :]: read as a whole input whose
  // address starts over each row) or one value per row (x * w[:, None]: a
  // splat whose element moves on each row). The thunk then calls the kernel
  // a row at a time (rows of at least kMinJitPeriod elements).
  // (kReversed: a whole input read backwards, MakeJitFusionThunk's
  // `reads`; its address is one past the call's first element.
  // kReversedRows: each row of `period` read backwards, the same way.
  // kPitchedRows: a slice read in place, row r of `period` elements from
  // input_offset + r * input_pitch of the sliced array.
  // kTransposed: batches of [input_pitch, transposed_row] read from a slot
  // holding each as [transposed_row, input_pitch]; the thunk transposes
  // blocks of kTransposedBlockRows rows into a scratch the kernel reads.)
  enum class InputSpread : int8_t {
    kNone, kRowInvariant, kPerRow, kReversed, kReversedRows, kPitchedRows, kTransposed
  };
  std::vector<InputSpread> input_spread;         // by input index
  int64_t period = 0;                            // 0: no spread input
  int64_t transposed_row = 0;                    // 0: no kTransposed input
  // By input index, elements (empty: zeros): where a slice read in place
  // starts in the sliced array (kNone or kPitchedRows), and its rows' pitch.
  std::vector<int64_t> input_offset, input_pitch;
  // By input index past the fusion's operands (AnalyzeSpread: one operand
  // spread two ways), the operand whose slot it reads; empty when none.
  std::vector<int> input_slot;
  std::vector<DType> input_type;                 // by input index: JitCarries
  // By result index: JitCarries, or an integer type of 32 bits or fewer
  // (IsJitIntResult: a convert from a float, stored converted as the
  // interpreter converts; only the AVX-512 generator emits it).
  std::vector<DType> result_type;
  // The splat inputs that are float32 constants, by input index: ops may
  // use their values (maximum(x, 0.1) is one instruction).
  absl::flat_hash_map<int, float> splat_constant;
  // The same for int32 constants (a division by one multiplies instead).
  absl::flat_hash_map<int, int32_t> splat_int_constant;
  std::vector<const Instruction*> ops;           // the computing ops, in order
  absl::flat_hash_map<const Instruction*, int> result_of;        // op -> result index
  absl::flat_hash_map<const Instruction*, size_t> last_use;      // value -> op index
  absl::flat_hash_map<const Instruction*, const Instruction*> alias_of;  // reshape, splat broadcast
  int64_t work = 0;                              // EstimateInstructionWork of the ops
  // Some op computes on int32/uint32 lanes (JitCoversInt), converts them to
  // float32 or compares two masks: only the AVX-512 generator emits those.
  bool avx512_only = false;

  // The value an operand reads (through reshapes and splat broadcasts).
  const Instruction* Root(const Instruction* v) const;
  // Whether the value is read by a later op.
  bool Used(const Instruction* v) const { return last_use.contains(v); }
  // Bytes of the results one run writes.
  int64_t ResultBytes() const;
};

// The element types a region's values may have (row fusions' too): float32,
// bfloat16 and float16.
bool JitCarries(DType t);
// A convert from a float a region may return without reading it again: to
// int8/16/32 or uint8/16/32 (NaN -> 0, saturated, truncated toward zero).
bool IsJitIntResult(const Instruction& x);

// The ops the generators emit: add, subtract, multiply, divide, maximum,
// minimum, negate, abs, sqrt, rsqrt, exponential, exponential_minus_one,
// tanh, log, log_plus_one, logistic, floor, ceil and round_nearest_even; and
// in regions (not alone), convert between the types JitCarries names.
bool JitCovers(Opcode op);
// The mask ops the element-wise generators also emit (not the loop ones):
// compare of two floats of one type into a pred (or of two preds, equal or
// not), select between floats or between preds on a pred, and/or/xor/not of
// preds, and (AVX-512) is_finite of a float. A pred lives in a vector register as
// all-ones or all-zeros lanes; a region's result (stored as bytes of 0 or 1)
// or input (bytes of 0 or 1, whole or spread over rows) only for the AVX-512
// generator.
bool JitCoversMask(Opcode op);
// Whether mask op `x`'s operand types are ones the generators compute on
// (a compare of masks: EQ or NE; of floats: not TOTALORDER).
bool MaskOperandsFit(const Instruction& x);
// int32 and uint32, which the element-wise generators read as 32-bit lanes:
// inputs of compares (iota's row and column numbers: tril's mask), and
// (AVX-512) values of the ops JitCoversInt names.
bool IsJitComparedInt(DType t);
// The ops the AVX-512 element-wise generator computes on int32/uint32 lanes
// as scalar_ops.h does: add, subtract, multiply (wrapping), divide and
// remainder (through double, as QuotientOfNarrowInts), maximum, minimum,
// negate, abs, sign, the shifts, and/or/xor/not and select.
bool JitCoversInt(Opcode op);
// The vcmpps predicate of a float compare's direction (ordered, except NE
// which is true for NaN, as the interpreter's ==, <, ... and !=).
uint8_t CompareImmediate(const Instruction& compare);
// The vpcmpd/vpcmpud predicate of an integer compare's direction.
uint8_t IntCompareImmediate(const Instruction& compare);

// The region of `fusion` when the generators cover it; false otherwise.
bool AnalyzeJitRegion(const Instruction& fusion, size_t num_inputs, JitRegion* region);

// A region of one float32 op the generators cover (outside any fusion), of
// at least kMinJitElements elements, every operand of its element count;
// false otherwise.
bool AnalyzeJitLoneOp(const Instruction& op, JitRegion* region);

#if defined(__x86_64__)
// fn(const void* const* in, void* const* out, int64_t count); a splat input
// is its one element's address.
using JitKernelFn = void (*)(const void* const* in, void* const* out, int64_t count);

// Whether one run of the region writes StreamingStoreBytes() or more (half
// the last-level cache): the AVX2 generator then also emits the kernel with
// non-temporal stores (vmovntps), as memset and memcpy use past such sizes.
// The results would not stay cached anyway; streaming them to memory saves
// reading each line before it is written and leaves the inputs in the cache
// (x * 2 + 1 on 4M float32: 20-30% less time).
bool WritesPastTheCache(const JitRegion& region);

// Whether non-temporal stores (of `bytes`-byte vectors, aligned only) may
// write from `base`.
inline bool StreamingAligned(const void* base, int bytes = 32) {
  return reinterpret_cast<uintptr_t>(base) % bytes == 0;
}

// Runs `fn` (generated into `code`) over the region's elements in chunks
// split across threads; `streaming_fn`, when given, is the same kernel with
// non-temporal stores, run when every output is `alignment`-byte aligned
// (its vector width).
std::unique_ptr<Thunk> MakeJitKernelThunk(
    std::unique_ptr<Xbyak::CodeGenerator> code, JitKernelFn fn, const JitRegion& region,
    std::vector<SlotId> inputs, std::vector<SlotId> outputs,
    std::unique_ptr<Xbyak::CodeGenerator> streaming_code = nullptr,
    JitKernelFn streaming_fn = nullptr, int alignment = 32);

// A generator's thunk: emit(streaming) returns the finished code of the
// kernel (as a unique_ptr of an Xbyak::CodeGenerator), called again with
// true for the streaming variant when the region writes past the cache;
// null when an emission throws Xbyak::Error (the region does not fit).
// `alignment`: as MakeJitKernelThunk's.
template <class Emit>
std::unique_ptr<Thunk> MakeJitKernelThunkFrom(const JitRegion& region, const Emit& emit,
                                              const std::vector<SlotId>& inputs,
                                              const std::vector<SlotId>& outputs,
                                              int alignment) {
  std::unique_ptr<Xbyak::CodeGenerator> code, streaming;
  try {
    code = emit(false);
    if (WritesPastTheCache(region)) {
      streaming = emit(true);
      CountStreamingJitKernel();
    }
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  JitKernelFn fn = code->getCode<JitKernelFn>();
  JitKernelFn streaming_fn = streaming ? streaming->getCode<JitKernelFn>() : nullptr;
  return MakeJitKernelThunk(std::move(code), fn, region, inputs, outputs, std::move(streaming),
                            streaming_fn, alignment);
}

// The generators (null when the region does not fit their registers or
// constant table). Each needs its instruction set on the running CPU
// (AVX-512: F and BW).
std::unique_ptr<Thunk> GenerateAvx512Kernel(const JitRegion& region,
                                            const std::vector<SlotId>& inputs,
                                            const std::vector<SlotId>& outputs);
std::unique_ptr<Thunk> GenerateAvx2Kernel(const JitRegion& region,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs);
#endif

}  // namespace xjit::cpu
