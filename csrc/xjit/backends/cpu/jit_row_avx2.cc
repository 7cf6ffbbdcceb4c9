#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"
#include "xjit/backends/cpu/jit_row.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/ir/row_geometry.h"

#if defined(__x86_64__)
#include "xjit/backends/cpu/jit_avx2_code.h"
#endif

namespace xjit::cpu {

#if defined(__x86_64__)
namespace {

constexpr int kReduceLanes = 32;  // reduce.cc's ReduceRun: 4 registers of 8
constexpr int kAccumulators = kReduceLanes / Avx2Code::kLanes;
constexpr int kMaxInputs = 8;     // whole-row inputs, each in a general register
constexpr int64_t kMaxScratchBytes = 512 * 1024;

// A region value as the generated row function sees it.
struct RowValue {
  enum class Kind {
    kWholeInput,      // a fusion operand, one row of it per call
    kInvariantInput,  // a fusion operand broadcast to every row (same for each)
    kSlot,            // 8 copies of one float: a per-row value or a splat
    kWhole,           // computed over the row in loop `stage`
  } kind = Kind::kSlot;
  int operand = -1;           // inputs: the fusion operand
  int64_t slot = -1;          // kSlot: byte offset in the scratch
  int stage = 0;              // kWhole: its loop; kSlot: the loop after which it is known
  int64_t buffer = -1;        // kWhole read by a later loop: its row buffer's offset
  const Instruction* op = nullptr;  // kWhole/kSlot computed: the instruction
};

// An operand read in place by the loops (a whole row, or the row every row
// shares), through a general register.
bool ReadsInPlace(const std::optional<RowValue::Kind>& kind) {
  return kind == RowValue::Kind::kWholeInput || kind == RowValue::Kind::kInvariantInput;
}

struct ReduceInfo {
  Opcode body;
  const Instruction* input;
  const Instruction* init;
  int64_t lanes = -1;  // its 32 lanes' place in the scratch, for combining in order
};

class RowJitThunk : public Thunk {
 public:
  // `streaming`: the same function with non-temporal stores of whole rows,
  // run when those outputs are 32-byte aligned (or null). `whole_row`: per
  // output, whether it is whole rows (per-row results are not streamed).
  RowJitThunk(std::unique_ptr<Avx2Code> code, std::unique_ptr<Avx2Code> streaming, int64_t rows,
              int64_t row_size, std::vector<std::pair<SlotId, int64_t>> inputs,
              std::vector<std::pair<SlotId, int64_t>> outputs, std::vector<bool> whole_row,
              int64_t scratch_bytes, int64_t cost)
      : code_(std::move(code)), streaming_(std::move(streaming)), fn_(code_->getCode<Fn>()),
        streaming_fn_(streaming_ ? streaming_->getCode<Fn>() : nullptr), rows_(rows),
        row_size_(row_size), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
        whole_row_(std::move(whole_row)), scratch_bytes_(scratch_bytes), cost_(cost) {}

  void Execute(void* const* buffers) const override {
    Fn fn = fn_;
    bool aligned = true;
    for (size_t j = 0; j < outputs_.size(); ++j) {
      aligned &= !whole_row_[j] || StreamingAligned(buffers[outputs_[j].first]);
    }
    if (streaming_fn_ != nullptr && aligned) fn = streaming_fn_;
    const int64_t block_rows = std::max<int64_t>(1, 16384 / row_size_);
    const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
    const bool serial = blocks == 1 || cost_ < kParallelThreshold;
    ForEachBlockWithScratch(blocks, scratch_bytes_, serial, &serial_scratch_,
                            [&](unsigned char* scratch, int64_t b) {
      const void* in[64];
      void* out[64];
      const int64_t end = std::min(rows_, (b + 1) * block_rows);
      for (int64_t r = b * block_rows; r < end; ++r) {
        for (size_t i = 0; i < inputs_.size(); ++i) {
          in[i] = static_cast<const unsigned char*>(buffers[inputs_[i].first]) +
                  r * inputs_[i].second;
        }
        for (size_t j = 0; j < outputs_.size(); ++j) {
          out[j] = static_cast<unsigned char*>(buffers[outputs_[j].first]) + r * outputs_[j].second;
        }
        fn(in, out, scratch);
      }
    });
  }

 private:
  using Fn = void (*)(const void* const* in, void* const* out, void* scratch);
  std::unique_ptr<Avx2Code> code_, streaming_;
  Fn fn_, streaming_fn_;
  int64_t rows_, row_size_;
  std::vector<std::pair<SlotId, int64_t>> inputs_, outputs_;  // slot, bytes per row
  std::vector<bool> whole_row_;  // per output
  int64_t scratch_bytes_, cost_;
  mutable std::vector<unsigned char> serial_scratch_;  // Execute is never concurrent
};

class RowJitGenerator {
 public:
  RowJitGenerator(const Computation& region, size_t num_inputs, size_t num_outputs)
      : region_(region), num_inputs_(num_inputs), num_outputs_(num_outputs) {}

  // Classifies the region's values; false when the generator does not cover it.
  bool Analyze();
  // Emits the row function (throws Xbyak::Error when it does not fit);
  // `streaming`: whole-row results are stored non-temporally (jit_region.h).
  void Emit(Avx2Code& g, bool streaming = false);

  int64_t rows() const { return rows_; }
  int64_t row_size() const { return row_size_; }
  int64_t scratch_bytes() const { return scratch_bytes_; }
  int64_t work() const { return work_; }
  // Bytes each fusion operand / result advances per row.
  std::vector<int64_t> InputStrides() const;
  std::vector<int64_t> OutputStrides() const;
  // Per result: whether it is whole rows (not one element per row).
  std::vector<bool> WholeRowResults() const {
    std::vector<bool> whole;
    for (const Instruction* r : region_.results()) {
      whole.push_back(r->shape().num_elements() != rows_);
    }
    return whole;
  }
  // Bytes of whole-row results one run writes.
  int64_t WholeRowResultBytes() const {
    int64_t bytes = 0;
    const std::vector<int64_t> strides = OutputStrides();
    const std::vector<bool> whole = WholeRowResults();
    for (size_t j = 0; j < strides.size(); ++j) bytes += whole[j] ? strides[j] * rows_ : 0;
    return bytes;
  }

 private:
  const RowValue& ValueOf(const Instruction* v) const { return values_.at(v); }
  // The value a reshape reads (through reshapes): registers and last uses are
  // keyed by it.
  const Instruction* Root(const Instruction* v) const {
    for (auto it = alias_of_.find(v); it != alias_of_.end(); it = alias_of_.find(v)) {
      v = it->second;
    }
    return v;
  }
  int64_t NewSlot() {
    const int64_t s = scratch_bytes_;
    scratch_bytes_ += 32;
    return s;
  }
  bool AnalyzeBroadcast(const Instruction& instr);
  bool AnalyzeElementwise(const Instruction& instr);
  void EmitLoop(Avx2Code& g, const std::vector<const Instruction*>& ops, bool first_loop);
  void EmitBody(Avx2Code& g, const std::vector<const Instruction*>& ops, int copy, bool assign,
                const absl::flat_hash_map<const Instruction*, int>& accumulator);
  void EmitReduceEnd(Avx2Code& g, const Instruction* reduce);
  void EmitPerRow(Avx2Code& g, const Instruction* op);
  int EmitOp(Avx2Code& g, const Instruction* x, const std::vector<Avx2Operand>& in,
             std::vector<int>* widened);
  Avx2Operand OperandOf(Avx2Code& g, const Instruction* v, int copy) const;
  Avx2Operand Read(Avx2Code& g, const Instruction* v, int copy, std::vector<int>* widened);
  void StoreSlotResult(Avx2Code& g, const Instruction* op, const Ymm& value);

  const Computation& region_;
  size_t num_inputs_, num_outputs_;
  int64_t rows_ = 0, row_size_ = 0;
  // Per fusion operand: how the row function reads it (unset: not at all).
  std::vector<std::optional<RowValue::Kind>> input_kind_;
  std::vector<int> input_width_;  // per fusion operand: bytes per element
  absl::flat_hash_map<const Instruction*, RowValue> values_;
  absl::flat_hash_map<const Instruction*, ReduceInfo> reduces_;
  absl::flat_hash_map<const Instruction*, int> result_of_;
  std::vector<const Instruction*> order_;  // computing instructions, in order
  int max_stage_ = 0;
  int64_t scratch_bytes_ = 0;
  int64_t work_ = 0;
  // Emission state.
  bool streaming_ = false;
  Avx2RegisterPool pool_;
  absl::flat_hash_map<const Instruction*, int> reg_;  // values in registers in this body
  absl::flat_hash_map<const Instruction*, size_t> last_use_;  // in the current loop's ops
  absl::flat_hash_map<const Instruction*, const Instruction*> alias_of_;  // reshape -> operand
  std::vector<Xbyak::Reg64> input_gpr_;  // per fusion operand (whole-row and invariant)
};

bool RowJitGenerator::Analyze() {
  for (const auto& instr : region_.instructions()) {
    if (instr->opcode() != Opcode::kReduce) continue;
    auto shape = RowReduceShape(*instr);
    if (!shape || (rows_ != 0 && (shape->first != rows_ || shape->second != row_size_))) {
      return false;
    }
    std::tie(rows_, row_size_) = *shape;
  }
  if (rows_ == 0 || rows_ == row_size_ || row_size_ % kReduceLanes != 0 ||
      row_size_ < 2 * kReduceLanes) {
    return false;
  }
  if (region_.results().size() != num_outputs_ || num_inputs_ > 64 || num_outputs_ > 64) {
    return false;
  }
  for (size_t j = 0; j < region_.results().size(); ++j) {
    if (!result_of_.emplace(region_.results()[j], static_cast<int>(j)).second) return false;
  }
  input_kind_.assign(num_inputs_, std::nullopt);
  input_width_.assign(num_inputs_, 4);
  const int64_t whole = rows_ * row_size_;
  for (const auto& owned : region_.instructions()) {
    const Instruction& instr = *owned;
    if (!JitCarries(instr.shape().dtype) || !instr.shape().is_array()) return false;
    const int64_t n = instr.shape().num_elements();
    switch (instr.opcode()) {
      case Opcode::kParameter: {
        const int64_t p = instr.attrs<ParameterAttrs>().number;
        if (p < 0 || p >= static_cast<int64_t>(num_inputs_)) return false;
        RowValue v;
        v.operand = static_cast<int>(p);
        input_width_[p] = static_cast<int>(ByteWidth(instr.shape().dtype));
        if (n == whole) {
          v.kind = RowValue::Kind::kWholeInput;
        } else if (n == rows_ || n == 1) {
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
        if ((in.kind != RowValue::Kind::kWhole && in.kind != RowValue::Kind::kWholeInput) ||
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
        if ((!JitCovers(instr.opcode()) && instr.opcode() != Opcode::kConvert) ||
            (n != whole && n != rows_) || !AnalyzeElementwise(instr)) {
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
    scratch_bytes_ += 4 * kReduceLanes;
  }
  for (auto& [instr, v] : values_) {
    if (v.kind == RowValue::Kind::kWhole && v.buffer == -2) {
      v.buffer = scratch_bytes_;
      scratch_bytes_ += 4 * row_size_ + 64;  // the skew keeps buffers off 4 KiB multiples
    }
  }
  return scratch_bytes_ <= kMaxScratchBytes;
}

bool RowJitGenerator::AnalyzeBroadcast(const Instruction& instr) {
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
  return false;
}

bool RowJitGenerator::AnalyzeElementwise(const Instruction& instr) {
  const bool whole = instr.shape().num_elements() == rows_ * row_size_;
  RowValue v;
  v.op = &instr;
  for (const Instruction* o : instr.operands()) {
    // Operands of the op's type (a convert's: float32 or bfloat16, as checked).
    if (instr.opcode() != Opcode::kConvert && o->shape().dtype != instr.shape().dtype) {
      return false;
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

std::vector<int64_t> RowJitGenerator::InputStrides() const {
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

std::vector<int64_t> RowJitGenerator::OutputStrides() const {
  std::vector<int64_t> s;
  for (const Instruction* r : region_.results()) {
    const int64_t width = ByteWidth(r->shape().dtype);
    s.push_back(r->shape().num_elements() == rows_ ? width : width * row_size_);
  }
  return s;
}

Avx2Operand RowJitGenerator::OperandOf(Avx2Code& g, const Instruction* v, int copy) const {
  if (auto it = reg_.find(Root(v)); it != reg_.end()) return Avx2Operand::Register(it->second);
  const RowValue& value = ValueOf(v);
  const int disp = 32 * copy;
  switch (value.kind) {
    case RowValue::Kind::kWholeInput:
    case RowValue::Kind::kInvariantInput:
      // bfloat16 ones are widened first (Read).
      if (v->shape().dtype != DType::kF32) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
      return Avx2Operand::Memory(g.yword[input_gpr_[value.operand] + g.rax * 4 + disp]);
    case RowValue::Kind::kSlot:
      return Avx2Operand::Memory(g.yword[g.rdx + value.slot]);
    case RowValue::Kind::kWhole:
      break;
  }
  const int64_t buffer = values_.at(value.op).buffer;
  if (buffer < 0) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // not kept: a bug
  return Avx2Operand::Memory(g.yword[g.rdx + g.rax * 4 + (buffer + disp)]);
}

// v read in copy `copy`: a bfloat16 input read in place is widened into a
// register taken from the pool and added to *widened (freed after the op).
Avx2Operand RowJitGenerator::Read(Avx2Code& g, const Instruction* v, int copy,
                                  std::vector<int>* widened) {
  const RowValue& value = ValueOf(v);
  if (!ReadsInPlace(value.kind) || v->shape().dtype != DType::kBF16) {
    return OperandOf(g, v, copy);
  }
  const Ymm w(pool_.Take());
  g.LoadBf16(w, g.xword[input_gpr_[value.operand] + g.rax * 2 + 16 * copy]);
  widened->push_back(w.getIdx());
  return Avx2Operand::Register(w.getIdx());
}

// x of `in` into a register taken from the pool (returned). A convert
// copies its operand (into the operand's own register when that was only
// widened for it) and rounds when it narrows to bfloat16; any other
// bfloat16 op computes in float32 and rounds, as the interpreter does.
int RowJitGenerator::EmitOp(Avx2Code& g, const Instruction* x,
                            const std::vector<Avx2Operand>& in, std::vector<int>* widened) {
  Ymm d(0);
  if (x->opcode() == Opcode::kConvert) {
    auto w = std::find(widened->begin(), widened->end(), in[0].reg);
    if (in[0].reg >= 0 && w != widened->end()) {
      d = Ymm(in[0].reg);
      widened->erase(w);
    } else {
      d = Ymm(pool_.Take());
      if (in[0].memory) {
        g.vmovups(d, *in[0].memory);
      } else {
        g.vmovaps(d, Ymm(in[0].reg));
      }
    }
    if (x->operand(0)->shape().dtype == x->shape().dtype) return d.getIdx();
  } else {
    d = Ymm(EmitAvx2Op(g, pool_, x->opcode(), in));
  }
  if (x->shape().dtype == DType::kBF16) {
    const Ymm t(pool_.Take()), nan(pool_.Take());
    g.RoundToBf16(d, t, nan);
    pool_.Free(t.getIdx());
    pool_.Free(nan.getIdx());
  }
  return d.getIdx();
}

// A per-row value into its slot (its float32 form) and, when it is a
// result, its one element: a bfloat16 one is the top half of lane 0.
void RowJitGenerator::StoreSlotResult(Avx2Code& g, const Instruction* op, const Ymm& value) {
  g.vmovups(g.yword[g.rdx + ValueOf(op).slot], value);
  if (auto r = result_of_.find(op); r != result_of_.end()) {
    g.mov(g.r10, g.qword[g.rsi + 8 * r->second]);
    if (op->shape().dtype == DType::kBF16) {
      g.vpextrw(g.word[g.r10], Xbyak::Xmm(value.getIdx()), 1);
    } else {
      g.vmovss(g.dword[g.r10], Xbyak::Xmm(value.getIdx()));
    }
  }
}

void RowJitGenerator::EmitPerRow(Avx2Code& g, const Instruction* op) {
  pool_.Clear();
  reg_.clear();
  std::vector<Avx2Operand> in;
  std::vector<int> widened;  // none: per-row ops read slots only
  for (const Instruction* o : op->operands()) in.push_back(OperandOf(g, o, 0));
  const Ymm d(EmitOp(g, op, in, &widened));
  StoreSlotResult(g, op, d);
}

void RowJitGenerator::EmitBody(Avx2Code& g, const std::vector<const Instruction*>& ops, int copy,
                               bool assign,
                               const absl::flat_hash_map<const Instruction*, int>& accumulator) {
  reg_.clear();
  for (size_t i = 0; i < ops.size(); ++i) {
    const Instruction* x = ops[i];
    auto release = [&]() {  // operands read for the last time
      for (const Instruction* operand : x->operands()) {
        const Instruction* o = Root(operand);
        auto it = reg_.find(o);
        if (it != reg_.end() && last_use_.at(o) == i) {
          pool_.Free(it->second);
          reg_.erase(it);
        }
      }
    };
    if (auto r = reduces_.find(x); r != reduces_.end()) {
      const Ymm acc(accumulator.at(x) + copy);
      std::vector<int> widened;
      const Avx2Operand in = Read(g, r->second.input, copy, &widened);
      if (assign) {
        if (in.memory) {
          g.vmovups(acc, *in.memory);
        } else {
          g.vmovaps(acc, Ymm(in.reg));
        }
      } else if (r->second.body == Opcode::kAdd || r->second.body == Opcode::kMultiply) {
        const bool add = r->second.body == Opcode::kAdd;
        if (in.memory) {
          add ? g.vaddps(acc, acc, *in.memory) : g.vmulps(acc, acc, *in.memory);
        } else {
          add ? g.vaddps(acc, acc, Ymm(in.reg)) : g.vmulps(acc, acc, Ymm(in.reg));
        }
      } else {
        const Ymm t(EmitAvx2Op(g, pool_, r->second.body,
                               {Avx2Operand::Register(acc.getIdx()), in}));
        g.vmovaps(acc, t);
        pool_.Free(t.getIdx());
      }
      for (int w : widened) pool_.Free(w);
      release();
      continue;
    }
    std::vector<Avx2Operand> in;
    std::vector<int> widened;
    for (const Instruction* o : x->operands()) in.push_back(Read(g, o, copy, &widened));
    const Ymm d(EmitOp(g, x, in, &widened));
    for (int w : widened) pool_.Free(w);
    const RowValue& v = ValueOf(x);
    if (auto r = result_of_.find(x); r != result_of_.end()) {
      g.mov(g.r10, g.qword[g.rsi + 8 * r->second]);
      if (x->shape().dtype == DType::kBF16) {
        const Ymm t(pool_.Take()), high(pool_.Take());
        g.StoreBf16(g.xword[g.r10 + g.rax * 2 + 16 * copy], d, t, high, streaming_);
        pool_.Free(t.getIdx());
        pool_.Free(high.getIdx());
      } else if (streaming_) {
        g.vmovntps(g.yword[g.r10 + g.rax * 4 + 32 * copy], d);
      } else {
        g.vmovups(g.yword[g.r10 + g.rax * 4 + 32 * copy], d);
      }
    }
    if (v.buffer >= 0) g.vmovups(g.yword[g.rdx + g.rax * 4 + (v.buffer + 32 * copy)], d);
    if (last_use_.contains(x)) {
      reg_[x] = d.getIdx();
    } else {
      pool_.Free(d.getIdx());
    }
    release();
  }
}

// After the loop: the 32 lanes (stored) combined as a tree into init, in
// reduce.cc's order (CombineLanes): the registers pairwise, then halves,
// pairs and neighbours. Each step's op is commutative, so lane i and its
// partner get the same value and lane 0 ends with the whole.
void RowJitGenerator::EmitReduceEnd(Avx2Code& g, const Instruction* reduce) {
  const ReduceInfo& info = reduces_.at(reduce);
  pool_.Clear();
  auto lanes = [&](int k) { return Avx2Operand::Memory(g.yword[g.rdx + info.lanes + 32 * k]); };
  auto op = [&](const Avx2Operand& a, const Avx2Operand& b) {
    const int d = EmitAvx2Op(g, pool_, info.body, {a, b});
    if (!a.memory) pool_.Free(a.reg);
    if (!b.memory) pool_.Free(b.reg);
    return Avx2Operand::Register(d);
  };
  Avx2Operand v = op(op(lanes(0), lanes(1)), op(lanes(2), lanes(3)));
  for (int step = 0; step < 3; ++step) {  // halves, then pairs, then neighbours
    const Ymm x(v.reg), swapped(pool_.Take());
    if (step == 0) {
      g.vperm2f128(swapped, x, x, 1);
    } else {
      g.vpermilps(swapped, x, step == 1 ? 0x4E : 0xB1);
    }
    v = op(v, Avx2Operand::Register(swapped.getIdx()));
  }
  v = op(Avx2Operand::Memory(g.yword[g.rdx + ValueOf(info.init).slot]), v);
  if (reduce->shape().dtype == DType::kBF16) {
    const Ymm t(pool_.Take()), nan(pool_.Take());
    g.RoundToBf16(Ymm(v.reg), t, nan);
    pool_.Free(t.getIdx());
    pool_.Free(nan.getIdx());
  }
  StoreSlotResult(g, reduce, Ymm(v.reg));
}

void RowJitGenerator::EmitLoop(Avx2Code& g, const std::vector<const Instruction*>& ops,
                               bool first_loop) {
  last_use_.clear();
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const Instruction* o : ops[i]->operands()) last_use_[Root(o)] = i;
  }
  // Four accumulators per reduce, held across the loop.
  pool_.Clear();
  absl::flat_hash_map<const Instruction*, int> accumulator;
  int next = 0;
  for (const Instruction* x : ops) {
    if (!reduces_.contains(x)) continue;
    accumulator[x] = next;
    for (int k = 0; k < kAccumulators; ++k) pool_.Reserve(next + k);
    next += kAccumulators;
  }
  const bool reduces = !accumulator.empty();
  const int step = reduces ? kReduceLanes : Avx2Code::kLanes;
  const int copies = reduces ? kAccumulators : 1;
  g.xor_(g.eax, g.eax);
  if (reduces) {  // the first 32 elements set the lanes (ReduceRun's first step)
    for (int c = 0; c < copies; ++c) EmitBody(g, ops, c, true, accumulator);
    g.mov(g.eax, step);
  }
  Xbyak::Label loop, done;
  g.L(loop);
  g.cmp(g.rax, row_size_);
  g.jge(done, Xbyak::CodeGenerator::T_NEAR);
  for (int c = 0; c < copies; ++c) EmitBody(g, ops, c, false, accumulator);
  if (first_loop) {
    // The next row of each whole-row input, a trip's worth ahead: a row
    // starts a new page, where the hardware prefetcher starts over.
    for (size_t i = 0; i < num_inputs_; ++i) {
      if (input_kind_[i] != RowValue::Kind::kWholeInput) continue;
      const int width = input_width_[i];
      for (int line = 0; line < step * width; line += 64) {
        g.prefetcht0(g.ptr[input_gpr_[i] + g.rax * width + (width * row_size_ + line)]);
      }
    }
  }
  g.add(g.rax, step);
  g.jmp(loop, Xbyak::CodeGenerator::T_NEAR);
  g.L(done);
  for (const auto& [reduce, first] : accumulator) {
    for (int k = 0; k < kAccumulators; ++k) {
      g.vmovups(g.yword[g.rdx + reduces_.at(reduce).lanes + 32 * k], Ymm(first + k));
    }
  }
  for (const auto& [reduce, first] : accumulator) EmitReduceEnd(g, reduce);
}

void RowJitGenerator::Emit(Avx2Code& g, bool streaming) {
  streaming_ = streaming;
  using namespace Xbyak::util;
  const Xbyak::Reg64 gprs[kMaxInputs] = {r8, r9, rbx, rbp, r12, r13, r14, r15};
  input_gpr_.assign(num_inputs_, Xbyak::Reg64());
  int used = 0;
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (!ReadsInPlace(input_kind_[i])) continue;
    if (used == kMaxInputs) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    input_gpr_[i] = gprs[used++];
  }
  for (const Xbyak::Reg64& r : {rbx, rbp, r12, r13, r14, r15}) g.push(r);
  g.mov(r11, reinterpret_cast<size_t>(g.table()));
  for (size_t i = 0; i < num_inputs_; ++i) {
    if (ReadsInPlace(input_kind_[i])) g.mov(input_gpr_[i], g.qword[rdi + 8 * i]);
  }
  // This row's per-row inputs and the splats, into their slots.
  for (const Instruction* p : region_.parameters()) {
    const RowValue& v = ValueOf(p);
    if (v.kind != RowValue::Kind::kSlot) continue;
    g.mov(r10, g.qword[rdi + 8 * v.operand]);
    if (p->shape().dtype == DType::kBF16) {  // widened: the float32 of the same value
      g.movzx(r10d, g.word[r10]);
      g.shl(r10d, 16);
      g.vmovd(Xbyak::Xmm(0), r10d);
      g.vbroadcastss(Ymm(0), Xbyak::Xmm(0));
    } else {
      g.vbroadcastss(Ymm(0), g.dword[r10]);
    }
    g.vmovups(g.yword[rdx + v.slot], Ymm(0));
  }
  bool looped = false;
  for (int stage = 0; stage <= max_stage_; ++stage) {
    // Per-row values known before this loop, then the loop's whole-row ops
    // and the reduces of them.
    std::vector<const Instruction*> ops;
    for (const Instruction* x : order_) {
      const RowValue& v = ValueOf(x);
      const bool per_row = v.kind == RowValue::Kind::kSlot && !reduces_.contains(x);
      if (per_row && v.stage == stage) EmitPerRow(g, x);
      if (v.kind == RowValue::Kind::kWhole && v.stage == stage) ops.push_back(x);
      if (auto r = reduces_.find(x); r != reduces_.end() && v.stage == stage + 1) ops.push_back(x);
    }
    if (!ops.empty()) {
      EmitLoop(g, ops, !looped);
      looped = true;
    }
  }
  for (const Instruction* x : order_) {  // per-row values after the last loop
    const RowValue& v = ValueOf(x);
    if (v.kind == RowValue::Kind::kSlot && !reduces_.contains(x) && v.stage == max_stage_ + 1) {
      EmitPerRow(g, x);
    }
  }
  if (streaming_) g.sfence();  // the row's stores reach memory before the thunk returns
  for (const Xbyak::Reg64& r : {r15, r14, r13, r12, rbp, rbx}) g.pop(r);
  g.vzeroupper();
  g.ret();
  g.EmitColdPaths();
}

}  // namespace
#endif  // __x86_64__

std::unique_ptr<Thunk> MakeRowJitThunk(const Instruction& fusion,
                                       const std::vector<SlotId>& inputs,
                                       const std::vector<SlotId>& outputs, int64_t* work) {
#if defined(__x86_64__)
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!has_avx2 || !FusionJitEnabled() || fusion.called_computations().size() != 1) return nullptr;
  RowJitGenerator gen(*fusion.called_computations()[0], inputs.size(), outputs.size());
  if (!gen.Analyze()) return nullptr;
  auto code = std::make_unique<Avx2Code>(64 * 1024);
  std::unique_ptr<Avx2Code> streaming;
  try {
    gen.Emit(*code);
    code->readyRE();
    if (gen.WholeRowResultBytes() >= StreamingStoreBytes()) {
      streaming = std::make_unique<Avx2Code>(64 * 1024);
      gen.Emit(*streaming, /*streaming=*/true);
      streaming->readyRE();
      CountStreamingJitKernel();
    }
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  std::vector<std::pair<SlotId, int64_t>> in, out;
  const std::vector<int64_t> in_strides = gen.InputStrides(), out_strides = gen.OutputStrides();
  for (size_t i = 0; i < inputs.size(); ++i) in.emplace_back(inputs[i], in_strides[i]);
  for (size_t j = 0; j < outputs.size(); ++j) out.emplace_back(outputs[j], out_strides[j]);
  *work = gen.work();
  CountJitKernel();
  return std::make_unique<RowJitThunk>(std::move(code), std::move(streaming), gen.rows(),
                                       gen.row_size(), std::move(in), std::move(out),
                                       gen.WholeRowResults(), gen.scratch_bytes(), gen.work());
#else
  return nullptr;
#endif
}

}  // namespace xjit::cpu
