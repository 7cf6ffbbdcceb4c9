// while, if and case: shape inference and its messages, parsing (captured
// values become trailing operands) and printing back, and the cpu backend's
// region programs against the reference (loops, nesting, captures, branch
// selection, zero-trip loops, swapped carries).
#include <cstring>
#include <string>
#include <vector>

#include "cpu_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/passes/pipeline.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::Must;

template <typename V>
Literal Array(DType t, std::vector<int64_t> dims, std::vector<V> values) {
  Literal l(Shape(t, std::move(dims)));
  std::memcpy(l.mutable_data(), values.data(), values.size() * sizeof(V));
  return l;
}
Literal I32(int32_t v) { return Array<int32_t>(DType::kS32, {}, {v}); }
Literal F32(float v) { return Array<float>(DType::kF32, {}, {v}); }

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// sum of i for i in [0, n), with the bound captured from the function.
const char* kSumLoop = R"(module @m {
  func.func @main(%n: tensor<i32>, %x: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = "stablehlo.while"(%zero, %x) ({
    ^bb0(%i: tensor<i32>, %v: tensor<3xf32>):
      %c = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<3xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %f = "stablehlo.convert"(%i) : (tensor<i32>) -> tensor<f32>
      %b = "stablehlo.broadcast_in_dim"(%f) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3xf32>
      %w = "stablehlo.add"(%v, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%j, %w) : (tensor<i32>, tensor<3xf32>) -> ()
    }) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
    "func.return"(%r#0, %r#1) : (tensor<i32>, tensor<3xf32>) -> ()
  }
})";

TEST(ControlFlow, WhileCapturesBecomeOperandsAndRoundTrip) {
  auto m = Parse(kSumLoop);
  ASSERT_NE(m, nullptr);
  std::string text = PrintModule(*m);
  EXPECT_THAT(text, HasSubstr("stablehlo.while"));
  auto again = ParseModule(text);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  EXPECT_EQ(PrintModule(**again), text);
  // The while takes the carried values and the captured bound.
  for (const auto& instr : m->entry()->instructions()) {
    if (instr->opcode() == Opcode::kWhile) EXPECT_EQ(instr->operands().size(), 3u);
  }
}

TEST(ControlFlow, WhileRunsOnBothBackends) {
  auto m = Parse(kSumLoop);
  ASSERT_NE(m, nullptr);
  for (int n : {0, 1, 5, 1000}) {
    std::vector<Literal> args = {I32(n), Array<float>(DType::kF32, {3}, {1, 2, 3})};
    auto got = RunOn("cpu", *m, args);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got)[0].data_as<int32_t>()[0], n);
    const float sum = static_cast<float>(n) * (n - 1) / 2;
    EXPECT_EQ((*got)[1].data_as<float>()[2], 3 + sum);
    EXPECT_TRUE(CrossCheck(*m, args, "sum loop n=" + std::to_string(n)));
  }
}

// The body swaps its two carried values: the ping-pong buffers must not alias.
TEST(ControlFlow, WhileSwapsCarriedValues) {
  auto m = Parse(R"(module @m {
  func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = "stablehlo.while"(%zero, %a, %b) ({
    ^bb0(%i: tensor<i32>, %x: tensor<2xf32>, %y: tensor<2xf32>):
      %c = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %x: tensor<2xf32>, %y: tensor<2xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %s = "stablehlo.add"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      "stablehlo.return"(%j, %y, %s) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> ()
    }) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
    "func.return"(%r#1, %r#2) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  for (int n : {0, 1, 2, 7}) {
    std::vector<Literal> args = {Array<float>(DType::kF32, {2}, {0, 1}),
                                 Array<float>(DType::kF32, {2}, {1, 1}), I32(n)};
    EXPECT_TRUE(CrossCheck(*m, args, "fibonacci n=" + std::to_string(n)));
    auto got = RunOn("cpu", *m, args);
    ASSERT_TRUE(got.ok());
    float a = 0, b = 1;
    for (int k = 0; k < n; ++k) {
      float s = a + b;
      a = b;
      b = s;
    }
    EXPECT_EQ((*got)[0].data_as<float>()[0], a);
    EXPECT_EQ((*got)[1].data_as<float>()[0], b);
  }
}

// if inside a while inside a case; the if branches capture values of the
// function two regions out.
TEST(ControlFlow, NestedRegionsCaptureThroughEveryLevel) {
  auto m = Parse(R"(module @m {
  func.func @main(%k: tensor<i32>, %n: tensor<i32>, %x: tensor<f32>, %d: tensor<f32>) -> tensor<f32> {
    %r = "stablehlo.case"(%k) ({
      "stablehlo.return"(%x) : (tensor<f32>) -> ()
    }, {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %w:2 = "stablehlo.while"(%zero, %x) ({
      ^bb0(%i: tensor<i32>, %v: tensor<f32>):
        %c = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%c) : (tensor<i1>) -> ()
      }, {
      ^bb0(%i: tensor<i32>, %v: tensor<f32>):
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        %two = stablehlo.constant dense<2> : tensor<i32>
        %m = "stablehlo.remainder"(%i, %two) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        %e = "stablehlo.compare"(%m, %zero) {comparison_direction = #stablehlo<comparison_direction EQ>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %u = "stablehlo.if"(%e) ({
          %p = "stablehlo.add"(%v, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%p) : (tensor<f32>) -> ()
        }, {
          %q = "stablehlo.multiply"(%v, %d) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%q) : (tensor<f32>) -> ()
        }) : (tensor<i1>) -> tensor<f32>
        "stablehlo.return"(%j, %u) : (tensor<i32>, tensor<f32>) -> ()
      }) : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
      "stablehlo.return"(%w#1) : (tensor<f32>) -> ()
    }) : (tensor<i32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  auto again = ParseModule(PrintModule(*m));
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << PrintModule(*m);
  for (int k : {-3, 0, 1, 7}) {
    for (int n : {0, 3, 6}) {
      std::vector<Literal> args = {I32(k), I32(n), F32(1.5f), F32(2.0f)};
      EXPECT_TRUE(CrossCheck(*m, args, "nested k=" + std::to_string(k)));
      float want = 1.5f;
      if (k != 0) {  // out of range picks the last branch
        for (int i = 0; i < n; ++i) want = i % 2 == 0 ? want + 2.0f : want * 2.0f;
      }
      auto got = RunOn("cpu", **again, args);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ((*got)[0].data_as<float>()[0], want) << "k=" << k << " n=" << n;
    }
  }
}

// The default pipeline reaches into regions: the call in the body is inlined
// and its dead code dropped, and the loop still computes the same values.
TEST(ControlFlow, PassesRunInsideRegions) {
  auto m = Parse(R"(module @m {
  func.func @main(%n: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = "stablehlo.while"(%zero, %x) ({
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      %c = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %dead = "stablehlo.multiply"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %w = "func.call"(%v, %x) {callee = @step} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%j, %w) : (tensor<i32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    "func.return"(%r#1) : (tensor<4xf32>) -> ()
  }
  func.func @step(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %s = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%s) : (tensor<4xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  auto optimised = passes::RunDefaultPipeline(*m);
  ASSERT_TRUE(optimised.ok()) << optimised.status();
  std::string text = PrintModule(**optimised);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("func.call")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("stablehlo.multiply")));
  EXPECT_THAT(text, HasSubstr("stablehlo.while"));
  std::vector<Literal> args = {I32(3), Array<float>(DType::kF32, {4}, {1, 2, 3, 4})};
  EXPECT_TRUE(CrossCheck(**optimised, args, "optimised loop"));
  auto got = RunOn("cpu", *m, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].data_as<float>()[3], 16.0f);  // x + 3x
}

// ---------------------------------------------------------- shape inference

Computation* Region(ModuleBuilder& mb, const std::vector<Shape>& params,
                    const std::vector<int>& returned, const char* name = "r") {
  ComputationBuilder* cb = mb.NewComputation(name);
  std::vector<Instruction*> p;
  for (const Shape& s : params) p.push_back(cb->Parameter(s));
  std::vector<Instruction*> r;
  for (int i : returned) r.push_back(p[i]);
  return *cb->Finish(r);
}

absl::Status Infer(Opcode op, const std::vector<Shape>& operands,
                   const std::vector<Computation*>& called) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : operands) ptrs.push_back(&s);
  std::vector<const Computation*> c(called.begin(), called.end());
  return InferShape(op, ptrs, Attributes(), c, nullptr).status();
}

TEST(ControlFlow, ShapeInferenceChecksRegionSignatures) {
  ModuleBuilder mb("m");
  const Shape f = Shape(DType::kF32, {2}), p = Shape(DType::kPred, {}),
              i = Shape(DType::kS32, {});
  Computation* cond = Region(mb, {f, p}, {1});
  Computation* body = Region(mb, {f, p}, {0});
  std::vector<const Shape*> ops = {&f, &p};
  auto ok = InferShape(Opcode::kWhile, ops, Attributes(), {cond, body}, nullptr);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, f);  // one carried value; the pred is captured

  EXPECT_THAT(Infer(Opcode::kWhile, {f, p}, {Region(mb, {f, p}, {0}), body}).message(),
              HasSubstr("while: cond r must return one tensor<i1>, got (tensor<2xf32>)"));
  EXPECT_THAT(Infer(Opcode::kWhile, {f, p}, {cond, Region(mb, {f, p}, {1})}).message(),
              HasSubstr("while: body r must return the carried types (tensor<2xf32>), got "
                        "(tensor<i1>)"));
  EXPECT_THAT(Infer(Opcode::kWhile, {f, f}, {cond, body}).message(),
              HasSubstr("must take the operand types"));
  EXPECT_THAT(Infer(Opcode::kWhile, {f, p}, {cond}).message(),
              HasSubstr("while: expected a cond and a body region, got 1"));

  Computation* t = Region(mb, {f}, {0});
  Computation* g = Region(mb, {f, f}, {1});
  EXPECT_TRUE(Infer(Opcode::kIf, {p, f}, {t, t}).ok());
  EXPECT_THAT(Infer(Opcode::kIf, {i, f}, {t, t}).message(),
              HasSubstr("if: pred must be tensor<i1>, got tensor<i32>"));
  EXPECT_THAT(Infer(Opcode::kIf, {p, f}, {t, g}).message(),
              HasSubstr("if: branch 1 (r) must take the captured operands (tensor<2xf32>)"));
  Computation* other = Region(mb, {f, p}, {1});
  Computation* same = Region(mb, {f, p}, {0});
  EXPECT_THAT(Infer(Opcode::kIf, {p, f, p}, {same, other}).message(),
              HasSubstr("if: branches must return the same types, but branch 0 returns "
                        "(tensor<2xf32>) and branch 1 returns (tensor<i1>)"));
  EXPECT_TRUE(Infer(Opcode::kCase, {i, f}, {t, t, t}).ok());
  EXPECT_THAT(Infer(Opcode::kCase, {p, f}, {t}).message(),
              HasSubstr("case: index must be tensor<i32>, got tensor<i1>"));
  EXPECT_THAT(Infer(Opcode::kCase, {i}, {}).message(),
              HasSubstr("case: expected at least one branch"));
}

TEST(ControlFlow, ParserRejectsRegionTypeMismatches) {
  auto bad = ParseModule(R"(module @m {
  func.func @main(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
    %r = "stablehlo.if"(%p) ({
      "stablehlo.return"(%a) : (tensor<f32>) -> ()
    }, {
      "stablehlo.return"(%b) : (tensor<i32>) -> ()
    }) : (tensor<i1>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }
})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("if: branches must return the same types"));
}

}  // namespace
}  // namespace xjit::cpu::testing
