// The convolution epilogue on the cpu (backends/cpu/epilogue.h): which
// consumers MatchEpilogue absorbs, in the plain and the fused form, and that
// the lowered program then runs one thunk with results equal to the
// reference's.
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/epilogue.h"
#include "xjit/backends/cpu/program.h"
#include "xjit/ir/users.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/text/parser.h"

namespace xjit::cpu::testing {
namespace {

// conv (NHWC, 3x3 SAME) then BODY on %y; %b is a [4] bias, %z a full tensor.
std::string Module(const std::string& body, const std::string& results,
                   const std::string& result_types, const std::string& dtype = "f32") {
  std::string text = R"(
module @m {
  func.func @main(%x: tensor<2x6x5x3xDT>, %w: tensor<3x3x3x4xDT>, %b: tensor<4xDT>, %z: tensor<2x6x5x4xDT>) -> (RESULT_TYPES) {
    %y = "stablehlo.convolution"(%x, %w) {window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x6x5x3xDT>, tensor<3x3x3x4xDT>) -> tensor<2x6x5x4xDT>
    BODY
    "func.return"(RESULTS) : (RESULT_TYPES) -> ()
  }
})";
  text = absl::StrReplaceAll(text, {{"BODY", body}, {"RESULTS", results},
                                     {"RESULT_TYPES", result_types}});
  return absl::StrReplaceAll(text, {{"DT", dtype}});
}

constexpr char kBiasRelu[] = R"(
    %bb = "stablehlo.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64: 3>} : (tensor<4xDT>) -> tensor<2x6x5x4xDT>
    %s = "stablehlo.add"(%y, %bb) : (tensor<2x6x5x4xDT>, tensor<2x6x5x4xDT>) -> tensor<2x6x5x4xDT>
    %zero = "stablehlo.constant"() {value = dense<0.0> : tensor<DT>} : () -> tensor<DT>
    %zb = "stablehlo.broadcast_in_dim"(%zero) {broadcast_dimensions = array<i64>} : (tensor<DT>) -> tensor<2x6x5x4xDT>
    %r = "stablehlo.maximum"(%s, %zb) : (tensor<2x6x5x4xDT>, tensor<2x6x5x4xDT>) -> tensor<2x6x5x4xDT>)";

// `op` of two full tensors, as BODY.
std::string Binary(const std::string& name, const std::string& op, const std::string& a,
                   const std::string& b) {
  const std::string t = "tensor<2x6x5x4xDT>";
  return absl::StrCat("    ", name, " = \"stablehlo.", op, "\"(", a, ", ", b, ") : (", t, ", ", t,
                      ") -> ", t, "\n");
}

std::unique_ptr<xjit::Module> Parse(const std::string& text) {
  auto m = ParseModule(absl::StrReplaceAll(text, {{"DT", "f32"}}));
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

const Instruction* Convolution(const Computation& c) {
  for (const auto& i : c.instructions()) {
    if (i->opcode() == Opcode::kConvolution) return i.get();
  }
  return nullptr;
}

std::optional<Epilogue> Match(const xjit::Module& m) {
  const Computation& entry = *m.entry();
  return MatchEpilogue(*Convolution(entry), 3, Users(entry));
}

int64_t Thunks(const xjit::Module& m) {
  auto compiler = GetCompiler("cpu");
  auto program = (*compiler)->Compile(m);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return -1;
  return dynamic_cast<CpuProgram*>(program->get())->num_thunks();
}

TEST(CpuEpilogue, MatchesBiasAndReluPlainAndFused) {
  auto m = Parse(Module(kBiasRelu, "%r", "tensor<2x6x5x4xf32>"));
  ASSERT_NE(m, nullptr);
  std::optional<Epilogue> e = Match(*m);
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->steps.size(), 2u);
  EXPECT_EQ(e->steps[0].kind, EpilogueStep::Kind::kBias);
  EXPECT_EQ(e->steps[0].operand, m->entry()->parameters()[2]);
  EXPECT_EQ(e->steps[1].kind, EpilogueStep::Kind::kRelu);
  EXPECT_EQ(e->absorbed.size(), 2u);
  EXPECT_EQ(e->absorbed.back(), m->entry()->results()[0]);

  ASSERT_TRUE(passes::RunElementwiseFusion(*m).ok());
  e = Match(*m);  // now one fusion instruction
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->steps.size(), 2u);
  EXPECT_EQ(e->steps[0].operand, m->entry()->parameters()[2]);
  ASSERT_EQ(e->absorbed.size(), 1u);
  EXPECT_EQ(e->absorbed[0]->opcode(), Opcode::kFusion);
}

TEST(CpuEpilogue, RejectsWhatOneDnnWouldChange) {
  struct Case {
    std::string name, body, results, types;
  };
  const std::string t = "tensor<2x6x5x4xf32>";
  std::vector<Case> cases = {
      {"conv is a result too", kBiasRelu, "%r, %y", t + ", " + t},
      {"sum is used twice", std::string(kBiasRelu) + "\n" + Binary("%u", "add", "%s", "%r"), "%u",
       t},
      {"max with 0.5", absl::StrReplaceAll(kBiasRelu, {{"dense<0.0>", "dense<0.5>"}}), "%r", t},
      {"max with -0", absl::StrReplaceAll(kBiasRelu, {{"dense<0.0>", "dense<-0.0>"}}), "%r", t},
      {"bias along another dim",
       "\n    %b6 = \"stablehlo.constant\"() {value = dense<1.0> : tensor<6xDT>} : () -> "
       "tensor<6xDT>" +
           absl::StrReplaceAll(kBiasRelu, {{"array<i64: 3>} : (tensor<4xDT>)",
                                            "array<i64: 1>} : (tensor<6xDT>)"},
                                           {"(%b)", "(%b6)"}}),
       "%r", t},
      {"full-tensor add", Binary("%r", "add", "%y", "%z"), "%r", t},
      {"subtract", Binary("%r", "subtract", "%y", "%z"), "%r", t},
  };
  for (const Case& c : cases) {
    auto m = Parse(Module(c.body, c.results, c.types));
    ASSERT_NE(m, nullptr) << c.name;
    std::optional<Epilogue> e = Match(*m);
    ASSERT_TRUE(passes::RunElementwiseFusion(*m).ok());
    std::optional<Epilogue> fused = Match(*m);
    if (c.name == "sum is used twice" || c.name == "max with 0.5" || c.name == "max with -0") {
      // The bias alone is still taken in the plain form; the fusion's region
      // holds more than a chain of steps.
      ASSERT_TRUE(e.has_value());
      EXPECT_EQ(e->steps.size(), 1u);
      EXPECT_FALSE(fused.has_value()) << c.name;
      continue;
    }
    EXPECT_FALSE(e.has_value()) << c.name;
    EXPECT_FALSE(fused.has_value()) << c.name;
  }
  auto bf16 = ParseModule(Module(kBiasRelu, "%r", "tensor<2x6x5x4xbf16>", "bf16"));
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_FALSE(Match(**bf16).has_value());  // f16/bf16 round between the steps
}

TEST(CpuEpilogue, LoweredAsOneThunkMatchingReference) {
  std::mt19937_64 rng(31);
  const std::string t = "tensor<2x6x5x4xf32>";
  auto fused = Parse(Module(kBiasRelu, "%r", t));
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Thunks(*fused), 1);
  EXPECT_TRUE(CrossCheck(*fused, RandomArgs(*fused, rng, true), "conv+bias+relu", 1e-4));
  auto both = Parse(Module(kBiasRelu, "%r, %y", t + ", " + t));
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(Thunks(*both), 2);  // the convolution, then the fused add+max
  EXPECT_TRUE(CrossCheck(*both, RandomArgs(*both, rng, true), "conv, then bias+relu", 1e-4));
}

}  // namespace
}  // namespace xjit::cpu::testing
