// Branch-free float32 tanh, exp, log, log1p, expm1, logistic and erf that the compiler vectorizes inside the
// element-wise loops (libm's scalar tanhf costs ~20 ns an element, expf ~3).
// The polynomials are evaluated with fused multiply-adds (one rounding per
// step): in the AVX2 and AVX-512 clones (isa_clones.h) each is one
// instruction, which makes exp and tanh about 30% cheaper than separate
// multiplies and adds; the baseline clone calls libm's fmaf, exact too.
// tanh is accurate to 4 ulp, exp to 1 ulp (checked over the float range); the reference backend
// keeps libm as the ground truth and the tests compare the two.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace xjit::cpu {

// The rational approximation XLA and Eigen use for float tanh: x*P(x^2)/Q(x^2)
// on [-7.9, 7.9] (beyond that tanh is +-1 in float), and x itself near 0.
inline float FastTanh(float x) {
  constexpr float kClamp = 7.90531110763549805f;
  constexpr float kTiny = 0.0004f;
  // Ternaries, not fmin/fmax, so that the loop vectorizes to min/max.
  float c = x < -kClamp ? -kClamp : x;
  c = c > kClamp ? kClamp : c;
  const float x2 = c * c;
  float p = -2.76076847742355e-16f;
  p = __builtin_fmaf(p, x2, 2.00018790482477e-13f);
  p = __builtin_fmaf(p, x2, -8.60467152213735e-11f);
  p = __builtin_fmaf(p, x2, 5.12229709037114e-08f);
  p = __builtin_fmaf(p, x2, 1.48572235717979e-05f);
  p = __builtin_fmaf(p, x2, 6.37261928875436e-04f);
  p = __builtin_fmaf(p, x2, 4.89352455891786e-03f);
  p = p * c;
  float q = 1.19825839466702e-06f;
  q = __builtin_fmaf(q, x2, 1.18534705686654e-04f);
  q = __builtin_fmaf(q, x2, 2.26843463243900e-03f);
  q = __builtin_fmaf(q, x2, 4.89352518554385e-03f);
  float r = p / q;
  // Beyond the clamp the rational is within 3e-7 of +-1 (it rounds to
  // 0.99999994 with fused steps): +-1 exactly, as before and as tanh(+-inf).
  r = x > kClamp ? 1.0f : r;
  r = x < -kClamp ? -1.0f : r;
  // NaN falls through every comparison above and comes out of r as NaN.
  return (x < kTiny && x > -kTiny) ? x : r;
}

// exp(x) = 2^n * exp(r) with n = round(x / ln2) and r = x - n*ln2 (ln2 split
// in two parts for accuracy); exp(r) by a degree-6 polynomial on
// [-ln2/2, ln2/2]. Rounding by adding 1.5*2^23 keeps it to SSE2 instructions.
inline float FastExp(float x) {
  constexpr float kMax = 88.7228394f;   // above: overflow to inf
  constexpr float kMin = -103.972076f;  // below: 0
  constexpr float kRound = 12582912.0f; // 1.5 * 2^23
  // NaN fails `x < kMax` and so computes with kMax: no NaN reaches the int
  // conversion below (undefined behaviour); the return restores it.
  float c = x < kMax ? x : kMax;
  // Below kMin the result is 0: computed from 0, not through subnormal
  // steps (a microcode assist each: rows of exp(-256) ran 3x slower).
  c = c >= kMin ? c : 0.0f;
  const float n = (c * 1.44269504088896341f + kRound) - kRound;
  float r = __builtin_fmaf(n, -0.693359375f, c);
  r = __builtin_fmaf(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = __builtin_fmaf(p, r, 1.3981999507e-3f);
  p = __builtin_fmaf(p, r, 8.3334519073e-3f);
  p = __builtin_fmaf(p, r, 4.1665795894e-2f);
  p = __builtin_fmaf(p, r, 1.6666665459e-1f);
  p = __builtin_fmaf(p, r, 5.0000001201e-1f);
  p = __builtin_fmaf(p * r, r, r) + 1.0f;
  // 2^n as two factors so that n down to -150 (denormal results) is exact.
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t half = ni >> 1;
  const uint32_t b1 = static_cast<uint32_t>(half + 127) << 23;
  const uint32_t b2 = static_cast<uint32_t>(ni - half + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  const float out = p * s1 * s2;
  // NaN fails every comparison and comes back as itself.
  return x < kMin ? 0.0f : (x <= kMax ? out : (x > kMax ? INFINITY : x));
}

// log(x) as Cephes's logf: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then
// log(1 + f) for f = m - 1 (exact) by f - f^2/2 + f^3 P(f), and e * ln2 in two
// parts; subnormals are scaled by 2^23 first. About 1 ulp (checked over
// every binade); branch-free bit arithmetic, so the loops vectorize.
inline float FastLog(float x) {
  const bool subnormal = x < 1.17549435e-38f;  // also 0 and negatives: fixed below
  const float s = subnormal ? x * 8388608.0f : x;
  uint32_t bits;
  std::memcpy(&bits, &s, 4);
  int32_t e = static_cast<int32_t>((bits >> 23) & 0xffu) - 126;
  const uint32_t mantissa = (bits & 0x007fffffu) | 0x3f000000u;  // in [1/2, 1)
  float m;
  std::memcpy(&m, &mantissa, 4);
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1 : e;
  const float f = (low ? m + m : m) - 1.0f;
  const float fe = static_cast<float>(subnormal ? e - 23 : e);
  const float z = f * f;
  float y = 7.0376836292E-2f;
  y = __builtin_fmaf(y, f, -1.1514610310E-1f);
  y = __builtin_fmaf(y, f, 1.1676998740E-1f);
  y = __builtin_fmaf(y, f, -1.2420140846E-1f);
  y = __builtin_fmaf(y, f, 1.4249322787E-1f);
  y = __builtin_fmaf(y, f, -1.6668057665E-1f);
  y = __builtin_fmaf(y, f, 2.0000714765E-1f);
  y = __builtin_fmaf(y, f, -2.4999993993E-1f);
  y = __builtin_fmaf(y, f, 3.3333331174E-1f);
  y = y * f * z;
  y = __builtin_fmaf(fe, -2.12194440e-4f, y);
  y = __builtin_fmaf(z, -0.5f, y);
  float r = f + y;
  r = __builtin_fmaf(fe, 0.693359375f, r);
  r = x == INFINITY ? x : r;
  r = x == 0.0f ? -INFINITY : r;
  r = x < 0.0f ? NAN : r;
  return x != x ? x : r;  // NaN stays itself
}

// log(1 + x) = log(u) * x / (u - 1) for u = 1 + x rounded: the quotient
// undoes u's rounding error (Goldberg), so small x keep full accuracy.
inline float FastLog1p(float x) {
  const float u = 1.0f + x;
  float r = FastLog(u) * (x / (u - 1.0f));
  r = u == 1.0f ? x : r;  // |x| below half an ulp of 1, and -0.0
  return x == INFINITY ? x : r;
}

// exp(x) - 1 = (u - 1) * x / log(u) for u = exp(x) rounded (Kahan): the
// quotient undoes u's rounding, so small x keep full accuracy.
inline float FastExpm1(float x) {
  const float u = FastExp(x);
  const float um1 = u - 1.0f;
  float r = um1 * (x / FastLog(u));
  r = u == 1.0f ? x : r;        // |x| below half an ulp of 1, and -0.0
  r = um1 == -1.0f ? -1.0f : r;  // exp(x) under half an ulp of 1
  r = u == INFINITY ? u : r;
  return x != x ? x : r;
}

// erf(x) as XLA's CPU backend computes it (the same bits as JAX): x*P(x^2) /
// Q(x^2), odd degree 9 over even degree 12, and +-1 from |x| >= 3.8325 (where
// erf rounds to 1 in float). Within 5 ulp of libm's correctly rounded erf.
inline float FastErf(float x) {
  const float x2 = x * x;
  float p = __builtin_fmaf(x2, 0.00022905065861350646f, 0.0034082910107109506f);
  p = __builtin_fmaf(x2, p, 0.050955695062380861f);
  p = __builtin_fmaf(x2, p, 0.18520832239976145f);
  p = __builtin_fmaf(x2, p, 1.128379143519084f);
  p = x * p;
  float q = __builtin_fmaf(x2, -1.1791602954361697e-7f, 0.000023547966471313185f);
  q = __builtin_fmaf(x2, q, 0.0010179625278914885f);
  q = __builtin_fmaf(x2, q, 0.014070470171167667f);
  q = __builtin_fmaf(x2, q, 0.11098505178285362f);
  q = __builtin_fmaf(x2, q, 0.49746925110067538f);
  q = __builtin_fmaf(x2, q, 1.0f);
  const float one = __builtin_copysignf(1.0f, x);
  // NaN fails the comparison and keeps p / q, a NaN.
  return (x < 3.832506856900711f && x > -3.832506856900711f) || x != x ? p / q : one;
}

// 1 / (1 + exp(-x)), the reference's formula with FastExp.
inline float FastLogistic(float x) { return 1.0f / (1.0f + FastExp(-x)); }

}  // namespace xjit::cpu
