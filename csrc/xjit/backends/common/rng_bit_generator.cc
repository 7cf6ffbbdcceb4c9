#include "xjit/backends/common/rng_bit_generator.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace xjit::rng {
namespace {

inline uint32_t RotL(uint32_t x, int d) { return (x << d) | (x >> (32 - d)); }

// threefry2x32 with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
inline void Threefry2x32(uint32_t k0, uint32_t k1, uint32_t& x0, uint32_t& x1) {
  static constexpr int kRot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  x0 += ks[0];
  x1 += ks[1];
  for (int i = 0; i < 5; ++i) {
    for (int r : kRot[i % 2]) {
      x0 += x1;
      x1 = RotL(x1, r) ^ x0;
    }
    x0 += ks[(i + 1) % 3];
    x1 += ks[(i + 2) % 3] + static_cast<uint32_t>(i + 1);
  }
}

// philox4x32 with 10 rounds.
inline void Philox4x32(uint32_t k0, uint32_t k1, uint32_t x[4]) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u;
    const uint64_t p1 = uint64_t{x[2]} * 0xCD9E8D57u;
    const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0;
    const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = static_cast<uint32_t>(p1);
    x[2] = y2;
    x[3] = static_cast<uint32_t>(p0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// Stores the low `bytes` bytes of v (little-endian host) at element i.
inline void Store(void* out, int bytes, int64_t i, uint64_t v) {
  std::memcpy(static_cast<char*>(out) + i * bytes, &v, bytes);
}

// The 128-bit Philox counter of a state: (low, high).
inline void PhiloxCounter(const RngPlan& plan, const std::array<uint64_t, 3>& w, uint64_t* lo,
                          uint64_t* hi) {
  *lo = w[1];
  *hi = plan.state_words >= 3 ? w[2] : w[0];
}

}  // namespace

absl::StatusOr<RngPlan> MakeRngPlan(RngAlgorithm algorithm, const Shape& state,
                                    const Shape& output) {
  RngPlan p;
  p.algorithm = algorithm == RngAlgorithm::kDefault ? RngAlgorithm::kPhilox : algorithm;
  p.bit_width = BitWidth(output.dtype);
  if (state.rank() != 1 || output.is_tuple ||
      (p.bit_width != 8 && p.bit_width != 16 && p.bit_width != 32 && p.bit_width != 64)) {
    return absl::InvalidArgumentError(absl::StrCat("rng_bit_generator: unsupported types ",
                                                   state.ToString(), ", ", output.ToString()));
  }
  p.state_is_u32 = state.dtype == DType::kU32;
  p.state_words = p.state_is_u32 ? state.dims[0] / 2 : state.dims[0];
  p.num_elements = output.num_elements();
  if (p.algorithm == RngAlgorithm::kPhilox) {
    const int64_t words32 = p.bit_width == 64 ? 2 * p.num_elements : p.num_elements;
    p.num_blocks = (words32 + 3) / 4;
    return p;
  }
  if (p.bit_width == 64) {
    p.num_blocks = p.num_elements;
    return p;
  }
  // XLA's SplitShapeIntoHalves: the first even dimension, else the (first) largest.
  const std::vector<int64_t>& d = output.dims;
  int64_t split_dim = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i) {
    if (d[i] % 2 == 0) {
      split_dim = i;
      break;
    }
  }
  if (split_dim < 0) {
    for (int64_t i = 0; i < static_cast<int64_t>(d.size()); ++i) {
      if (split_dim < 0 || d[i] > d[split_dim]) split_dim = i;
    }
  }
  if (split_dim >= 0) {
    p.split = d[split_dim];
    for (int64_t i = 0; i < split_dim; ++i) p.outer *= d[i];
    for (int64_t i = split_dim + 1; i < static_cast<int64_t>(d.size()); ++i) p.inner *= d[i];
  }
  p.half = (p.split + 1) / 2;
  p.num_blocks = p.outer * p.half * p.inner;
  return p;
}

std::array<uint64_t, 3> ReadState(const RngPlan& plan, const void* state) {
  std::array<uint64_t, 3> w{0, 0, 0};
  for (int64_t i = 0; i < plan.state_words; ++i) {
    if (plan.state_is_u32) {
      uint32_t lo, hi;
      std::memcpy(&lo, static_cast<const char*>(state) + 8 * i, 4);
      std::memcpy(&hi, static_cast<const char*>(state) + 8 * i + 4, 4);
      w[i] = uint64_t{lo} | (uint64_t{hi} << 32);
    } else {
      std::memcpy(&w[i], static_cast<const char*>(state) + 8 * i, 8);
    }
  }
  return w;
}

void WriteNextState(const RngPlan& plan, const std::array<uint64_t, 3>& words, void* out) {
  std::array<uint64_t, 3> next = words;
  const auto n = static_cast<uint64_t>(plan.num_blocks);
  if (plan.algorithm == RngAlgorithm::kThreeFry) {
    next[1] = words[1] + n;
  } else {
    uint64_t lo, hi;
    PhiloxCounter(plan, words, &lo, &hi);
    next[1] = lo + n;
    if (plan.state_words >= 3) next[2] = hi + (next[1] < lo ? 1 : 0);
  }
  // Both layouts are the words' little-endian bytes.
  std::memcpy(out, next.data(), 8 * plan.state_words);
}

void GenerateBlocks(const RngPlan& plan, const std::array<uint64_t, 3>& words, int64_t begin,
                    int64_t end, void* output) {
  const uint32_t k0 = static_cast<uint32_t>(words[0]);
  const uint32_t k1 = static_cast<uint32_t>(words[0] >> 32);
  const int bytes = plan.bit_width / 8;
  const int64_t n = plan.num_elements;
  if (plan.algorithm == RngAlgorithm::kThreeFry) {
    for (int64_t b = begin; b < end; ++b) {
      const uint64_t c = words[1] + static_cast<uint64_t>(b);
      uint32_t x0 = static_cast<uint32_t>(c), x1 = static_cast<uint32_t>(c >> 32);
      Threefry2x32(k0, k1, x0, x1);
      if (plan.bit_width == 64) {
        Store(output, 8, b, uint64_t{x0} | (uint64_t{x1} << 32));
        continue;
      }
      // Block (o, q, i) fills split indices 2q and 2q + 1 of (o, ., i).
      const int64_t i = b % plan.inner, q = (b / plan.inner) % plan.half,
                    o = b / (plan.inner * plan.half);
      const int64_t at = (o * plan.split + 2 * q) * plan.inner + i;
      Store(output, bytes, at, x0);
      if (2 * q + 1 < plan.split) Store(output, bytes, at + plan.inner, x1);
    }
    return;
  }
  uint64_t lo, hi;
  PhiloxCounter(plan, words, &lo, &hi);
  for (int64_t b = begin; b < end; ++b) {
    const uint64_t c_lo = lo + static_cast<uint64_t>(b);
    const uint64_t c_hi = hi + (c_lo < lo ? 1 : 0);
    uint32_t x[4] = {static_cast<uint32_t>(c_lo), static_cast<uint32_t>(c_lo >> 32),
                     static_cast<uint32_t>(c_hi), static_cast<uint32_t>(c_hi >> 32)};
    Philox4x32(k0, k1, x);
    if (plan.bit_width == 64) {
      for (int j = 0; j < 2; ++j) {
        const int64_t at = 2 * b + j;
        if (at < n) Store(output, 8, at, uint64_t{x[2 * j]} | (uint64_t{x[2 * j + 1]} << 32));
      }
    } else {
      for (int j = 0; j < 4; ++j) {
        const int64_t at = 4 * b + j;
        if (at < n) Store(output, bytes, at, x[j]);
      }
    }
  }
}

}  // namespace xjit::rng
