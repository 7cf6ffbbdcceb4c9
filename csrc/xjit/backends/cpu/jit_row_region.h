// What the row fusion generators (jit_row_avx2.cc, jit_row_avx512.cc) share:
// the analysis of a row region (jit_row.h) into whole-row values computed in
// loops over the row, per-row values, reduces and the row buffers between
// loops, and the thunk that runs a generated row function over the rows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/users.h"

#if defined(__x86_64__)
#include <xbyak/xbyak.h>
#endif

namespace xjit::cpu {

// Reduces accumulate in reduce.cc's 32 lanes (ReduceRun): lane i takes the
// row's elements i, i + 32, ... up to the last multiple of 32; they are then
// combined as CombineLanes does, and the last row_size % 32 elements (the
// tail) one at a time after that, in order.
inline constexpr int kRowReduceLanes = 32;
// Whole-row inputs (and rows shared by every row), each in a general register.
inline constexpr int kMaxRowInputs = 8;

// A region value as the generated row function sees it.
struct RowValue {
  enum class Kind {
    kWholeInput,      // a fusion operand, one row of it per call
    kInvariantInput,  // a fusion operand broadcast to every row (same for each)
    kRowsInput,       // a fusion operand whose broadcast's rows are runs of it (x[:, None, :])
    kSlot,            // a per-row value or a splat, in 32 bytes of scratch
    kWhole,           // computed over the row in loop `stage`
  } kind = Kind::kSlot;
  int operand = -1;           // inputs: the fusion operand
  int64_t slot = -1;          // kSlot: its byte offset (AVX2: 8 copies; AVX-512: lane 0)
  int stage = 0;              // kWhole: its loop; kSlot: the loop after which it is known
  int64_t buffer = -1;        // kWhole read by a later loop: its row buffer's offset
  const Instruction* op = nullptr;  // kWhole/kSlot computed: the instruction
};

// An operand read in place by the loops (a whole row, or the row every row
// shares), through a general register.
inline bool ReadsInPlace(const std::optional<RowValue::Kind>& kind) {
  return kind == RowValue::Kind::kWholeInput || kind == RowValue::Kind::kInvariantInput ||
         kind == RowValue::Kind::kRowsInput;
}

struct ReduceInfo {
  Opcode body;
  const Instruction* input;
  const Instruction* init;
  int64_t lanes = -1;  // 128 bytes of scratch for its 32 lanes, for combining in order
};

// A row fusion's region as the generators see it: rows of row_size elements
// (a multiple of 32, at least 64), values float32 or bfloat16, reduces of
// float32 (add, multiply, maximum, minimum) in loop order. The scratch (one
// per thread, 64-byte aligned) holds the slots, the reduces' lanes and the
// row buffers (64-byte aligned).
class RowRegion {
 public:
  RowRegion(const Computation& region, size_t num_inputs, size_t num_outputs)
      : region_(region), num_inputs_(num_inputs), num_outputs_(num_outputs) {}

  // Classifies the region's values; false when the generators do not cover it.
  bool Analyze();

  const Computation& computation() const { return region_; }
  size_t num_inputs() const { return num_inputs_; }
  int64_t rows() const { return rows_; }
  int64_t row_size() const { return row_size_; }
  int64_t scratch_bytes() const { return scratch_bytes_; }
  int64_t work() const { return work_; }
  int max_stage() const { return max_stage_; }
  // Some value is a mask (a pred: a compare, select's choice, a bool input
  // of whole rows), which only the AVX-512 generator emits.
  bool uses_masks() const { return uses_masks_; }
  // Per fusion operand: how the row function reads it (unset: not at all),
  // and its bytes per element.
  const std::optional<RowValue::Kind>& input_kind(size_t i) const { return input_kind_[i]; }
  // A kRowsInput operand's broadcast (its rows' runs of the operand, walked
  // by a BroadcastReader::RowCursor); null for other operands.
  const Instruction* rows_broadcast(size_t i) const { return rows_broadcast_[i]; }
  int input_width(size_t i) const { return input_width_[i]; }

  const RowValue& ValueOf(const Instruction* v) const { return values_.at(v); }
  // The value a reshape reads (through reshapes): registers and last uses are
  // keyed by it.
  const Instruction* Root(const Instruction* v) const;
  // x's reduce (null when x is not one).
  const ReduceInfo* Reduce(const Instruction* x) const {
    auto it = reduces_.find(x);
    return it == reduces_.end() ? nullptr : &it->second;
  }
  // x's index among the region's results (-1 when it is not one).
  int ResultOf(const Instruction* x) const {
    auto it = result_of_.find(x);
    return it == result_of_.end() ? -1 : it->second;
  }
  // The scratch offset of the row buffer holding v's value (computed by an
  // earlier loop); -1 when it has none.
  int64_t BufferOf(const Instruction* v) const;

  // The per-row ops computed before loop `stage` (stage max_stage() + 1:
  // after the last), in order.
  std::vector<const Instruction*> PerRowOps(int stage) const;
  // Loop `stage`'s whole-row ops and the reduces of them, in order.
  std::vector<const Instruction*> LoopOps(int stage) const;
  // Per value (Root) read by `ops`: the index of the last op reading it.
  absl::flat_hash_map<const Instruction*, size_t> LastUses(
      const std::vector<const Instruction*>& ops) const;

  // Bytes each fusion operand / result advances per row.
  std::vector<int64_t> InputStrides() const;
  std::vector<int64_t> OutputStrides() const;
  // Per result: whether it is whole rows (not one element per row).
  std::vector<bool> WholeRowResults() const;
  // Bytes of whole-row results one run writes.
  int64_t WholeRowResultBytes() const;

 private:
  int64_t NewSlot() {
    const int64_t s = scratch_bytes_;
    scratch_bytes_ += 32;
    return s;
  }
  bool AnalyzeBroadcast(const Instruction& instr);
  // The one broadcast reading `input` (through reshapes) when each of its
  // rows is a contiguous run of `input`, not the same run for every row.
  const Instruction* RowsBroadcastOf(const Instruction& input, const Users& users) const;
  bool AnalyzeElementwise(const Instruction& instr);

  const Computation& region_;
  size_t num_inputs_, num_outputs_;
  int64_t rows_ = 0, row_size_ = 0;
  std::vector<std::optional<RowValue::Kind>> input_kind_;
  std::vector<int> input_width_;
  std::vector<const Instruction*> rows_broadcast_;
  absl::flat_hash_map<const Instruction*, RowValue> values_;
  absl::flat_hash_map<const Instruction*, ReduceInfo> reduces_;
  absl::flat_hash_map<const Instruction*, int> result_of_;
  absl::flat_hash_map<const Instruction*, const Instruction*> alias_of_;  // reshape -> operand
  std::vector<const Instruction*> order_;  // computing instructions, in order
  int max_stage_ = 0;
  bool uses_masks_ = false;
  int64_t scratch_bytes_ = 0;
  int64_t work_ = 0;
};

#if defined(__x86_64__)
// fn(in, out, scratch, rows): `rows` rows, one after another; for row r,
// in[r * num_inputs + i] / out[r * num_outputs + j] point at the row's part
// of operand i / result j (a splat: its one element). A loop over the rows
// in the function: short rows pay no call, prologue or epilogue each.
using RowJitFn = void (*)(const void* const* in, void* const* out, void* scratch, int64_t rows);

// Runs `fn` (generated into `code`) over the region's rows in blocks split
// across threads; `streaming_fn`, when given, is the same function with
// non-temporal stores of whole rows, run when every whole-row output is
// `alignment`-byte aligned (its vector width).
std::unique_ptr<Thunk> MakeRowKernelThunk(const RowRegion& region,
                                          std::unique_ptr<Xbyak::CodeGenerator> code,
                                          RowJitFn fn,
                                          std::unique_ptr<Xbyak::CodeGenerator> streaming_code,
                                          RowJitFn streaming_fn, int alignment,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs);

// A row generator's thunk: emit(streaming) returns the finished code of the
// row function (a unique_ptr of an Xbyak::CodeGenerator), called again with
// true for the streaming variant when the whole-row results take
// StreamingStoreBytes() or more; null when an emission throws Xbyak::Error.
template <class Emit>
std::unique_ptr<Thunk> MakeRowKernelThunkFrom(const RowRegion& region, const Emit& emit,
                                              int alignment, const std::vector<SlotId>& inputs,
                                              const std::vector<SlotId>& outputs) {
  std::unique_ptr<Xbyak::CodeGenerator> code, streaming;
  try {
    code = emit(false);
    if (region.WholeRowResultBytes() >= StreamingStoreBytes()) streaming = emit(true);
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  if (streaming) CountStreamingJitKernel();
  const RowJitFn fn = code->getCode<RowJitFn>();
  const RowJitFn streaming_fn = streaming ? streaming->getCode<RowJitFn>() : nullptr;
  return MakeRowKernelThunk(region, std::move(code), fn, std::move(streaming), streaming_fn,
                            alignment, inputs, outputs);
}

// The row function's prologue: pushes the callee-saved registers and picks
// a general register of its own for the address of each operand read in
// place (r8, r9, rbx, ...; Xbyak::Error past kMaxRowInputs), returned per
// fusion operand. EmitRowEpilogue pops them again.
std::vector<Xbyak::Reg64> EmitRowPrologue(const RowRegion& region, Xbyak::CodeGenerator& g);
void EmitRowEpilogue(Xbyak::CodeGenerator& g);
// A row's start (at `row`, bound by the caller): the addresses of its
// operands read in place, from the row's in[] (rdi) into their registers.
void EmitRowStart(const RowRegion& region, Xbyak::CodeGenerator& g,
                  const std::vector<Xbyak::Reg64>& input_gpr);
// A row's end: rdi and rsi on to the next row's in[] and out[], and back to
// `row` while rows (rcx) remain.
void EmitRowAdvance(const RowRegion& region, Xbyak::CodeGenerator& g, Xbyak::Label& row);

// The generators (null when the region does not fit their registers, code
// buffer or constant table). Each needs its instruction set on the running
// CPU (AVX-512: F and BW; AVX2: with FMA).
std::unique_ptr<Thunk> GenerateAvx512RowKernel(const RowRegion& region,
                                               const std::vector<SlotId>& inputs,
                                               const std::vector<SlotId>& outputs);
std::unique_ptr<Thunk> GenerateAvx2RowKernel(const RowRegion& region,
                                             const std::vector<SlotId>& inputs,
                                             const std::vector<SlotId>& outputs);
#endif

}  // namespace xjit::cpu
