// AVX2 code generation shared by the generated element-wise kernels
// (jit_avx2.cc) and row fusions (jit_row_avx2.cc): a code buffer with its
// table of constants and the float32 functions of fast_math.h instruction
// for instruction, and the emission of one element-wise op on 8 lanes into a
// register from a pool. Each op rounds as the interpreter's kernel does
// (scalar_ops.h, fast_math.h), so generated code and interpreter give the
// same bits. No mask registers in AVX2: selects blend by compare results.
#pragma once

#if defined(__x86_64__)

#include <cstdint>
#include <cstring>
#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <xbyak/xbyak.h>

#include "absl/types/span.h"
#include "xjit/backends/cpu/jit_fast_math.h"
#include "xjit/ir/dtype.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/opcode.h"

namespace xjit::cpu {

using Xbyak::Ymm;

class Avx2Code : public Xbyak::CodeGenerator, public CmpPredicates {
 public:
  static constexpr int kLanes = 8;
  static constexpr int kRegisters = 16;
  static constexpr int kTableSize = 128;  // constants, 8 copies each (no embedded broadcast)

  explicit Avx2Code(size_t bytes) : Xbyak::CodeGenerator(bytes) {
    for (int i = 0; i < kLanes; ++i) tail_mask_[i] = -1;
  }

  // A constant as a full-vector operand (the table's base is in r11).
  // (Or the register it was hoisted into: Hoist.)
  void LoadConstant(const Ymm& reg, float v) { vmovups(reg, C(v)); }
  const Xbyak::Operand& C(float v) { return Constant(BitsOf(v)); }
  const Xbyak::Operand& Bits(uint32_t bits) { return Constant(bits); }

  // Constants read often enough to keep in registers: a generator emits its
  // code once to count the uses (Uses) and the registers it needs, then
  // again on a fresh Avx2Code with the most used constants hoisted, each
  // loaded into `reg` before its loop (EmitHoistedLoads).
  std::vector<std::pair<int64_t, uint32_t>> Uses() const {
    std::vector<std::pair<int64_t, uint32_t>> u;
    for (int i = 0; i < table_size_; ++i) u.emplace_back(uses_[i], table_[kLanes * i]);
    return u;
  }
  void Hoist(uint32_t bits, int reg) { hoisted_.emplace_back(bits, reg); }
  void EmitHoistedLoads() {
    for (const auto& [bits, reg] : hoisted_) vmovups(Ymm(reg), yword[r11 + 32 * Index(bits)]);
  }
  const uint32_t* table() const { return table_; }
  // tail_mask() + 8 - k: k all-ones lanes, then zeros.
  const int32_t* tail_mask() const { return tail_mask_; }

  // fast_math.h's FastExp; s: 6 scratch registers. When every lane is in
  // [-87, 87] (no NaN, no overflow, results normal or at worst one rounding
  // into the denormals) 2^n is one factor read off the rounding sum's bits
  // and no special case applies: 22 instructions instead of 34, the same
  // bits. Other vectors take the full sequence out of line (EmitColdPaths).
  void Exp(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &c = s[0], &n = s[1], &r = s[2], &p = s[3], &a = s[4], &b = s[5];
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vandps(a, x, Bits(0x7fffffffu));
    vcmpps(a, a, C(87.0f), kNleUq);
    vtestps(a, a);
    jnz(cold, T_NEAR);
    EmitExpFastSteps(*this, x, n, r, p, b);
    vmulps(d, p, b);
    L(back);
    cold_.push_back([this, d, x, c, n, r, p, a, b, &cold, &back] {
      L(cold);
      // Lanes whose result is 0 compute exp(0), as FastExp does (their
      // steps would go through subnormals, a microcode assist each).
      vcmpps(a, x, C(-103.972076f), kLt);
      vandnps(a, a, x);
      EmitExpSteps(*this, a, c, n, r, p, a, b);  // reads its x (a) first
      // x < min ? 0 : (x <= max ? out : (x > max ? inf : x))
      vcmpps(c, x, C(88.7228394f), kGt);
      vblendvps(d, x, C(__builtin_inff()), c);
      vcmpps(c, x, C(88.7228394f), kLe);
      vblendvps(d, d, p, c);
      vcmpps(c, x, C(-103.972076f), kLt);
      vandnps(d, c, d);
      jmp(back, T_NEAR);
    });
  }

  // fast_math.h's FastTanh; s: 5 scratch registers. When every lane has
  // 0.0004 <= |x| <= the clamp (no NaN) only the rational function is
  // needed; other vectors take the full sequence out of line.
  void Tanh(const Ymm& d, const Ymm& x, const Ymm* s) {
    constexpr float kClamp = 7.90531110763549805f, kTiny = 0.0004f;
    const Ymm &c = s[0], &t = s[1], &x2 = s[2], &p = s[3], &q = s[4];
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vandps(c, x, Bits(0x7fffffffu));
    vcmpps(t, c, C(kClamp), kNleUq);
    vcmpps(c, c, C(kTiny), kLt);
    vorps(t, t, c);
    vtestps(t, t);
    jnz(cold, T_NEAR);
    EmitTanhRational(*this, x, x2, d, q);
    L(back);
    cold_.push_back([this, d, x, c, t, x2, p, q, &cold, &back] {
      L(cold);
      EmitTanhSteps(*this, x, c, t, x2, p, q);
      vcmpps(t, x, C(kClamp), kGt);
      vblendvps(p, p, C(1.0f), t);
      vcmpps(t, x, C(-kClamp), kLt);
      vblendvps(p, p, C(-1.0f), t);
      vcmpps(t, x, C(kTiny), kLt);
      vcmpps(q, x, C(-kTiny), kGt);
      vandps(t, t, q);
      vblendvps(d, p, x, t);
      jmp(back, T_NEAR);
    });
  }

  // Emits the cold paths the functions above deferred; a generator calls it
  // once, after its function's ret.
  void EmitColdPaths() {
    cold_emission_ = true;
    for (size_t i = 0; i < cold_.size(); ++i) cold_[i]();
    cold_.clear();
    cold_emission_ = false;
  }

  // FastLog's reduction of a normal input's mantissa m (in [1/2, 1)) and
  // exponent e (integers): m below sqrt(1/2) doubles and e drops by one;
  // then f = m - 1 and e as a float. z, y are scratch.
  void LogMantissa(const Ymm& e, const Ymm& m, const Ymm& z, const Ymm& y) {
    vcmpps(z, m, C(0.707106781186547524f), kLt);  // low: all ones, -1 as an integer
    vpaddd(e, e, z);                              // e - 1 where low
    vaddps(y, m, m);
    vblendvps(m, m, y, z);
    vsubps(m, m, C(1.0f));  // f
    vcvtdq2ps(e, e);        // fe
  }

  // fast_math.h's FastLog; s: 6 scratch registers. When every lane is a
  // positive normal finite float, the subnormal scaling and the special
  // cases are skipped (29 instructions instead of 42, the same bits);
  // other vectors take the full sequence out of line.
  void Log(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &sx = s[0], &e = s[1], &m = s[2], &z = s[3], &y = s[4], &sub = s[5];
    Xbyak::Label &cold = NewLabel(), &back = NewLabel();
    vcmpps(sub, x, C(1.17549435e-38f), kNgeUq);  // under the normals, or NaN
    vcmpps(z, x, C(3.40282347e+38f), kNleUq);    // inf, or NaN
    vorps(sub, sub, z);
    vtestps(sub, sub);
    jnz(cold, T_NEAR);
    vpsrld(e, x, 23);  // the sign bit is clear
    vpsubd(e, e, Bits(126));
    vpand(m, x, Bits(0x007fffffu));
    vpor(m, m, Bits(0x3f000000u));
    LogMantissa(e, m, z, y);
    EmitLogSteps(*this, m, e, z, d);
    L(back);
    cold_.push_back([this, d, x, sx, e, m, z, y, sub, &cold, &back] {
      L(cold);
      vcmpps(sub, x, C(1.17549435e-38f), kLt);  // subnormal (or 0, negative)
      vmulps(e, x, C(8388608.0f));
      vblendvps(sx, x, e, sub);
      vpsrld(e, sx, 23);
      vpand(e, e, Bits(0xffu));
      vpsubd(e, e, Bits(126));
      vpsubd(z, e, Bits(23));  // the scaling by 2^23 undone
      vblendvps(e, e, z, sub);
      vpand(m, sx, Bits(0x007fffffu));
      vpor(m, m, Bits(0x3f000000u));
      LogMantissa(e, m, z, y);
      EmitLogSteps(*this, m, e, z, y);
      vcmpps(sub, x, C(__builtin_inff()), kEq);
      vblendvps(y, y, x, sub);
      vcmpps(sub, x, C(0.0f), kEq);
      vblendvps(y, y, C(-__builtin_inff()), sub);
      vcmpps(sub, x, C(0.0f), kLt);
      vblendvps(y, y, C(__builtin_nanf("")), sub);
      vcmpps(sub, x, x, kUnord);
      vblendvps(d, y, x, sub);
      jmp(back, T_NEAR);
    });
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

  // fast_math.h's FastErf; s: 5 scratch registers. Everything that reads x
  // runs before d is written.
  void Erf(const Ymm& d, const Ymm& x, const Ymm* s) {
    const Ymm &t = s[0], &one = s[1], &x2 = s[2], &p = s[3], &q = s[4];
    vandps(t, x, Bits(0x7fffffffu));
    vcmpps(t, t, C(3.832506856900711f), kGe);
    vandps(one, x, Bits(0x80000000u));
    vorps(one, one, Bits(0x3f800000u));
    EmitErfRational(*this, x, x2, p, q);
    vdivps(p, p, q);
    vblendvps(d, p, one, t);
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

  // bfloat16 in float32 lanes (a bf16 value is the float32 with its low 16
  // bits zero). LoadBf16: 8 of them from memory, widened.
  void LoadBf16(const Ymm& d, const Xbyak::Address& eight) {
    vpmovzxwd(d, eight);
    vpslld(d, d, 16);
  }

  // d = 8 copies of the float32 (or bfloat16 or float16, widened) element
  // at [ptr]; ptr's register is overwritten.
  void BroadcastElement(const Ymm& d, const Xbyak::Reg64& ptr, DType type) {
    EmitBroadcastElement(*this, d, ptr, type);
  }

  // The same for any 16-bit type (JitCarries): 8 of them widened, rounded
  // to it in place (float16: F16C's vcvtps2ph, to nearest even), stored
  // narrowed (t, nan, high: scratch).
  void LoadNarrow(const Ymm& d, const Xbyak::Address& eight, DType type) {
    if (type == DType::kF16) {
      vcvtph2ps(d, eight);
    } else {
      LoadBf16(d, eight);
    }
  }
  void RoundTo(const Ymm& d, DType type, const Ymm& t, const Ymm& nan) {
    if (type == DType::kBF16) RoundToBf16(d, t, nan);
    if (type == DType::kF16) {
      vcvtps2ph(Xbyak::Xmm(t.getIdx()), d, 0);
      vcvtph2ps(d, Xbyak::Xmm(t.getIdx()));
    }
  }
  void StoreNarrow(const Xbyak::Address& at, const Ymm& d, DType type, const Ymm& t,
                   const Ymm& high, bool streaming) {
    if (type == DType::kBF16) {
      StoreBf16(at, d, t, high, streaming);
      return;
    }
    const Xbyak::Xmm t128(t.getIdx());
    vcvtps2ph(t128, d, 0);
    if (streaming) {
      vmovntdq(at, t128);
    } else {
      vmovdqu(at, t128);
    }
  }

  // Rounds the floats in d to bfloat16 in place as bf16(float) does
  // (ir/half.h): to nearest even; a NaN made quiet keeping its top bits.
  // t, nan: scratch.
  void RoundToBf16(const Ymm& d, const Ymm& t, const Ymm& nan) {
    vpsrld(t, d, 16);
    vpand(t, t, Bits(1));
    vpaddd(t, t, Bits(0x7fff));
    vpaddd(t, t, d);
    vcmpps(nan, d, d, kUnord);
    vpor(d, d, Bits(0x00400000));
    vblendvps(d, t, d, nan);
    vpand(d, d, Bits(0xffff0000u));
  }

  // Stores the 8 bfloat16 lanes of d (already rounded) to `at` (16 bytes):
  // their top halves, packed; `streaming`: non-temporally (16-byte aligned).
  // t, high: scratch.
  void StoreBf16(const Xbyak::Address& at, const Ymm& d, const Ymm& t, const Ymm& high,
                 bool streaming) {
    const Xbyak::Xmm t128(t.getIdx()), high128(high.getIdx());
    vpsrld(t, d, 16);
    vextracti128(high128, t, 1);
    vpackusdw(t128, t128, high128);
    if (streaming) {
      vmovntdq(at, t128);
    } else {
      vmovdqu(at, t128);
    }
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
  const Xbyak::Operand& Constant(uint32_t bits) {
    for (const auto& [b, reg] : hoisted_) {
      if (b == bits) return registers_[reg];
    }
    const int i = Index(bits);
    if (!cold_emission_) ++uses_[i];
    if (!addresses_[i]) addresses_[i].emplace(yword[r11 + 32 * i]);
    return *addresses_[i];
  }
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

  Xbyak::Label& NewLabel() { return labels_.emplace_back(); }

  alignas(32) uint32_t table_[kTableSize * kLanes] = {};
  alignas(32) int32_t tail_mask_[2 * kLanes] = {};
  int table_size_ = 0;
  int64_t uses_[kTableSize] = {};
  std::optional<Xbyak::Address> addresses_[kTableSize];
  std::vector<std::pair<uint32_t, int>> hoisted_;
  std::deque<Xbyak::Label> labels_;  // stable addresses for the cold paths' jumps
  std::vector<std::function<void()>> cold_;
  bool cold_emission_ = false;  // cold code's constant uses are not counted for hoisting
  const Ymm registers_[kRegisters] = {Ymm(0), Ymm(1), Ymm(2),  Ymm(3),  Ymm(4),  Ymm(5),
                                      Ymm(6), Ymm(7), Ymm(8),  Ymm(9),  Ymm(10), Ymm(11),
                                      Ymm(12), Ymm(13), Ymm(14), Ymm(15)};
};

// The 16 ymm registers: which hold a value now. Take throws Xbyak::Error
// when none is free (the generator then leaves the region to the interpreter).
class Avx2RegisterPool {
 public:
  int Take() {
    for (int r = 0; r < Avx2Code::kRegisters; ++r) {
      if (!busy_[r]) {
        busy_[r] = true;
        int n = 0;
        for (bool b : busy_) n += b;
        peak_ = std::max(peak_, n);
        return r;
      }
    }
    throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
  }
  void Free(int r) { busy_[r] = false; }
  void Reserve(int r) { busy_[r] = true; }
  void Clear() {
    for (bool& b : busy_) b = false;
  }
  // The most registers taken at once so far.
  int Peak() const { return peak_; }

 private:
  bool busy_[Avx2Code::kRegisters] = {};
  int peak_ = 0;
};

// An op's operand: a register, or 8 floats in memory; `constant` when its
// value is a float known at compile time (in the code's table or hoisted).
struct Avx2Operand {
  int reg = -1;
  std::optional<Xbyak::Address> memory;
  std::optional<float> constant;
  static Avx2Operand Register(int r) { return Avx2Operand{r, std::nullopt}; }
  static Avx2Operand Memory(const Xbyak::Address& a) { return Avx2Operand{-1, a}; }
  static Avx2Operand Constant(Avx2Code& g, float v) {
    const Xbyak::Operand& o = g.C(v);  // a ymm register when hoisted (isREG is for GPRs)
    Avx2Operand result = o.isMEM() ? Memory(static_cast<const Xbyak::Address&>(o))
                                   : Register(o.getIdx());
    result.constant = v;
    return result;
  }
};

// Emits `op` (one jit_region.h's JitCovers or, given its `instr`, JitCoversMask names) of `operands` into a register taken from `pool` (returned; the
// operands' registers stay taken). Its scratch and operands loaded from
// memory are taken and freed again.
int EmitAvx2Op(Avx2Code& g, Avx2RegisterPool& pool, Opcode op,
               absl::Span<const Avx2Operand> operands, const Instruction* instr = nullptr);

// Avx2Code::RoundTo and StoreNarrow with their scratch taken from `pool`
// and freed again (float32: RoundAvx2To does nothing).
void RoundAvx2To(Avx2Code& g, Avx2RegisterPool& pool, const Ymm& d, DType type);
void StoreAvx2Narrow(Avx2Code& g, Avx2RegisterPool& pool, const Xbyak::Address& at, const Ymm& d,
                     DType type, bool streaming);

}  // namespace xjit::cpu

#endif  // __x86_64__
