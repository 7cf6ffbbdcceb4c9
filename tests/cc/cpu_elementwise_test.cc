// Element-wise ops on "cpu" against "reference": every unary and binary op on
// every element type the builder accepts, compare in every direction and
// type, select/clamp with scalar operands, convert between all type pairs,
// and sizes that take the multi-threaded path.
#include <random>
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"

namespace xjit::cpu::testing {
namespace {

std::string Name(Opcode op, DType t) {
  return std::string(OpcodeName(op)) + "/" + std::string(StableHloName(t));
}

TEST(CpuElementwise, EveryUnaryOpEveryDType) {
  std::mt19937_64 rng(1);
  int checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    Opcode op = static_cast<Opcode>(o);
    if (!IsElementwiseUnary(op) || op == Opcode::kConvert) continue;
    for (DType t : kAllDTypes) {
      auto m = OneOpModule(op, {Shape(t, {3, 67})});
      if (!m.ok()) continue;  // the builder rejects this type for this op
      if (CrossCheck(**m, RandomArgs(**m, rng), Name(op, t))) ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(CpuElementwise, EveryBinaryOpEveryDType) {
  std::mt19937_64 rng(2);
  int checked = 0;
  for (int o = 0; o < kNumOpcodes; ++o) {
    Opcode op = static_cast<Opcode>(o);
    if (!IsElementwiseBinary(op) || op == Opcode::kCompare) continue;
    for (DType t : kAllDTypes) {
      auto m = OneOpModule(op, {Shape(t, {5, 41}), Shape(t, {5, 41})});
      if (!m.ok()) continue;
      if (CrossCheck(**m, RandomArgs(**m, rng), Name(op, t))) ++checked;
    }
  }
  EXPECT_GT(checked, 120);
}

TEST(CpuElementwise, CompareAllDirectionsAndTypes) {
  std::mt19937_64 rng(3);
  int checked = 0;
  const ComparisonType types[] = {ComparisonType::kNotype, ComparisonType::kFloat,
                                  ComparisonType::kTotalOrder, ComparisonType::kSigned,
                                  ComparisonType::kUnsigned};
  for (DType t : kAllDTypes) {
    for (int d = 0; d < 6; ++d) {
      for (ComparisonType ct : types) {
        CompareAttrs a;
        a.comparison_direction = static_cast<ComparisonDirection>(d);
        a.compare_type = ct;
        auto m = OneOpModule(Opcode::kCompare, {Shape(t, {130}), Shape(t, {130})}, a);
        if (!m.ok()) continue;
        auto args = RandomArgs(**m, rng);
        // Equal elements matter for EQ/GE/LE: copy a few across.
        std::memcpy(args[1].mutable_data(), args[0].data(), 20 * ByteWidth(t));
        if (CrossCheck(**m, args, Name(Opcode::kCompare, t) + "/" + std::to_string(d))) ++checked;
      }
    }
  }
  EXPECT_GT(checked, 80);
}

TEST(CpuElementwise, ConvertEveryPair) {
  std::mt19937_64 rng(4);
  int checked = 0;
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      auto m = OneOpModule(Opcode::kConvert, {Shape(from, {97})}, {}, {}, Shape(to, {97}));
      if (!m.ok()) continue;
      // Large floats probe saturation when converting to integers.
      auto args = RandomArgs(**m, rng);
      if (from == DType::kF32) args[0].mutable_data_as<float>()[7] = 3e10f;
      if (from == DType::kF64) args[0].mutable_data_as<double>()[7] = -1e300;
      if (CrossCheck(**m, args, "convert " + Name(Opcode::kConvert, from) + "->" +
                                    std::string(StableHloName(to)))) {
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(CpuElementwise, SelectAndClampWithScalarOperands) {
  std::mt19937_64 rng(5);
  for (DType t : {DType::kF32, DType::kS32, DType::kBF16, DType::kU8, DType::kC64, DType::kPred}) {
    for (bool scalar : {false, true}) {
      Shape full(t, {4, 33}), sc(t, {});
      auto sel = OneOpModule(Opcode::kSelect, {Shape(DType::kPred, scalar ? std::vector<int64_t>{}
                                                                          : std::vector<int64_t>{4, 33}),
                                               full, full});
      ASSERT_TRUE(sel.ok()) << sel.status();
      EXPECT_TRUE(CrossCheck(**sel, RandomArgs(**sel, rng), Name(Opcode::kSelect, t)));
      auto clamp = OneOpModule(Opcode::kClamp, {scalar ? sc : full, full, scalar ? sc : full});
      if (!clamp.ok()) continue;  // e.g. pred
      CrossCheck(**clamp, RandomArgs(**clamp, rng), Name(Opcode::kClamp, t));
    }
  }
}

TEST(CpuElementwise, LargeArraysTakeTheParallelPath) {
  std::mt19937_64 rng(6);
  for (DType t : {DType::kF32, DType::kS32, DType::kF16, DType::kF64}) {
    for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kDivide, Opcode::kMaximum}) {
      auto m = OneOpModule(op, {Shape(t, {1000, 301}), Shape(t, {1000, 301})});
      ASSERT_TRUE(m.ok()) << m.status();
      EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "large " + Name(op, t)));
    }
  }
  auto m = OneOpModule(Opcode::kExponential, {Shape(DType::kF32, {123457})});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "large exp"));
}

// A long element-wise chain is fused into one tiled pass; values that leave
// the chain (a result, a later non-element-wise use) must still be stored.
TEST(CpuElementwise, FusedChainsMatchReference) {
  for (int64_t n : {int64_t{1000}, int64_t{200003}}) {
    ModuleBuilder mb("chain");
    ComputationBuilder* main = mb.NewComputation("main");
    Instruction* x = main->Parameter(Shape(DType::kF32, {n}));
    Instruction* lo = main->Parameter(Shape(DType::kF32, {}));
    Instruction* y = *main->Add(Opcode::kTanh, {x});
    Instruction* z = *main->Add(Opcode::kMultiply, {y, x});
    Instruction* w = *main->AddWithResultType(Opcode::kConvert, Shape(DType::kF64, {n}), {z});
    CompareAttrs gt{ComparisonDirection::kGt};
    Instruction* big = *main->Add(Opcode::kCompare, {w, *main->Add(Opcode::kSqrt, {*main->Add(Opcode::kAbs, {w})})}, gt);
    Instruction* s = *main->Add(Opcode::kSelect, {big, w, *main->Add(Opcode::kNegate, {w})});
    Instruction* c = *main->Add(Opcode::kClamp, {lo, z, *main->Add(Opcode::kExponential, {x})});
    Instruction* r = *main->Add(Opcode::kReverse, {y}, ReverseAttrs{{0}});  // y leaves the chain
    auto entry = main->Finish({s, c, r, z});
    ASSERT_TRUE(entry.ok()) << entry.status();
    auto m = mb.Build(*entry);
    ASSERT_TRUE(m.ok()) << m.status();
    std::mt19937_64 rng(7);
    // The f64 results come from float32 tanh/exp, which the cpu backend
    // computes with a few-ulp approximation (fast_math.h): float tolerance.
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "fused chain " + std::to_string(n), 2e-6));
  }
}

// Hand-computed edge cases from docs/semantics.md, independent of the reference.
TEST(CpuElementwise, IntegerEdgeCasesByHand) {
  auto m = OneOpModule(Opcode::kDivide, {Shape(DType::kS32, {4}), Shape(DType::kS32, {4})});
  ASSERT_TRUE(m.ok());
  Literal a(Shape(DType::kS32, {4})), b(Shape(DType::kS32, {4}));
  int32_t av[] = {7, -7, INT32_MIN, 5}, bv[] = {0, 2, -1, -2};
  std::memcpy(a.mutable_data(), av, 16);
  std::memcpy(b.mutable_data(), bv, 16);
  auto r = RunOn("cpu", **m, {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  const int32_t* q = (*r)[0].data_as<int32_t>();
  EXPECT_EQ(q[0], -1);
  EXPECT_EQ(q[1], -3);
  EXPECT_EQ(q[2], INT32_MIN);
  EXPECT_EQ(q[3], -2);

  auto shl = OneOpModule(Opcode::kShiftRightArithmetic, {Shape(DType::kS8, {3}), Shape(DType::kS8, {3})});
  ASSERT_TRUE(shl.ok());
  Literal x(Shape(DType::kS8, {3})), s(Shape(DType::kS8, {3}));
  int8_t xv[] = {-100, 100, -100}, sv[] = {8, 9, 2};
  std::memcpy(x.mutable_data(), xv, 3);
  std::memcpy(s.mutable_data(), sv, 3);
  auto rs = RunOn("cpu", **shl, {x, s});
  ASSERT_TRUE(rs.ok()) << rs.status();
  const int8_t* y = (*rs)[0].data_as<int8_t>();
  EXPECT_EQ(y[0], -1);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], -25);
}

}  // namespace
}  // namespace xjit::cpu::testing
