#include "xjit/backends/cpu/jit_row_region.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "xjit/backends/cpu/broadcast_reader.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"
#include "xjit/backends/cpu/jit_row.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/ir/row_geometry.h"
#include "xjit/ir/users.h"

namespace xjit::cpu {
namespace {

constexpr int64_t kMaxScratchBytes = 512 * 1024;

}  // namespace

bool RowRegion::Analyze() {
  for (const auto& instr : region_.instructions()) {
    if (instr->opcode() != Opcode::kReduce) continue;
    auto shape = RowReduceShape(*instr);
    if (!shape || (rows_ != 0 && (shape->first != rows_ || shape->second != row_size_))) {
      return false;
    }
    std::tie(rows_, row_size_) = *shape;
  }
  // Rows of any length from 64: a generator runs the last row_size % 32
  // elements as a tail (jit_row_region.h) or declines.
  if (rows_ == 0 || row_size_ < 2 * kRowReduceLanes) return false;
  // Square rows (rows == row size): an input of that many elements is a
  // value per row, or one row for every row when only row-invariant
  // broadcasts read it.
  const Users users(region_);
  auto invariant_only = [&](const Instruction& input) {
    const std::vector<Instruction*>& of = users.of(input);
    if (of.empty() || users.IsResult(input)) return false;
    for (const Instruction* u : of) {
      if (!IsRowInvariantBroadcast(*u, row_size_)) return false;
    }
    return true;
  };
  if (region_.results().size() != num_outputs_ || num_inputs_ > 64 || num_outputs_ > 64) {
    return false;
  }
  for (size_t j = 0; j < region_.results().size(); ++j) {
    if (!result_of_.emplace(region_.results()[j], static_cast<int>(j)).second) return false;
  }
  input_kind_.assign(num_inputs_, std::nullopt);
  input_width_.assign(num_inputs_, 4);
  rows_broadcast_.assign(num_inputs_, nullptr);
  const int64_t whole = rows_ * row_size_;
  for (const auto& owned : region_.instructions()) {
    const Instruction& instr = *owned;
    const bool mask = instr.shape().dtype == DType::kPred;
    if ((!JitCarries(instr.shape().dtype) && !mask) || !instr.shape().is_array()) return false;
    const int64_t n = instr.shape().num_elements();
    // Masks (all-ones lanes, AVX-512 only): never results, whole rows but
    // for inputs read through a broadcast (not a value per row or a splat).
    if (mask && (result_of_.contains(&instr) ||
                 (n != whole && (instr.opcode() != Opcode::kParameter || n == 1 || n == rows_)))) {
      return false;
    }
    uses_masks_ |= mask;
    switch (instr.opcode()) {
      case Opcode::kParameter: {
        const int64_t p = instr.attrs<ParameterAttrs>().number;
        if (p < 0 || p >= static_cast<int64_t>(num_inputs_)) return false;
        RowValue v;
        v.operand = static_cast<int>(p);
        input_width_[p] = static_cast<int>(ByteWidth(instr.shape().dtype));
        if (n == whole) {
          v.kind = RowValue::Kind::kWholeInput;
        } else if (const Instruction* b = n > 1 ? RowsBroadcastOf(instr, users) : nullptr) {
          v.kind = RowValue::Kind::kRowsInput;  // usable only through its broadcast
          rows_broadcast_[p] = b;
        } else if ((n == rows_ && !(n == row_size_ && invariant_only(instr))) || n == 1) {
          v.kind = RowValue::Kind::kSlot;  // broadcast into its slot at the start of a row
          v.slot = NewSlot();
        } else if (n == row_size_) {
          v.kind = RowValue::Kind::kInvariantInput;  // usable only through its broadcast
        } else {
          return false;
        }
        values_[&instr] = v;
        continue;
      }
      case Opcode::kReshape: {
        if (result_of_.contains(&instr)) return false;
        const RowValue aliased = ValueOf(instr.operand(0));  // copied: the insert may rehash
        values_[&instr] = aliased;
        alias_of_[&instr] = instr.operand(0);
        continue;
      }
      case Opcode::kBroadcastInDim:
        if (result_of_.contains(&instr) || !AnalyzeBroadcast(instr)) return false;
        continue;
      case Opcode::kReduce: {
        std::optional<Opcode> body = RecogniseReduceBody(instr);
        if (!body || (*body != Opcode::kAdd && *body != Opcode::kMultiply &&
                      *body != Opcode::kMaximum && *body != Opcode::kMinimum)) {
          return false;
        }
        // Of one type; a bfloat16 one accumulates in float32 and rounds its
        // result once, as the interpreter's (reduce.cc: Compute<T>).
        if (instr.operand(0)->shape().dtype != instr.shape().dtype ||
            instr.operand(1)->shape().dtype != instr.shape().dtype) {
          return false;
        }
        const RowValue& in = ValueOf(instr.operand(0));
        const RowValue& init = ValueOf(instr.operand(1));
        if ((in.kind != RowValue::Kind::kWhole && in.kind != RowValue::Kind::kWholeInput &&
             in.kind != RowValue::Kind::kRowsInput) ||
            init.kind != RowValue::Kind::kSlot || init.stage != 0 || init.op != nullptr) {
          return false;
        }
        RowValue v;
        v.kind = RowValue::Kind::kSlot;
        v.slot = NewSlot();
        v.stage = (in.kind == RowValue::Kind::kWhole ? in.stage : 0) + 1;
        v.op = &instr;
        values_[&instr] = v;
        reduces_[&instr] = ReduceInfo{*body, instr.operand(0), instr.operand(1)};
        max_stage_ = std::max(max_stage_, v.stage);
        order_.push_back(&instr);
        work_ += EstimateInstructionWork(instr);
        continue;
      }
      default:
        if ((!JitCovers(instr.opcode()) && !JitCoversMask(instr.opcode()) &&
             instr.opcode() != Opcode::kConvert) ||
            (mask && !JitCoversMask(instr.opcode())) || (n != whole && n != rows_) ||
            !AnalyzeElementwise(instr)) {
          return false;
        }
    }
  }
  for (const Instruction* r : region_.results()) {
    auto it = values_.find(r);
    if (it == values_.end() || it->second.op != r) return false;  // computed values only
  }
  for (const auto& [instr, v] : values_) {
    if (instr->opcode() != Opcode::kParameter) continue;
    std::optional<RowValue::Kind>& kind = input_kind_[v.operand];
    if (kind && *kind != v.kind) return false;
    kind = v.kind;
  }
  // Each reduce's 32 lanes, stored for combining in order; row buffers.
  for (auto& [reduce, info] : reduces_) {
    info.lanes = scratch_bytes_;
    scratch_bytes_ += 4 * kRowReduceLanes;
  }
  scratch_bytes_ = (scratch_bytes_ + 63) / 64 * 64;  // whole vectors of a buffer in one line
  for (auto& [instr, v] : values_) {
    if (v.kind == RowValue::Kind::kWhole && v.buffer == -2) {
      v.buffer = scratch_bytes_;
      scratch_bytes_ += 4 * row_size_ + 64;  // the skew keeps buffers off 4 KiB multiples
    }
  }
  return scratch_bytes_ <= kMaxScratchBytes;
}

bool RowRegion::AnalyzeBroadcast(const Instruction& instr) {
  const RowValue source = ValueOf(instr.operand(0));  // copied: the inserts below may rehash
  const int64_t whole = rows_ * row_size_;
  if (instr.operand(0)->shape().num_elements() == 1 && source.kind == RowValue::Kind::kSlot) {
    values_[&instr] = source;  // a splat: the same slot
    return true;
  }
  if (instr.shape().num_elements() != whole) return false;
  if (source.kind == RowValue::Kind::kSlot && IsRowBroadcast(instr, rows_, whole)) {
    values_[&instr] = source;  // the per-row value, read from its slot by every element
    return true;
  }
  if (source.kind == RowValue::Kind::kInvariantInput && IsRowInvariantBroadcast(instr, row_size_)) {
    values_[&instr] = source;
    return true;
  }
  if (source.kind == RowValue::Kind::kRowsInput && rows_broadcast_[source.operand] == &instr) {
    values_[&instr] = source;
    return true;
  }
  return false;
}

const Instruction* RowRegion::RowsBroadcastOf(const Instruction& input, const Users& users) const {
  const Instruction* v = &input;
  while (true) {
    const std::vector<Instruction*>& of = users.of(*v);
    if (of.size() != 1 || users.IsResult(*v)) return nullptr;
    v = of[0];
    if (v->opcode() != Opcode::kReshape) break;
  }
  const int64_t whole = rows_ * row_size_;
  if (v->opcode() != Opcode::kBroadcastInDim || v->shape().num_elements() != whole ||
      IsRowBroadcast(*v, rows_, whole) || IsRowInvariantBroadcast(*v, row_size_)) {
    return nullptr;
  }
  return BroadcastReader(*v).RowsContiguous(row_size_) ? v : nullptr;
}

bool RowRegion::AnalyzeElementwise(const Instruction& instr) {
  const bool whole = instr.shape().num_elements() == rows_ * row_size_;
  RowValue v;
  v.op = &instr;
  for (size_t k = 0; k < instr.operands().size(); ++k) {
    const Instruction* o = instr.operand(k);
    // Operands of the op's type (a convert's: float32, bfloat16 or a mask, as
    // checked; a compare's and a select's: as the element-wise generators
    // take them).
    const DType t = o->shape().dtype;
    switch (instr.opcode()) {
      case Opcode::kConvert: break;
      case Opcode::kCompare:
      case Opcode::kSelect:
        if (!MaskOperandsFit(instr)) return false;
        break;
      default:
        if (t != instr.shape().dtype) return false;
    }
    RowValue& operand = values_.at(o);
    switch (operand.kind) {
      case RowValue::Kind::kSlot:
        v.stage = std::max(v.stage, operand.stage);
        break;
      case RowValue::Kind::kWhole:
        if (!whole) return false;
        v.stage = std::max(v.stage, operand.stage);
        break;
      case RowValue::Kind::kWholeInput:
      case RowValue::Kind::kInvariantInput:
      case RowValue::Kind::kRowsInput:
        if (!whole) return false;
        break;
    }
  }
  // A whole-row value read by a loop after its own goes to a row buffer.
  for (const Instruction* o : instr.operands()) {
    RowValue& operand = values_.at(o);
    if (whole && operand.kind == RowValue::Kind::kWhole && operand.stage < v.stage) {
      values_.at(operand.op).buffer = -2;  // placed after the analysis
    }
  }
  if (whole) {
    v.kind = RowValue::Kind::kWhole;
  } else {
    v.kind = RowValue::Kind::kSlot;
    v.slot = NewSlot();
  }
  values_[&instr] = v;
  order_.push_back(&instr);
  work_ += EstimateInstructionWork(instr);
  return true;
}

std::vector<int64_t> RowRegion::InputStrides() const {
  std::vector<int64_t> s(num_inputs_, 0);  // invariant rows and splats: 0
  for (const Instruction* p : region_.parameters()) {
    const int64_t i = p->attrs<ParameterAttrs>().number;
    if (input_kind_[i] == RowValue::Kind::kWholeInput) s[i] = input_width_[i] * row_size_;
    if (input_kind_[i] == RowValue::Kind::kSlot && p->shape().num_elements() != 1) {
      s[i] = input_width_[i];
    }
  }
  return s;
}

std::vector<int64_t> RowRegion::OutputStrides() const {
  std::vector<int64_t> s;
  for (const Instruction* r : region_.results()) {
    const int64_t width = ByteWidth(r->shape().dtype);
    s.push_back(r->shape().num_elements() == rows_ ? width : width * row_size_);
  }
  return s;
}

const Instruction* RowRegion::Root(const Instruction* v) const {
  for (auto it = alias_of_.find(v); it != alias_of_.end(); it = alias_of_.find(v)) v = it->second;
  return v;
}

int64_t RowRegion::BufferOf(const Instruction* v) const {
  const RowValue& value = ValueOf(v);
  return value.kind == RowValue::Kind::kWhole ? ValueOf(value.op).buffer : -1;
}

std::vector<const Instruction*> RowRegion::PerRowOps(int stage) const {
  std::vector<const Instruction*> ops;
  for (const Instruction* x : order_) {
    const RowValue& v = ValueOf(x);
    if (v.kind == RowValue::Kind::kSlot && !reduces_.contains(x) && v.stage == stage) {
      ops.push_back(x);
    }
  }
  return ops;
}

std::vector<const Instruction*> RowRegion::LoopOps(int stage) const {
  std::vector<const Instruction*> ops;
  for (const Instruction* x : order_) {
    const RowValue& v = ValueOf(x);
    if ((v.kind == RowValue::Kind::kWhole && v.stage == stage) ||
        (reduces_.contains(x) && v.stage == stage + 1)) {
      ops.push_back(x);
    }
  }
  return ops;
}

absl::flat_hash_map<const Instruction*, size_t> RowRegion::LastUses(
    const std::vector<const Instruction*>& ops) const {
  absl::flat_hash_map<const Instruction*, size_t> last;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const Instruction* o : ops[i]->operands()) last[Root(o)] = i;
  }
  return last;
}

std::vector<bool> RowRegion::WholeRowResults() const {
  std::vector<bool> whole;
  for (const Instruction* r : region_.results()) whole.push_back(r->shape().num_elements() != rows_);
  return whole;
}

int64_t RowRegion::WholeRowResultBytes() const {
  int64_t bytes = 0;
  const std::vector<int64_t> strides = OutputStrides();
  const std::vector<bool> whole = WholeRowResults();
  for (size_t j = 0; j < strides.size(); ++j) bytes += whole[j] ? strides[j] * rows_ : 0;
  return bytes;
}

#if defined(__x86_64__)
namespace {

class RowJitThunk : public Thunk {
 public:
  RowJitThunk(const RowRegion& region, std::unique_ptr<Xbyak::CodeGenerator> code, RowJitFn fn,
              std::unique_ptr<Xbyak::CodeGenerator> streaming, RowJitFn streaming_fn,
              int alignment, std::vector<std::pair<SlotId, int64_t>> inputs,
              std::vector<std::pair<SlotId, int64_t>> outputs)
      : code_(std::move(code)), streaming_(std::move(streaming)), fn_(fn),
        streaming_fn_(streaming_fn), alignment_(alignment), rows_(region.rows()),
        row_size_(region.row_size()), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
        whole_row_(region.WholeRowResults()), scratch_bytes_(region.scratch_bytes()),
        cost_(region.work()) {
    is_rows_input_.assign(inputs_.size(), false);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (const Instruction* b = region.rows_broadcast(i)) {
        rows_inputs_.push_back({i, std::make_unique<BroadcastReader>(*b), region.input_width(i)});
        is_rows_input_[i] = true;
      }
    }
  }

  void Execute(void* const* buffers) const override {
    RowJitFn fn = fn_;
    bool aligned = true;
    for (size_t j = 0; j < outputs_.size(); ++j) {
      // Every row's start aligned too: rows of a multiple of the vector.
      aligned &= !whole_row_[j] || (StreamingAligned(buffers[outputs_[j].first], alignment_) &&
                                    outputs_[j].second % alignment_ == 0);
    }
    if (streaming_fn_ != nullptr && aligned) fn = streaming_fn_;
    const int64_t block_rows = std::max<int64_t>(1, 16384 / row_size_);
    const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
    const bool serial = blocks == 1 || cost_ < kParallelThreshold;
    const size_t ni = inputs_.size(), no = outputs_.size();
    // 64 bytes more, to start the scratch on a cache line (whole vectors of
    // the row buffers then never straddle two); then the block's tables of
    // row addresses.
    const int64_t table_offset = (scratch_bytes_ + 64 + 63) / 64 * 64;
    // The tables, then room for a rows input's offsets.
    const int64_t table_bytes = block_rows * static_cast<int64_t>(ni + no + 1) * 8;
    ForEachBlockWithScratch(blocks, table_offset + table_bytes + 64, serial, &serial_scratch_,
                            [&](unsigned char* unaligned, int64_t b) {
      unsigned char* scratch = unaligned + (-reinterpret_cast<uintptr_t>(unaligned) & 63);
      const void** in = reinterpret_cast<const void**>(scratch + table_offset);
      void** out = reinterpret_cast<void**>(scratch + table_offset + block_rows * ni * 8);
      const int64_t first = b * block_rows, rows = std::min(rows_, first + block_rows) - first;
      // Operand by operand: its addresses for the block's rows.
      for (size_t i = 0; i < ni; ++i) {
        if (is_rows_input_[i]) continue;
        const int64_t step = inputs_[i].second;
        const unsigned char* at =
            static_cast<const unsigned char*>(buffers[inputs_[i].first]) + first * step;
        for (int64_t r = 0; r < rows; ++r) in[r * ni + i] = at + r * step;
      }
      int64_t* offsets = reinterpret_cast<int64_t*>(out + block_rows * no);
      for (const RowsInput& k : rows_inputs_) {
        k.reader->RowOffsets(row_size_, first, rows, offsets);
        const unsigned char* base = static_cast<const unsigned char*>(buffers[inputs_[k.input].first]);
        const int64_t width = k.width;
        for (int64_t r = 0; r < rows; ++r) in[r * ni + k.input] = base + offsets[r] * width;
      }
      for (size_t j = 0; j < no; ++j) {
        const int64_t step = outputs_[j].second;
        unsigned char* at = static_cast<unsigned char*>(buffers[outputs_[j].first]) + first * step;
        for (int64_t r = 0; r < rows; ++r) out[r * no + j] = at + r * step;
      }
      fn(in, out, scratch, rows);
    });
  }

 private:
  std::unique_ptr<Xbyak::CodeGenerator> code_, streaming_;
  RowJitFn fn_, streaming_fn_;
  int alignment_;
  int64_t rows_, row_size_;
  std::vector<std::pair<SlotId, int64_t>> inputs_, outputs_;  // slot, bytes per row
  std::vector<bool> whole_row_;  // per output
  // kRowsInput operands: where each row starts, by a cursor through them.
  struct RowsInput {
    size_t input;
    std::unique_ptr<BroadcastReader> reader;
    int width;
  };
  std::vector<RowsInput> rows_inputs_;
  std::vector<bool> is_rows_input_;  // per input
  int64_t scratch_bytes_, cost_;
  mutable std::vector<unsigned char> serial_scratch_;  // Execute is never concurrent
};

}  // namespace

std::vector<Xbyak::Reg64> EmitRowPrologue(const RowRegion& region, Xbyak::CodeGenerator& g) {
  using namespace Xbyak::util;
  const Xbyak::Reg64 gprs[kMaxRowInputs] = {r8, r9, rbx, rbp, r12, r13, r14, r15};
  std::vector<Xbyak::Reg64> input_gpr(region.num_inputs());
  int used = 0;
  for (size_t i = 0; i < region.num_inputs(); ++i) {
    if (!ReadsInPlace(region.input_kind(i))) continue;
    if (used == kMaxRowInputs) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    input_gpr[i] = gprs[used++];
  }
  for (const Xbyak::Reg64& r : {rbx, rbp, r12, r13, r14, r15}) g.push(r);
  return input_gpr;
}

void EmitRowStart(const RowRegion& region, Xbyak::CodeGenerator& g,
                  const std::vector<Xbyak::Reg64>& input_gpr) {
  using namespace Xbyak::util;
  for (size_t i = 0; i < region.num_inputs(); ++i) {
    if (ReadsInPlace(region.input_kind(i))) g.mov(input_gpr[i], g.qword[rdi + 8 * i]);
  }
}

void EmitRowAdvance(const RowRegion& region, Xbyak::CodeGenerator& g, Xbyak::Label& row) {
  using namespace Xbyak::util;
  g.add(rdi, static_cast<uint32_t>(8 * region.num_inputs()));
  g.add(rsi, static_cast<uint32_t>(8 * region.computation().results().size()));
  g.dec(rcx);
  g.jnz(row, Xbyak::CodeGenerator::T_NEAR);
}

void EmitRowEpilogue(Xbyak::CodeGenerator& g) {
  using namespace Xbyak::util;
  for (const Xbyak::Reg64& r : {r15, r14, r13, r12, rbp, rbx}) g.pop(r);
}

std::unique_ptr<Thunk> MakeRowKernelThunk(const RowRegion& region,
                                          std::unique_ptr<Xbyak::CodeGenerator> code,
                                          RowJitFn fn,
                                          std::unique_ptr<Xbyak::CodeGenerator> streaming_code,
                                          RowJitFn streaming_fn, int alignment,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs) {
  std::vector<std::pair<SlotId, int64_t>> in, out;
  const std::vector<int64_t> in_strides = region.InputStrides();
  const std::vector<int64_t> out_strides = region.OutputStrides();
  for (size_t i = 0; i < inputs.size(); ++i) in.emplace_back(inputs[i], in_strides[i]);
  for (size_t j = 0; j < outputs.size(); ++j) out.emplace_back(outputs[j], out_strides[j]);
  return std::make_unique<RowJitThunk>(region, std::move(code), fn, std::move(streaming_code),
                                       streaming_fn, alignment, std::move(in), std::move(out));
}
#endif  // __x86_64__

std::unique_ptr<Thunk> MakeRowJitThunk(const Instruction& fusion,
                                       const std::vector<SlotId>& inputs,
                                       const std::vector<SlotId>& outputs, int64_t* work) {
#if defined(__x86_64__)
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool has_avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  if (!has_avx2 || !FusionJitEnabled() || fusion.called_computations().size() != 1) return nullptr;
  RowRegion region(*fusion.called_computations()[0], inputs.size(), outputs.size());
  if (!region.Analyze()) return nullptr;
  std::unique_ptr<Thunk> thunk;
  if (has_avx512 && FusionJitIsa() == JitIsa::kAuto) {
    thunk = GenerateAvx512RowKernel(region, inputs, outputs);
  }
  // Regions the AVX-512 generator does not fit take AVX2.
  if (thunk == nullptr) thunk = GenerateAvx2RowKernel(region, inputs, outputs);
  if (thunk == nullptr) return nullptr;
  *work = region.work();
  CountJitKernel();
  return thunk;
#else
  return nullptr;
#endif
}

}  // namespace xjit::cpu
