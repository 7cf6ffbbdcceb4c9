// The default pipeline: runs the passes to a fixed point on a copy, leaves
// the input module untouched, and keeps values.
#include "xjit/passes/pipeline.h"

#include <cstdlib>

#include "conformance_examples.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using passes::RunDefaultPipeline;

const char kProgram[] = R"(module @jit_f {
  func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x2xf32>) {
    %0:2 = "func.call"(%arg0) {callee = @helper} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>)
    %1 = "stablehlo.dot_general"(%0#0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    %2 = "stablehlo.transpose"(%0#1) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3x2xf32>
    %4 = "stablehlo.add"(%2, %3) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    "func.return"(%1, %4) : (tensor<3x4xf32>, tensor<3x2xf32>) -> ()
  }
  func.func @helper(%arg0: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3x2xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.transpose"(%2) {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.sine"(%2) : (tensor<3x2xf32>) -> tensor<3x2xf32>
    "func.return"(%2, %3) : (tensor<3x2xf32>, tensor<2x3xf32>) -> ()
  }
}
)";

TEST(Pipeline, OptimisesACopyToAFixedPoint) {
  std::unique_ptr<Module> module = Parse(kProgram);
  ASSERT_NE(module, nullptr);
  const std::string before = PrintModule(*module);
  absl::StatusOr<std::unique_ptr<Module>> optimised = RunDefaultPipeline(*module);
  ASSERT_TRUE(optimised.ok()) << optimised.status();
  // The call is inlined, its tuple dissolved, x * 1 dropped, the two
  // transposes cancel, the iota is folded and the sine is dead.
  EXPECT_EQ(PrintModule(**optimised), R"(module @jit_f {
  func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x2xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    %1 = "stablehlo.constant"() {value = dense<[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    "func.return"(%0, %2) : (tensor<3x4xf32>, tensor<3x2xf32>) -> ()
  }
}
)");
  // The input is untouched.
  EXPECT_EQ(PrintModule(*module), before);
  ExpectSameValues(*module, **optimised);
}

TEST(Pipeline, UnchangedModuleIsACopy) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.exponential"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)";
  std::unique_ptr<Module> module = Parse(text);
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<Module>> optimised = RunDefaultPipeline(*module);
  ASSERT_TRUE(optimised.ok()) << optimised.status();
  EXPECT_NE(optimised->get(), module.get());
  EXPECT_NE((*optimised)->entry(), module->entry());
  EXPECT_EQ(PrintModule(**optimised), text);
}

TEST(Pipeline, KeepsValuesAndReachesAFixedPointOnEverySpecExample) {
  std::string error;
  std::vector<conformance::Example> examples =
      conformance::ReadExamples(conformance::SpecExamplesPath(), &error);
  ASSERT_TRUE(error.empty()) << error;
  int checked = 0;
  for (const conformance::Example& ex : examples) {
    absl::StatusOr<ParsedOps> parsed = ParseOps(ex.code);
    if (!parsed.ok()) continue;  // ops xjit does not have
    const Module& module = *parsed->module;
    SCOPED_TRACE(absl::StrCat(ex.op, " example at line ", ex.line));
    absl::StatusOr<std::unique_ptr<Module>> optimised = RunDefaultPipeline(module);
    ASSERT_TRUE(optimised.ok()) << optimised.status();
    std::vector<Literal> args;
    int seed = 0;
    for (const Shape& s : module.ParameterShapes()) args.push_back(Pattern(s, seed++));
    absl::StatusOr<std::vector<Literal>> want = RunOn("reference", module, args);
    if (!want.ok()) continue;
    ExpectSameValues(module, **optimised);
    // A fixed point: a second run changes nothing.
    absl::StatusOr<std::unique_ptr<Module>> again = RunDefaultPipeline(**optimised);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(PrintModule(**again), PrintModule(**optimised));
    ++checked;
  }
  EXPECT_GE(checked, 50);  // 60 when written
}

// What a rewrite leaves unused (x * 1 forwards x: the constant and its
// broadcast) is deleted in place after each sweep, and the rest numbered
// again, so no second round clones the module only to drop it.
TEST(Pipeline, DropsWhatARewriteLeftUnusedInPlace) {
  std::unique_ptr<Module> module = Parse(R"(module @m {
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %2 = "stablehlo.multiply"(%arg0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = "stablehlo.exponential"(%2) : (tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%3) : (tensor<4xf32>) -> ()
  }
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<std::unique_ptr<Module>> optimised = RunDefaultPipeline(*module);
  ASSERT_TRUE(optimised.ok()) << optimised.status();
  const Computation& entry = *(*optimised)->entry();
  ASSERT_EQ(entry.instructions().size(), 2u);  // the parameter and the exponential
  for (size_t i = 0; i < entry.instructions().size(); ++i) {
    EXPECT_EQ(entry.instructions()[i]->id(), static_cast<int64_t>(i));
  }
  EXPECT_EQ(entry.results()[0]->opcode(), Opcode::kExponential);
  EXPECT_EQ(entry.results()[0]->operand(0), entry.parameters()[0]);
  ExpectSameValues(*module, **optimised);
}

}  // namespace
}  // namespace xjit::testing
