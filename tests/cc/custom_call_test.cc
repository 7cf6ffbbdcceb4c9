// custom_call: the attributes kept as text (backend_config dictionaries,
// layouts), the pretty form round trip, and both backends calling a
// registered host function, with layouts converted and errors reported.
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/runtime/custom_call_registry.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;

// out[i] = in[i] * scale + offset over f32 (scale, offset from the config);
// a second result holds the element count as i32.
absl::Status ScaleTarget(const CustomCallContext& ctx) {
  if (ctx.operands.size() != 1 || ctx.results.empty()) {
    return absl::InvalidArgumentError("takes one operand");
  }
  absl::StatusOr<double> scale = ctx.config.GetFloat("scale");
  if (!scale.ok()) return scale.status();
  const double offset = ctx.config.Has("offset") ? *ctx.config.GetFloat("offset") : 0.0;
  const float* in = static_cast<const float*>(ctx.operands[0].data);
  float* out = static_cast<float*>(ctx.results[0].data);
  for (int64_t i = 0; i < ctx.operands[0].num_elements(); ++i) {
    out[i] = static_cast<float>(in[i] * *scale + offset);
  }
  if (ctx.results.size() > 1) {
    *static_cast<int32_t*>(ctx.results[1].data) =
        static_cast<int32_t>(ctx.operands[0].num_elements());
  }
  return absl::OkStatus();
}

// Copies the operand's bytes as the target sees them: shows the layout.
absl::Status RawCopyTarget(const CustomCallContext& ctx) {
  std::memcpy(ctx.results[0].data, ctx.operands[0].data, ctx.operands[0].num_elements() * 4);
  return absl::OkStatus();
}

// Counts its calls: a side effect with no results.
int g_calls = 0;
absl::Status CountTarget(const CustomCallContext& ctx) {
  g_calls += static_cast<int>(*static_cast<const float*>(ctx.operands[0].data));
  return absl::OkStatus();
}

absl::Status FailingTarget(const CustomCallContext&) {
  return absl::FailedPreconditionError("the target says no");
}

const bool kRegistered = [] {
  RegisterCustomCallTarget("xjit_test_scale", ScaleTarget);
  RegisterCustomCallTarget("xjit_test_raw_copy", RawCopyTarget);
  RegisterCustomCallTarget("xjit_test_fail", FailingTarget);
  RegisterCustomCallTarget("xjit_test_count", CountTarget);
  return true;
}();

std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

Literal F32s(std::vector<int64_t> dims, std::vector<float> values) {
  return Literal(Shape(DType::kF32, std::move(dims)), values.data());
}

std::vector<float> Floats(const Literal& l) {
  const float* p = l.data_as<float>();
  return std::vector<float>(p, p + l.shape().num_elements());
}

TEST(CustomCallConfig, ReadsDictionaries) {
  absl::StatusOr<CustomCallConfig> c = CustomCallConfig::FromDictionary(
      "{uplo = 76 : ui8, scale = 2.5 : f32, name = \"a\\\"b\", flag, off = false, "
      "dims = array<i64: 1, -2>, big = 18446744073709551615 : ui64, nan = 0x7FC00000 : f32}");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(*c->GetInt("uplo"), 76);
  EXPECT_EQ(c->Find("uplo")->type, "ui8");
  EXPECT_EQ(*c->GetFloat("scale"), 2.5);
  EXPECT_EQ(*c->GetString("name"), "a\"b");
  EXPECT_TRUE(*c->GetBool("flag"));
  EXPECT_FALSE(*c->GetBool("off"));
  EXPECT_EQ(*c->GetInts("dims"), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(static_cast<uint64_t>(*c->GetInt("big")), UINT64_MAX);
  EXPECT_TRUE(std::isnan(*c->GetFloat("nan")));
  EXPECT_THAT(c->GetInt("missing").status().message(), HasSubstr("no attribute 'missing'"));
  EXPECT_THAT(c->GetInt("name").status().message(), HasSubstr("is not an integer"));
  EXPECT_FALSE(CustomCallConfig::FromDictionary("{a = }").ok());
  EXPECT_FALSE(CustomCallConfig::FromDictionary("{a = 1, a = 2}").ok());
  EXPECT_FALSE(CustomCallConfig::FromDictionary("{a = 1").ok());
}

TEST(CustomCallConfig, ReadsLayouts) {
  const std::vector<Shape> shapes = {T(DType::kF32, {2, 3}), T(DType::kS32, {}),
                                     T(DType::kF32, {4})};
  auto l = ParseCustomCallLayouts(
      AttrText{"[dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>, dense<0> : "
               "tensor<1xindex>]"},
      shapes, "operand_layouts");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ((*l)[0], (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE((*l)[1].empty());
  EXPECT_EQ((*l)[2], (std::vector<int64_t>{0}));
  auto defaults = ParseCustomCallLayouts(AttrText{}, shapes, "x");
  EXPECT_EQ((*defaults)[0], (std::vector<int64_t>{1, 0}));
  EXPECT_THAT(ParseCustomCallLayouts(AttrText{"[dense<[0, 0]> : tensor<2xindex>]"},
                                     {T(DType::kF32, {2, 2})}, "operand_layouts")
                  .status()
                  .message(),
              HasSubstr("not a permutation"));
  EXPECT_THAT(ParseCustomCallLayouts(AttrText{"[]"}, shapes, "result_layouts").status().message(),
              HasSubstr("lists 0 layouts for 3 values"));
}

constexpr char kScaleModule[] = R"(module @m {
  func.func public @main(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>) {
    %0:2 = stablehlo.custom_call @xjit_test_scale(%arg0) {backend_config = "", mhlo.backend_config = {scale = 2.0 : f32, offset = 1 : i64}, mhlo.frontend_attributes = {num_batch_dims = "0"}, api_version = 4 : i32} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>)
    return %0#0, %0#1 : tensor<2x2xf32>, tensor<i32>
  }
})";

TEST(CustomCall, PrintsAndParsesJaxForm) {
  std::unique_ptr<Module> m = Parse(kScaleModule);
  ASSERT_NE(m, nullptr);
  const std::string pretty = PrintModule(*m, /*pretty=*/true);
  EXPECT_THAT(pretty, HasSubstr("stablehlo.custom_call @xjit_test_scale(%arg0) {backend_config "
                                "= \"\", mhlo.backend_config = {scale = 2.0 : f32, offset = 1 : "
                                "i64}, api_version = 4 : i32}"));
  std::unique_ptr<Module> again = Parse(pretty);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again, true), pretty);
  const std::string generic = PrintModule(*m, /*pretty=*/false);
  EXPECT_THAT(generic, HasSubstr("call_target_name = \"xjit_test_scale\""));
  std::unique_ptr<Module> from_generic = Parse(generic);
  ASSERT_NE(from_generic, nullptr);
  EXPECT_EQ(PrintModule(*from_generic, true), pretty);
}

TEST(CustomCall, RunsOnBothBackends) {
  std::unique_ptr<Module> m = Parse(kScaleModule);
  ASSERT_NE(m, nullptr);
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    auto out = RunOn(platform, *m, {F32s({2, 2}, {1, 2, 3, 4})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{3, 5, 7, 9}));
    EXPECT_EQ(*(*out)[1].data_as<int32_t>(), 4);
  }
}

TEST(CustomCall, ConvertsDeclaredLayouts) {
  // Column-major operand and result: the target sees the transposed bytes,
  // and its column-major result comes back row-major.
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.custom_call @xjit_test_raw_copy(%arg0) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
})");
  ASSERT_NE(m, nullptr);
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    auto out = RunOn(platform, *m, {F32s({2, 3}, {1, 2, 3, 4, 5, 6})});
    ASSERT_TRUE(out.ok()) << out.status();
    // Column-major bytes 1 4 2 5 3 6, read back as row-major.
    EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  }
}

TEST(CustomCall, RunsSideEffectsWithNoResults) {
  constexpr char kText[] = R"(module @m {
  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {
    stablehlo.custom_call @xjit_test_count(%arg0) {has_side_effect = true, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = []} : (tensor<f32>) -> ()
    return %arg0 : tensor<f32>
  }
})";
  std::unique_ptr<Module> m = Parse(kText);
  ASSERT_NE(m, nullptr);
  const std::string pretty = PrintModule(*m, true);
  EXPECT_THAT(pretty, HasSubstr("    stablehlo.custom_call @xjit_test_count(%arg0) {"));
  std::unique_ptr<Module> generic = Parse(PrintModule(*m, false));
  ASSERT_NE(generic, nullptr);
  EXPECT_EQ(PrintModule(*generic, true), pretty);
  g_calls = 0;
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    auto out = RunOn(platform, *m, {Literal(Shape(DType::kF32, {}), std::vector<float>{3}.data())});
    ASSERT_TRUE(out.ok()) << out.status();
  }
  EXPECT_EQ(g_calls, 6);  // kept by dead-code elimination on both
}

TEST(CustomCall, ReportsErrors) {
  std::unique_ptr<Module> unknown = Parse(R"(module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @no_such_target(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})");
  ASSERT_NE(unknown, nullptr);
  std::unique_ptr<Module> failing = Parse(R"(module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @xjit_test_fail(%arg0) {has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})");
  ASSERT_NE(failing, nullptr);
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    auto out = RunOn(platform, *unknown, {F32s({2}, {1, 2})});
    EXPECT_THAT(out.status().message(), HasSubstr("no target named 'no_such_target'"));
    out = RunOn(platform, *failing, {F32s({2}, {1, 2})});
    EXPECT_THAT(out.status().message(), HasSubstr("custom_call @xjit_test_fail: the target says no"));
  }
  EXPECT_THAT(ParseModule(R"(module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @xjit_test_scale(%arg0) {operand_layouts = [dense<[1]> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})").status().message(),
              HasSubstr("not a permutation"));
}

}  // namespace
}  // namespace xjit::testing
