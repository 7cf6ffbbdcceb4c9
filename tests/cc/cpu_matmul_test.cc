// dot_general on "cpu" (oneDNN for f32/bf16/f16, own loop otherwise) against
// "reference": plain, transposed, batched (batch dims anywhere), multiple
// contracting dims, no contraction, and an empty contraction.
#include <random>
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"

namespace xjit::cpu::testing {
namespace {

struct DotCase {
  std::string name;
  std::vector<int64_t> lhs, rhs;
  std::vector<int64_t> lb, rb, lc, rc;
};

std::vector<DotCase> Cases() {
  return {
      {"matmul", {17, 33}, {33, 9}, {}, {}, {1}, {0}},
      {"lhs_transposed", {33, 17}, {33, 9}, {}, {}, {0}, {0}},
      {"rhs_transposed", {17, 33}, {9, 33}, {}, {}, {1}, {1}},
      {"both_transposed", {33, 17}, {9, 33}, {}, {}, {0}, {1}},
      {"batched", {3, 17, 20}, {3, 20, 6}, {0}, {0}, {2}, {1}},
      {"batch_in_middle", {20, 3, 17}, {6, 3, 20}, {1}, {1}, {0}, {2}},
      {"two_batch_dims", {2, 3, 5, 7}, {3, 2, 7, 4}, {0, 1}, {1, 0}, {3}, {2}},
      {"two_contracting", {4, 5, 6}, {6, 5, 3}, {}, {}, {1, 2}, {1, 0}},
      {"vector_dot", {50}, {50}, {}, {}, {0}, {0}},
      {"matvec", {12, 50}, {50}, {}, {}, {1}, {0}},
      {"outer", {7}, {5}, {}, {}, {}, {}},
      {"empty_contraction", {4, 0}, {0, 3}, {}, {}, {1}, {0}},
  };
}

DotGeneralAttrs DotAttrs(const DotCase& c) {
  return DotGeneralAttrs{DotDimensionNumbers{c.lb, c.rb, c.lc, c.rc}};
}

TEST(CpuMatmul, LayoutsAndDTypesMatchReference) {
  std::mt19937_64 rng(11);
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16, DType::kF64, DType::kS32, DType::kS8,
                  DType::kU16, DType::kC64, DType::kC128}) {
    for (const DotCase& c : Cases()) {
      auto m = OneOpModule(Opcode::kDotGeneral, {Shape(t, c.lhs), Shape(t, c.rhs)}, DotAttrs(c));
      ASSERT_TRUE(m.ok()) << c.name << ": " << m.status();
      // Sums of many rounded products: looser for 16-bit floats.
      double tol = t == DType::kBF16 ? 3e-2 : t == DType::kF16 ? 5e-3 : -1;
      if (t == DType::kF32 || t == DType::kC64) tol = 1e-4;
      EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, /*special=*/false),
                             c.name + "/" + std::string(StableHloName(t)), tol));
    }
  }
}

TEST(CpuMatmul, LargeF32AndBatchedBF16) {
  std::mt19937_64 rng(12);
  DotCase big{"big", {256, 300}, {300, 200}, {}, {}, {1}, {0}};
  auto m = OneOpModule(Opcode::kDotGeneral, {Shape(DType::kF32, big.lhs), Shape(DType::kF32, big.rhs)},
                       DotAttrs(big));
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), "big f32", 1e-4));
  DotCase batched{"b", {8, 64, 48}, {8, 64, 32}, {0}, {0}, {1}, {1}};  // lhs^T . rhs per batch
  auto b = OneOpModule(Opcode::kDotGeneral, {Shape(DType::kBF16, batched.lhs), Shape(DType::kBF16, batched.rhs)},
                       DotAttrs(batched));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(CrossCheck(**b, RandomArgs(**b, rng, false), "batched bf16", 3e-2));
}

// bf16 and f16 products run in float32 where oneDNN has no kernel for them
// (matmul.cc's Widening): with NaN and infinities among the inputs; and an
// outer product (one product an element, so no order of summation) equal to
// the reference bit for bit, which checks the rounding back (to nearest even).
TEST(CpuMatmul, NarrowFloatsThroughFloat32) {
  std::mt19937_64 rng(13);
  for (DType t : {DType::kBF16, DType::kF16}) {
    DotCase mm{"mm", {70, 130}, {130, 90}, {}, {}, {1}, {0}};
    auto m = OneOpModule(Opcode::kDotGeneral, {Shape(t, mm.lhs), Shape(t, mm.rhs)}, DotAttrs(mm));
    ASSERT_TRUE(m.ok());
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, /*special=*/true),
                           "specials " + std::string(StableHloName(t)),
                           t == DType::kBF16 ? 3e-2 : 5e-3));
    DotCase outer{"outer", {300, 1}, {1, 200}, {}, {}, {1}, {0}};
    auto o = OneOpModule(Opcode::kDotGeneral, {Shape(t, outer.lhs), Shape(t, outer.rhs)},
                         DotAttrs(outer));
    ASSERT_TRUE(o.ok());
    EXPECT_TRUE(CrossCheck(**o, RandomArgs(**o, rng, /*special=*/false),
                           "outer " + std::string(StableHloName(t)), 0.0));
  }
}

TEST(CpuMatmul, SmallByHand) {
  DotCase c{"m", {2, 3}, {3, 2}, {}, {}, {1}, {0}};
  auto m = OneOpModule(Opcode::kDotGeneral, {Shape(DType::kF32, c.lhs), Shape(DType::kF32, c.rhs)}, DotAttrs(c));
  ASSERT_TRUE(m.ok());
  Literal a(Shape(DType::kF32, {2, 3})), b(Shape(DType::kF32, {3, 2}));
  float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {7, 8, 9, 10, 11, 12};
  std::memcpy(a.mutable_data(), av, sizeof(av));
  std::memcpy(b.mutable_data(), bv, sizeof(bv));
  auto r = RunOn("cpu", **m, {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  const float* y = (*r)[0].data_as<float>();
  EXPECT_EQ(y[0], 58);
  EXPECT_EQ(y[1], 64);
  EXPECT_EQ(y[2], 139);
  EXPECT_EQ(y[3], 154);
}

}  // namespace
}  // namespace xjit::cpu::testing
