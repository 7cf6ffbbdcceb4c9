// The AVX2 generator of fused element-wise kernels (jit_fusion.h), for x86-64
// CPUs without AVX-512 (AMD before Zen 4, Intel client cores): 8 elements to
// a ymm register. With 16 registers instead of 32, inputs and splats stay in
// memory and are read as instruction operands (L1 hits after the first);
// registers hold computed values and each op's scratch, taken from the free
// ones at that op (jit_avx2_code.h). The loop's last partial vector goes
// through the stack with masked moves. A 16-bit float input is widened into
// a register at each use, a 16-bit op's result is rounded to nearest even
// (bfloat16 with integer ops as bf16(float) does, ir/half.h; float16 with
// F16C), and a 16-bit result is stored narrowed.
#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "xjit/backends/cpu/jit_avx2_code.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"

#if defined(__x86_64__)

namespace xjit::cpu {
namespace {

constexpr int kLanes = Avx2Code::kLanes;
constexpr int kMaxInputs = 8;  // each held in a general register

// Where a region value is during one pass of the loop body.
struct Avx2Value {
  enum class Kind { kRegister, kInput, kSplat } kind = Kind::kRegister;
  int reg = -1;    // kRegister
  int32_t offset;  // kSplat: its 8 copies at [rsp + offset]; kInput in the tail: same
  int gpr = -1;    // kInput in the main loop: the register holding its address
  std::optional<float> constant;  // kSplat of a constant: its value
};

// Emits the loop; throws Xbyak::Error when the region does not fit.
class Avx2Emitter {
 public:
  // `hoisted`: registers the code's hoisted constants (Avx2Code::Hoist) hold.
  // `streaming`: whole vectors are stored non-temporally (jit_region.h).
  Avx2Emitter(const JitRegion& region, Avx2Code& g, std::vector<int> hoisted = {},
              bool streaming = false)
      : region_(region), g_(g), hoisted_(std::move(hoisted)), streaming_(streaming) {}

  int PeakRegisters() const { return pool_.Peak(); }

  void Emit() {
    using namespace Xbyak::util;
    const Xbyak::Reg64 input_gprs[kMaxInputs] = {r8, r9, rbx, rbp, r12, r13, r14, r15};
    // Stack slots: splats, then the tail's inputs, its results and its mask.
    int32_t frame = 0;
    for (const Instruction* p : region_.parameters) {
      if (!region_.Used(p)) continue;
      const int number = region_.input_number.at(p);
      Slot slot{p, number, frame, -1, region_.input_type[number]};
      frame += 32;
      if (!region_.input_splat[number]) {
        if (inputs_.size() == kMaxInputs) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
        slot.gpr = static_cast<int>(inputs_.size());
        inputs_.push_back(slot);
      } else {
        splats_.push_back(slot);
      }
    }
    results_offset_ = frame;
    frame += 32 * static_cast<int32_t>(region_.result_of.size());
    mask_offset_ = frame;
    frame += 32;
    for (const Xbyak::Reg64& r : {rbx, rbp, r12, r13, r14, r15}) g_.push(r);
    g_.sub(rsp, frame);
    g_.mov(r11, reinterpret_cast<size_t>(g_.table()));
    for (const Slot& s : inputs_) g_.mov(input_gprs[s.gpr], g_.qword[rdi + 8 * s.number]);
    for (const Slot& s : splats_) {  // broadcast once, before the loop
      g_.mov(r10, g_.qword[rdi + 8 * s.number]);
      g_.BroadcastElement(Ymm(0), r10, s.type);
      g_.vmovups(g_.yword[rsp + s.offset], Ymm(0));
    }
    g_.EmitHoistedLoads();
    g_.xor_(eax, eax);
    g_.mov(rcx, rdx);
    g_.and_(rcx, -kLanes);  // the whole vectors end here
    // Two vectors a trip: their independent chains overlap in the core (a
    // tanh or exp is one long chain of dependent steps), then one.
    Xbyak::Label pairs, single, tail, done;
    g_.L(pairs);
    g_.lea(r10, g_.ptr[rax + 2 * kLanes]);
    g_.cmp(r10, rcx);
    g_.jg(single, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false, input_gprs, 0);
    EmitBody(false, input_gprs, 1);
    g_.add(rax, 2 * kLanes);
    g_.jmp(pairs, Xbyak::CodeGenerator::T_NEAR);
    g_.L(single);
    g_.cmp(rax, rcx);
    g_.jge(tail, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false, input_gprs, 0);
    g_.add(rax, kLanes);
    // The last 1..7 elements: inputs copied to the stack under the mask, the
    // body run on the copies, results stored from the stack under the mask.
    g_.L(tail);
    g_.cmp(rax, rdx);
    g_.jge(done, Xbyak::CodeGenerator::T_NEAR);
    g_.mov(rcx, rdx);
    g_.sub(rcx, rax);
    g_.shl(rcx, 2);
    g_.mov(r10, reinterpret_cast<size_t>(g_.tail_mask() + kLanes));
    g_.sub(r10, rcx);
    g_.vmovups(Ymm(0), g_.yword[r10]);
    g_.vmovups(g_.yword[rsp + mask_offset_], Ymm(0));
    for (const Slot& s : inputs_) {
      if (s.type != DType::kF32) {
        EmitWidenTail(input_gprs[s.gpr], s.offset, s.type);
        continue;
      }
      g_.vmaskmovps(Ymm(1), Ymm(0), g_.ptr[input_gprs[s.gpr] + rax * 4]);
      g_.vmovups(g_.yword[rsp + s.offset], Ymm(1));
    }
    EmitBody(true, input_gprs, 0);
    for (const auto& [op, j] : region_.result_of) {
      g_.mov(r10, g_.qword[rsi + 8 * j]);
      if (region_.result_type[j] != DType::kF32) {
        EmitNarrowTail(results_offset_ + 32 * j, region_.result_type[j]);
        continue;
      }
      g_.vmovups(Ymm(0), g_.yword[rsp + mask_offset_]);
      g_.vmovups(Ymm(1), g_.yword[rsp + results_offset_ + 32 * j]);
      g_.vmaskmovps(g_.ptr[r10 + rax * 4], Ymm(0), Ymm(1));
    }
    g_.L(done);
    if (streaming_) g_.sfence();  // the stores reach memory before the thunk returns
    g_.add(rsp, frame);
    for (const Xbyak::Reg64& r : {r15, r14, r13, r12, rbp, rbx}) g_.pop(r);
    g_.vzeroupper();
    g_.ret();
    g_.EmitColdPaths();
  }

 private:
  struct Slot {
    const Instruction* parameter;
    int number;
    int32_t offset;
    int gpr;
    DType type;
  };

  // The tail's 16-bit input (JitCarries): its last rdx - rax elements
  // (1..7) from [base + 2 * rax] widened into the zeroed 8 floats at
  // [rsp + offset].
  void EmitWidenTail(const Xbyak::Reg64& base, int32_t offset, DType type) {
    using namespace Xbyak::util;
    Xbyak::Label loop, done;
    g_.vxorps(Ymm(1), Ymm(1), Ymm(1));
    g_.vmovups(g_.yword[rsp + offset], Ymm(1));
    g_.xor_(ecx, ecx);
    g_.L(loop);
    g_.lea(r10, g_.ptr[rax + rcx]);
    g_.cmp(r10, rdx);
    g_.jge(done);
    g_.movzx(r10d, g_.word[base + r10 * 2]);
    if (type == DType::kBF16) {
      g_.shl(r10d, 16);
      g_.mov(g_.dword[rsp + rcx * 4 + offset], r10d);
    } else {
      g_.mov(g_.word[rsp + rcx * 2 + offset], r10w);  // widened below, all 8 at once
    }
    g_.inc(rcx);
    g_.jmp(loop);
    g_.L(done);
    if (type == DType::kF16) {
      g_.vcvtph2ps(Ymm(1), g_.xword[rsp + offset]);
      g_.vmovups(g_.yword[rsp + offset], Ymm(1));
    }
  }

  // The tail's 16-bit result: the floats at [rsp + offset] (already
  // rounded) narrowed and stored to [r10 + 2 * rax], rdx - rax of them.
  // Uses rcx, r11 (the constants are no longer read) and ymm1.
  void EmitNarrowTail(int32_t offset, DType type) {
    using namespace Xbyak::util;
    if (type == DType::kF16) {  // narrowed in place, all 8 at once
      g_.vmovups(Ymm(1), g_.yword[rsp + offset]);
      g_.vcvtps2ph(g_.xword[rsp + offset], Ymm(1), 0);
    }
    Xbyak::Label loop, done;
    g_.lea(r10, g_.ptr[r10 + rax * 2]);
    g_.xor_(ecx, ecx);
    g_.L(loop);
    g_.lea(r11, g_.ptr[rax + rcx]);
    g_.cmp(r11, rdx);
    g_.jge(done);
    if (type == DType::kBF16) {
      g_.mov(r11d, g_.dword[rsp + rcx * 4 + offset]);
      g_.shr(r11d, 16);
    } else {
      g_.mov(r11w, g_.word[rsp + rcx * 2 + offset]);
    }
    g_.mov(g_.word[r10 + rcx * 2], r11w);
    g_.inc(rcx);
    g_.jmp(loop);
    g_.L(done);
  }


  // A convert between float32 and bfloat16 (either way, or to its own
  // type): the operand copied into a register of its own, rounded when it
  // narrows.
  int EmitConvert(const Instruction& x, const Avx2Operand& in) {
    const Ymm d(pool_.Take());
    if (in.reg >= 0) {
      g_.vmovaps(d, Ymm(in.reg));
    } else {
      g_.vmovups(d, *in.memory);
    }
    if (x.operand(0)->shape().dtype == DType::kPred) {  // all-ones lanes: 1.0, others 0.0
      g_.vandps(d, d, g_.Bits(0x3f800000u));
      return d.getIdx();
    }
    if (x.shape().dtype != x.operand(0)->shape().dtype) RoundAvx2To(g_, pool_, d, x.shape().dtype);
    return d.getIdx();
  }

  // The operand reading value v in this pass.
  // `copy`: the vector's place in the trip (0 or 1).
  Avx2Operand OperandOf(const Avx2Value& v, bool tail, const Xbyak::Reg64* gprs, int copy) const {
    if (v.kind == Avx2Value::Kind::kRegister) return Avx2Operand::Register(v.reg);
    if (v.constant) return Avx2Operand::Constant(g_, *v.constant);
    if (v.kind == Avx2Value::Kind::kInput && !tail) {
      return Avx2Operand::Memory(g_.yword[gprs[v.gpr] + g_.rax * 4 + 32 * copy]);
    }
    return Avx2Operand::Memory(g_.yword[g_.rsp + v.offset]);
  }

  void EmitBody(bool tail, const Xbyak::Reg64* gprs, int copy) {
    pool_.Clear();
    for (int r : hoisted_) pool_.Reserve(r);
    values_.clear();
    for (const Slot& s : inputs_) {
      values_[s.parameter] = Avx2Value{Avx2Value::Kind::kInput, -1, s.offset, s.gpr};
    }
    for (const Slot& s : splats_) {
      Avx2Value v{Avx2Value::Kind::kSplat, -1, s.offset, -1};
      if (auto c = region_.splat_constant.find(s.number); c != region_.splat_constant.end()) {
        v.constant = c->second;
      }
      values_[s.parameter] = v;
    }
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const Instruction* x = region_.ops[i];
      std::vector<Avx2Operand> in;
      std::vector<int> widened;  // registers of bfloat16 inputs loaded for this op
      for (const Instruction* o : x->operands()) {
        const Instruction* v = region_.Root(o);
        const Avx2Value& value = values_.at(v);
        // (An integer input's type is float32's: its bits, loaded as they are.)
        const DType type = value.kind == Avx2Value::Kind::kInput
                               ? region_.input_type[region_.input_number.at(v)]
                               : DType::kF32;
        if (!tail && type != DType::kF32) {
          const Ymm w(pool_.Take());
          g_.LoadNarrow(w, g_.xword[gprs[value.gpr] + g_.rax * 2 + 16 * copy], type);
          widened.push_back(w.getIdx());
          in.push_back(Avx2Operand::Register(w.getIdx()));
          continue;
        }
        in.push_back(OperandOf(value, tail, gprs, copy));
      }
      Ymm d(0);
      if (x->opcode() == Opcode::kConvert) {
        d = Ymm(EmitConvert(*x, in[0]));
      } else {
        d = Ymm(EmitAvx2Op(g_, pool_, x->opcode(), in, x));
        RoundAvx2To(g_, pool_, d, x->shape().dtype);
      }
      for (int w : widened) pool_.Free(w);
      values_[x] = Avx2Value{Avx2Value::Kind::kRegister, d.getIdx(), 0, -1};
      if (auto r = region_.result_of.find(x); r != region_.result_of.end()) {
        if (tail) {
          g_.vmovups(g_.yword[g_.rsp + results_offset_ + 32 * r->second], d);
        } else if (region_.result_type[r->second] != DType::kF32) {
          g_.mov(g_.r10, g_.qword[g_.rsi + 8 * r->second]);
          StoreAvx2Narrow(g_, pool_, g_.xword[g_.r10 + g_.rax * 2 + 16 * copy], d,
                          region_.result_type[r->second], streaming_);
        } else {
          g_.mov(g_.r10, g_.qword[g_.rsi + 8 * r->second]);
          if (streaming_) {
            g_.vmovntps(g_.yword[g_.r10 + g_.rax * 4 + 32 * copy], d);
          } else {
            g_.vmovups(g_.yword[g_.r10 + g_.rax * 4 + 32 * copy], d);
          }
        }
      }
      if (!region_.Used(x)) pool_.Free(d.getIdx());
      for (const Instruction* o : x->operands()) {  // operands read for the last time
        const Instruction* v = region_.Root(o);
        const Avx2Value& value = values_.at(v);
        if (value.kind == Avx2Value::Kind::kRegister && region_.last_use.at(v) == i) {
          pool_.Free(value.reg);
        }
      }
    }
  }

  const JitRegion& region_;
  Avx2Code& g_;
  std::vector<Slot> inputs_, splats_;
  int32_t results_offset_ = 0, mask_offset_ = 0;
  Avx2RegisterPool pool_;
  absl::flat_hash_map<const Instruction*, Avx2Value> values_;
  std::vector<int> hoisted_;
  bool streaming_;
};

}  // namespace

std::unique_ptr<Thunk> GenerateAvx2Kernel(const JitRegion& region,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs) {
  // Integer results (IsJitIntResult) and values (JitCoversInt), pred inputs
  // and reversed inputs only the AVX-512 generator emits.
  if (region.avx512_only) return nullptr;
  for (DType t : region.result_type) {
    if (!JitCarries(t)) return nullptr;
  }
  for (DType t : region.input_type) {  // pred inputs too
    if (t == DType::kPred) return nullptr;
  }
  for (JitRegion::InputSpread s : region.input_spread) {
    if (s == JitRegion::InputSpread::kReversed || s == JitRegion::InputSpread::kReversedRows) {
      return nullptr;
    }
  }
  const size_t bytes = 16384 + 4096 * region.ops.size();
  // A first emission counts the constants' uses and the registers the body
  // needs; the second keeps the most used constants in the registers left
  // over (the tail's masked moves use ymm0 and ymm1: hoisting starts at 15).
  std::vector<std::pair<int64_t, uint32_t>> uses;
  int spare = 0;
  try {
    Avx2Code trial(bytes);
    Avx2Emitter first(region, trial);
    first.Emit();
    uses = trial.Uses();
    std::sort(uses.begin(), uses.end(), std::greater<>());
    spare = std::min(Avx2Code::kRegisters - first.PeakRegisters(), Avx2Code::kRegisters - 2);
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  auto emit = [&](bool stream) {
    auto c = std::make_unique<Avx2Code>(bytes);
    std::vector<int> hoisted;
    for (int k = 0; k < spare && k < static_cast<int>(uses.size()) && uses[k].first > 1; ++k) {
      const int reg = Avx2Code::kRegisters - 1 - k;
      c->Hoist(uses[k].second, reg);
      hoisted.push_back(reg);
    }
    Avx2Emitter(region, *c, std::move(hoisted), stream).Emit();
    c->readyRE();
    return c;
  };
  return MakeJitKernelThunkFrom(region, emit, inputs, outputs, /*alignment=*/32);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
