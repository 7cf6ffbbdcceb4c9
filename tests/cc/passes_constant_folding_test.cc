// Constant and iota folding: small iotas and data movement of constants
// become constants; large results, single-element broadcasts and arithmetic
// are left alone.
#include "xjit/passes/constant_folding.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/passes/dead_code_elimination.h"
#include "xjit/passes/literal_movement.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using passes::RunConstantFolding;

absl::StatusOr<bool> FoldThenClean(Module& m) {
  absl::StatusOr<bool> c = RunConstantFolding(m);
  if (!c.ok()) return c;
  absl::StatusOr<bool> d = passes::RunDeadCodeElimination(m);
  if (!d.ok()) return d;
  return *c;
}

TEST(ConstantFolding, IotaAndMovementChains) {
  const std::string text = R"(module @m {
  func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3xi32>, tensor<2x2x3xi32>) {
    %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xf32>
    %1 = "stablehlo.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.constant"() {value = dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>} : () -> tensor<6xi32>
    %4 = "stablehlo.reshape"(%3) : (tensor<6xi32>) -> tensor<2x3xi32>
    %5 = "stablehlo.constant"() {value = dense<[7, 8]> : tensor<2xi32>} : () -> tensor<2xi32>
    %6 = "stablehlo.broadcast_in_dim"(%5) {broadcast_dimensions = array<i64: 0>} : (tensor<2xi32>) -> tensor<2x2x3xi32>
    "func.return"(%2, %4, %6) : (tensor<3x2xf32>, tensor<2x3xi32>, tensor<2x2x3xi32>) -> ()
  }
}
)";
  bool changed = false;
  EXPECT_EQ(RunPass(FoldThenClean, text, &changed), R"(module @m {
  func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x3xi32>, tensor<2x2x3xi32>) {
    %0 = "stablehlo.constant"() {value = dense<[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]> : tensor<3x2xf32>} : () -> tensor<3x2xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %2 = "stablehlo.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
    %3 = "stablehlo.constant"() {value = dense<[[[7, 7, 7], [7, 7, 7]], [[8, 8, 8], [8, 8, 8]]]> : tensor<2x2x3xi32>} : () -> tensor<2x2x3xi32>
    "func.return"(%1, %2, %3) : (tensor<3x2xf32>, tensor<2x3xi32>, tensor<2x2x3xi32>) -> ()
  }
}
)");
  EXPECT_TRUE(changed);
  ExpectPassKeepsValues(RunConstantFolding, text);
}

TEST(ConstantFolding, SliceReverseConcatenate) {
  const std::string text = R"(module @m {
  func.func @main() -> (tensor<2x2xi32>, tensor<2x3xi32>, tensor<2x5xi32>) {
    %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>
    %1 = "stablehlo.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
    %2 = "stablehlo.slice"(%1) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
    %3 = "stablehlo.reverse"(%1) {dimensions = array<i64: 0, 1>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %4 = "stablehlo.slice"(%1) {start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
    %5 = "stablehlo.concatenate"(%0, %4) {dimension = 1 : i64} : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x5xi32>
    "func.return"(%2, %3, %5) : (tensor<2x2xi32>, tensor<2x3xi32>, tensor<2x5xi32>) -> ()
  }
}
)";
  EXPECT_EQ(RunPass(FoldThenClean, text), R"(module @m {
  func.func @main() -> (tensor<2x2xi32>, tensor<2x3xi32>, tensor<2x5xi32>) {
    %0 = "stablehlo.constant"() {value = dense<[[1, 3], [4, 6]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
    %1 = "stablehlo.constant"() {value = dense<[[6, 5, 4], [3, 2, 1]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
    %2 = "stablehlo.constant"() {value = dense<[[0, 1, 2, 2, 3], [0, 1, 2, 5, 6]]> : tensor<2x5xi32>} : () -> tensor<2x5xi32>
    "func.return"(%0, %1, %2) : (tensor<2x2xi32>, tensor<2x3xi32>, tensor<2x5xi32>) -> ()
  }
}
)");
  ExpectPassKeepsValues(RunConstantFolding, text);
}

TEST(ConstantFolding, IotaOfEveryKindOfType) {
  for (const char* type : {"i8", "ui16", "i64", "f16", "bf16", "f64", "complex<f32>"}) {
    const std::string text = absl::StrCat(R"(module @m {
  func.func @main() -> (tensor<2x3x)", type, R"(>) {
    %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2x3x)", type, R"(>
    "func.return"(%0) : (tensor<2x3x)", type, R"(>) -> ()
  }
}
)");
    EXPECT_THAT(RunPass(RunConstantFolding, text), HasSubstr("stablehlo.constant")) << type;
    ExpectPassKeepsValues(RunConstantFolding, text);
  }
}

TEST(ConstantFolding, LeavesLargeSplatsAndArithmeticAlone) {
  const std::string text = R"(module @m {
  func.func @main() -> (tensor<5000xi32>, tensor<4x4xf32>, tensor<2xf32>) {
    %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<5000xi32>
    %1 = "stablehlo.constant"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4x4xf32>
    %3 = "stablehlo.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %4 = "stablehlo.add"(%3, %3) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0, %2, %4) : (tensor<5000xi32>, tensor<4x4xf32>, tensor<2xf32>) -> ()
  }
}
)";
  bool changed = true;
  EXPECT_EQ(RunPass(RunConstantFolding, text, &changed), text);
  EXPECT_FALSE(changed);
}

// Element-wise ops of integer and bool splats are evaluated (wrapping, two's
// complement; the reference backend on the unfolded module agrees), spread
// by a broadcast; division and float ops are left alone.
TEST(ConstantFolding, IntegerSplatOps) {
  struct Case {
    std::string type;
    std::vector<std::string> values;
  };
  const Case cases[] = {{"i32", {"-2147483648", "-1", "0", "7", "2147483647"}},
                        {"i8", {"-128", "-3", "0", "127"}},
                        {"ui8", {"0", "1", "200", "255"}},
                        {"ui32", {"0", "3", "4294967295"}},
                        {"i64", {"-9223372036854775808", "-5", "9223372036854775807"}},
                        {"i1", {"true", "false"}}};
  const char* binary[] = {"add", "subtract", "multiply", "maximum", "minimum", "and", "or", "xor"};
  const char* unary[] = {"negate", "abs", "sign", "not"};
  for (const Case& c : cases) {
    const std::string t = "tensor<3x" + c.type + ">";
    for (const std::string& a : c.values) {
      for (const std::string& b : c.values) {
        std::string body =
            "    %0 = \"stablehlo.constant\"() {value = dense<" + a + "> : tensor<" + c.type +
            ">} : () -> tensor<" + c.type + ">\n"
            "    %1 = \"stablehlo.broadcast_in_dim\"(%0) {broadcast_dimensions = array<i64>} : "
            "(tensor<" + c.type + ">) -> " + t + "\n"
            "    %2 = \"stablehlo.constant\"() {value = dense<" + b + "> : " + t + "} : () -> " +
            t + "\n";
        std::string results, types;
        int next = 3;
        auto add = [&](const std::string& line, const std::string& type) {
          const std::string name = "%" + std::to_string(next++);
          body += "    " + name + " = " + line + "\n";
          results += (results.empty() ? "" : ", ") + name;
          types += (types.empty() ? "" : ", ") + type;
        };
        for (const char* op : binary) {
          if (c.type == "i1" && (std::string(op) == "subtract")) continue;
          add(absl::StrCat("\"stablehlo.", op, "\"(%1, %2) : (", t, ", ", t, ") -> ", t), t);
        }
        for (const char* op : unary) {
          if (c.type == "i1" && std::string(op) != "not") continue;
          // Unsigned types take only not of these.
          if (c.type[0] == 'u' && std::string(op) != "not") continue;
          add(absl::StrCat("\"stablehlo.", op, "\"(%1) : (", t, ") -> ", t), t);
        }
        for (const char* d : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
          add(absl::StrCat("\"stablehlo.compare\"(%1, %2) {comparison_direction = "
                           "#stablehlo<comparison_direction ", d, ">} : (", t, ", ", t,
                           ") -> tensor<3xi1>"),
              "tensor<3xi1>");
        }
        add("\"stablehlo.convert\"(%1) : (" + t + ") -> tensor<3xi16>", "tensor<3xi16>");
        add("\"stablehlo.convert\"(%2) : (" + t + ") -> tensor<3xi1>", "tensor<3xi1>");
        add("\"stablehlo.convert\"(%2) : (" + t + ") -> tensor<3xf32>", "tensor<3xf32>");
        const std::string text = "module @m {\n  func.func @main() -> (" + types + ") {\n" +
                                 body + "    \"func.return\"(" + results + ") : (" + types +
                                 ") -> ()\n  }\n}\n";
        SCOPED_TRACE(c.type + " " + a + " " + b);
        bool changed = false;
        const std::string out = RunPass(FoldThenClean, text, &changed);
        EXPECT_TRUE(changed);
        // Only the convert to a float is left.
        EXPECT_THAT(out, HasSubstr("\"stablehlo.convert\""));
        EXPECT_THAT(out, Not(HasSubstr("stablehlo.compare"))) << out;
        EXPECT_THAT(out, Not(HasSubstr("stablehlo.add"))) << out;
        ExpectPassKeepsValues(RunConstantFolding, text);
      }
    }
  }
}

TEST(LiteralMovement, IndexMaps) {
  Literal x(T(DType::kS32, {2, 3, 4}));
  for (int32_t i = 0; i < 24; ++i) x.mutable_data_as<int32_t>()[i] = i;
  Literal t = passes::TransposeLiteral(x, {2, 0, 1});
  ASSERT_EQ(t.shape(), T(DType::kS32, {4, 2, 3}));
  // t[k][i][j] == x[i][j][k]
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(t.data_as<int32_t>()[k * 6 + i * 3 + j], x.data_as<int32_t>()[i * 12 + j * 4 + k]);
  Literal row(T(DType::kS32, {1, 3}));
  for (int32_t i = 0; i < 3; ++i) row.mutable_data_as<int32_t>()[i] = 10 + i;
  Literal b = passes::BroadcastLiteral(row, T(DType::kS32, {3, 2, 4}), {1, 0});
  // b[i][j][k] == row[j][i]: dimension 0 of row (size 1) is broadcast.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(b.data_as<int32_t>()[i * 8 + j * 4 + k], 10 + i);
  // Concatenate along the middle dimension: x[2][3][4] with y[2][1][4].
  Literal y(T(DType::kS32, {2, 1, 4}));
  for (int32_t i = 0; i < 8; ++i) y.mutable_data_as<int32_t>()[i] = 100 + i;
  const Literal* parts[] = {&x, &y};
  Literal c = passes::ConcatenateLiterals(parts, 1);
  ASSERT_EQ(c.shape(), T(DType::kS32, {2, 4, 4}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(c.data_as<int32_t>()[i * 16 + j * 4 + k],
                  j < 3 ? x.data_as<int32_t>()[i * 12 + j * 4 + k] : 100 + i * 4 + k);
  // Reverse the last dimension; slice with a start and a stride.
  Literal r = passes::ReverseLiteral(x, {2});
  EXPECT_EQ(r.data_as<int32_t>()[0], 3);
  EXPECT_EQ(r.data_as<int32_t>()[23], 20);
  Literal s = passes::SliceLiteral(x, T(DType::kS32, {1, 2, 2}), {1, 1, 1}, {1, 1, 2});
  // x[1][1][1], x[1][1][3], x[1][2][1], x[1][2][3]
  EXPECT_EQ(std::vector<int32_t>(s.data_as<int32_t>(), s.data_as<int32_t>() + 4),
            (std::vector<int32_t>{17, 19, 21, 23}));
  EXPECT_FALSE(passes::IotaLiteral(T(DType::kPred, {2}), 0).ok());
  EXPECT_FALSE(passes::IotaLiteral(T(DType::kS32, {2}), 1).ok());
}

}  // namespace
}  // namespace xjit::testing
