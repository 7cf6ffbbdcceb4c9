// The AVX-512 generator of fused element-wise kernels (jit_fusion.h): each
// value of the region lives in a zmm register for 16 elements at a time, the
// loop's last partial vector under the k1 mask. Each op rounds as the
// interpreter's kernel does (scalar_ops.h; exp and tanh as fast_math.h, step
// by step), so both give the same bits.
#include <cstring>
#include <utility>

#include "xjit/backends/cpu/jit_fast_math.h"
#include "xjit/backends/cpu/jit_region.h"

#if defined(__x86_64__)

namespace xjit::cpu {
namespace {

constexpr int kValueRegisters = 25;    // zmm0..24 hold values; zmm25..31 are scratch
constexpr int kTableSize = 128;        // constants, read by broadcast

// vcmpps predicates (ordered, quiet; unordered for the NaN test).
constexpr uint8_t kEq = 0x00, kLt = 0x11, kLe = 0x12, kUnord = 0x03, kGt = 0x1E;

using Xbyak::Zmm;

// Runs fn(const float* const* in, float* const* out, int64_t count).
class ChainCode : public Xbyak::CodeGenerator {
 public:
  explicit ChainCode(size_t bytes) : Xbyak::CodeGenerator(bytes) {}

  using Fn = void (*)(const void* const* in, void* const* out, int64_t count);
  Fn fn() const { return getCode<Fn>(); }

  // A constant's broadcast operand, and its plain 32-bit operand (the table's
  // base is in r11).
  Xbyak::Address C(float v) { return ptr_b[r11 + 4 * Index(BitsOf(v))]; }
  Xbyak::Address Bits(uint32_t bits) { return ptr_b[r11 + 4 * Index(bits)]; }
  Xbyak::Address Scalar(float v) { return dword[r11 + 4 * Index(BitsOf(v))]; }
  void LoadConstant(const Zmm& reg, float v) { vbroadcastss(reg, Scalar(v)); }
  const uint32_t* table() const { return table_; }

  // fast_math.h's FastExp, instruction for instruction (jit_fast_math.h).
  void Exp(const Zmm& d, const Zmm& x) {
    const Zmm c(25), n(26), r(27), p(28), a(29), b(30);
    EmitExpSteps(*this, x, c, n, r, p, a, b);
    // x < min ? 0 : (x <= max ? out : (x > max ? inf : x))
    vmovaps(d, x);
    vcmpps(k2, x, C(88.7228394f), kGt);
    vbroadcastss(d | k2, Scalar(__builtin_inff()));
    vcmpps(k2, x, C(88.7228394f), kLe);
    vmovaps(d | k2, p);
    vcmpps(k2, x, C(-103.972076f), kLt);
    vpxord(d | k2, d, d);
  }

  // fast_math.h's FastTanh, instruction for instruction.
  void Tanh(const Zmm& d, const Zmm& x) {
    constexpr float kClamp = 7.90531110763549805f, kTiny = 0.0004f;
    const Zmm c(25), t(26), x2(27), p(28), q(29);
    EmitTanhSteps(*this, x, c, t, x2, p, q);
    vcmpps(k2, x, C(kClamp), kGt);
    vbroadcastss(p | k2, Scalar(1.0f));
    vcmpps(k2, x, C(-kClamp), kLt);
    vbroadcastss(p | k2, Scalar(-1.0f));
    vmovaps(d, p);
    vcmpps(k2, x, C(kTiny), kLt);
    vcmpps(k2 | k2, x, C(-kTiny), kGt);
    vmovaps(d | k2, x);
  }

  // fast_math.h's FastLog, instruction for instruction.
  void Log(const Zmm& d, const Zmm& x) {
    const Zmm s(25), e(26), m(27), z(28), y(29);
    vmovaps(s, x);
    vcmpps(k2, x, C(1.17549435e-38f), kLt);  // subnormal (or 0, negative)
    vmulps(s | k2, x, C(8388608.0f));
    vpsrld(e, s, 23);
    vpandd(e, e, Bits(0xffu));
    vpsubd(e, e, Bits(126));
    vpandd(m, s, Bits(0x007fffffu));
    vpord(m, m, Bits(0x3f000000u));
    vcmpps(k3, m, C(0.707106781186547524f), kLt);
    vpsubd(e | k3, e, Bits(1));
    vaddps(m | k3, m, m);
    vsubps(m, m, C(1.0f));  // f
    vpsubd(e | k2, e, Bits(23));
    vcvtdq2ps(e, e);        // fe
    EmitLogSteps(*this, m, e, z, y);
    vcmpps(k2, x, C(__builtin_inff()), kEq);
    vmovaps(y | k2, x);
    vcmpps(k2, x, C(0.0f), kEq);
    vbroadcastss(y | k2, Scalar(-__builtin_inff()));
    vcmpps(k2, x, C(0.0f), kLt);
    vbroadcastss(y | k2, Scalar(__builtin_nanf("")));
    vmovaps(d, y);
    vcmpps(k2, x, x, kUnord);
    vmovaps(d | k2, x);
  }

  // fast_math.h's FastLog1p (zmm30 and zmm31 are its own scratch).
  void Log1p(const Zmm& d, const Zmm& x) {
    const Zmm u(30), q(31);
    vaddps(u, x, C(1.0f));
    Log(d, u);
    vsubps(q, u, C(1.0f));
    vdivps(q, x, q);
    vmulps(d, d, q);
    vcmpps(k2, u, C(1.0f), kEq);
    vmovaps(d | k2, x);
    vcmpps(k2, x, C(__builtin_inff()), kEq);
    vmovaps(d | k2, x);
  }

  // fast_math.h's FastExpm1 (zmm30 and zmm31 are its own scratch).
  void Expm1(const Zmm& d, const Zmm& x) {
    const Zmm u(31), um1(30);
    Exp(u, x);
    vsubps(um1, u, C(1.0f));
    Log(d, u);
    vdivps(d, x, d);
    vmulps(d, um1, d);
    vcmpps(k2, u, C(1.0f), kEq);
    vmovaps(d | k2, x);
    vcmpps(k2, um1, C(-1.0f), kEq);
    vbroadcastss(d | k2, Scalar(-1.0f));
    vcmpps(k2, u, C(__builtin_inff()), kEq);
    vmovaps(d | k2, u);
    vcmpps(k2, x, x, kUnord);
    vmovaps(d | k2, x);
  }

  // fast_math.h's FastLogistic (zmm31 is its own scratch).
  void Logistic(const Zmm& d, const Zmm& x) {
    const Zmm t(31);
    vpxord(t, x, Bits(0x80000000u));
    Exp(d, t);
    vaddps(d, d, C(1.0f));
    vbroadcastss(t, Scalar(1.0f));
    vdivps(d, t, d);
  }

  // scalar_ops.h's Maximum/Minimum of floats: NaN wins, equal values AND/OR
  // their bits.
  void MaxMin(const Zmm& d, const Zmm& a, const Zmm& b, bool max) {
    vmovaps(d, a);
    vcmpps(k2, b, a, max ? kGt : kLt);
    vmovaps(d | k2, b);
    vcmpps(k2, a, b, kEq);
    if (max) {
      vpandd(d | k2, a, b);
    } else {
      vpord(d | k2, a, b);
    }
    vcmpps(k2, b, b, kUnord);
    vmovaps(d | k2, b);
  }

 private:
  static uint32_t BitsOf(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits;
  }
  // The constant's slot in the table, added on first use; throws once full
  // (Generate then leaves the region to the interpreter).
  int Index(uint32_t bits) {
    int i = 0;
    while (i < table_size_ && table_[i] != bits) ++i;
    if (i == table_size_) {
      if (table_size_ == kTableSize) throw Xbyak::Error(Xbyak::ERR_CODE_IS_TOO_BIG);
      table_[table_size_++] = bits;
    }
    return i;
  }

  uint32_t table_[kTableSize] = {};
  int table_size_ = 0;
};

// A region value: a register, and for a fusion operand its index.
struct JitValue {
  int reg = -1;
  int param = -1;
  bool splat = false;
};

}  // namespace

std::unique_ptr<Thunk> GenerateAvx512Kernel(const JitRegion& region,
                                            const std::vector<SlotId>& inputs,
                                            const std::vector<SlotId>& outputs) {
  auto code = std::make_unique<ChainCode>(8192 + 512 * region.ops.size());
  ChainCode& g = *code;
  using namespace Xbyak::util;
  absl::flat_hash_map<const Instruction*, JitValue> values;
  std::vector<bool> busy(kValueRegisters, false);
  auto take = [&]() -> int {
    for (int r = 0; r < kValueRegisters; ++r) {
      if (!busy[r]) {
        busy[r] = true;
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // more live values than registers
  };
  // Frees operands read for the last time at position i.
  auto release = [&](const Instruction* x, size_t i) {
    for (const Instruction* o : x->operands()) {
      const Instruction* v = region.Root(o);
      auto it = values.find(v);
      // Splats stay in their register for the whole loop.
      if (it != values.end() && region.last_use.at(v) == i && it->second.reg >= 0 && !it->second.splat) {
        busy[it->second.reg] = false;
        it->second.reg = -1;
      }
    }
  };
  try {
    g.mov(r11, reinterpret_cast<size_t>(g.table()));
    // Splats are broadcast once, before the loop.
    for (const Instruction* p : region.parameters) {
      const int number = region.input_number.at(p);
      JitValue v{-1, number, region.input_splat[number]};
      if (v.splat && region.Used(p)) {
        v.reg = take();
        g.mov(r8, g.qword[rdi + 8 * number]);
        g.vbroadcastss(Zmm(v.reg), g.dword[r8]);
      }
      values[p] = v;
    }
    g.xor_(eax, eax);
    Xbyak::Label loop, done;
    g.L(loop);
    g.cmp(rax, rdx);
    g.jge(done, Xbyak::CodeGenerator::T_NEAR);
    // k1: the lanes in range (16, or what is left).
    g.mov(rcx, rdx);
    g.sub(rcx, rax);
    g.mov(r10d, 16);
    g.cmp(rcx, r10);
    g.cmovg(rcx, r10);
    g.mov(r10d, 1);
    g.shl(r10, cl);
    g.dec(r10);
    g.kmovw(k1, r10d);
    for (const Instruction* p : region.parameters) {
      JitValue& v = values[p];
      if (v.splat || !region.Used(p)) continue;
      v.reg = take();
      g.mov(r8, g.qword[rdi + 8 * v.param]);
      g.vmovups(Zmm(v.reg) | k1 | Xbyak::util::T_z, g.ptr[r8 + rax * 4]);
    }
    for (size_t i = 0; i < region.ops.size(); ++i) {
      const Instruction* x = region.ops[i];
      std::vector<Zmm> in;
      for (const Instruction* o : x->operands()) in.emplace_back(values.at(region.Root(o)).reg);
      const Zmm d(take());
      switch (x->opcode()) {
        case Opcode::kAdd: g.vaddps(d, in[0], in[1]); break;
        case Opcode::kSubtract: g.vsubps(d, in[0], in[1]); break;
        case Opcode::kMultiply: g.vmulps(d, in[0], in[1]); break;
        case Opcode::kDivide: g.vdivps(d, in[0], in[1]); break;
        case Opcode::kMaximum: g.MaxMin(d, in[0], in[1], true); break;
        case Opcode::kMinimum: g.MaxMin(d, in[0], in[1], false); break;
        case Opcode::kNegate: g.vpxord(d, in[0], g.Bits(0x80000000u)); break;
        case Opcode::kAbs: g.vpandd(d, in[0], g.Bits(0x7fffffffu)); break;
        case Opcode::kSqrt: g.vsqrtps(d, in[0]); break;
        case Opcode::kRsqrt:
          g.vsqrtps(Zmm(25), in[0]);
          g.vbroadcastss(d, g.Scalar(1.0f));
          g.vdivps(d, d, Zmm(25));
          break;
        case Opcode::kExponential: g.Exp(d, in[0]); break;
        case Opcode::kTanh: g.Tanh(d, in[0]); break;
        case Opcode::kLog: g.Log(d, in[0]); break;
        case Opcode::kLogPlusOne: g.Log1p(d, in[0]); break;
        case Opcode::kLogistic: g.Logistic(d, in[0]); break;
        case Opcode::kExponentialMinusOne: g.Expm1(d, in[0]); break;
        default: return nullptr;
      }
      values[x] = JitValue{d.getIdx(), -1, false};
      if (auto r = region.result_of.find(x); r != region.result_of.end()) {
        g.mov(r9, g.qword[rsi + 8 * r->second]);
        g.vmovups(g.ptr[r9 + rax * 4] | k1, d);
      }
      if (!region.Used(x)) {
        busy[d.getIdx()] = false;
        values[x].reg = -1;
      }
      release(x, i);
    }
    // Every register of a value read in the body is free again by its end.
    for (const Instruction* p : region.parameters) {
      JitValue& v = values[p];
      if (!v.splat && v.reg >= 0) {
        busy[v.reg] = false;
        v.reg = -1;
      }
    }
    g.add(rax, 16);
    g.jmp(loop, Xbyak::CodeGenerator::T_NEAR);
    g.L(done);
    g.vzeroupper();
    g.ret();
    g.readyRE();
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  ChainCode::Fn fn = code->fn();
  return MakeJitKernelThunk(std::move(code), fn, region, inputs, outputs);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
