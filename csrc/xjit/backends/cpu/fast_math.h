// A branch-free float32 tanh that the compiler vectorizes inside the
// element-wise loops (libm's scalar tanhf costs ~20 ns an element; glibc's
// expf is already fast, so exp stays libm). Accurate to a few ulp; the reference backend
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
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  p = p * c;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  const float r = p / q;
  // NaN falls through every comparison above and comes out of r as NaN.
  return (x < kTiny && x > -kTiny) ? x : r;
}

}  // namespace xjit::cpu
