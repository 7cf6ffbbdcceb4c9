// The cpu backend's float32 tanh and exp against double-precision libm over a
// sweep of bit patterns that covers every binade, plus the special values.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"
#include "xjit/backends/cpu/fast_math.h"

namespace xjit::cpu {
namespace {

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Relative error of `got` against the float-rounded exact value.
double RelativeError(float got, double exact) {
  const float want = static_cast<float>(exact);
  if (want == got) return 0;
  return std::fabs(got - static_cast<double>(want)) /
         std::fmax(std::fabs(static_cast<double>(want)), std::numeric_limits<float>::min());
}

TEST(FastMath, TanhWithinFourUlp) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    ASSERT_LE(RelativeError(FastTanh(x), std::tanh(static_cast<double>(x))), 5e-7) << x;
  }
  EXPECT_TRUE(std::isnan(FastTanh(NAN)));
  EXPECT_EQ(FastTanh(INFINITY), 1.0f);
  EXPECT_EQ(FastTanh(-INFINITY), -1.0f);
  EXPECT_TRUE(std::signbit(FastTanh(-0.0f)));
}

TEST(FastMath, ExpWithinOneUlp) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    const double exact = std::exp(static_cast<double>(x));
    const float got = FastExp(x);
    if (std::isinf(static_cast<float>(exact))) {
      ASSERT_TRUE(std::isinf(got)) << x;
    } else if (static_cast<float>(exact) < std::numeric_limits<float>::min()) {
      ASSERT_LE(std::fabs(got - exact), 2 * std::numeric_limits<float>::denorm_min()) << x;
    } else {
      ASSERT_LE(RelativeError(got, exact), 1.2e-7) << x;
    }
  }
  EXPECT_TRUE(std::isnan(FastExp(NAN)));
  EXPECT_EQ(FastExp(-INFINITY), 0.0f);
  EXPECT_EQ(FastExp(INFINITY), INFINITY);
  EXPECT_EQ(FastExp(89.0f), INFINITY);
  EXPECT_EQ(FastExp(-200.0f), 0.0f);
  EXPECT_EQ(FastExp(0.0f), 1.0f);
}

// Error in units of the float spacing at the exact value.
double UlpError(float got, double exact) {
  const float want = static_cast<float>(exact);
  if (want == got) return 0;
  const float next = std::nextafter(std::fabs(want), INFINITY);
  return std::fabs(got - exact) / (static_cast<double>(next) - std::fabs(static_cast<double>(want)));
}

TEST(FastMath, LogWithinTwoUlp) {
  for (uint64_t b = 1; b < 0x7F800000u; b += 1031) {  // every positive finite binade
    const float x = FromBits(static_cast<uint32_t>(b));
    ASSERT_LE(UlpError(FastLog(x), std::log(static_cast<double>(x))), 2.0) << x;
  }
  EXPECT_EQ(FastLog(1.0f), 0.0f);
  EXPECT_EQ(FastLog(0.0f), -INFINITY);
  EXPECT_EQ(FastLog(-0.0f), -INFINITY);
  EXPECT_EQ(FastLog(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(FastLog(-1.0f)));
  EXPECT_TRUE(std::isnan(FastLog(-INFINITY)));
  EXPECT_TRUE(std::isnan(FastLog(NAN)));
}

TEST(FastMath, Log1pWithinFourUlp) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(x) || x <= -1.0f || std::isinf(x)) continue;
    const double exact = std::log1p(static_cast<double>(x));
    ASSERT_LE(UlpError(FastLog1p(x), exact), 4.0) << x;
  }
  EXPECT_EQ(FastLog1p(-1.0f), -INFINITY);
  EXPECT_EQ(FastLog1p(INFINITY), INFINITY);
  EXPECT_TRUE(std::signbit(FastLog1p(-0.0f)));
  EXPECT_EQ(FastLog1p(1e-30f), 1e-30f);
  EXPECT_TRUE(std::isnan(FastLog1p(-2.0f)));
  EXPECT_TRUE(std::isnan(FastLog1p(NAN)));
}

TEST(FastMath, Expm1WithinFourUlp) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    const double exact = std::expm1(static_cast<double>(x));
    if (std::isinf(static_cast<float>(exact))) {
      ASSERT_TRUE(std::isinf(FastExpm1(x))) << x;
    } else {
      ASSERT_LE(UlpError(FastExpm1(x), exact), 4.0) << x;
    }
  }
  EXPECT_EQ(FastExpm1(-INFINITY), -1.0f);
  EXPECT_EQ(FastExpm1(INFINITY), INFINITY);
  EXPECT_TRUE(std::signbit(FastExpm1(-0.0f)));
  EXPECT_EQ(FastExpm1(1e-30f), 1e-30f);
  EXPECT_TRUE(std::isnan(FastExpm1(NAN)));
}

TEST(FastMath, LogisticWithinFourUlp) {
  for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 4099) {
    const float x = FromBits(static_cast<uint32_t>(b));
    if (std::isnan(x)) continue;
    const double exact = 1.0 / (1.0 + std::exp(-static_cast<double>(x)));
    if (static_cast<float>(exact) < std::numeric_limits<float>::min()) {
      // Below x = -88.7 exp(-x) overflows and the result is 0, as with libm's
      // float exp: off by at most the (subnormal) exact value.
      ASSERT_LE(std::fabs(FastLogistic(x) - exact), exact + 1e-45) << x;
    } else {
      ASSERT_LE(UlpError(FastLogistic(x), exact), 4.0) << x;
    }
  }
  EXPECT_EQ(FastLogistic(INFINITY), 1.0f);
  EXPECT_EQ(FastLogistic(-INFINITY), 0.0f);
  EXPECT_EQ(FastLogistic(0.0f), 0.5f);
}

}  // namespace
}  // namespace xjit::cpu
