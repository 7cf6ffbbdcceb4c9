// Algebraic simplification: identity movement ops and chains, neutral
// elements, and the floating-point cases that must NOT be folded.
#include "xjit/passes/algebraic_simplification.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/dead_code_elimination.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using passes::RunAlgebraicSimplification;

absl::StatusOr<bool> SimplifyThenClean(Module& m) {
  absl::StatusOr<bool> c = RunAlgebraicSimplification(m);
  if (!c.ok()) return c;
  absl::StatusOr<bool> d = passes::RunDeadCodeElimination(m);
  if (!d.ok()) return d;
  return *c;
}

TEST(AlgebraicSimplification, IdentityMovementOps) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    %0 = "stablehlo.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.transpose"(%0) {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "stablehlo.convert"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.negate"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.negate"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.sine"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%6) : (tensor<2x3xf32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(SimplifyThenClean, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    %0 = "stablehlo.sine"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%0) : (tensor<2x3xf32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

TEST(AlgebraicSimplification, MovementThatMovesNothing) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<f32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
    %0 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 1>, strides = array<i64: 1, 5>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %1 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 1>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %2 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %3 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
    %4 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: -1, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
    %5 = "stablehlo.concatenate"(%arg0) {dimension = 0 : i64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
    "func.return"(%0, %1, %2, %3, %4, %5) : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(SimplifyThenClean, text), R"(module @m {
  func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<f32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
    %0 = "stablehlo.reverse"(%arg0) {dimensions = array<i64: 0>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %1 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: -1, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
    "func.return"(%arg0, %arg0, %0, %arg0, %1, %arg0) : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

TEST(AlgebraicSimplification, CollapsesChains) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<6xf32>) -> (tensor<4x2x3xf32>, tensor<3x2x4xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) {
    %0 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
    %1 = "stablehlo.transpose"(%0) {permutation = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
    %2 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3x2xf32>) -> tensor<3x2x4xf32>
    %4 = "stablehlo.reshape"(%arg2) : (tensor<6xf32>) -> tensor<3x2xf32>
    %5 = "stablehlo.reshape"(%4) : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.transpose"(%0) {permutation = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
    "func.return"(%1, %3, %5, %6) : (tensor<4x2x3xf32>, tensor<3x2x4xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(SimplifyThenClean, text), R"(module @m {
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<6xf32>) -> (tensor<4x2x3xf32>, tensor<3x2x4xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) {
    %0 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x2x4xf32>
    %2 = "stablehlo.reshape"(%arg2) : (tensor<6xf32>) -> tensor<2x3xf32>
    "func.return"(%0, %1, %2, %arg0) : (tensor<4x2x3xf32>, tensor<3x2x4xf32>, tensor<2x3xf32>, tensor<2x3x4xf32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

TEST(AlgebraicSimplification, BroadcastOfKeepdimsReshape) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<1x3xf32>) -> (tensor<3x4xf32>, tensor<4x3x2x1xf32>, tensor<3x4xf32>) {
    %0 = "stablehlo.reshape"(%arg0) : (tensor<3xf32>) -> tensor<3x1xf32>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
    %2 = "stablehlo.reshape"(%arg1) : (tensor<3x2xf32>) -> tensor<1x3x1x2xf32>
    %3 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64: 3, 1, 0, 2>} : (tensor<1x3x1x2xf32>) -> tensor<4x3x2x1xf32>
    %4 = "stablehlo.reshape"(%arg2) : (tensor<1x3xf32>) -> tensor<3x1xf32>
    %5 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3x1xf32>) -> tensor<3x4xf32>
    "func.return"(%1, %3, %5) : (tensor<3x4xf32>, tensor<4x3x2x1xf32>, tensor<3x4xf32>) -> ()
  }
}
)";
  std::string out = RunPass(SimplifyThenClean, text);
  // The first two lose their reshape; the third's operand has a unit
  // dimension of its own, and keeps it.
  EXPECT_NE(out.find(R"("stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x4xf32>)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<3x2xf32>) -> tensor<4x3x2x1xf32>)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("stablehlo.reshape"(%arg2))"), std::string::npos) << out;
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

TEST(AlgebraicSimplification, MovedSplatIsABroadcast) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<f32>, %arg1: tensor<1xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<6xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
    %1 = "stablehlo.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = "stablehlo.reverse"(%0) {dimensions = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "stablehlo.slice"(%0) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %4 = "stablehlo.reshape"(%0) : (tensor<2x3xf32>) -> tensor<6xf32>
    %5 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<1xf32>) -> tensor<2x3xf32>
    %6 = "stablehlo.reshape"(%5) : (tensor<2x3xf32>) -> tensor<6xf32>
    "func.return"(%1, %2, %3, %4, %6) : (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<6xf32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(SimplifyThenClean, text), R"(module @m {
  func.func @main(%arg0: tensor<f32>, %arg1: tensor<1xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<6xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3x2xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
    %2 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x2xf32>
    %3 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<6xf32>
    %4 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<1xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.reshape"(%4) : (tensor<2x3xf32>) -> tensor<6xf32>
    "func.return"(%0, %1, %2, %3, %5) : (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<6xf32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

// A module computing `op`(x, c) and `op`(c, x) for a splat constant c.
std::string NeutralModule(const std::string& op, const std::string& type,
                          const std::string& value, bool broadcast) {
  std::string c = broadcast
                      ? absl::StrCat(R"(    %c0 = "stablehlo.constant"() {value = dense<)", value,
                                     "> : tensor<", type, R"(>} : () -> tensor<)", type, R"(>
    %c = "stablehlo.broadcast_in_dim"(%c0) {broadcast_dimensions = array<i64>} : (tensor<)",
                                     type, ">) -> tensor<4x", type, ">\n")
                      : absl::StrCat(R"(    %c = "stablehlo.constant"() {value = dense<)", value,
                                     "> : tensor<4x", type, R"(>} : () -> tensor<4x)", type,
                                     ">\n");
  std::string t = absl::StrCat("tensor<4x", type, ">");
  return absl::StrCat("module @m {\n  func.func @main(%arg0: ", t, ") -> (", t, ", ", t, ") {\n",
                      c, "    %0 = \"stablehlo.", op, "\"(%arg0, %c) : (", t, ", ", t, ") -> ", t,
                      "\n    %1 = \"stablehlo.", op, "\"(%c, %arg0) : (", t, ", ", t, ") -> ", t,
                      "\n    \"func.return\"(%0, %1) : (", t, ", ", t, ") -> ()\n  }\n}\n");
}

// How many of the two ops of NeutralModule the pass removes.
int Removed(const std::string& op, const std::string& type, const std::string& value,
            bool broadcast) {
  std::string text = NeutralModule(op, type, value, broadcast);
  std::string out = RunPass(SimplifyThenClean, text);
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
  int left = 0;
  for (size_t at = out.find("stablehlo." + op); at != std::string::npos;
       at = out.find("stablehlo." + op, at + 1)) {
    ++left;
  }
  return 2 - left;
}

TEST(AlgebraicSimplification, NeutralElements) {
  for (bool broadcast : {false, true}) {
    SCOPED_TRACE(broadcast ? "broadcast constant" : "constant");
    EXPECT_EQ(Removed("multiply", "f32", "1.0", broadcast), 2);
    EXPECT_EQ(Removed("multiply", "i32", "1", broadcast), 2);
    EXPECT_EQ(Removed("multiply", "bf16", "1.0", broadcast), 2);
    EXPECT_EQ(Removed("multiply", "f32", "2.0", broadcast), 0);
    EXPECT_EQ(Removed("divide", "f64", "1.0", broadcast), 1);  // x / 1 only
    EXPECT_EQ(Removed("add", "i32", "0", broadcast), 2);
    EXPECT_EQ(Removed("subtract", "ui8", "0", broadcast), 1);  // x - 0 only
    // Floating point: x + (-0.0) is x, x + (+0.0) is not ((-0.0) + (+0.0) is
    // +0.0); x - (+0.0) is x, x - (-0.0) is not.
    EXPECT_EQ(Removed("add", "f32", "-0.0", broadcast), 2);
    EXPECT_EQ(Removed("add", "f32", "0.0", broadcast), 0);
    EXPECT_EQ(Removed("add", "f16", "-0.0", broadcast), 2);
    EXPECT_EQ(Removed("subtract", "f32", "0.0", broadcast), 1);
    EXPECT_EQ(Removed("subtract", "f32", "-0.0", broadcast), 0);
    // Complex: (inf + 0i) * (1 + 0i) is inf + nan*i, so no x * 1.
    EXPECT_EQ(Removed("multiply", "complex<f32>", "(1.0, 0.0)", broadcast), 0);
    EXPECT_EQ(Removed("add", "complex<f32>", "(-0.0, -0.0)", broadcast), 2);
    EXPECT_EQ(Removed("add", "complex<f32>", "(-0.0, 0.0)", broadcast), 0);
  }
}

TEST(AlgebraicSimplification, MinusZeroPlusX) {
  // (-0.0) + x is x for every x; here x is +0.0 and the sum +0.0.
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<f32>) -> (tensor<f32>) {
    %0 = "stablehlo.constant"() {value = dense<-0.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.add"(%0, %1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "func.return"(%2) : (tensor<f32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(SimplifyThenClean, text), R"(module @m {
  func.func @main(%arg0: tensor<f32>) -> (tensor<f32>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

// A float division by a broadcast of fewer elements multiplies by the
// broadcast reciprocal (as XLA does); integer division stays.
TEST(AlgebraicSimplification, DivisionByABroadcastMultipliesByTheReciprocal) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4x8xi32>, %arg3: tensor<4xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x8xf32>
    %1 = "stablehlo.divide"(%arg0, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = "stablehlo.broadcast_in_dim"(%arg3) {broadcast_dimensions = array<i64: 0>} : (tensor<4xi32>) -> tensor<4x8xi32>
    %3 = "stablehlo.divide"(%arg2, %2) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
    "func.return"(%1, %3) : (tensor<4x8xf32>, tensor<4x8xi32>) -> ()
  }
}
)";
  bool changed = false;
  const std::string out = RunPass(SimplifyThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr(R"("stablehlo.divide"(%1, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>)"));
  EXPECT_THAT(out, HasSubstr(R"("stablehlo.multiply"(%arg0, %3) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>)"));
  EXPECT_THAT(out, HasSubstr(R"("stablehlo.divide"(%arg2, %5) : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>)"));
}

// An iota of a matrix is its dim's iota spread by a broadcast (read in place
// by backends); a 1-D iota, and one whose other dims are all 1, stay.
TEST(AlgebraicSimplification, IotaOfAMatrixIsASpreadVector) {
  const std::string text = R"(module @m {
  func.func @main() -> (tensor<3x5xi32>, tensor<7xi32>, tensor<1x4xi32>) {
    %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x5xi32>
    %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<7xi32>
    %2 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<1x4xi32>
    "func.return"(%0, %1, %2) : (tensor<3x5xi32>, tensor<7xi32>, tensor<1x4xi32>) -> ()
  }
}
)";
  bool changed = false;
  const std::string out = RunPass(SimplifyThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr(R"("stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<5xi32>)"));
  EXPECT_THAT(out, HasSubstr(R"({broadcast_dimensions = array<i64: 1>} : (tensor<5xi32>) -> tensor<3x5xi32>)"));
  EXPECT_THAT(out, HasSubstr(R"(() -> tensor<1x4xi32>)"));
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

// select(p, true, false) of bools is p (jnp.tril of a bool matrix); with the
// branches swapped, of other types, or with a scalar predicate it stays.
TEST(AlgebraicSimplification, SelectOfTrueAndFalseIsThePredicate) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<3x5xi1>, %arg1: tensor<i1>) -> (tensor<3x5xi1>, tensor<3x5xi1>, tensor<3x5xi32>, tensor<3x5xi1>) {
    %0 = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<i1>) -> tensor<3x5xi1>
    %2 = "stablehlo.constant"() {value = dense<false> : tensor<3x5xi1>} : () -> tensor<3x5xi1>
    %3 = "stablehlo.select"(%arg0, %1, %2) : (tensor<3x5xi1>, tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %4 = "stablehlo.select"(%arg0, %2, %1) : (tensor<3x5xi1>, tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %5 = "stablehlo.constant"() {value = dense<1> : tensor<3x5xi32>} : () -> tensor<3x5xi32>
    %6 = "stablehlo.constant"() {value = dense<0> : tensor<3x5xi32>} : () -> tensor<3x5xi32>
    %7 = "stablehlo.select"(%arg0, %5, %6) : (tensor<3x5xi1>, tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
    %8 = "stablehlo.select"(%arg1, %1, %2) : (tensor<i1>, tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    "func.return"(%3, %4, %7, %8) : (tensor<3x5xi1>, tensor<3x5xi1>, tensor<3x5xi32>, tensor<3x5xi1>) -> ()
  }
}
)";
  bool changed = false;
  const std::string out = RunPass(SimplifyThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr(R"("func.return"(%arg0, )"));
  int selects = 0;
  for (size_t at = out.find("stablehlo.select"); at != std::string::npos;
       at = out.find("stablehlo.select", at + 1)) {
    ++selects;
  }
  EXPECT_EQ(selects, 3) << out;
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

// An element-wise op of values spread by one broadcast (and splats) runs on
// the values and is spread after (take_along_axis's fill mask); operands
// spread two ways, or an op of a splat alone, stay.
TEST(AlgebraicSimplification, SpreadOperandsAreSpreadAfterTheOp) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<4x1xi32>, %arg1: tensor<4x1xi32>, %arg2: tensor<5xi32>) -> (tensor<4x6xi1>, tensor<4x6xi32>, tensor<4x5xi32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<4x1xi32>) -> tensor<4x6xi32>
    %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<4x1xi32>) -> tensor<4x6xi32>
    %2 = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %3 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<4x6xi32>
    %4 = "stablehlo.compare"(%0, %3) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %5 = "stablehlo.select"(%4, %0, %1) : (tensor<4x6xi1>, tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
    %6 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64: 1>} : (tensor<5xi32>) -> tensor<4x5xi32>
    %7 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<4x1xi32>) -> tensor<4x5xi32>
    %8 = "stablehlo.add"(%6, %7) : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
    "func.return"(%4, %5, %8) : (tensor<4x6xi1>, tensor<4x6xi32>, tensor<4x5xi32>) -> ()
  }
}
)";
  bool changed = false;
  const std::string out = RunPass(SimplifyThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr(R"(: (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi1>)"));
  EXPECT_THAT(out, HasSubstr(R"(: (tensor<4x1xi1>, tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>)"));
  EXPECT_THAT(out, HasSubstr(R"("stablehlo.add"(%)"));
  EXPECT_THAT(out, HasSubstr(R"(: (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>)"));
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

// p != false and p == true of bools are p; p == false stays.
TEST(AlgebraicSimplification, ComparesOfBoolsWithConstants) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
    %0 = "stablehlo.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    %1 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<i1>) -> tensor<4xi1>
    %2 = "stablehlo.constant"() {value = dense<true> : tensor<4xi1>} : () -> tensor<4xi1>
    %3 = "stablehlo.compare"(%arg0, %1) {comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %4 = "stablehlo.compare"(%2, %arg0) {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %5 = "stablehlo.compare"(%arg0, %1) {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    "func.return"(%3, %4, %5) : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> ()
  }
}
)";
  bool changed = false;
  const std::string out = RunPass(SimplifyThenClean, text, &changed);
  EXPECT_TRUE(changed);
  EXPECT_THAT(out, HasSubstr(R"("func.return"(%arg0, %arg0, %)"));
  ExpectPassKeepsValues(RunAlgebraicSimplification, text);
}

}  // namespace
}  // namespace xjit::testing
