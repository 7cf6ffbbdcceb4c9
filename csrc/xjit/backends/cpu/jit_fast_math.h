// fast_math.h's polynomial steps as generated code, shared by the AVX-512
// (jit_avx512.cc) and AVX2 (jit_avx2_code.h) generators: the instruction
// sequence is the same on zmm and ymm registers. `Code` supplies its
// constants as operands (C, Bits) and loads one into a register
// (LoadConstant); the special-value selects around these steps are each
// generator's own (masks on AVX-512, blends on AVX2). Also the other
// sequences both emit alike on either register width (EmitBroadcastElement).
// Included by the generators' x86-64 headers only, after xbyak.
#pragma once

#include <cstdint>

#include <xbyak/xbyak.h>

#include "xjit/ir/dtype.h"

namespace xjit::cpu {

// vcmpps predicates both generators use (ordered, quiet; unordered for the
// NaN test; not <= and not >= are true for NaN too).
struct CmpPredicates {
  static constexpr uint8_t kEq = 0x00, kLt = 0x11, kLe = 0x12, kUnord = 0x03, kGt = 0x1E,
                           kGe = 0x1D, kNleUq = 0x16, kNgeUq = 0x19;
};

// d (a ymm or zmm register) = copies of the float32 (or bfloat16 or
// float16, widened) element at [ptr]; ptr's register is overwritten.
template <class Code, class Reg>
void EmitBroadcastElement(Code& g, const Reg& d, const Xbyak::Reg64& ptr, DType type) {
  if (type == DType::kF32) {
    g.vbroadcastss(d, g.dword[ptr]);
    return;
  }
  const Xbyak::Reg32 bits(ptr.getIdx());
  const Xbyak::Xmm d128(d.getIdx());
  if (type == DType::kPred) {  // a byte of 0 or 1 -> all zeros or all ones
    g.movzx(bits, g.byte[ptr]);
    g.neg(bits);
    g.vmovd(d128, bits);
    g.vpbroadcastd(d, d128);
    return;
  }
  g.movzx(bits, g.word[ptr]);
  if (type == DType::kBF16) g.shl(bits, 16);
  g.vmovd(d128, bits);
  if (type == DType::kF16) g.vcvtph2ps(d128, d128);
  g.vbroadcastss(d, d128);
}

// exp(r) on [-ln2/2, ln2/2] as FastExp's polynomial: p.
template <class Code, class Reg>
void EmitExpPolynomial(Code& g, const Reg& r, const Reg& p) {
  g.LoadConstant(p, 1.9875691500e-4f);
  for (float k : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f,
                  5.0000001201e-1f}) {
    g.vfmadd213ps(p, r, g.C(k));
  }
  g.vmulps(p, p, r);
  g.vfmadd213ps(p, r, r);
  g.vaddps(p, p, g.C(1.0f));
}

// FastExp's n = round(c / ln2) and r = c - n*ln2 (ln2 in two parts), the
// rounding by adding and subtracting 1.5*2^23: t = c/ln2 + 1.5*2^23 (t may
// be n's register).
template <class Code, class Reg>
void EmitExpRangeReduction(Code& g, const Reg& c, const Reg& t, const Reg& n, const Reg& r) {
  g.vmulps(t, c, g.C(1.44269504088896341f));
  g.vaddps(t, t, g.C(12582912.0f));
  g.vsubps(n, t, g.C(12582912.0f));
  g.vmovaps(r, c);
  g.vfmadd231ps(r, n, g.C(-0.693359375f));
  g.vfmadd231ps(r, n, g.C(2.12194440e-4f));
}

// FastExp up to its result for clamped inputs: p = exp(min(max(x, lo), hi)).
// c, n, r, a, b are scratch; x is read first (it may be a).
template <class Code, class Reg>
void EmitExpSteps(Code& g, const Reg& x, const Reg& c, const Reg& n, const Reg& r, const Reg& p,
                  const Reg& a, const Reg& b) {
  g.vminps(c, x, g.C(88.7228394f));   // x < max ? x : max
  g.vmaxps(c, c, g.C(-103.972076f));  // c > min ? c : min
  EmitExpRangeReduction(g, c, n, n, r);
  EmitExpPolynomial(g, r, p);
  g.vcvttps2dq(n, n);
  g.vpsrad(a, n, 1);  // half
  g.vpsubd(b, n, a);  // ni - half
  g.vpaddd(a, a, g.Bits(127));
  g.vpslld(a, a, 23);
  g.vpaddd(b, b, g.Bits(127));
  g.vpslld(b, b, 23);
  g.vmulps(p, p, a);
  g.vmulps(p, p, b);
}

// FastExp for x in [-87, 87], where no clamp or special case applies and
// 2^n is one normal factor: p * b = exp(x), the bits of the two-factor
// product (2^n scales exactly; a denormal result rounds once either way).
// b = x*log2(e) + 1.5*2^23 holds kRound's bits plus n, so (b << 23) +
// (127 << 23) are 2^n's bits. n, r are scratch.
template <class Code, class Reg>
void EmitExpFastSteps(Code& g, const Reg& x, const Reg& n, const Reg& r, const Reg& p,
                      const Reg& b) {
  EmitExpRangeReduction(g, x, b, n, r);
  EmitExpPolynomial(g, r, p);
  g.vpslld(b, b, 23);
  g.vpaddd(b, b, g.Bits(127u << 23));
}

// FastTanh's x*P(x^2)/Q(x^2) of an input already within the clamp: p. x2
// and q are scratch.
template <class Code, class Reg>
void EmitTanhRational(Code& g, const Reg& c, const Reg& x2, const Reg& p, const Reg& q) {
  g.vmulps(x2, c, c);
  g.LoadConstant(p, -2.76076847742355e-16f);
  for (float k : {2.00018790482477e-13f, -8.60467152213735e-11f, 5.12229709037114e-08f,
                  1.48572235717979e-05f, 6.37261928875436e-04f, 4.89352455891786e-03f}) {
    g.vfmadd213ps(p, x2, g.C(k));
  }
  g.vmulps(p, p, c);
  g.LoadConstant(q, 1.19825839466702e-06f);
  for (float k : {1.18534705686654e-04f, 2.26843463243900e-03f, 4.89352518554385e-03f}) {
    g.vfmadd213ps(q, x2, g.C(k));
  }
  g.vdivps(p, p, q);
}

// FastErf's numerator p = x * P(x^2) and denominator q = Q(x^2) (fused
// multiply-adds in FastErf's order; the caller divides and puts +-1 past
// the cut). x2 is scratch.
template <class Code, class Reg>
void EmitErfRational(Code& g, const Reg& x, const Reg& x2, const Reg& p, const Reg& q) {
  g.vmulps(x2, x, x);
  g.LoadConstant(p, 0.00022905065861350646f);
  for (float k : {0.0034082910107109506f, 0.050955695062380861f, 0.18520832239976145f,
                  1.128379143519084f}) {
    g.vfmadd213ps(p, x2, g.C(k));
  }
  g.vmulps(p, p, x);
  g.LoadConstant(q, -1.1791602954361697e-7f);
  for (float k : {0.000023547966471313185f, 0.0010179625278914885f, 0.014070470171167667f,
                  0.11098505178285362f, 0.49746925110067538f, 1.0f}) {
    g.vfmadd213ps(q, x2, g.C(k));
  }
}

// FastTanh's rational function of the clamped input: p = P(c)/Q(c) for
// c = clamp(x). c, t, x2, q are scratch.
template <class Code, class Reg>
void EmitTanhSteps(Code& g, const Reg& x, const Reg& c, const Reg& t, const Reg& x2, const Reg& p,
                   const Reg& q) {
  constexpr float kClamp = 7.90531110763549805f;
  g.LoadConstant(t, -kClamp);
  g.vmaxps(c, t, x);  // x < -clamp ? -clamp : x
  g.LoadConstant(t, kClamp);
  g.vminps(c, t, c);  // c > clamp ? clamp : c
  EmitTanhRational(g, c, x2, p, q);
}

// FastLog's log(1 + f) + e * ln2 from f = m - 1 and the exponent fe (as
// floats): y. z is scratch.
template <class Code, class Reg>
void EmitLogSteps(Code& g, const Reg& m, const Reg& e, const Reg& z, const Reg& y) {
  g.vmulps(z, m, m);
  g.LoadConstant(y, 7.0376836292E-2f);
  for (float k : {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f,
                  -1.6668057665E-1f, 2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f}) {
    g.vfmadd213ps(y, m, g.C(k));
  }
  g.vmulps(y, y, m);
  g.vmulps(y, y, z);
  g.vfmadd231ps(y, e, g.C(-2.12194440e-4f));
  g.vfmadd231ps(y, z, g.C(-0.5f));
  g.vaddps(y, m, y);
  g.vfmadd231ps(y, e, g.C(0.693359375f));
}

}  // namespace xjit::cpu
