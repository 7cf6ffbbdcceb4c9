#include "xjit/backends/cpu/eigen_math.h"

// GCC leaves Eigen's packet functions (pmadd, pmul, ...) out of line inside
// psincos_float, a call per instruction (4x slower): force them inline.
#define EIGEN_STRONG_INLINE inline __attribute__((always_inline))
#include <Eigen/Core>

#include <cstring>
#include <type_traits>

namespace xjit::cpu {

bool EigenBuildRuns() {
#if defined(__AVX512F__) && defined(__x86_64__)
  // Built for AVX-512 (x86-64-v4): guard against a build copied to an older CPU.
  static const bool v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return v4;
#else
  return true;  // baseline build: Eigen's SSE2 packets
#endif
}

namespace {

// Every element through the packet function, the last partial packet too
// (padded): an element's bits then do not depend on where a chunk of the
// caller's loop starts. (Eigen's array assignment would take scalar libm
// calls for the ends, 1 ulp away.)
template <typename Fn>
void PacketMap(const float* x, float* y, int64_t n, Fn fn) {
  using Packet = Eigen::internal::packet_traits<float>::type;
  constexpr int64_t kSize = Eigen::internal::unpacket_traits<Packet>::size;
  int64_t i = 0;
  for (; i + kSize <= n; i += kSize) {
    Eigen::internal::pstoreu(y + i, fn(Eigen::internal::ploadu<Packet>(x + i)));
  }
  if (i < n) {
    float tail[kSize] = {};
    std::memcpy(tail, x + i, (n - i) * sizeof(float));
    Eigen::internal::pstoreu(tail, fn(Eigen::internal::ploadu<Packet>(tail)));
    std::memcpy(y + i, tail, (n - i) * sizeof(float));
  }
}

}  // namespace

// Of |x|, so that sine is exactly odd and cosine exactly even, as libm's are
// (Eigen's reduction of -x can round its last bit apart from x's: a sum of
// sin over a symmetric range would not cancel).
void EigenSinF32(const float* x, float* y, int64_t n) {
  PacketMap(x, y, n, [](const auto& p) {
    using Packet = std::decay_t<decltype(p)>;
    const Packet sign = Eigen::internal::pand(p, Eigen::internal::pset1frombits<Packet>(0x80000000u));
    return Eigen::internal::pxor(Eigen::internal::psin(Eigen::internal::pabs(p)), sign);
  });
}

void EigenCosF32(const float* x, float* y, int64_t n) {
  PacketMap(x, y, n, [](const auto& p) { return Eigen::internal::pcos(Eigen::internal::pabs(p)); });
}

}  // namespace xjit::cpu
