// The AVX2 generator of row fusions (jit_row.h, jit_row_region.h): the row
// function runs each loop 8 elements a register at a time, four registers a
// trip when the loop reduces (reduce.cc's 32 lanes); operands may be read
// from memory (whole rows, row buffers, per-row values in 8-float slots).
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_row_region.h"

#if defined(__x86_64__)
#include "xjit/backends/cpu/jit_avx2_code.h"

namespace xjit::cpu {
namespace {

constexpr int kAccumulators = kRowReduceLanes / Avx2Code::kLanes;

class RowAvx2Generator {
 public:
  explicit RowAvx2Generator(const RowRegion& region) : r_(region) {}

  // Emits the row function (throws Xbyak::Error when it does not fit);
  // `streaming`: whole-row results are stored non-temporally (jit_region.h).
  void Emit(Avx2Code& g, bool streaming = false);

 private:
  const RowValue& ValueOf(const Instruction* v) const { return r_.ValueOf(v); }
  const Instruction* Root(const Instruction* v) const { return r_.Root(v); }
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

  const RowRegion& r_;
  bool streaming_ = false;
  Avx2RegisterPool pool_;
  absl::flat_hash_map<const Instruction*, int> reg_;  // values in registers in this body
  absl::flat_hash_map<const Instruction*, size_t> last_use_;  // in the current loop's ops
  std::vector<Xbyak::Reg64> input_gpr_;  // per fusion operand (whole-row and invariant)
};

Avx2Operand RowAvx2Generator::OperandOf(Avx2Code& g, const Instruction* v, int copy) const {
  if (auto it = reg_.find(Root(v)); it != reg_.end()) return Avx2Operand::Register(it->second);
  const RowValue& value = ValueOf(v);
  const int disp = 32 * copy;
  switch (value.kind) {
    case RowValue::Kind::kWholeInput:
    case RowValue::Kind::kInvariantInput:
    case RowValue::Kind::kRowsInput:
      // bfloat16 ones are widened first (Read).
      if (v->shape().dtype != DType::kF32) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
      return Avx2Operand::Memory(g.yword[input_gpr_[value.operand] + g.rax * 4 + disp]);
    case RowValue::Kind::kSlot:
      return Avx2Operand::Memory(g.yword[g.rdx + value.slot]);
    case RowValue::Kind::kWhole:
      break;
  }
  const int64_t buffer = r_.BufferOf(v);
  if (buffer < 0) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // not kept: a bug
  return Avx2Operand::Memory(g.yword[g.rdx + g.rax * 4 + (buffer + disp)]);
}

// v read in copy `copy`: a 16-bit input read in place is widened into a
// register taken from the pool and added to *widened (freed after the op).
Avx2Operand RowAvx2Generator::Read(Avx2Code& g, const Instruction* v, int copy,
                                   std::vector<int>* widened) {
  const RowValue& value = ValueOf(v);
  if (!ReadsInPlace(value.kind) || v->shape().dtype == DType::kF32) {
    return OperandOf(g, v, copy);
  }
  const Ymm w(pool_.Take());
  g.LoadNarrow(w, g.xword[input_gpr_[value.operand] + g.rax * 2 + 16 * copy], v->shape().dtype);
  widened->push_back(w.getIdx());
  return Avx2Operand::Register(w.getIdx());
}

// x of `in` into a register taken from the pool (returned). A convert
// copies its operand (into the operand's own register when that was only
// widened for it) and rounds when it changes to a 16-bit type; any other
// 16-bit op computes in float32 and rounds, as the interpreter does.
int RowAvx2Generator::EmitOp(Avx2Code& g, const Instruction* x,
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
  RoundAvx2To(g, pool_, d, x->shape().dtype);
  return d.getIdx();
}

// A per-row value into its slot (its float32 form) and, when it is a
// result, its one element: a bfloat16 one is the top half of lane 0, a
// float16 one converted (exactly: it is rounded already) into lane 0.
void RowAvx2Generator::StoreSlotResult(Avx2Code& g, const Instruction* op, const Ymm& value) {
  g.vmovups(g.yword[g.rdx + ValueOf(op).slot], value);
  if (const int j = r_.ResultOf(op); j >= 0) {
    g.mov(g.r10, g.qword[g.rsi + 8 * j]);
    if (op->shape().dtype == DType::kBF16) {
      g.vpextrw(g.word[g.r10], Xbyak::Xmm(value.getIdx()), 1);
    } else if (op->shape().dtype == DType::kF16) {
      const Xbyak::Xmm t(pool_.Take());
      g.vcvtps2ph(t, Xbyak::Xmm(value.getIdx()), 0);
      g.vpextrw(g.word[g.r10], t, 0);
      pool_.Free(t.getIdx());
    } else {
      g.vmovss(g.dword[g.r10], Xbyak::Xmm(value.getIdx()));
    }
  }
}

void RowAvx2Generator::EmitPerRow(Avx2Code& g, const Instruction* op) {
  pool_.Clear();
  reg_.clear();
  std::vector<Avx2Operand> in;
  std::vector<int> widened;  // none: per-row ops read slots only
  for (const Instruction* o : op->operands()) in.push_back(OperandOf(g, o, 0));
  const Ymm d(EmitOp(g, op, in, &widened));
  StoreSlotResult(g, op, d);
}

void RowAvx2Generator::EmitBody(Avx2Code& g, const std::vector<const Instruction*>& ops,
                                int copy, bool assign,
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
    if (const ReduceInfo* r = r_.Reduce(x)) {
      const Ymm acc(accumulator.at(x) + copy);
      std::vector<int> widened;
      const Avx2Operand in = Read(g, r->input, copy, &widened);
      if (assign) {
        if (in.memory) {
          g.vmovups(acc, *in.memory);
        } else {
          g.vmovaps(acc, Ymm(in.reg));
        }
      } else if (r->body == Opcode::kAdd || r->body == Opcode::kMultiply) {
        const bool add = r->body == Opcode::kAdd;
        if (in.memory) {
          add ? g.vaddps(acc, acc, *in.memory) : g.vmulps(acc, acc, *in.memory);
        } else {
          add ? g.vaddps(acc, acc, Ymm(in.reg)) : g.vmulps(acc, acc, Ymm(in.reg));
        }
      } else {
        const Ymm t(EmitAvx2Op(g, pool_, r->body,
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
    if (const int j = r_.ResultOf(x); j >= 0) {
      g.mov(g.r10, g.qword[g.rsi + 8 * j]);
      if (x->shape().dtype != DType::kF32) {
        StoreAvx2Narrow(g, pool_, g.xword[g.r10 + g.rax * 2 + 16 * copy], d, x->shape().dtype,
                        streaming_);
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
void RowAvx2Generator::EmitReduceEnd(Avx2Code& g, const Instruction* reduce) {
  const ReduceInfo& info = *r_.Reduce(reduce);
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
  RoundAvx2To(g, pool_, Ymm(v.reg), reduce->shape().dtype);
  StoreSlotResult(g, reduce, Ymm(v.reg));
}

void RowAvx2Generator::EmitLoop(Avx2Code& g, const std::vector<const Instruction*>& ops,
                                bool first_loop) {
  last_use_ = r_.LastUses(ops);
  // Four accumulators per reduce, held across the loop.
  pool_.Clear();
  absl::flat_hash_map<const Instruction*, int> accumulator;
  int next = 0;
  for (const Instruction* x : ops) {
    if (!r_.Reduce(x)) continue;
    accumulator[x] = next;
    for (int k = 0; k < kAccumulators; ++k) pool_.Reserve(next + k);
    next += kAccumulators;
  }
  const bool reduces = !accumulator.empty();
  const int step = reduces ? kRowReduceLanes : Avx2Code::kLanes;
  const int copies = reduces ? kAccumulators : 1;
  g.xor_(g.eax, g.eax);
  if (reduces) {  // the first 32 elements set the lanes (ReduceRun's first step)
    for (int c = 0; c < copies; ++c) EmitBody(g, ops, c, true, accumulator);
    g.mov(g.eax, step);
  }
  Xbyak::Label loop, done;
  g.L(loop);
  g.cmp(g.rax, r_.row_size());
  g.jge(done, Xbyak::CodeGenerator::T_NEAR);
  for (int c = 0; c < copies; ++c) EmitBody(g, ops, c, false, accumulator);
  if (first_loop) {
    // The next row of each whole-row input, a trip's worth ahead: a row
    // starts a new page, where the hardware prefetcher starts over.
    for (size_t i = 0; i < r_.num_inputs(); ++i) {
      if (r_.input_kind(i) != RowValue::Kind::kWholeInput) continue;
      const int width = r_.input_width(i);
      for (int line = 0; line < step * width; line += 64) {
        g.prefetcht0(g.ptr[input_gpr_[i] + g.rax * width + (width * r_.row_size() + line)]);
      }
    }
  }
  g.add(g.rax, step);
  g.jmp(loop, Xbyak::CodeGenerator::T_NEAR);
  g.L(done);
  for (const auto& [reduce, first] : accumulator) {
    for (int k = 0; k < kAccumulators; ++k) {
      g.vmovups(g.yword[g.rdx + r_.Reduce(reduce)->lanes + 32 * k], Ymm(first + k));
    }
  }
  for (const auto& [reduce, first] : accumulator) EmitReduceEnd(g, reduce);
}

void RowAvx2Generator::Emit(Avx2Code& g, bool streaming) {
  streaming_ = streaming;
  using namespace Xbyak::util;
  input_gpr_ = EmitRowPrologue(r_, g);
  g.mov(r11, reinterpret_cast<size_t>(g.table()));
  Xbyak::Label row;
  g.L(row);
  EmitRowStart(r_, g, input_gpr_);
  // This row's per-row inputs and the splats, into their slots.
  for (const Instruction* p : r_.computation().parameters()) {
    const RowValue& v = ValueOf(p);
    if (v.kind != RowValue::Kind::kSlot) continue;
    g.mov(r10, g.qword[rdi + 8 * v.operand]);
    g.BroadcastElement(Ymm(0), r10, p->shape().dtype);
    g.vmovups(g.yword[rdx + v.slot], Ymm(0));
  }
  bool looped = false;
  for (int stage = 0; stage <= r_.max_stage() + 1; ++stage) {
    // Per-row values known before this loop, then the loop's whole-row ops
    // and the reduces of them.
    for (const Instruction* x : r_.PerRowOps(stage)) EmitPerRow(g, x);
    const std::vector<const Instruction*> ops =
        stage <= r_.max_stage() ? r_.LoopOps(stage) : std::vector<const Instruction*>{};
    if (!ops.empty()) {
      EmitLoop(g, ops, !looped);
      looped = true;
    }
  }
  EmitRowAdvance(r_, g, row);
  if (streaming_) g.sfence();  // the rows' stores reach memory before the thunk returns
  EmitRowEpilogue(g);
  g.vzeroupper();
  g.ret();
  g.EmitColdPaths();
}

}  // namespace

std::unique_ptr<Thunk> GenerateAvx2RowKernel(const RowRegion& region,
                                             const std::vector<SlotId>& inputs,
                                             const std::vector<SlotId>& outputs) {
  // Tails and masks: AVX-512 only.
  if (region.row_size() % kRowReduceLanes != 0 || region.uses_masks()) return nullptr;
  RowAvx2Generator gen(region);
  auto emit = [&](bool stream) {
    auto c = std::make_unique<Avx2Code>(64 * 1024);
    gen.Emit(*c, stream);
    c->readyRE();
    return c;
  };
  return MakeRowKernelThunkFrom(region, emit, /*alignment=*/32, inputs, outputs);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
