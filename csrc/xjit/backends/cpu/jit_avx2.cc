// The AVX2 generator of fused element-wise kernels (jit_fusion.h), for x86-64
// CPUs without AVX-512 (AMD before Zen 4, Intel client cores): 8 elements to
// a ymm register. With 16 registers instead of 32, inputs and splats stay in
// memory and are read as instruction operands (L1 hits after the first);
// registers hold computed values and each op's scratch, taken from the free
// ones at that op. No mask registers: selects blend by compare results, and
// the loop's last partial vector goes through the stack with masked moves.
// Each op rounds as the interpreter's kernel does (scalar_ops.h; the
// functions as fast_math.h, step by step), so both give the same bits.
#include <cstring>
#include <utility>

#include "xjit/backends/cpu/jit_region.h"

#if defined(__x86_64__)

namespace xjit::cpu {
namespace {

constexpr int kRegisters = 16;
constexpr int kLanes = 8;
constexpr int kTableSize = 128;  // constants, 8 copies each (no embedded broadcast in AVX2)
constexpr int kMaxInputs = 8;    // each held in a general register

// vcmpps predicates (ordered, quiet; unordered for the NaN test).
constexpr uint8_t kEq = 0x00, kLt = 0x11, kLe = 0x12, kUnord = 0x03, kGt = 0x1E;

using Xbyak::Ymm;

// Scratch registers each op needs besides its result.
int ScratchOf(Opcode op) {
  switch (op) {
    case Opcode::kMaximum: case Opcode::kMinimum: return 2;
    case Opcode::kRsqrt: return 1;
    case Opcode::kExponential: case Opcode::kLog: return 6;
    case Opcode::kTanh: return 5;
    case Opcode::kLogistic: return 7;
    case Opcode::kLogPlusOne: case Opcode::kExponentialMinusOne: return 8;
    default: return 0;
  }
}

class Avx2Code : public Xbyak::CodeGenerator {
 public:
  explicit Avx2Code(size_t bytes) : Xbyak::CodeGenerator(bytes) {
    for (int i = 0; i < kLanes; ++i) tail_mask_[i] = -1;
  }

  // A constant as a full-vector operand (the table's base is in r11).
  Xbyak::Address C(float v) { return yword[r11 + 32 * Index(BitsOf(v))]; }
  Xbyak::Address Bits(uint32_t bits) { return yword[r11 + 32 * Index(bits)]; }
  const uint32_t* table() const { return table_; }
  // tail_mask() + 8 - k: k all-ones lanes, then zeros.
  const int32_t* tail_mask() const { return tail_mask_; }

  // fast_math.h's FastExp; s: 6 scratch registers.
  void Exp(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &c = s[0], &n = s[1], &r = s[2], &p = s[3], &a = s[4], &b = s[5];
    vminps(c, x, C(88.7228394f));  // x < max ? x : max
    vmaxps(c, c, C(-103.972076f)); // c > min ? c : min
    vmulps(n, c, C(1.44269504088896341f));
    vaddps(n, n, C(12582912.0f));
    vsubps(n, n, C(12582912.0f));
    vmovaps(r, c);
    vfmadd231ps(r, n, C(-0.693359375f));
    vfmadd231ps(r, n, C(2.12194440e-4f));
    vmovups(p, C(1.9875691500e-4f));
    for (float k : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f,
                    5.0000001201e-1f}) {
      vfmadd213ps(p, r, C(k));
    }
    vmulps(p, p, r);
    vfmadd213ps(p, r, r);
    vaddps(p, p, C(1.0f));
    vcvttps2dq(n, n);
    vpsrad(a, n, 1);  // half
    vpsubd(b, n, a);  // ni - half
    vpaddd(a, a, Bits(127));
    vpslld(a, a, 23);
    vpaddd(b, b, Bits(127));
    vpslld(b, b, 23);
    vmulps(p, p, a);
    vmulps(p, p, b);
    // x < min ? 0 : (x <= max ? out : (x > max ? inf : x))
    vcmpps(c, x, C(88.7228394f), kGt);
    vblendvps(d, x, C(__builtin_inff()), c);
    vcmpps(c, x, C(88.7228394f), kLe);
    vblendvps(d, d, p, c);
    vcmpps(c, x, C(-103.972076f), kLt);
    vandnps(d, c, d);
  }

  // fast_math.h's FastTanh; s: 5 scratch registers.
  void Tanh(const Ymm& d, const Ymm& x, const Ymm* s) {
    constexpr float kClamp = 7.90531110763549805f, kTiny = 0.0004f;
    const Ymm &c = s[0], &t = s[1], &x2 = s[2], &p = s[3], &q = s[4];
    vmovups(t, C(-kClamp));
    vmaxps(c, t, x);  // x < -clamp ? -clamp : x
    vmovups(t, C(kClamp));
    vminps(c, t, c);  // c > clamp ? clamp : c
    vmulps(x2, c, c);
    vmovups(p, C(-2.76076847742355e-16f));
    for (float k : {2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
                    1.48572235717979e-05f, 6.37261928875436e-04f, 4.89352455891786e-03f}) {
      vfmadd213ps(p, x2, C(k));
    }
    vmulps(p, p, c);
    vmovups(q, C(1.19825839466702e-06f));
    for (float k : {1.18534705686654e-04f, 2.26843463243900e-03f, 4.89352518554385e-03f}) {
      vfmadd213ps(q, x2, C(k));
    }
    vdivps(p, p, q);
    vcmpps(t, x, C(kClamp), kGt);
    vblendvps(p, p, C(1.0f), t);
    vcmpps(t, x, C(-kClamp), kLt);
    vblendvps(p, p, C(-1.0f), t);
    vcmpps(t, x, C(kTiny), kLt);
    vcmpps(q, x, C(-kTiny), kGt);
    vandps(t, t, q);
    vblendvps(d, p, x, t);
  }

  // fast_math.h's FastLog; s: 6 scratch registers.
  void Log(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &sx = s[0], &e = s[1], &m = s[2], &z = s[3], &y = s[4], &sub = s[5];
    vcmpps(sub, x, C(1.17549435e-38f), kLt);  // subnormal (or 0, negative)
    vmulps(e, x, C(8388608.0f));
    vblendvps(sx, x, e, sub);
    vpsrld(e, sx, 23);
    vpand(e, e, Bits(0xffu));
    vpsubd(e, e, Bits(126));
    vpand(m, sx, Bits(0x007fffffu));
    vpor(m, m, Bits(0x3f000000u));
    vcmpps(z, m, C(0.707106781186547524f), kLt);  // low: all ones, -1 as an integer
    vpaddd(e, e, z);                              // e - 1 where low
    vaddps(y, m, m);
    vblendvps(m, m, y, z);
    vsubps(m, m, C(1.0f));  // f
    vpsubd(z, e, Bits(23));
    vblendvps(e, e, z, sub);
    vcvtdq2ps(e, e);  // fe
    vmulps(z, m, m);
    vmovups(y, C(7.0376836292E-2f));
    for (float k : {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f,
                    -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f}) {
      vfmadd213ps(y, m, C(k));
    }
    vmulps(y, y, m);
    vmulps(y, y, z);
    vfmadd231ps(y, e, C(-2.12194440e-4f));
    vfmadd231ps(y, z, C(-0.5f));
    vaddps(y, m, y);
    vfmadd231ps(y, e, C(0.693359375f));
    vcmpps(sub, x, C(__builtin_inff()), kEq);
    vblendvps(y, y, x, sub);
    vcmpps(sub, x, C(0.0f), kEq);
    vblendvps(y, y, C(-__builtin_inff()), sub);
    vcmpps(sub, x, C(0.0f), kLt);
    vblendvps(y, y, C(__builtin_nanf("")), sub);
    vcmpps(sub, x, x, kUnord);
    vblendvps(d, y, x, sub);
  }

  // fast_math.h's FastLog1p; s: 8 scratch registers (2 + Log's).
  void Log1p(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &u = s[0], &q = s[1];
    vaddps(u, x, C(1.0f));
    Log(d, u, s + 2);
    vsubps(q, u, C(1.0f));
    vdivps(q, x, q);
    vmulps(d, d, q);
    vcmpps(q, u, C(1.0f), kEq);
    vblendvps(d, d, x, q);
    vcmpps(q, x, C(__builtin_inff()), kEq);
    vblendvps(d, d, x, q);
  }

  // fast_math.h's FastExpm1; s: 8 scratch registers (2 + Exp's or Log's).
  void Expm1(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &u = s[0], &um1 = s[1], &k = s[2];
    Exp(u, x, s + 2);
    vsubps(um1, u, C(1.0f));
    Log(d, u, s + 2);
    vdivps(d, x, d);
    vmulps(d, um1, d);
    vcmpps(k, u, C(1.0f), kEq);
    vblendvps(d, d, x, k);
    vcmpps(k, um1, C(-1.0f), kEq);
    vblendvps(d, d, C(-1.0f), k);
    vcmpps(k, u, C(__builtin_inff()), kEq);
    vblendvps(d, d, u, k);
    vcmpps(k, x, x, kUnord);
    vblendvps(d, d, x, k);
  }

  // fast_math.h's FastLogistic; s: 7 scratch registers (1 + Exp's).
  void Logistic(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm& t = s[0];
    vxorps(t, x, Bits(0x80000000u));
    Exp(d, t, s + 1);
    vaddps(d, d, C(1.0f));
    vmovups(t, C(1.0f));
    vdivps(d, t, d);
  }

  // scalar_ops.h's Maximum/Minimum of floats: NaN wins, equal values AND/OR
  // their bits. s: 2 scratch registers.
  void MaxMin(const Ymm& d, const Ymm& a, const Ymm& b, bool max, const Ymm* s) {
    const Ymm &k = s[0], &t = s[1];
    vcmpps(k, b, a, max ? kGt : kLt);
    vblendvps(d, a, b, k);
    vcmpps(k, a, b, kEq);
    if (max) {
      vandps(t, a, b);
    } else {
      vorps(t, a, b);
    }
    vblendvps(d, d, t, k);
    vcmpps(k, b, b, kUnord);
    vblendvps(d, d, b, k);
  }

 private:
  static uint32_t BitsOf(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits;
  }
  // The constant's slot in the table, added on first use; throws once full
  // (the generator then leaves the region to the interpreter).
  int Index(uint32_t bits) {
    int i = 0;
    while (i < table_size_ && table_[kLanes * i] != bits) ++i;
    if (i == table_size_) {
      if (table_size_ == kTableSize) throw Xbyak::Error(Xbyak::ERR_CODE_IS_TOO_BIG);
      for (int l = 0; l < kLanes; ++l) table_[kLanes * i + l] = bits;
      ++table_size_;
    }
    return i;
  }

  alignas(32) uint32_t table_[kTableSize * kLanes] = {};
  alignas(32) int32_t tail_mask_[2 * kLanes] = {};
  int table_size_ = 0;
};

// Where a region value is during one pass of the loop body.
struct Avx2Value {
  enum class Kind { kRegister, kInput, kSplat } kind = Kind::kRegister;
  int reg = -1;    // kRegister
  int32_t offset;  // kSplat: its 8 copies at [rsp + offset]; kInput in the tail: same
  int gpr = -1;    // kInput in the main loop: the register holding its address
};

// Emits the loop; throws Xbyak::Error when the region does not fit.
class Avx2Emitter {
 public:
  Avx2Emitter(const JitRegion& region, Avx2Code& g) : region_(region), g_(g) {}

  void Emit() {
    using namespace Xbyak::util;
    const Xbyak::Reg64 input_gprs[kMaxInputs] = {r8, r9, rbx, rbp, r12, r13, r14, r15};
    // Stack slots: splats, then the tail's inputs, its results and its mask.
    int32_t frame = 0;
    for (const Instruction* p : region_.parameters) {
      if (!region_.Used(p)) continue;
      const int number = static_cast<int>(p->attrs<ParameterAttrs>().number);
      Slot slot{p, number, frame, -1};
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
      g_.vbroadcastss(Ymm(0), g_.dword[r10]);
      g_.vmovups(g_.yword[rsp + s.offset], Ymm(0));
    }
    g_.xor_(eax, eax);
    g_.mov(rcx, rdx);
    g_.and_(rcx, -kLanes);  // the whole vectors end here
    Xbyak::Label loop, tail, done;
    g_.L(loop);
    g_.cmp(rax, rcx);
    g_.jge(tail, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false, input_gprs);
    g_.add(rax, kLanes);
    g_.jmp(loop, Xbyak::CodeGenerator::T_NEAR);
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
      g_.vmaskmovps(Ymm(1), Ymm(0), g_.ptr[input_gprs[s.gpr] + rax * 4]);
      g_.vmovups(g_.yword[rsp + s.offset], Ymm(1));
    }
    EmitBody(true, input_gprs);
    for (const auto& [op, j] : region_.result_of) {
      g_.vmovups(Ymm(0), g_.yword[rsp + mask_offset_]);
      g_.vmovups(Ymm(1), g_.yword[rsp + results_offset_ + 32 * j]);
      g_.mov(r10, g_.qword[rsi + 8 * j]);
      g_.vmaskmovps(g_.ptr[r10 + rax * 4], Ymm(0), Ymm(1));
    }
    g_.L(done);
    g_.add(rsp, frame);
    for (const Xbyak::Reg64& r : {r15, r14, r13, r12, rbp, rbx}) g_.pop(r);
    g_.vzeroupper();
    g_.ret();
  }

 private:
  struct Slot {
    const Instruction* parameter;
    int number;
    int32_t offset;
    int gpr;
  };

  int Take() {
    for (int r = 0; r < kRegisters; ++r) {
      if (!busy_[r]) {
        busy_[r] = true;
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // more live values than registers
  }

  // The operand reading value v: its register, or its memory.
  Xbyak::Address MemoryOf(const Avx2Value& v, bool tail, const Xbyak::Reg64* gprs) const {
    if (v.kind == Avx2Value::Kind::kInput && !tail) return g_.yword[gprs[v.gpr] + g_.rax * 4];
    return g_.yword[g_.rsp + v.offset];
  }

  void Arithmetic(Opcode op, const Ymm& d, const Ymm& a, const Xbyak::Operand& b) {
    switch (op) {
      case Opcode::kAdd: g_.vaddps(d, a, b); break;
      case Opcode::kSubtract: g_.vsubps(d, a, b); break;
      case Opcode::kMultiply: g_.vmulps(d, a, b); break;
      default: g_.vdivps(d, a, b); break;
    }
  }

  void EmitBody(bool tail, const Xbyak::Reg64* gprs) {
    for (bool& b : busy_) b = false;
    values_.clear();
    for (const Slot& s : inputs_) {
      values_[s.parameter] = Avx2Value{Avx2Value::Kind::kInput, -1, s.offset, s.gpr};
    }
    for (const Slot& s : splats_) {
      values_[s.parameter] = Avx2Value{Avx2Value::Kind::kSplat, -1, s.offset, -1};
    }
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const Instruction* x = region_.ops[i];
      const Opcode op = x->opcode();
      std::vector<const Avx2Value*> in;
      for (const Instruction* o : x->operands()) in.push_back(&values_.at(region_.Root(o)));
      const Ymm d(Take());
      std::vector<int> temporaries;
      // An operand in memory, in a register (loaded into a temporary).
      auto reg = [&](const Avx2Value& v) {
        if (v.kind == Avx2Value::Kind::kRegister) return Ymm(v.reg);
        const int t = Take();
        temporaries.push_back(t);
        g_.vmovups(Ymm(t), MemoryOf(v, tail, gprs));
        return Ymm(t);
      };
      Ymm scratch[8];
      const int num_scratch = ScratchOf(op);
      switch (op) {
        case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply:
        case Opcode::kDivide: {
          const Avx2Value *a = in[0], *b = in[1];
          const bool commutes = op == Opcode::kAdd || op == Opcode::kMultiply;
          if (commutes && a->kind != Avx2Value::Kind::kRegister &&
              b->kind == Avx2Value::Kind::kRegister) {
            std::swap(a, b);
          }
          Ymm first = d;
          if (a->kind == Avx2Value::Kind::kRegister) {
            first = Ymm(a->reg);
          } else {
            g_.vmovups(d, MemoryOf(*a, tail, gprs));
          }
          if (b->kind == Avx2Value::Kind::kRegister) {
            Arithmetic(op, d, first, Ymm(b->reg));
          } else {
            Arithmetic(op, d, first, MemoryOf(*b, tail, gprs));
          }
          break;
        }
        case Opcode::kNegate:
        case Opcode::kAbs: {
          Ymm a = d;
          if (in[0]->kind == Avx2Value::Kind::kRegister) {
            a = Ymm(in[0]->reg);
          } else {
            g_.vmovups(d, MemoryOf(*in[0], tail, gprs));
          }
          if (op == Opcode::kNegate) {
            g_.vxorps(d, a, g_.Bits(0x80000000u));
          } else {
            g_.vandps(d, a, g_.Bits(0x7fffffffu));
          }
          break;
        }
        case Opcode::kSqrt:
          if (in[0]->kind == Avx2Value::Kind::kRegister) {
            g_.vsqrtps(d, Ymm(in[0]->reg));
          } else {
            g_.vsqrtps(d, MemoryOf(*in[0], tail, gprs));
          }
          break;
        default: {
          std::vector<Ymm> r;
          for (const Avx2Value* v : in) r.push_back(reg(*v));
          for (int k = 0; k < num_scratch; ++k) {
            scratch[k] = Ymm(Take());
            temporaries.push_back(scratch[k].getIdx());
          }
          switch (op) {
            case Opcode::kMaximum: g_.MaxMin(d, r[0], r[1], true, scratch); break;
            case Opcode::kMinimum: g_.MaxMin(d, r[0], r[1], false, scratch); break;
            case Opcode::kRsqrt:
              g_.vsqrtps(scratch[0], r[0]);
              g_.vmovups(d, g_.C(1.0f));
              g_.vdivps(d, d, scratch[0]);
              break;
            case Opcode::kExponential: g_.Exp(d, r[0], scratch); break;
            case Opcode::kTanh: g_.Tanh(d, r[0], scratch); break;
            case Opcode::kLog: g_.Log(d, r[0], scratch); break;
            case Opcode::kLogPlusOne: g_.Log1p(d, r[0], scratch); break;
            case Opcode::kLogistic: g_.Logistic(d, r[0], scratch); break;
            case Opcode::kExponentialMinusOne: g_.Expm1(d, r[0], scratch); break;
            default: throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // not covered
          }
        }
      }
      for (int t : temporaries) busy_[t] = false;
      values_[x] = Avx2Value{Avx2Value::Kind::kRegister, d.getIdx(), 0, -1};
      if (auto r = region_.result_of.find(x); r != region_.result_of.end()) {
        if (tail) {
          g_.vmovups(g_.yword[g_.rsp + results_offset_ + 32 * r->second], d);
        } else {
          g_.mov(g_.r10, g_.qword[g_.rsi + 8 * r->second]);
          g_.vmovups(g_.yword[g_.r10 + g_.rax * 4], d);
        }
      }
      if (!region_.Used(x)) busy_[d.getIdx()] = false;
      for (const Instruction* o : x->operands()) {  // operands read for the last time
        const Instruction* v = region_.Root(o);
        const Avx2Value& value = values_.at(v);
        if (value.kind == Avx2Value::Kind::kRegister && region_.last_use.at(v) == i) {
          busy_[value.reg] = false;
        }
      }
    }
  }

  const JitRegion& region_;
  Avx2Code& g_;
  std::vector<Slot> inputs_, splats_;
  int32_t results_offset_ = 0, mask_offset_ = 0;
  bool busy_[kRegisters] = {};
  absl::flat_hash_map<const Instruction*, Avx2Value> values_;
};

}  // namespace

std::unique_ptr<Thunk> GenerateAvx2Kernel(const JitRegion& region,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs) {
  auto code = std::make_unique<Avx2Code>(16384 + 2048 * region.ops.size());
  try {
    Avx2Emitter(region, *code).Emit();
    code->readyRE();
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  JitKernelFn fn = code->getCode<JitKernelFn>();
  return MakeJitKernelThunk(std::move(code), fn, region, inputs, outputs);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
