// The AVX-512 generator of fused element-wise kernels (jit_fusion.h): each
// value of the region lives in a zmm register for 16 elements at a time.
// Whole vectors run unmasked; the loop's last partial vector runs once more
// under the k1 mask. Each op rounds as the interpreter's kernel does
// (scalar_ops.h; exp, tanh and log as fast_math.h, step by step), so both
// give the same bits. exp, tanh and log take a short path when no lane of
// the vector needs a special case (the same bits; the full sequence is out
// of line). bfloat16 values live in float32 lanes as in the AVX2 generator
// (jit_region.h): loads widen, bf16 ops round to nearest even, stores narrow
// (vpmovdw, AVX-512BW). Results past half the last-level cache have a
// streaming variant (jit_region.h: WritesPastTheCache).
#include <cstring>
#include <deque>
#include <functional>
#include <utility>

#include "xjit/backends/cpu/jit_fast_math.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_region.h"

#if defined(__x86_64__)

namespace xjit::cpu {
namespace {

constexpr int kLanes = 16;
constexpr int kValueRegisters = 25;    // zmm0..24 hold values; zmm25..31 are scratch
constexpr int kTableSize = 128;        // constants, read by broadcast

// vcmpps predicates (ordered, quiet; unordered for the NaN test; not <= and
// not >= are true for NaN too).
constexpr uint8_t kEq = 0x00, kLt = 0x11, kLe = 0x12, kUnord = 0x03, kGt = 0x1E, kNleUq = 0x16,
                  kNgeUq = 0x19;

using Xbyak::Zmm;

// Runs fn(const void* const* in, void* const* out, int64_t count).
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
  // When every lane is in [-87, 87] (no NaN, no overflow) 2^n is one factor
  // and no special case applies: the short sequence, the same bits.
  void Exp(const Zmm& d, const Zmm& x) {
    const Zmm c(25), n(26), r(27), p(28), a(29), b(30);
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vpandd(a, x, Bits(0x7fffffffu));
    vcmpps(k2, a, C(87.0f), kNleUq);
    kortestw(k2, k2);
    jnz(cold, T_NEAR);
    EmitExpFastSteps(*this, x, n, r, p, b);
    vmulps(d, p, b);
    L(back);
    cold_.push_back([this, d, x, c, n, r, p, a, b, &cold, &back] {
      L(cold);
      EmitExpSteps(*this, x, c, n, r, p, a, b);
      // x < min ? 0 : (x <= max ? out : (x > max ? inf : x))
      vmovaps(d, x);
      vcmpps(k2, x, C(88.7228394f), kGt);
      vbroadcastss(d | k2, Scalar(__builtin_inff()));
      vcmpps(k2, x, C(88.7228394f), kLe);
      vmovaps(d | k2, p);
      vcmpps(k2, x, C(-103.972076f), kLt);
      vpxord(d | k2, d, d);
      jmp(back, T_NEAR);
    });
  }

  // fast_math.h's FastTanh, instruction for instruction. When every lane
  // has 0.0004 <= |x| <= the clamp (no NaN) only the rational function is
  // needed.
  void Tanh(const Zmm& d, const Zmm& x) {
    constexpr float kClamp = 7.90531110763549805f, kTiny = 0.0004f;
    const Zmm c(25), t(26), x2(27), p(28), q(29);
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vpandd(c, x, Bits(0x7fffffffu));
    vcmpps(k2, c, C(kClamp), kNleUq);
    vcmpps(k3, c, C(kTiny), kLt);
    kortestw(k2, k3);
    jnz(cold, T_NEAR);
    EmitTanhRational(*this, x, x2, d, q);
    L(back);
    cold_.push_back([this, d, x, c, t, x2, p, q, &cold, &back] {
      L(cold);
      EmitTanhSteps(*this, x, c, t, x2, p, q);
      vcmpps(k2, x, C(kClamp), kGt);
      vbroadcastss(p | k2, Scalar(1.0f));
      vcmpps(k2, x, C(-kClamp), kLt);
      vbroadcastss(p | k2, Scalar(-1.0f));
      vmovaps(d, p);
      vcmpps(k2, x, C(kTiny), kLt);
      vcmpps(k2 | k2, x, C(-kTiny), kGt);
      vmovaps(d | k2, x);
      jmp(back, T_NEAR);
    });
  }

  // fast_math.h's FastLog, instruction for instruction. When every lane is a
  // positive normal finite float the subnormal scaling and the special cases
  // are skipped (the same bits).
  void Log(const Zmm& d, const Zmm& x) {
    const Zmm s(25), e(26), m(27), z(28), y(29);
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vcmpps(k2, x, C(1.17549435e-38f), kNgeUq);  // under the normals, or NaN
    vcmpps(k3, x, C(3.40282347e+38f), kNleUq);  // inf, or NaN
    kortestw(k2, k3);
    jnz(cold, T_NEAR);
    vpsrld(e, x, 23);  // the sign bit is clear
    vpsubd(e, e, Bits(126));
    vpandd(m, x, Bits(0x007fffffu));
    vpord(m, m, Bits(0x3f000000u));
    vcmpps(k3, m, C(0.707106781186547524f), kLt);
    vpsubd(e | k3, e, Bits(1));
    vaddps(m | k3, m, m);
    vsubps(m, m, C(1.0f));  // f
    vcvtdq2ps(e, e);        // fe
    EmitLogSteps(*this, m, e, z, d);
    L(back);
    cold_.push_back([this, d, x, s, e, m, z, y, &cold, &back] {
      L(cold);
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
      jmp(back, T_NEAR);
    });
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

  // fast_math.h's FastExpm1 (zmm30 and zmm31 are its own scratch; Exp's
  // full sequence uses zmm30 before um1 is set).
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

  // Rounds the floats in d to bfloat16 in place as bf16(float) does
  // (ir/half.h): to nearest even; a NaN made quiet keeping its top bits.
  // Not vcvtneps2bf16: it flushes denormals to zero.
  void RoundToBf16(const Zmm& d) {
    const Zmm t(30);
    vpsrld(t, d, 16);
    vpandd(t, t, Bits(1));
    vpaddd(t, t, Bits(0x7fff));
    vpaddd(t, t, d);
    vcmpps(k2, d, d, kUnord);
    vpord(t | k2, d, Bits(0x00400000));
    vpandd(d, t, Bits(0xffff0000u));
  }

  // Emits the cold paths deferred by Exp, Tanh and Log; once, after the ret.
  void EmitColdPaths() {
    for (size_t i = 0; i < cold_.size(); ++i) cold_[i]();
    cold_.clear();
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
    while (i < table_size_ && table_[i] != bits) ++i;
    if (i == table_size_) {
      if (table_size_ == kTableSize) throw Xbyak::Error(Xbyak::ERR_CODE_IS_TOO_BIG);
      table_[table_size_++] = bits;
    }
    return i;
  }
  Xbyak::Label& NewLabel() { return labels_.emplace_back(); }

  uint32_t table_[kTableSize] = {};
  int table_size_ = 0;
  std::deque<Xbyak::Label> labels_;  // stable addresses for the cold paths' jumps
  std::vector<std::function<void()>> cold_;
};

// A region value: a register, and for a fusion operand its index.
struct JitValue {
  int reg = -1;
  int param = -1;
  bool splat = false;
};

// Emits the kernel; throws Xbyak::Error when the region does not fit.
class Avx512Emitter {
 public:
  // `streaming`: whole vectors of results are stored non-temporally.
  Avx512Emitter(const JitRegion& region, ChainCode& g, bool streaming)
      : region_(region), g_(g), streaming_(streaming) {}

  void Emit() {
    using namespace Xbyak::util;
    g_.mov(r11, reinterpret_cast<size_t>(g_.table()));
    // Splats are broadcast once, before the loop.
    for (const Instruction* p : region_.parameters) {
      const int number = region_.input_number.at(p);
      JitValue v{-1, number, region_.input_splat[number]};
      if (v.splat && region_.Used(p)) {
        v.reg = Take();
        g_.mov(r8, g_.qword[rdi + 8 * number]);
        if (region_.input_type[number] == DType::kBF16) {
          g_.movzx(r8d, g_.word[r8]);
          g_.shl(r8d, 16);
          g_.vpbroadcastd(Zmm(v.reg), r8d);
        } else {
          g_.vbroadcastss(Zmm(v.reg), g_.dword[r8]);
        }
      }
      values_[p] = v;
    }
    g_.xor_(eax, eax);
    g_.mov(rcx, rdx);
    g_.and_(rcx, -kLanes);  // the whole vectors end here
    Xbyak::Label loop, tail, done;
    g_.L(loop);
    g_.cmp(rax, rcx);
    g_.jge(tail, Xbyak::CodeGenerator::T_NEAR);
    EmitBody(false);
    g_.add(rax, kLanes);
    g_.jmp(loop, Xbyak::CodeGenerator::T_NEAR);
    // The last 1..15 elements under k1.
    g_.L(tail);
    g_.cmp(rax, rdx);
    g_.jge(done, Xbyak::CodeGenerator::T_NEAR);
    g_.mov(rcx, rdx);
    g_.sub(rcx, rax);
    g_.mov(r10d, 1);
    g_.shl(r10d, cl);
    g_.dec(r10d);
    g_.kmovw(k1, r10d);
    EmitBody(true);
    g_.L(done);
    if (streaming_) g_.sfence();  // the stores reach memory before the thunk returns
    g_.vzeroupper();
    g_.ret();
    g_.EmitColdPaths();
  }

 private:
  int Take() {
    for (int r = 0; r < kValueRegisters; ++r) {
      if (!busy_[r]) {
        busy_[r] = true;
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);  // more live values than registers
  }

  // Frees operands read for the last time at position i.
  void Release(const Instruction* x, size_t i) {
    for (const Instruction* o : x->operands()) {
      const Instruction* v = region_.Root(o);
      auto it = values_.find(v);
      // Splats stay in their register for the whole loop.
      if (it != values_.end() && region_.last_use.at(v) == i && it->second.reg >= 0 &&
          !it->second.splat) {
        busy_[it->second.reg] = false;
        it->second.reg = -1;
      }
    }
  }

  void LoadInput(const Zmm& d, DType type, bool tail) {
    using namespace Xbyak::util;
    if (type == DType::kBF16) {
      if (tail) {
        g_.vpmovzxwd(d | k1 | T_z, g_.yword[r8 + rax * 2]);
      } else {
        g_.vpmovzxwd(d, g_.yword[r8 + rax * 2]);
      }
      g_.vpslld(d, d, 16);
    } else if (tail) {
      g_.vmovups(d | k1 | T_z, g_.zword[r8 + rax * 4]);
    } else {
      g_.vmovups(d, g_.zword[r8 + rax * 4]);
    }
  }

  // Stores d (its result index j) at [r9 + rax * width].
  void StoreResult(const Zmm& d, int j, bool tail) {
    using namespace Xbyak::util;
    g_.mov(r9, g_.qword[rsi + 8 * j]);
    if (region_.result_type[j] == DType::kBF16) {
      const Zmm t(31);
      g_.vpsrld(t, d, 16);
      if (tail) {
        g_.vpmovdw(g_.yword[r9 + rax * 2] | k1, t);
      } else if (streaming_) {
        g_.vpmovdw(Xbyak::Ymm(31), t);
        g_.vmovntdq(g_.yword[r9 + rax * 2], Xbyak::Ymm(31));
      } else {
        g_.vpmovdw(g_.yword[r9 + rax * 2], t);
      }
    } else if (tail) {
      g_.vmovups(g_.zword[r9 + rax * 4] | k1, d);
    } else if (streaming_) {
      g_.vmovntps(g_.zword[r9 + rax * 4], d);
    } else {
      g_.vmovups(g_.zword[r9 + rax * 4], d);
    }
  }

  void EmitOp(const Instruction* x, const Zmm& d, const std::vector<Zmm>& in) {
    switch (x->opcode()) {
      case Opcode::kAdd: g_.vaddps(d, in[0], in[1]); break;
      case Opcode::kSubtract: g_.vsubps(d, in[0], in[1]); break;
      case Opcode::kMultiply: g_.vmulps(d, in[0], in[1]); break;
      case Opcode::kDivide: g_.vdivps(d, in[0], in[1]); break;
      case Opcode::kMaximum: g_.MaxMin(d, in[0], in[1], true); break;
      case Opcode::kMinimum: g_.MaxMin(d, in[0], in[1], false); break;
      case Opcode::kNegate: g_.vpxord(d, in[0], g_.Bits(0x80000000u)); break;
      case Opcode::kAbs: g_.vpandd(d, in[0], g_.Bits(0x7fffffffu)); break;
      case Opcode::kSqrt: g_.vsqrtps(d, in[0]); break;
      case Opcode::kRsqrt:
        g_.vsqrtps(Zmm(25), in[0]);
        g_.vbroadcastss(d, g_.Scalar(1.0f));
        g_.vdivps(d, d, Zmm(25));
        break;
      case Opcode::kExponential: g_.Exp(d, in[0]); break;
      case Opcode::kTanh: g_.Tanh(d, in[0]); break;
      case Opcode::kLog: g_.Log(d, in[0]); break;
      case Opcode::kLogPlusOne: g_.Log1p(d, in[0]); break;
      case Opcode::kLogistic: g_.Logistic(d, in[0]); break;
      case Opcode::kExponentialMinusOne: g_.Expm1(d, in[0]); break;
      case Opcode::kConvert:  // float32 <-> bfloat16: a copy, rounded when it narrows
        g_.vmovaps(d, in[0]);
        if (x->operand(0)->shape().dtype == DType::kBF16) return;
        break;
      default: throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    }
    if (x->shape().dtype == DType::kBF16) g_.RoundToBf16(d);
  }

  void EmitBody(bool tail) {
    using namespace Xbyak::util;
    for (const Instruction* p : region_.parameters) {
      JitValue& v = values_[p];
      if (v.splat || !region_.Used(p)) continue;
      v.reg = Take();
      g_.mov(r8, g_.qword[rdi + 8 * v.param]);
      LoadInput(Zmm(v.reg), region_.input_type[v.param], tail);
    }
    for (size_t i = 0; i < region_.ops.size(); ++i) {
      const Instruction* x = region_.ops[i];
      std::vector<Zmm> in;
      for (const Instruction* o : x->operands()) in.emplace_back(values_.at(region_.Root(o)).reg);
      const Zmm d(Take());
      EmitOp(x, d, in);
      values_[x] = JitValue{d.getIdx(), -1, false};
      if (auto r = region_.result_of.find(x); r != region_.result_of.end()) {
        StoreResult(d, r->second, tail);
      }
      if (!region_.Used(x)) {
        busy_[d.getIdx()] = false;
        values_[x].reg = -1;
      }
      Release(x, i);
    }
    // Every register of a value read in the body is free again by its end.
    for (const Instruction* p : region_.parameters) {
      JitValue& v = values_[p];
      if (!v.splat && v.reg >= 0) {
        busy_[v.reg] = false;
        v.reg = -1;
      }
    }
  }

  const JitRegion& region_;
  ChainCode& g_;
  bool streaming_;
  absl::flat_hash_map<const Instruction*, JitValue> values_;
  bool busy_[kValueRegisters] = {};
};

}  // namespace

std::unique_ptr<Thunk> GenerateAvx512Kernel(const JitRegion& region,
                                            const std::vector<SlotId>& inputs,
                                            const std::vector<SlotId>& outputs) {
  const size_t bytes = 16384 + 2048 * region.ops.size();
  std::unique_ptr<ChainCode> code, streaming;
  try {
    auto emit = [&](bool stream) {
      auto c = std::make_unique<ChainCode>(bytes);
      Avx512Emitter(region, *c, stream).Emit();
      c->readyRE();
      return c;
    };
    code = emit(false);
    if (WritesPastTheCache(region)) {
      streaming = emit(true);
      CountStreamingJitKernel();
    }
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  ChainCode::Fn fn = code->fn();
  ChainCode::Fn streaming_fn = streaming ? streaming->fn() : nullptr;
  return MakeJitKernelThunk(std::move(code), fn, region, inputs, outputs, std::move(streaming),
                            streaming_fn, /*alignment=*/64);
}

}  // namespace xjit::cpu

#endif  // __x86_64__
