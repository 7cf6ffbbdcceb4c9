// Reduction splitting: full reductions of long arrays become a row reduction
// and a reduction of its partial results; the init is repeated only where
// that keeps the value (idempotent bodies, add with zero).
#include "xjit/passes/reduction_splitting.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Small bounds so that small modules exercise the pass.
absl::StatusOr<bool> Split(Module& m) {
  passes::ReductionSplittingOptions options;
  options.min_elements = 64;
  options.min_row = 8;
  options.max_row = 32;
  options.row_multiple = 8;
  return passes::RunReductionSplitting(m, options);
}

// reduce(x, init) over `dims` of a `shape` f32 input with body `op`; init is
// a constant `init` unless it is empty (then a parameter).
std::string ReduceText(const std::string& shape, const std::string& dims, const std::string& op,
                       const std::string& init, const std::string& result = "f32") {
  const std::string init_def =
      init.empty() ? "" : "    %1 = stablehlo.constant dense<" + init + "> : tensor<f32>\n";
  const std::string init_ref = init.empty() ? "%arg1" : "%1";
  return "module @m {\n  func.func @main(%arg0: tensor<" + shape +
         "xf32>, %arg1: tensor<f32>) -> (tensor<" + result + ">) {\n" + init_def +
         "    %0 = \"stablehlo.reduce\"(%arg0, " + init_ref +
         ") ({\n    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):\n"
         "      %2 = \"stablehlo." + op + "\"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
         "      \"stablehlo.return\"(%2) : (tensor<f32>) -> ()\n"
         "    }) {dimensions = array<i64: " + dims + ">} : (tensor<" + shape +
         "xf32>, tensor<f32>) -> tensor<" + result + ">\n"
         "    \"func.return\"(%0) : (tensor<" + result + ">) -> ()\n  }\n}\n";
}

TEST(ReductionSplitting, FullSumBecomesRowsThenTheirSum) {
  const std::string text = ReduceText("4x32", "0, 1", "add", "0.0");
  bool changed = false;
  const std::string out = RunPass(Split, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr("(tensor<4x32xf32>) -> tensor<4x32xf32>"));
  EXPECT_THAT(out, HasSubstr("dimensions = array<i64: 1>} : (tensor<4x32xf32>, tensor<f32>) -> tensor<4xf32>"));
  EXPECT_THAT(out, HasSubstr("dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>"));
  ExpectPassKeepsValues(Split, text);
}

TEST(ReductionSplitting, RowIsTheLongestAllowedDivisor) {
  // 3 x 40 = 120 elements: 24 is the largest multiple of 8 up to 32 dividing it.
  const std::string out = RunPass(Split, ReduceText("3x40", "0, 1", "maximum", "5.0"));
  EXPECT_THAT(out, HasSubstr("-> tensor<5x24xf32>"));
  ExpectPassKeepsValues(Split, ReduceText("3x40", "0, 1", "maximum", "5.0"));
  ExpectPassKeepsValues(Split, ReduceText("120", "0", "minimum", ""));  // any init: idempotent
}

TEST(ReductionSplitting, LeavesOtherReductionsAlone) {
  for (const std::string& text :
       {ReduceText("4x32", "0, 1", "add", "1.0"),   // init applied twice would count twice
        ReduceText("4x32", "0, 1", "add", ""),      // an init not known to be zero
        ReduceText("4x32", "0, 1", "multiply", "1.0"),
        ReduceText("4x32", "1", "add", "0.0", "4xf32"),  // not every dimension
        ReduceText("127", "0", "add", "0.0"),       // no row length divides 127
        ReduceText("7x8", "0, 1", "add", "0.0")}) {  // under min_elements
    bool changed = true;
    const std::string out = RunPass(Split, text, &changed);
    EXPECT_FALSE(changed) << text;
    EXPECT_THAT(out, Not(HasSubstr("reshape"))) << text;
  }
}

// A value with a row reduction over [R, L] splits its full reductions into
// the same rows (then one fusion reads them for both).
TEST(ReductionSplitting, RowIsASiblingRowReductionsRow) {
  const std::string text = R"(
func.func @main(%x: tensor<192xf32>) -> (tensor<12xf32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reshape %x : (tensor<192xf32>) -> tensor<12x16xf32>
  %s = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<12x16xf32>, tensor<f32>) -> tensor<12xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<192xf32>, tensor<f32>) -> tensor<f32>
  return %s, %m : tensor<12xf32>, tensor<f32>
})";
  bool changed = false;
  const std::string out = RunPass(Split, text, &changed);
  EXPECT_TRUE(changed);
  // Without the sibling the row would be 32 (the longest allowed divisor of 192).
  EXPECT_THAT(out, Not(HasSubstr("tensor<6x32xf32>")));
  EXPECT_THAT(out, HasSubstr("dimensions = array<i64: 1>} : (tensor<12x16xf32>, tensor<f32>) -> tensor<12xf32>"));
  ExpectPassKeepsValues(Split, text);
}

}  // namespace
}  // namespace xjit::testing
