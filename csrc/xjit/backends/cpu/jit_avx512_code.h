// AVX-512 code generation shared by the generated element-wise kernels
// (jit_avx512.cc) and row fusions (jit_row_avx512.cc): a code buffer with its
// table of single-float constants (read by embedded broadcast), the float32
// functions of fast_math.h instruction for instruction on zmm registers, and
// the emission of one op. Each op rounds as the interpreter's kernel does
// (scalar_ops.h, fast_math.h), so generated code and interpreter give the
// same bits. exp, tanh and log take a short path when no lane of the vector
// needs a special case (the same bits; the full sequence is out of line).
// Values are in registers (no memory operands); zmm25..31, k2 and k3 are
// the functions' fixed scratch.
#pragma once

#if defined(__x86_64__)

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include <xbyak/xbyak.h>

#include "xjit/backends/cpu/jit_fast_math.h"
#include "xjit/backends/cpu/jit_region.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

using Xbyak::Zmm;

// A code buffer with its table of constants and the float32 functions of
// fast_math.h (element-wise kernels run fn(const void* const* in, void* const*
// out, int64_t count); row functions have their own signature).
class ChainCode : public Xbyak::CodeGenerator, public CmpPredicates {
 public:
  static constexpr int kLanes = 16;
  // zmm0..24 hold values; zmm25..31, k2 and k3 are the functions' scratch.
  static constexpr int kValueRegisters = 25;
  static constexpr int kTableSize = 128;  // constants, read by broadcast

  explicit ChainCode(size_t bytes) : Xbyak::CodeGenerator(bytes) {}

  using Fn = void (*)(const void* const* in, void* const* out, int64_t count);
  Fn fn() const { return getCode<Fn>(); }

  // A constant's broadcast operand, and its plain 32-bit operand (the table's
  // base is in r11).
  Xbyak::Address C(float v) { return ptr_b[r11 + 4 * Index(BitsOf(v))]; }
  Xbyak::Address Bits(uint32_t bits) { return ptr_b[r11 + 4 * Index(bits)]; }
  Xbyak::Address Scalar(float v) { return dword[r11 + 4 * Index(BitsOf(v))]; }
  Xbyak::Address ScalarBits(uint32_t bits) { return dword[r11 + 4 * Index(bits)]; }
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
      // Lanes whose result is 0 compute exp(0), as FastExp does (their
      // steps would go through subnormals, a microcode assist each).
      vcmpps(k2, x, C(-103.972076f), kLt);
      vmovaps(a, x);
      vpxord(a | k2, a, a);
      EmitExpSteps(*this, a, c, n, r, p, a, b);  // reads its x (a) first
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

  // fast_math.h's FastErf: the rational form, +-1 where |x| >= 3.8325 (not
  // NaN). Everything that reads x runs before d is written.
  void Erf(const Zmm& d, const Zmm& x) {
    const Zmm t(25), one(26), x2(27), p(28), q(29);
    vpandd(t, x, Bits(0x7fffffffu));
    vcmpps(k2, t, C(3.832506856900711f), kGe);
    vpandd(one, x, Bits(0x80000000u));
    vpord(one, one, Bits(0x3f800000u));
    EmitErfRational(*this, x, x2, p, q);
    vdivps(d, p, q);
    vmovaps(d | k2, one);
  }

  // FastLog's reduction of a normal input's bits `s` with exponent e (an
  // integer): m = its mantissa in [1/2, 1), doubled below sqrt(1/2) (e then
  // one less), minus one. k3 is scratch.
  void LogMantissa(const Zmm& e, const Zmm& m, const Zmm& s) {
    vpandd(m, s, Bits(0x007fffffu));
    vpord(m, m, Bits(0x3f000000u));
    vcmpps(k3, m, C(0.707106781186547524f), kLt);
    vpsubd(e | k3, e, Bits(1));
    vaddps(m | k3, m, m);
    vsubps(m, m, C(1.0f));  // f
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
    LogMantissa(e, m, x);
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
      LogMantissa(e, m, s);
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

  // acc = MaxMin(acc, b) in place (a reduce's accumulator): the same
  // selects, each mask taken from the operands before either changes.
  void MaxMinInto(const Zmm& acc, const Zmm& b, bool max) {
    vcmpps(k3, acc, b, kEq);
    vcmpps(k2, b, acc, max ? kGt : kLt);
    if (max) {
      vpandd(acc | k3, acc, b);
    } else {
      vpord(acc | k3, acc, b);
    }
    vcmpps(k3, b, b, kUnord);
    korw(k2, k2, k3);
    vmovaps(acc | k2, b);
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

  // d = 16 copies of the float32 (or bfloat16 or float16, widened) element
  // at [ptr]; ptr's register is overwritten.
  void BroadcastElement(const Zmm& d, const Xbyak::Reg64& ptr, DType type) {
    EmitBroadcastElement(*this, d, ptr, type);
  }

  // Rounds the floats in d to float16 in place (F16C, to nearest even; a
  // NaN stays a NaN, its payload may differ from f16(float)'s).
  void RoundToF16(const Zmm& d) {
    vcvtps2ph(Xbyak::Ymm(30), d, 0);
    vcvtph2ps(d, Xbyak::Ymm(30));
  }

  // Rounds d in place to `type` (float32: nothing to do).
  void RoundTo(const Zmm& d, DType type) {
    if (type == DType::kBF16) RoundToBf16(d);
    if (type == DType::kF16) RoundToF16(d);
  }

  // x on int32/uint32 lanes (JitCoversInt's arithmetic) as scalar_ops.h
  // computes it: wrapping sums and products, shift counts past the width
  // giving 0 (arithmetic: the sign), abs(INT_MIN) = INT_MIN.
  void IntOp(const Instruction& x, const Zmm& d, const std::vector<Zmm>& in) {
    const bool is_signed = x.shape().dtype == DType::kS32;
    switch (x.opcode()) {
      case Opcode::kAdd: vpaddd(d, in[0], in[1]); return;
      case Opcode::kSubtract: vpsubd(d, in[0], in[1]); return;
      case Opcode::kMultiply: vpmulld(d, in[0], in[1]); return;
      case Opcode::kNegate:
        vpxord(d, d, d);
        vpsubd(d, d, in[0]);
        return;
      case Opcode::kAbs:
        if (is_signed) {
          vpabsd(d, in[0]);
        } else {
          vmovdqa32(d, in[0]);
        }
        return;
      case Opcode::kMaximum:
        is_signed ? vpmaxsd(d, in[0], in[1]) : vpmaxud(d, in[0], in[1]);
        return;
      case Opcode::kMinimum:
        is_signed ? vpminsd(d, in[0], in[1]) : vpminud(d, in[0], in[1]);
        return;
      case Opcode::kSign:  // int32: (x >> 31) | ((0 - x) >>> 31); uint32: min(x, 1)
        if (is_signed) {
          vpsrad(Zmm(25), in[0], 31);
          vpxord(d, d, d);
          vpsubd(d, d, in[0]);
          vpsrld(d, d, 31);
          vpord(d, d, Zmm(25));
        } else {
          vpminud(d, in[0], Bits(1));
        }
        return;
      case Opcode::kShiftLeft: vpsllvd(d, in[0], in[1]); return;
      case Opcode::kShiftRightLogical: vpsrlvd(d, in[0], in[1]); return;
      case Opcode::kShiftRightArithmetic: vpsravd(d, in[0], in[1]); return;
      case Opcode::kDivide: IntDivide(d, in[0], in[1], is_signed, false); return;
      case Opcode::kRemainder: IntDivide(d, in[0], in[1], is_signed, true); return;
      default: throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    }
  }

  // a / b (or a % b) on 32-bit lanes as Divide and Remainder do: the
  // quotient through double division truncated (exact; INT_MIN / -1 comes
  // out as 2^31, which vcvttpd2dq gives as INT_MIN); by zero -1 (all ones,
  // the unsigned maximum too), and a remainder of a. zmm25-29 and k2 are
  // scratch.
  void IntDivide(const Zmm& d, const Zmm& a, const Zmm& b, bool is_signed, bool remainder) {
    const Zmm divisor(25), a_lo(26), a_hi(27), b_lo(28), b_hi(29);
    vptestnmd(k2, b, b);  // b == 0: divide by 1 instead, fixed after
    vmovdqa32(divisor, b);
    vpord(divisor | k2, divisor, Bits(1));
    vextracti64x4(Xbyak::Ymm(a_hi.getIdx()), a, 1);
    vextracti64x4(Xbyak::Ymm(b_hi.getIdx()), divisor, 1);
    if (is_signed) {
      vcvtdq2pd(a_lo, Xbyak::Ymm(a.getIdx()));
      vcvtdq2pd(a_hi, Xbyak::Ymm(a_hi.getIdx()));
      vcvtdq2pd(b_lo, Xbyak::Ymm(divisor.getIdx()));
      vcvtdq2pd(b_hi, Xbyak::Ymm(b_hi.getIdx()));
    } else {
      vcvtudq2pd(a_lo, Xbyak::Ymm(a.getIdx()));
      vcvtudq2pd(a_hi, Xbyak::Ymm(a_hi.getIdx()));
      vcvtudq2pd(b_lo, Xbyak::Ymm(divisor.getIdx()));
      vcvtudq2pd(b_hi, Xbyak::Ymm(b_hi.getIdx()));
    }
    vdivpd(a_lo, a_lo, b_lo);
    vdivpd(a_hi, a_hi, b_hi);
    if (is_signed) {
      vcvttpd2dq(Xbyak::Ymm(a_lo.getIdx()), a_lo);
      vcvttpd2dq(Xbyak::Ymm(a_hi.getIdx()), a_hi);
    } else {
      vcvttpd2udq(Xbyak::Ymm(a_lo.getIdx()), a_lo);
      vcvttpd2udq(Xbyak::Ymm(a_hi.getIdx()), a_hi);
    }
    vinserti64x4(a_lo, a_lo, Xbyak::Ymm(a_hi.getIdx()), 1);  // the quotient
    if (!remainder) {
      vmovdqa32(d, a_lo);
      vpternlogd(d | k2, d, d, 0xff);
      return;
    }
    vpmulld(a_lo, a_lo, divisor);
    vpsubd(d, a, a_lo);
    vmovdqa32(d | k2, a);
  }

  // a / c (or a % c) on int32 lanes for a constant c outside {-1, 0, 1,
  // INT_MIN}, by Granlund and Montgomery's multiply (Hacker's Delight 10-1):
  // q = mulhi(a, M) (+ or - a), shifted, plus one when negative; the same
  // truncated quotient as a division, at a few cycles where vdivpd takes
  // tens. zmm25-29 and k2 are scratch.
  void IntDivideByConstant(const Zmm& d, const Zmm& a, int32_t c, bool remainder) {
    const SignedMagic m = MagicOf(c);
    const Zmm magic(25), even(26), odd(27), q(28);
    vpbroadcastd(magic, ScalarBits(static_cast<uint32_t>(m.multiplier)));
    vpmuldq(even, a, magic);  // lanes 0, 2, ...: 64-bit products
    vpsrlq(odd, a, 32);
    vpmuldq(odd, odd, magic);  // lanes 1, 3, ...
    vpsrlq(even, even, 32);
    mov(Xbyak::util::r10d, 0xAAAA);  // r10: free inside the body
    kmovw(k2, Xbyak::util::r10d);
    vmovdqa32(q, even);
    vmovdqa32(q | k2, odd);  // the high halves, in place
    if (c > 0 && m.multiplier < 0) vpaddd(q, q, a);
    if (c < 0 && m.multiplier > 0) vpsubd(q, q, a);
    if (m.shift > 0) vpsrad(q, q, m.shift);
    vpsrld(odd, q, 31);
    vpaddd(q, q, odd);
    if (!remainder) {
      vmovdqa32(d, q);
      return;
    }
    vpmulld(q, q, Bits(static_cast<uint32_t>(c)));
    vpsubd(d, a, q);
  }

  struct SignedMagic {
    int32_t multiplier;
    int shift;
  };
  // Hacker's Delight's magic number of a signed 32-bit divisor, 2 <= |c| < 2^31.
  static SignedMagic MagicOf(int32_t c) {
    const uint32_t two31 = 0x80000000u;
    const uint32_t ad = c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
    const uint32_t t = two31 + (static_cast<uint32_t>(c) >> 31);
    const uint32_t anc = t - 1 - t % ad;
    int p = 31;
    uint32_t q1 = two31 / anc, r1 = two31 - q1 * anc;
    uint32_t q2 = two31 / ad, r2 = two31 - q2 * ad;
    uint32_t delta;
    do {
      ++p;
      q1 *= 2;
      r1 *= 2;
      if (r1 >= anc) {
        ++q1;
        r1 -= anc;
      }
      q2 *= 2;
      r2 *= 2;
      if (r2 >= ad) {
        ++q2;
        r2 -= ad;
      }
      delta = ad - r2;
    } while (q1 < delta || (q1 == delta && r1 == 0));
    uint32_t magic = q2 + 1;
    if (c < 0) magic = 0u - magic;
    return {static_cast<int32_t>(magic), p - 32};
  }

  // x (an op JitCovers names, a convert between the types JitCarries
  // names or from int32/uint32 to float32, or an int op JitCoversInt names)
  // of `in` into d, which is none of them; a 16-bit result is rounded.
  void Op(const Instruction& x, const Zmm& d, const std::vector<Zmm>& in) {
    if (IsJitComparedInt(x.shape().dtype) && x.opcode() != Opcode::kSelect &&
        x.opcode() != Opcode::kAnd && x.opcode() != Opcode::kOr && x.opcode() != Opcode::kXor &&
        x.opcode() != Opcode::kNot) {
      IntOp(x, d, in);
      return;
    }
    switch (x.opcode()) {
      case Opcode::kAdd: vaddps(d, in[0], in[1]); break;
      case Opcode::kSubtract: vsubps(d, in[0], in[1]); break;
      case Opcode::kMultiply: vmulps(d, in[0], in[1]); break;
      case Opcode::kDivide: vdivps(d, in[0], in[1]); break;
      case Opcode::kMaximum: MaxMin(d, in[0], in[1], true); break;
      case Opcode::kMinimum: MaxMin(d, in[0], in[1], false); break;
      case Opcode::kNegate: vpxord(d, in[0], Bits(0x80000000u)); break;
      case Opcode::kAbs: vpandd(d, in[0], Bits(0x7fffffffu)); break;
      case Opcode::kSqrt: vsqrtps(d, in[0]); break;
      case Opcode::kRsqrt:
        vsqrtps(Zmm(25), in[0]);
        vbroadcastss(d, Scalar(1.0f));
        vdivps(d, d, Zmm(25));
        break;
      case Opcode::kExponential: Exp(d, in[0]); break;
      case Opcode::kTanh: Tanh(d, in[0]); break;
      case Opcode::kErf: Erf(d, in[0]); break;
      case Opcode::kLog: Log(d, in[0]); break;
      case Opcode::kLogPlusOne: Log1p(d, in[0]); break;
      case Opcode::kLogistic: Logistic(d, in[0]); break;
      case Opcode::kExponentialMinusOne: Expm1(d, in[0]); break;
      // IEEE roundToIntegral, as std::floor/ceil/nearbyint (imm: the mode,
      // with the inexact exception suppressed)
      case Opcode::kFloor: vrndscaleps(d, in[0], 0x09); break;
      case Opcode::kCeil: vrndscaleps(d, in[0], 0x0A); break;
      case Opcode::kRoundNearestEven: vrndscaleps(d, in[0], 0x08); break;
      // Masks: a pred is all-ones or all-zeros lanes (jit_region.h).
      case Opcode::kCompare:
        if (x.operand(0)->shape().dtype == DType::kPred) {  // all-ones lanes: EQ or NE only
          vpxord(d, in[0], in[1]);
          if (x.attrs<CompareAttrs>().comparison_direction == ComparisonDirection::kEq) {
            vpternlogd(d, d, d, 0x55);  // not
          }
          return;
        }
        if (x.operand(0)->shape().dtype == DType::kS32) {
          vpcmpd(k2, in[0], in[1], IntCompareImmediate(x));
        } else if (x.operand(0)->shape().dtype == DType::kU32) {
          vpcmpud(k2, in[0], in[1], IntCompareImmediate(x));
        } else {
          vcmpps(k2, in[0], in[1], CompareImmediate(x));
        }
        vpxord(d, d, d);
        vpternlogd(d | k2, d, d, 0xff);
        return;
      case Opcode::kSelect:
        vptestmd(k2, in[0], in[0]);
        vmovaps(d, in[2]);
        vmovaps(d | k2, in[1]);
        return;
      case Opcode::kIsFinite:  // not NaN (quiet 0x01, signalling 0x80) nor +-inf (0x08, 0x10)
        vfpclassps(k2, in[0], 0x99);
        vpternlogd(d, d, d, 0xff);
        vpxord(d | k2, d, d);
        return;
      case Opcode::kAnd: vpandd(d, in[0], in[1]); return;
      case Opcode::kOr: vpord(d, in[0], in[1]); return;
      case Opcode::kXor: vpxord(d, in[0], in[1]); return;
      case Opcode::kNot: vpxord(d, in[0], Bits(0xffffffffu)); return;
      case Opcode::kConvert:  // a copy, rounded to a 16-bit type it changes to
        if (x.operand(0)->shape().dtype == DType::kPred) {  // all-ones lanes: 1.0, others 0.0
          vpandd(d, in[0], Bits(0x3f800000u));
          return;
        }
        if (x.operand(0)->shape().dtype == DType::kS32) {  // to float32 only (jit_region.cc)
          vcvtdq2ps(d, in[0]);
          return;
        }
        if (x.operand(0)->shape().dtype == DType::kU32) {
          vcvtudq2ps(d, in[0]);
          return;
        }
        vmovaps(d, in[0]);
        if (x.operand(0)->shape().dtype == x.shape().dtype) return;
        break;
      default: throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
    }
    RoundTo(d, x.shape().dtype);
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

}  // namespace xjit::cpu

#endif  // __x86_64__
