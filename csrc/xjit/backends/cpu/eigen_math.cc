#include "xjit/backends/cpu/eigen_math.h"

// GCC leaves Eigen's packet functions (pmadd, pmul, ...) out of line inside
// psincos_float, a call per instruction (4x slower): force them inline.
#define EIGEN_STRONG_INLINE inline __attribute__((always_inline))
#include <Eigen/Core>

namespace xjit::cpu {

bool EigenTrigAvailable() {
#if defined(__AVX512F__) && defined(__x86_64__)
  // Built for AVX-512 (x86-64-v4): guard against a build copied to an older CPU.
  static const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return v4;
#else
  return true;  // baseline build: Eigen's SSE2 packets
#endif
}

void EigenSinF32(const float* x, float* y, int64_t n) {
  Eigen::Map<Eigen::ArrayXf>(y, n) = Eigen::Map<const Eigen::ArrayXf>(x, n).sin();
}

void EigenCosF32(const float* x, float* y, int64_t n) {
  Eigen::Map<Eigen::ArrayXf>(y, n) = Eigen::Map<const Eigen::ArrayXf>(x, n).cos();
}

}  // namespace xjit::cpu
