// The two lowerings of issue 10's element types: after narrow-type
// expansion only byte moves and direct converts touch narrow types (region
// bodies included, each op followed by its rounding convert); after
// quantized-op expansion no quantized type is left.
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/narrow_type_expansion.h"
#include "xjit/passes/quantized_op_expansion.h"

namespace xjit::testing {
namespace {

int CountOps(const Module& m, Opcode op) {
  int n = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) n += i->opcode() == op;
  }
  return n;
}

TEST(NarrowTypeExpansion, LeavesOnlyByteMovesAndDirectConvertsNarrow) {
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%arg0: tensor<2x3xf8E4M3FN>, %arg1: tensor<f8E4M3FN>, %arg2: tensor<3xi4>) -> (tensor<2xf8E4M3FN>, tensor<3x2xf8E4M3FN>, tensor<3xi4>, tensor<3xf8E5M2>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%a: tensor<f8E4M3FN>, %b: tensor<f8E4M3FN>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f8E4M3FN>, tensor<f8E4M3FN>) -> tensor<f8E4M3FN>
      "stablehlo.return"(%s) : (tensor<f8E4M3FN>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf8E4M3FN>, tensor<f8E4M3FN>) -> tensor<2xf8E4M3FN>
    %1 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf8E4M3FN>) -> tensor<3x2xf8E4M3FN>
    %2 = "stablehlo.popcnt"(%arg2) : (tensor<3xi4>) -> tensor<3xi4>
    %3 = "stablehlo.convert"(%arg2) : (tensor<3xi4>) -> tensor<3xf8E5M2>
    "func.return"(%0, %1, %2, %3) : (tensor<2xf8E4M3FN>, tensor<3x2xf8E4M3FN>, tensor<3xi4>, tensor<3xf8E5M2>) -> ()
  }
})");
  ASSERT_TRUE(passes::HasNarrowTypes(*m));
  absl::StatusOr<std::unique_ptr<Module>> e = passes::ExpandNarrowTypes(*m);
  ASSERT_TRUE(e.ok()) << e.status();
  for (const auto& c : (*e)->computations()) {
    for (const auto& i : c->instructions()) {
      EXPECT_TRUE(passes::RunsOnNarrowStorage(*i)) << OpcodeName(i->opcode()) << " " << i->shape().ToString();
    }
  }
  // The reduce body adds in f32 and rounds: add, convert to f8, convert back.
  EXPECT_EQ(CountOps(**e, Opcode::kTranspose), 1);
  const Computation* body = nullptr;
  for (const auto& c : (*e)->computations()) {
    if (c.get() != (*e)->entry() && !c->parameters().empty()) body = c.get();
  }
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->parameters()[0]->shape(), Shape(DType::kF32, {}));
  EXPECT_EQ(body->results()[0]->shape(), Shape(DType::kF32, {}));
}

TEST(NarrowTypeExpansion, RefusesWhatItCannotExpress) {
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%arg0: tensor<2x2xi4>) -> (tensor<2xi8>) {
    %0 = "stablehlo.bitcast_convert"(%arg0) : (tensor<2x2xi4>) -> tensor<2xi8>
    "func.return"(%0) : (tensor<2xi8>) -> ()
  }
})");
  absl::StatusOr<std::unique_ptr<Module>> e = passes::ExpandNarrowTypes(*m);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("regroups sub-byte elements"), std::string::npos);
}

TEST(QuantizedOpExpansion, LeavesNoQuantizedType) {
  std::unique_ptr<Module> m = Parse(R"(module @m {
  func.func @main(%arg0: tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>, %arg1: tensor<2xf32>) -> (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2xf32>) {
    %0 = "stablehlo.uniform_quantize"(%arg1) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>, tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
    %2 = "stablehlo.uniform_dequantize"(%1) : (tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2xf32>
    "func.return"(%1, %2) : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2xf32>) -> ()
  }
})");
  ASSERT_TRUE(passes::HasQuantizedTypes(*m));
  absl::StatusOr<std::unique_ptr<Module>> e = passes::ExpandQuantizedOps(*m);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FALSE(passes::HasQuantizedTypes(**e));
  EXPECT_EQ((*e)->ParameterShapes()[0], Shape(DType::kS8, {2}));
  EXPECT_EQ((*e)->ResultShapes()[0], Shape(DType::kS8, {2}));
  EXPECT_EQ(CountOps(**e, Opcode::kUniformQuantize) + CountOps(**e, Opcode::kUniformDequantize), 0);
  EXPECT_GE(CountOps(**e, Opcode::kRoundNearestEven), 2);  // quantize of %0 and of %1
  EXPECT_GE(CountOps(**e, Opcode::kClamp), 2);
}

}  // namespace
}  // namespace xjit::testing
