// issue 11 (h-fft): fft's shape rule and its cpu (ducc0) vs reference (DFT
// by definition) values; the dynamic-shape lowering pass (constants, folded
// constants, a clear error otherwise); rng, optimization_barrier, replica_id.
#include <cmath>
#include <complex>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/passes/dynamic_shape_lowering.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Shape> InferFft(const Shape& x, FftType type, std::vector<int64_t> len) {
  const Shape* ops[] = {&x};
  return InferShape(Opcode::kFft, ops, FftAttrs{type, std::move(len)}, {}, nullptr);
}

TEST(FftShape, Types) {
  EXPECT_EQ(*InferFft(Shape(DType::kC64, {3, 8}), FftType::kFft, {8}), Shape(DType::kC64, {3, 8}));
  EXPECT_EQ(*InferFft(Shape(DType::kF32, {3, 8}), FftType::kRfft, {8}), Shape(DType::kC64, {3, 5}));
  EXPECT_EQ(*InferFft(Shape(DType::kF64, {4, 7}), FftType::kRfft, {4, 7}),
            Shape(DType::kC128, {4, 4}));
  EXPECT_EQ(*InferFft(Shape(DType::kC64, {2, 5}), FftType::kIrfft, {8}), Shape(DType::kF32, {2, 8}));
  EXPECT_EQ(*InferFft(Shape(DType::kC128, {2, 4}), FftType::kIrfft, {2, 7}),
            Shape(DType::kF64, {2, 7}));
}

TEST(FftShape, Rejections) {
  EXPECT_THAT(InferFft(Shape(DType::kF32, {8}), FftType::kFft, {8}).status().message(),
              HasSubstr("complex"));
  EXPECT_THAT(InferFft(Shape(DType::kC64, {8}), FftType::kRfft, {8}).status().message(),
              HasSubstr("f32 or f64"));
  EXPECT_THAT(InferFft(Shape(DType::kC64, {8}), FftType::kFft, {4}).status().message(),
              HasSubstr("last 1 dimensions"));
  EXPECT_THAT(InferFft(Shape(DType::kC64, {2, 2, 2, 2}), FftType::kFft, {2, 2, 2, 2})
                  .status().message(),
              HasSubstr("1 to 3"));
  EXPECT_THAT(InferFft(Shape(DType::kC64, {8}), FftType::kFft, {2, 8}).status().message(),
              HasSubstr("rank 1"));
  EXPECT_FALSE(InferFft(Shape(DType::kC64, {5}), FftType::kIrfft, {10}).ok());
  EXPECT_FALSE(InferFft(Shape(DType::kF32, {0}), FftType::kRfft, {0}).ok());
}

void ExpectClose(const Literal& a, const Literal& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  const DType t = a.shape().dtype;
  if (!(t == DType::kF32 || t == DType::kF64 || IsComplex(t))) {
    EXPECT_EQ(a, b);
    return;
  }
  const int64_t n = a.shape().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    double x, y, xi = 0, yi = 0;
    switch (a.shape().dtype) {
      case DType::kF32: x = a.data_as<float>()[i]; y = b.data_as<float>()[i]; break;
      case DType::kF64: x = a.data_as<double>()[i]; y = b.data_as<double>()[i]; break;
      case DType::kC64:
        x = a.data_as<std::complex<float>>()[i].real(); y = b.data_as<std::complex<float>>()[i].real();
        xi = a.data_as<std::complex<float>>()[i].imag(); yi = b.data_as<std::complex<float>>()[i].imag();
        break;
      default:
        x = a.data_as<std::complex<double>>()[i].real(); y = b.data_as<std::complex<double>>()[i].real();
        xi = a.data_as<std::complex<double>>()[i].imag(); yi = b.data_as<std::complex<double>>()[i].imag();
    }
    ASSERT_NEAR(x, y, tol) << "element " << i;
    ASSERT_NEAR(xi, yi, tol) << "element " << i;
  }
}

void ExpectCpuMatchesReference(const std::string& text, double tol) {
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args;
  int seed = 1;
  for (const Shape& s : m->ParameterShapes()) args.push_back(Pattern(s, seed++));
  auto want = RunOn("reference", *m, args);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = RunOn("cpu", *m, args);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < want->size(); ++i) ExpectClose((*got)[i], (*want)[i], tol);
}

TEST(Fft, CpuMatchesReference) {
  for (const char* type : {"FFT", "IFFT"}) {
    ExpectCpuMatchesReference(absl::StrCat(R"(module @m {
  func.func @main(%a: tensor<3x5x6xcomplex<f32>>) -> tensor<3x5x6xcomplex<f32>> {
    %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type )", type, R"(>, fft_length = array<i64: 5, 6>} : (tensor<3x5x6xcomplex<f32>>) -> tensor<3x5x6xcomplex<f32>>
    "func.return"(%0) : (tensor<3x5x6xcomplex<f32>>) -> ()
  }
})"), 1e-4);
  }
  ExpectCpuMatchesReference(R"(module @m {
  func.func @main(%a: tensor<2x4x9xf64>) -> tensor<2x4x5xcomplex<f64>> {
    %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 2, 4, 9>} : (tensor<2x4x9xf64>) -> tensor<2x4x5xcomplex<f64>>
    "func.return"(%0) : (tensor<2x4x5xcomplex<f64>>) -> ()
  }
})", 1e-10);
  ExpectCpuMatchesReference(R"(module @m {
  func.func @main(%a: tensor<3x4x5xcomplex<f32>>) -> tensor<3x4x8xf32> {
    %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type IRFFT>, fft_length = array<i64: 4, 8>} : (tensor<3x4x5xcomplex<f32>>) -> tensor<3x4x8xf32>
    "func.return"(%0) : (tensor<3x4x8xf32>) -> ()
  }
})", 1e-4);
}

TEST(DynamicShapeLowering, ConstantsAndFoldedConstantsBecomeStaticOps) {
  const std::string text = R"(module @m {
  func.func @main(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xi32>, tensor<i32>, tensor<4x2x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
    %1 = "stablehlo.dynamic_reshape"(%a, %0) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    %2 = "stablehlo.constant"() {value = dense<[3, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
    %3 = "stablehlo.reverse"(%2) {dimensions = array<i64: 0>} : (tensor<2xi32>) -> tensor<2xi32>
    %4 = "stablehlo.dynamic_iota"(%3) {iota_dimension = 1 : i64} : (tensor<2xi32>) -> tensor<2x3xi32>
    %5 = "stablehlo.get_dimension_size"(%a) {dimension = 1 : i64} : (tensor<2x3xf32>) -> tensor<i32>
    %6 = "stablehlo.constant"() {value = dense<[4, 2, 3]> : tensor<3xi64>} : () -> tensor<3xi64>
    %7 = "stablehlo.dynamic_broadcast_in_dim"(%a, %6) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
    "func.return"(%1, %4, %5, %7) : (tensor<3x2xf32>, tensor<2x3xi32>, tensor<i32>, tensor<4x2x3xf32>) -> ()
  }
})";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(passes::HasDynamicShapeOps(*m));
  auto lowered = passes::LowerDynamicShapes(*m);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_FALSE(passes::HasDynamicShapeOps(**lowered));
  const std::string printed = PrintModule(**lowered);
  EXPECT_THAT(printed, HasSubstr("stablehlo.reshape"));
  EXPECT_THAT(printed, HasSubstr("stablehlo.broadcast_in_dim"));
  auto got = RunOn("cpu", *m, {Pattern(Shape(DType::kF32, {2, 3}))});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[2].data_as<int32_t>()[0], 3);
  EXPECT_EQ((*got)[1].data_as<int32_t>()[5], 2);
}

TEST(DynamicShapeLowering, UnknownShapeOperandIsAClearError) {
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%a: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<3x2xf32> {
    %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    "func.return"(%0) : (tensor<3x2xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  for (const char* platform : {"cpu", "reference"}) {
    auto got = RunOn(platform, *m, {Pattern(Shape(DType::kF32, {2, 3})),
                                    Pattern(Shape(DType::kS64, {2}))});
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("not known at compile time"));
  }
}

TEST(DynamicShapeLowering, ValuesMustMatchTheDeclaredType) {
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %s = "stablehlo.constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
    %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    "func.return"(%0) : (tensor<3x2xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  auto lowered = passes::LowerDynamicShapes(*m);
  ASSERT_FALSE(lowered.ok());
  EXPECT_THAT(lowered.status().message(), HasSubstr("does not match the result type"));
}

TEST(Rng, UniformAndNormalAgreeAcrossBackendsAndStayInRange) {
  const std::string text = R"(module @m {
  func.func @main() -> (tensor<1000xf32>, tensor<1000xi32>, tensor<2000xf64>) {
    %lo = "stablehlo.constant"() {value = dense<-1.0> : tensor<f32>} : () -> tensor<f32>
    %hi = "stablehlo.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
    %s = "stablehlo.constant"() {value = dense<[1000]> : tensor<1xi64>} : () -> tensor<1xi64>
    %0 = "stablehlo.rng"(%lo, %hi, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<1000xf32>
    %ilo = "stablehlo.constant"() {value = dense<-5> : tensor<i32>} : () -> tensor<i32>
    %ihi = "stablehlo.constant"() {value = dense<7> : tensor<i32>} : () -> tensor<i32>
    %1 = "stablehlo.rng"(%ilo, %ihi, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<1000xi32>
    %mu = "stablehlo.constant"() {value = dense<2.0> : tensor<f64>} : () -> tensor<f64>
    %sd = "stablehlo.constant"() {value = dense<0.5> : tensor<f64>} : () -> tensor<f64>
    %s2 = "stablehlo.constant"() {value = dense<[2000]> : tensor<1xi64>} : () -> tensor<1xi64>
    %2 = "stablehlo.rng"(%mu, %sd, %s2) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<2000xf64>
    "func.return"(%0, %1, %2) : (tensor<1000xf32>, tensor<1000xi32>, tensor<2000xf64>) -> ()
  }
})";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  auto cpu = RunOn("cpu", *m, {});
  auto ref = RunOn("reference", *m, {});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  ASSERT_TRUE(ref.ok()) << ref.status();
  ExpectClose((*cpu)[0], (*ref)[0], 1e-6);
  EXPECT_EQ((*cpu)[1], (*ref)[1]);
  ExpectClose((*cpu)[2], (*ref)[2], 1e-9);
  double sum = 0, sq = 0;
  for (int i = 0; i < 1000; ++i) {
    float u = (*cpu)[0].data_as<float>()[i];
    int32_t k = (*cpu)[1].data_as<int32_t>()[i];
    EXPECT_TRUE(u >= -1.0f && u < 3.0f) << u;
    EXPECT_TRUE(k >= -5 && k < 7) << k;
  }
  for (int i = 0; i < 2000; ++i) {
    double z = (*cpu)[2].data_as<double>()[i];
    sum += z;
    sq += z * z;
  }
  const double mean = sum / 2000, var = sq / 2000 - mean * mean;
  EXPECT_NEAR(mean, 2.0, 0.05);
  EXPECT_NEAR(std::sqrt(var), 0.5, 0.05);
}

TEST(SpecialOps, BarrierIsTheIdentityAndIdsAreZero) {
  ExpectCpuMatchesReference(R"(module @m {
  func.func @main(%a: tensor<4xf32>, %b: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<ui32>, tensor<ui32>) {
    %0:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<4xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>)
    %1 = "stablehlo.add"(%0#0, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.replica_id"() : () -> tensor<ui32>
    %3 = "stablehlo.partition_id"() : () -> tensor<ui32>
    "func.return"(%1, %0#1, %2, %3) : (tensor<4xf32>, tensor<2xf32>, tensor<ui32>, tensor<ui32>) -> ()
  }
})", 0.0);
}

}  // namespace
}  // namespace xjit::testing
