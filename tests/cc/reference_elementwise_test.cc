// Element-wise reference kernels on hand-checked inputs, including every
// runtime semantics decision of docs/semantics.md.
#include <cmath>
#include <complex>
#include <limits>

#include "gtest/gtest.h"
#include "reference_test_util.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference::testing {
namespace {

using c64 = std::complex<float>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename V>
std::vector<V> Unary(Opcode op, const Literal& x) {
  absl::StatusOr<Literal> r = EvalUnary(op, x);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Read<V>(*r) : std::vector<V>{};
}

template <typename V>
std::vector<V> Binary(Opcode op, const Literal& a, const Literal& b) {
  absl::StatusOr<Literal> r = EvalBinary(op, a, b);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? Read<V>(*r) : std::vector<V>{};
}

std::vector<bool> Compare(const Literal& a, const Literal& b, ComparisonDirection d,
                          ComparisonType t) {
  absl::StatusOr<Literal> r = EvalCompare(a, b, d, t);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(r->shape().dtype, DType::kPred);
  return Read<bool>(*r);
}

TEST(ReferenceElementwise, IntegerDivisionEdgeCases) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  Literal a = Vec<int32_t>(DType::kS32, {7, -7, 5, kMin, 9});
  Literal b = Vec<int32_t>(DType::kS32, {2, 2, 0, -1, -4});
  EXPECT_EQ(Binary<int32_t>(Opcode::kDivide, a, b), (std::vector<int32_t>{3, -3, -1, kMin, -2}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kRemainder, a, b), (std::vector<int32_t>{1, -1, 5, 0, 1}));
  Literal ua = Vec<uint8_t>(DType::kU8, {7, 200});
  Literal ub = Vec<uint8_t>(DType::kU8, {0, 0});
  EXPECT_EQ(Binary<int>(Opcode::kDivide, ua, ub), (std::vector<int>{255, 255}));
  EXPECT_EQ(Binary<int>(Opcode::kRemainder, ua, ub), (std::vector<int>{7, 200}));
  Literal s8a = Vec<int>(DType::kS8, {-128, 3});
  Literal s8b = Vec<int>(DType::kS8, {-1, 0});
  EXPECT_EQ(Binary<int>(Opcode::kDivide, s8a, s8b), (std::vector<int>{-128, -1}));
}

TEST(ReferenceElementwise, IntegerArithmeticWraps) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  Literal a = Vec<int64_t>(DType::kS64, {kMax, 3});
  Literal b = Vec<int64_t>(DType::kS64, {1, -5});
  EXPECT_EQ(Binary<int64_t>(Opcode::kAdd, a, b),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), -2}));
  // u16 multiply must not go through signed int overflow.
  Literal u = Vec<int>(DType::kU16, {65535, 300});
  EXPECT_EQ(Binary<int>(Opcode::kMultiply, u, u), (std::vector<int>{1, 24464}));
  EXPECT_EQ(Unary<int>(Opcode::kNegate, Vec<int>(DType::kU8, {1, 0, 255})),
            (std::vector<int>{255, 0, 1}));
  EXPECT_EQ(Binary<int>(Opcode::kSubtract, Vec<int>(DType::kU32, {0}), Vec<int>(DType::kU32, {1})),
            (std::vector<int>{-1}));  // 0xFFFFFFFF read back as int
}

TEST(ReferenceElementwise, Shifts) {
  Literal a = Vec<int32_t>(DType::kS32, {-1, -8, 1, 5, -5, 7});
  Literal n = Vec<int32_t>(DType::kS32, {1, 1, 31, 32, -1, 0});
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftLeft, a, n),
            (std::vector<int32_t>{-2, -16, std::numeric_limits<int32_t>::min(), 0, 0, 7}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftRightArithmetic, a, n),
            (std::vector<int32_t>{-1, -4, 0, 0, -1, 7}));
  EXPECT_EQ(Binary<int32_t>(Opcode::kShiftRightLogical, a, n),
            (std::vector<int32_t>{0x7FFFFFFF, 0x7FFFFFFC, 0, 0, 0, 7}));
  // i64 -1 >>> 1 from the spec; u8 arithmetic shift propagates the top bit.
  EXPECT_EQ(Binary<int64_t>(Opcode::kShiftRightLogical, Vec<int64_t>(DType::kS64, {-1}),
                            Vec<int64_t>(DType::kS64, {1})),
            (std::vector<int64_t>{9223372036854775807}));
  EXPECT_EQ(Binary<int>(Opcode::kShiftRightArithmetic, Vec<int>(DType::kU8, {0x80, 0x80, 0x40}),
                        Vec<int>(DType::kU8, {1, 8, 9})),
            (std::vector<int>{0xC0, 0xFF, 0}));
  EXPECT_EQ(Binary<int>(Opcode::kShiftLeft, Vec<int>(DType::kS8, {-1, 64}), Vec<int>(DType::kS8, {1, 1})),
            (std::vector<int>{-2, -128}));
}

TEST(ReferenceElementwise, IntegerPower) {
  Literal base = Vec<int32_t>(DType::kS32, {2, 1, -1, -1, 2, -3, 0, 3});
  Literal exp = Vec<int32_t>(DType::kS32, {10, -5, -3, -4, -1, 3, 0, 0});
  EXPECT_EQ(Binary<int32_t>(Opcode::kPower, base, exp),
            (std::vector<int32_t>{1024, 1, -1, 1, 0, -27, 1, 1}));
  EXPECT_EQ(Binary<int>(Opcode::kPower, Vec<int>(DType::kU8, {2, 3}), Vec<int>(DType::kU8, {8, 5})),
            (std::vector<int>{0, 243}));  // 256 wraps to 0
}

TEST(ReferenceElementwise, AbsSignNegateNot) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Unary<int32_t>(Opcode::kAbs, Vec<int32_t>(DType::kS32, {-3, 4, kMin})),
            (std::vector<int32_t>{3, 4, kMin}));
  EXPECT_EQ(Unary<int32_t>(Opcode::kSign, Vec<int32_t>(DType::kS32, {-3, 0, 9})),
            (std::vector<int32_t>{-1, 0, 1}));
  std::vector<double> s = Unary<double>(Opcode::kSign, Vec<double>(DType::kF64, {-0.0, 0.0, kNaN, -2.5, 3.0}));
  ASSERT_EQ(s.size(), 5u);
  EXPECT_TRUE(s[0] == 0.0 && std::signbit(s[0]));
  EXPECT_TRUE(s[1] == 0.0 && !std::signbit(s[1]));
  EXPECT_TRUE(std::isnan(s[2]));
  EXPECT_EQ(s[3], -1.0);
  EXPECT_EQ(s[4], 1.0);
  EXPECT_EQ(Unary<int32_t>(Opcode::kNot, Vec<int32_t>(DType::kS32, {1, 0})), (std::vector<int32_t>{-2, -1}));
  EXPECT_EQ(Unary<bool>(Opcode::kNot, Vec<bool>(DType::kPred, {true, false})), (std::vector<bool>{false, true}));
  // Complex abs returns the component type.
  absl::StatusOr<Literal> ca = EvalUnary(Opcode::kAbs, Vec<c64>(DType::kC64, {c64(3, 4)}));
  ASSERT_TRUE(ca.ok());
  EXPECT_EQ(ca->shape().dtype, DType::kF32);
  EXPECT_EQ(Read<float>(*ca), (std::vector<float>{5.0f}));
  std::vector<c64> cs = Unary<c64>(Opcode::kSign, Vec<c64>(DType::kC64, {c64(3, 4), c64(0, 0)}));
  EXPECT_EQ(cs, (std::vector<c64>{c64(0.6f, 0.8f), c64(0, 0)}));
}

TEST(ReferenceElementwise, Rounding) {
  Literal x = Vec<double>(DType::kF32, {-2.5, -0.5, 0.5, 1.5, 2.5, -0.4, 3.7});
  EXPECT_EQ(Unary<double>(Opcode::kRoundNearestAfz, x),
            (std::vector<double>{-3, -1, 1, 2, 3, -0.0, 4}));
  std::vector<double> even = Unary<double>(Opcode::kRoundNearestEven, x);
  EXPECT_EQ(even, (std::vector<double>{-2, -0.0, 0, 2, 2, -0.0, 4}));
  EXPECT_TRUE(std::signbit(even[1]));  // -0.5 -> -0.0
  EXPECT_TRUE(std::signbit(even[5]));
  // Spec example: ceil/floor keep the sign of zero.
  std::vector<double> c = Unary<double>(Opcode::kCeil, Vec<double>(DType::kF32, {-0.8166, -0.2530, 0.2530, 0.8166, 2.0}));
  EXPECT_EQ(c, (std::vector<double>{-0.0, -0.0, 1.0, 1.0, 2.0}));
  EXPECT_TRUE(std::signbit(c[1]));
  EXPECT_EQ(Unary<double>(Opcode::kFloor, Vec<double>(DType::kF32, {-0.8166, -0.2530, 0.2530, 0.8166, 2.0})),
            (std::vector<double>{-1.0, -1.0, 0.0, 0.0, 2.0}));
}

TEST(ReferenceElementwise, MaxMinPropagateNaN) {
  Literal a = Vec<double>(DType::kF32, {kNaN, 1.0, -0.0, 2.0});
  Literal b = Vec<double>(DType::kF32, {1.0, kNaN, 0.0, -3.0});
  std::vector<double> mx = Binary<double>(Opcode::kMaximum, a, b);
  std::vector<double> mn = Binary<double>(Opcode::kMinimum, a, b);
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
  EXPECT_FALSE(std::signbit(mx[2]));
  EXPECT_TRUE(std::signbit(mn[2]));
  EXPECT_EQ(mx[3], 2.0);
  EXPECT_EQ(mn[3], -3.0);
  // Complex: lexicographic (real, imag).
  Literal ca = Vec<c64>(DType::kC64, {c64(1, 5), c64(2, 0)});
  Literal cb = Vec<c64>(DType::kC64, {c64(1, 6), c64(1, 9)});
  EXPECT_EQ(Binary<c64>(Opcode::kMaximum, ca, cb), (std::vector<c64>{c64(1, 6), c64(2, 0)}));
  EXPECT_EQ(Binary<c64>(Opcode::kMinimum, ca, cb), (std::vector<c64>{c64(1, 5), c64(1, 9)}));
  // pred: max = or, min = and; add = or, multiply = and.
  Literal p = Vec<bool>(DType::kPred, {false, false, true, true});
  Literal q = Vec<bool>(DType::kPred, {false, true, false, true});
  EXPECT_EQ(Binary<bool>(Opcode::kMaximum, p, q), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kMinimum, p, q), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kAdd, p, q), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kMultiply, p, q), (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Binary<bool>(Opcode::kXor, p, q), (std::vector<bool>{false, true, true, false}));
}

TEST(ReferenceElementwise, FloatRemainderAndPower) {
  // Spec example: sign follows the dividend (C fmod).
  Literal a = Vec<double>(DType::kF32, {17.1, -17.1, 17.1, -17.1});
  Literal b = Vec<double>(DType::kF32, {3.0, 3.0, -3.0, -3.0});
  std::vector<double> r = Binary<double>(Opcode::kRemainder, a, b);
  const double expect[] = {2.1, -2.1, 2.1, -2.1};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r[i], expect[i], 1e-5);
  std::vector<double> p = Binary<double>(Opcode::kPower, Vec<double>(DType::kF64, {-2.0, -36.0, 5.0}),
                                         Vec<double>(DType::kF64, {2.0, 1.1, -0.0}));
  EXPECT_EQ(p[0], 4.0);
  EXPECT_TRUE(std::isnan(p[1]));
  EXPECT_EQ(p[2], 1.0);
  // Complex remainder: lhs - trunc(lhs / rhs) * rhs per part.
  std::vector<c64> cr = Binary<c64>(Opcode::kRemainder, Vec<c64>(DType::kC64, {c64(7, 5)}),
                                    Vec<c64>(DType::kC64, {c64(2, 0)}));
  EXPECT_EQ(cr, (std::vector<c64>{c64(1, 1)}));
}

TEST(ReferenceElementwise, HalfTypesComputeInFloat) {
  // bf16 has 8 significant bits: 256 + 1 rounds to even (256).
  std::vector<double> bf = Binary<double>(Opcode::kAdd, Vec<double>(DType::kBF16, {256.0, 1.5}),
                                          Vec<double>(DType::kBF16, {1.0, 0.25}));
  EXPECT_EQ(bf, (std::vector<double>{256.0, 1.75}));
  std::vector<double> h = Binary<double>(Opcode::kMultiply, Vec<double>(DType::kF16, {300.0, 0.1}),
                                         Vec<double>(DType::kF16, {300.0, 3.0}));
  EXPECT_TRUE(std::isinf(h[0]));  // 90000 > f16 max 65504
  EXPECT_NEAR(h[1], 0.3, 1e-3);
  std::vector<double> e = Unary<double>(Opcode::kExponential, Vec<double>(DType::kF16, {0.0, 1.0}));
  EXPECT_EQ(e[0], 1.0);
  EXPECT_NEAR(e[1], 2.71875, 1e-6);  // exp(1) rounded to f16
}

TEST(ReferenceElementwise, Transcendentals) {
  Literal x = Vec<double>(DType::kF64, {0.0, 1.0});
  EXPECT_NEAR(Unary<double>(Opcode::kLogistic, x)[1], 0.7310585786300049, 1e-15);
  EXPECT_NEAR(Unary<double>(Opcode::kExponentialMinusOne, x)[1], 1.718281828459045, 1e-15);
  EXPECT_NEAR(Unary<double>(Opcode::kLogPlusOne, x)[1], 0.6931471805599453, 1e-15);
  EXPECT_NEAR(Unary<double>(Opcode::kErf, x)[1], 0.8427007929497149, 1e-15);
  EXPECT_NEAR(Unary<double>(Opcode::kCbrt, Vec<double>(DType::kF64, {-27.0}))[0], -3.0, 1e-14);
  EXPECT_EQ(Unary<double>(Opcode::kRsqrt, Vec<double>(DType::kF64, {4.0}))[0], 0.5);
  EXPECT_EQ(Unary<bool>(Opcode::kIsFinite, Vec<double>(DType::kF32, {kInf, -kInf, kNaN, 1.0})),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kCountLeadingZeros, Vec<int64_t>(DType::kS64, {0, 1, 128, -1})),
            (std::vector<int64_t>{64, 63, 56, 0}));
  EXPECT_EQ(Unary<int>(Opcode::kCountLeadingZeros, Vec<int>(DType::kU8, {1})), (std::vector<int>{7}));
  EXPECT_EQ(Unary<int64_t>(Opcode::kPopcnt, Vec<int64_t>(DType::kS64, {0, 1, 2, 127})),
            (std::vector<int64_t>{0, 1, 1, 7}));
  EXPECT_EQ(Unary<int>(Opcode::kPopcnt, Vec<int>(DType::kS8, {-1})), (std::vector<int>{8}));
  // Complex transcendental: exp(i*pi) = -1.
  std::vector<std::complex<double>> ce =
      Unary<std::complex<double>>(Opcode::kExponential, Vec<std::complex<double>>(DType::kC128, {{0.0, M_PI}}));
  EXPECT_NEAR(ce[0].real(), -1.0, 1e-15);
  EXPECT_NEAR(ce[0].imag(), 0.0, 1e-15);
  EXPECT_NEAR(Binary<double>(Opcode::kAtan2, Vec<double>(DType::kF64, {1.0}), Vec<double>(DType::kF64, {0.0}))[0],
              M_PI / 2, 1e-15);
}

TEST(ReferenceElementwise, SpecExamplesMathAndBitwise) {
  Literal x = Vec<double>(DType::kF64, {0.0, M_PI / 2, M_PI, 1.0});
  std::vector<double> c = Unary<double>(Opcode::kCosine, x);
  std::vector<double> s = Unary<double>(Opcode::kSine, x);
  const double ec[] = {1.0, 0.0, -1.0, 0.5403023058681398};
  const double es[] = {0.0, 1.0, 0.0, 0.8414709848078965};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(c[i], ec[i], 1e-15);
    EXPECT_NEAR(s[i], es[i], 1e-15);
  }
  EXPECT_NEAR(Unary<double>(Opcode::kTan, x)[3], 1.5574077246549023, 1e-15);
  EXPECT_NEAR(Unary<double>(Opcode::kTanh, Vec<double>(DType::kF32, {-1.0}))[0], -0.76159416, 1e-7);
  EXPECT_NEAR(Unary<double>(Opcode::kLog, Vec<double>(DType::kF64, {2.0}))[0], 0.6931471805599453, 1e-15);
  EXPECT_EQ(Unary<double>(Opcode::kSqrt, Vec<double>(DType::kF32, {0.0, 4.0})), (std::vector<double>{0.0, 2.0}));
  EXPECT_TRUE(std::isnan(Unary<double>(Opcode::kSqrt, Vec<double>(DType::kF32, {-1.0}))[0]));
  std::vector<std::complex<double>> cs = Unary<std::complex<double>>(
      Opcode::kSqrt, Vec<std::complex<double>>(DType::kC128, {{-4.0, 0.0}}));
  EXPECT_NEAR(cs[0].imag(), 2.0, 1e-15);
  Literal a = Vec<int>(DType::kS32, {1, 2, 3, 4});
  Literal b = Vec<int>(DType::kS32, {5, 6, 7, 8});
  EXPECT_EQ(Binary<int>(Opcode::kAnd, a, b), (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(Binary<int>(Opcode::kOr, a, b), (std::vector<int>{5, 6, 7, 12}));
  EXPECT_EQ(Binary<int>(Opcode::kXor, a, b), (std::vector<int>{4, 4, 4, 12}));
  EXPECT_EQ(Binary<int>(Opcode::kMaximum, Vec<int>(DType::kU8, {200, 3}), Vec<int>(DType::kU8, {100, 4})),
            (std::vector<int>{200, 4}));
  EXPECT_EQ(Binary<int>(Opcode::kMinimum, Vec<int>(DType::kS8, {-100, 3}), Vec<int>(DType::kS8, {100, 4})),
            (std::vector<int>{-100, 3}));
  // Spec example (float division; the spec's listed values are those of 17/3).
  std::vector<double> d = Binary<double>(Opcode::kDivide, Vec<double>(DType::kF32, {17.1, -17.1}),
                                         Vec<double>(DType::kF32, {3.0, -3.0}));
  EXPECT_NEAR(d[0], 5.7, 1e-5);
  EXPECT_NEAR(d[1], 5.7, 1e-5);
}

TEST(ReferenceElementwise, RealImagComplex) {
  Literal z = Vec<c64>(DType::kC64, {c64(1, 2), c64(3, 4)});
  absl::StatusOr<Literal> re = EvalUnary(Opcode::kReal, z);
  absl::StatusOr<Literal> im = EvalUnary(Opcode::kImag, z);
  ASSERT_TRUE(re.ok() && im.ok());
  EXPECT_EQ(re->shape().dtype, DType::kF32);
  EXPECT_EQ(Read<float>(*re), (std::vector<float>{1, 3}));
  EXPECT_EQ(Read<float>(*im), (std::vector<float>{2, 4}));
  EXPECT_EQ(Unary<double>(Opcode::kImag, Vec<double>(DType::kF64, {5.0})), (std::vector<double>{0.0}));
  absl::StatusOr<Literal> c = EvalBinary(Opcode::kComplex, Vec<double>(DType::kF64, {1.0}),
                                         Vec<double>(DType::kF64, {-2.0}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->shape().dtype, DType::kC128);
  EXPECT_EQ(Read<std::complex<double>>(*c), (std::vector<std::complex<double>>{{1.0, -2.0}}));
}

TEST(ReferenceElementwise, RejectsUnacceptedTypes) {
  EXPECT_FALSE(EvalBinary(Opcode::kShiftLeft, Vec<double>(DType::kF32, {1.0}), Vec<double>(DType::kF32, {1.0})).ok());
  EXPECT_FALSE(EvalBinary(Opcode::kSubtract, Vec<bool>(DType::kPred, {true}), Vec<bool>(DType::kPred, {true})).ok());
  EXPECT_FALSE(EvalUnary(Opcode::kSine, Vec<int>(DType::kS32, {1})).ok());
  EXPECT_FALSE(EvalBinary(Opcode::kAdd, Vec<int>(DType::kS32, {1, 2}), Vec<int>(DType::kS32, {1})).ok());
  EXPECT_FALSE(EvalBinary(Opcode::kComplex, Vec<double>(DType::kF16, {1.0}), Vec<double>(DType::kF16, {1.0})).ok());
}

TEST(ReferenceCompare, FloatIeeeAndTotalOrder) {
  Literal a = Vec<double>(DType::kF32, {kNaN, 1.0, -0.0, -kNaN, 2.0});
  Literal b = Vec<double>(DType::kF32, {kNaN, kNaN, 0.0, -kInf, 1.0});
  using D = ComparisonDirection;
  EXPECT_EQ(Compare(a, b, D::kEq, ComparisonType::kFloat), (std::vector<bool>{false, false, true, false, false}));
  EXPECT_EQ(Compare(a, b, D::kNe, ComparisonType::kFloat), (std::vector<bool>{true, true, false, true, true}));
  EXPECT_EQ(Compare(a, b, D::kLt, ComparisonType::kFloat), (std::vector<bool>{false, false, false, false, false}));
  EXPECT_EQ(Compare(a, b, D::kGe, ComparisonType::kFloat), (std::vector<bool>{false, false, true, false, true}));
  // totalOrder: NaN == NaN, -0 < +0, -NaN < -Inf.
  EXPECT_EQ(Compare(a, b, D::kEq, ComparisonType::kTotalOrder), (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ(Compare(a, b, D::kLt, ComparisonType::kTotalOrder), (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(Compare(Vec<double>(DType::kBF16, {-1.0, 1.0}), Vec<double>(DType::kBF16, {-2.0, kNaN}), D::kGt,
                    ComparisonType::kTotalOrder),
            (std::vector<bool>{true, false}));
}

TEST(ReferenceCompare, IntegerPredComplex) {
  using D = ComparisonDirection;
  EXPECT_EQ(Compare(Vec<int>(DType::kS8, {-1, 5}), Vec<int>(DType::kS8, {1, 5}), D::kLt, ComparisonType::kSigned),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(Compare(Vec<int>(DType::kU8, {255, 5}), Vec<int>(DType::kU8, {1, 5}), D::kLe, ComparisonType::kUnsigned),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(Compare(Vec<bool>(DType::kPred, {false, true}), Vec<bool>(DType::kPred, {true, true}), D::kLt,
                    ComparisonType::kUnsigned),
            (std::vector<bool>{true, false}));
  Literal p = Vec<c64>(DType::kC64, {c64(1, 2), c64(1, 2), c64(0, 9)});
  Literal q = Vec<c64>(DType::kC64, {c64(1, 2), c64(1, 3), c64(1, 0)});
  EXPECT_EQ(Compare(p, q, D::kEq, ComparisonType::kFloat), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Compare(p, q, D::kLt, ComparisonType::kFloat), (std::vector<bool>{false, true, true}));
  EXPECT_FALSE(EvalCompare(p, q, D::kLt, ComparisonType::kSigned).ok());
}

TEST(ReferenceConvert, FloatToIntSaturatesAndNaNIsZero) {
  Literal x = Vec<double>(DType::kF32, {kNaN, 1e10, -1e10, 2.9, -2.9, -0.5, kInf, -kInf});
  absl::StatusOr<Literal> r = EvalConvert(x, DType::kS32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Read<int32_t>(*r), (std::vector<int32_t>{0, 2147483647, -2147483647 - 1, 2, -2, 0,
                                                     2147483647, -2147483647 - 1}));
  absl::StatusOr<Literal> u = EvalConvert(x, DType::kU8);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Read<int>(*u), (std::vector<int>{0, 255, 0, 2, 0, 0, 255, 0}));
  absl::StatusOr<Literal> s64 = EvalConvert(Vec<double>(DType::kF64, {9.3e18, -9.3e18, 9.2e18}), DType::kS64);
  ASSERT_TRUE(s64.ok());
  EXPECT_EQ(Read<int64_t>(*s64), (std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                                       std::numeric_limits<int64_t>::min(),
                                                       9200000000000000000}));
  absl::StatusOr<Literal> u64 = EvalConvert(Vec<double>(DType::kF64, {2e19, -1.0}), DType::kU64);
  ASSERT_TRUE(u64.ok());
  EXPECT_EQ(Read<uint64_t>(*u64), (std::vector<uint64_t>{std::numeric_limits<uint64_t>::max(), 0}));
}

TEST(ReferenceConvert, BoolComplexAndIntegerWidths) {
  absl::StatusOr<Literal> b = EvalConvert(Vec<double>(DType::kF32, {0.0, -0.0, -2.0, 0.5, kNaN}), DType::kPred);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Read<bool>(*b), (std::vector<bool>{false, false, true, true, true}));
  absl::StatusOr<Literal> bi = EvalConvert(Vec<int>(DType::kS32, {0, -3}), DType::kPred);
  EXPECT_EQ(Read<bool>(*bi), (std::vector<bool>{false, true}));
  absl::StatusOr<Literal> from_pred = EvalConvert(Vec<bool>(DType::kPred, {true, false}), DType::kF16);
  EXPECT_EQ(Read<float>(*from_pred), (std::vector<float>{1.0f, 0.0f}));
  // complex -> real drops the imaginary part; real -> complex has imag 0.
  absl::StatusOr<Literal> re = EvalConvert(Vec<c64>(DType::kC64, {c64(2.5, 7)}), DType::kF64);
  EXPECT_EQ(Read<double>(*re), (std::vector<double>{2.5}));
  absl::StatusOr<Literal> ri = EvalConvert(Vec<c64>(DType::kC64, {c64(-2.5, 7)}), DType::kS16);
  EXPECT_EQ(Read<int>(*ri), (std::vector<int>{-2}));
  absl::StatusOr<Literal> cb = EvalConvert(Vec<c64>(DType::kC64, {c64(0, 1), c64(0, 0)}), DType::kPred);
  EXPECT_EQ(Read<bool>(*cb), (std::vector<bool>{true, false}));
  absl::StatusOr<Literal> z = EvalConvert(Vec<int>(DType::kS32, {3}), DType::kC128);
  EXPECT_EQ(Read<std::complex<double>>(*z), (std::vector<std::complex<double>>{{3.0, 0.0}}));
  // int -> int wraps modulo 2^bits.
  absl::StatusOr<Literal> w = EvalConvert(Vec<int>(DType::kS32, {300, -1, 128}), DType::kS8);
  EXPECT_EQ(Read<int>(*w), (std::vector<int>{44, -1, -128}));
  absl::StatusOr<Literal> w2 = EvalConvert(Vec<int>(DType::kS8, {-1}), DType::kU32);
  EXPECT_EQ(Read<uint32_t>(*w2), (std::vector<uint32_t>{0xFFFFFFFFu}));
  // f32 -> bf16 rounds to nearest even.
  absl::StatusOr<Literal> h = EvalConvert(Vec<double>(DType::kF32, {1.00390625, 1.01171875}), DType::kBF16);
  EXPECT_EQ(Read<float>(*h), (std::vector<float>{1.0f, 1.015625f}));
}

TEST(ReferenceTernary, SelectAndClamp) {
  Literal p = Vec<bool>(DType::kPred, {true, false, true});
  Literal t = Vec<int>(DType::kS32, {1, 2, 3});
  Literal f = Vec<int>(DType::kS32, {-1, -2, -3});
  absl::StatusOr<Literal> s = EvalSelect(p, t, f);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Read<int>(*s), (std::vector<int>{1, -2, 3}));
  absl::StatusOr<Literal> s0 = EvalSelect(Scalar(DType::kPred, false), t, f);
  EXPECT_EQ(Read<int>(*s0), (std::vector<int>{-1, -2, -3}));
  EXPECT_FALSE(EvalSelect(Vec<bool>(DType::kPred, {true}), t, f).ok());
  // Scalar bounds apply to every element.
  absl::StatusOr<Literal> c = EvalClamp(Scalar(DType::kS32, 0), Vec<int>(DType::kS32, {-5, 3, 9}),
                                        Scalar(DType::kS32, 5));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(Read<int>(*c), (std::vector<int>{0, 3, 5}));
  // Spec example with per-element bounds.
  absl::StatusOr<Literal> cv = EvalClamp(Vec<int>(DType::kS32, {5, 10, 15}), Vec<int>(DType::kS32, {3, 13, 23}),
                                         Vec<int>(DType::kS32, {10, 15, 20}));
  EXPECT_EQ(Read<int>(*cv), (std::vector<int>{5, 13, 20}));
  std::vector<double> cn = Read<double>(*EvalClamp(Scalar(DType::kF32, 0.0), Vec<double>(DType::kF32, {kNaN, 2.0}),
                                                   Scalar(DType::kF32, 1.0)));
  EXPECT_TRUE(std::isnan(cn[0]));
  EXPECT_EQ(cn[1], 1.0);
}

}  // namespace
}  // namespace xjit::reference::testing
