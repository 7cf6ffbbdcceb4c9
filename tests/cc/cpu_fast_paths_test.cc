// The cpu backend's fast paths against the reference: a while condition
// evaluated on the host (counter_condition.h), a loop body flattened into
// kernel calls (CpuProgram::FlattenRegion), element-wise patterns run as
// one kernel inside a fusion (fused_patterns.h: fma through float64,
// rotate, multiply-add), splat-only ops computed once
// per tile, and small float32 dot_generals on their own loop (small_matmul.h).
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "xjit/text/parser.h"

namespace xjit::cpu::testing {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

Literal Scalar(DType t, int64_t v) {
  Literal l(Shape(t, {}));
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *l.mutable_data_as<T>() = static_cast<T>(v);
  });
  return l;
}

// A loop counting from `start` by `step` while `i DIR n` (or `n DIR i` when
// `swap`), summing i into a float vector. The condition has the counter form.
std::string CounterLoop(const std::string& type, const std::string& dir, bool swap,
                        const std::string& bound) {
  const std::string cmp = swap ? absl::StrCat(bound, ", %i") : absl::StrCat("%i, ", bound);
  return absl::StrReplaceAll(R"(module @m {
  func.func @main(%start: tensor<TY>, %step: tensor<TY>, %n: tensor<TY>, %x: tensor<3xf32>) -> (tensor<TY>, tensor<3xf32>) {
    %r:2 = "stablehlo.while"(%start, %x) ({
    ^bb0(%i: tensor<TY>, %v: tensor<3xf32>):
      %k = stablehlo.constant dense<7> : tensor<TY>
      %c = "stablehlo.compare"(CMP) {comparison_direction = #stablehlo<comparison_direction DIR>} : (tensor<TY>, tensor<TY>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<TY>, %v: tensor<3xf32>):
      %j = "stablehlo.add"(%i, %step) : (tensor<TY>, tensor<TY>) -> tensor<TY>
      %f = "stablehlo.convert"(%i) : (tensor<TY>) -> tensor<f32>
      %b = "stablehlo.broadcast_in_dim"(%f) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3xf32>
      %w = "stablehlo.add"(%v, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%j, %w) : (tensor<TY>, tensor<3xf32>) -> ()
    }) : (tensor<TY>, tensor<3xf32>) -> (tensor<TY>, tensor<3xf32>)
    "func.return"(%r#0, %r#1) : (tensor<TY>, tensor<3xf32>) -> ()
  }
})",
                             {{"TY", type}, {"DIR", dir}, {"CMP", cmp}});
}

TEST(CpuFastPaths, CounterConditionsMatchReference) {
  struct Case {
    std::string type, dir;
    bool swap;
    std::string bound;
    int64_t start, step, n;
  };
  const std::vector<Case> cases = {
      {"i32", "LT", false, "%n", 0, 1, 10},     {"i32", "LT", false, "%n", 5, 1, 0},
      {"i32", "GT", false, "%n", 10, -1, -3},   {"i32", "NE", false, "%n", 0, 2, 12},
      {"i32", "LE", true, "%n", 3, -1, -2},     {"i64", "LT", false, "%n", -5, 2, 9},
      {"i32", "LT", false, "%k", 0, 1, 0},      {"i32", "GE", true, "%k", 0, 1, 0},
      {"ui32", "LT", false, "%n", 0, 1, 6},     {"ui32", "GT", false, "%n", 9, 4294967295, 2},
      {"i8", "LT", false, "%n", -100, 13, 100}, {"ui16", "EQ", false, "%n", 4, 1, 4},
  };
  for (const Case& c : cases) {
    auto m = Parse(CounterLoop(c.type, c.dir, c.swap, c.bound));
    ASSERT_NE(m, nullptr);
    const DType t = m->entry()->parameters()[0]->shape().dtype;
    std::vector<Literal> args = {Scalar(t, c.start), Scalar(t, c.step), Scalar(t, c.n),
                                 Literal(Shape(DType::kF32, {3}))};
    EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat(c.type, " ", c.dir, " ", c.bound)));
  }
}

// Bodies that flatten into kernel calls (element-wise ops, a fused chain, a
// carried value passed through unchanged: a copy; a small dot), over 0, 1,
// 2 and many trips: the carry alternates
// between the result and scratch buffers, and ends in either.
TEST(CpuFastPaths, FlattenedLoopBodiesMatchReference) {
  auto m = Parse(R"(module @m {
  func.func @main(%n: tensor<i32>, %x: tensor<4xf32>, %y: tensor<4xf32>, %w: tensor<4x64xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:4 = "stablehlo.while"(%zero, %x, %y, %w) ({
    ^bb0(%i: tensor<i32>, %a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4x64xf32>):
      %p = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4x64xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<f32>
      %h = "stablehlo.broadcast_in_dim"(%half) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
      %s = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %t = "stablehlo.multiply"(%s, %h) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "stablehlo.return"(%j, %b, %t, %c) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>) -> ()
    }) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>)
    "func.return"(%r#0, %r#1, %r#2, %r#3) : (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4x64xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  auto dot = Parse(R"(module @m {
  func.func @main(%n: tensor<i32>, %h: tensor<16xf32>, %w: tensor<16x16xf32>) -> (tensor<16xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = "stablehlo.while"(%zero, %h) ({
    ^bb0(%i: tensor<i32>, %v: tensor<16xf32>):
      %p = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<16xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %d = "stablehlo.dot_general"(%v, %w) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<16xf32>, tensor<16x16xf32>) -> tensor<16xf32>
      %t = "stablehlo.tanh"(%d) : (tensor<16xf32>) -> tensor<16xf32>
      "stablehlo.return"(%j, %t) : (tensor<i32>, tensor<16xf32>) -> ()
    }) : (tensor<i32>, tensor<16xf32>) -> (tensor<i32>, tensor<16xf32>)
    "func.return"(%r#1) : (tensor<16xf32>) -> ()
  }
})");
  ASSERT_NE(dot, nullptr);
  std::mt19937_64 rng(8);
  for (int32_t n : {0, 1, 2, 3, 50}) {
    std::vector<Literal> args = RandomArgs(*m, rng, /*special=*/false);
    args[0] = Scalar(DType::kS32, n);
    EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat("flattened body, n=", n)));
    std::vector<Literal> dargs = RandomArgs(*dot, rng, /*special=*/false);
    dargs[0] = Scalar(DType::kS32, n);
    // 50 steps of tanh (4 ulp on cpu) through a dot compound the rounding.
    EXPECT_TRUE(CrossCheck(*dot, dargs, absl::StrCat("dot body, n=", n), 1e-4));
  }
}

// A scan's body (a row read with dynamic_slice, a small product, the row
// written in place with dynamic_update_slice) flattens into steps too. The
// starts run past the ends (the trips outnumber the rows, and a second
// start is offset), so both ops clamp as the spec says.
TEST(CpuFastPaths, FlattenedScanBodyMatchesReference) {
  auto m = Parse(R"(module @m {
  func.func @main(%n: tensor<i32>, %off: tensor<i32>, %h: tensor<8xf32>, %xs: tensor<6x12xf32>, %w: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<6x8xf32>) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %ys = stablehlo.constant dense<0.0> : tensor<6x8xf32>
    %r:3 = "stablehlo.while"(%zero, %h, %ys) ({
    ^bb0(%i: tensor<i32>, %v: tensor<8xf32>, %o: tensor<6x8xf32>):
      %p = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%p) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<8xf32>, %o: tensor<6x8xf32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = "stablehlo.add"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %c = "stablehlo.add"(%i, %off) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %x = "stablehlo.dynamic_slice"(%xs, %i, %c) {slice_sizes = array<i64: 1, 8>} : (tensor<6x12xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
      %xr = "stablehlo.reshape"(%x) : (tensor<1x8xf32>) -> tensor<8xf32>
      %d = "stablehlo.dot_general"(%v, %w) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<8xf32>, tensor<8x8xf32>) -> tensor<8xf32>
      %s = "stablehlo.add"(%d, %xr) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
      %t = "stablehlo.tanh"(%s) : (tensor<8xf32>) -> tensor<8xf32>
      %tr = "stablehlo.reshape"(%t) : (tensor<8xf32>) -> tensor<1x8xf32>
      %u = "stablehlo.dynamic_update_slice"(%o, %tr, %i, %zero) : (tensor<6x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>) -> tensor<6x8xf32>
      "stablehlo.return"(%j, %t, %u) : (tensor<i32>, tensor<8xf32>, tensor<6x8xf32>) -> ()
    }) : (tensor<i32>, tensor<8xf32>, tensor<6x8xf32>) -> (tensor<i32>, tensor<8xf32>, tensor<6x8xf32>)
    "func.return"(%r#1, %r#2) : (tensor<8xf32>, tensor<6x8xf32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  std::mt19937_64 rng(9);
  for (int32_t n : {0, 1, 2, 6, 9}) {
    for (int32_t off : {0, 3, -2}) {
      std::vector<Literal> args = RandomArgs(*m, rng, /*special=*/false);
      args[0] = Scalar(DType::kS32, n);
      args[1] = Scalar(DType::kS32, off);
      EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat("scan body, n=", n, " off=", off), 1e-4));
    }
  }
}

// JAX's take in fill mode (jnp.take's default): a gather of scalars whose
// indices are normalised (i < 0: i + n) and whose result is select(-n <= i
// && i < n, gathered, fill). The cpu lowering lets the gather wrap and fill
// itself; the results are the reference's, bit for bit, for indices inside,
// below and above the range and at the index type's extremes. Variants: the
// bound written `n > i`, a `<=` bound, a fill without the normalisation, a
// fill whose fusion computes more (not absorbed), 64-bit values and indices.
TEST(CpuFastPaths, GatherWithFillMatchesReference) {
  struct Case {
    std::string value, index, fill, upper, lower_bound;
    bool wrap, read_further;
  };
  const std::vector<Case> cases = {
      {"f32", "i32", "0x7FC00000", "\"stablehlo.compare\"(%i, %nb) {comparison_direction = #stablehlo<comparison_direction LT>}", "-100", true, false},
      {"f32", "i32", "0x7FC00000", "\"stablehlo.compare\"(%nb, %i) {comparison_direction = #stablehlo<comparison_direction GT>}", "-100", true, false},
      {"f64", "i64", "0x7FF8000000000000", "\"stablehlo.compare\"(%i, %nb) {comparison_direction = #stablehlo<comparison_direction LT>}", "-100", true, true},
      {"i32", "i32", "-2147483648", "\"stablehlo.compare\"(%i, %mb) {comparison_direction = #stablehlo<comparison_direction LE>}", "-100", true, false},
      {"f32", "i64", "7.0", "\"stablehlo.compare\"(%i, %nb) {comparison_direction = #stablehlo<comparison_direction LT>}", "0", false, false},
  };
  for (const Case& c : cases) {
    const std::string indices = c.wrap ? "%s" : "%i";
    std::string text = absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: tensor<100xVT>, %i: tensor<500xIT>) -> (tensor<500xVT>) {
    %z = stablehlo.constant dense<0> : tensor<IT>
    %zb = "stablehlo.broadcast_in_dim"(%z) {broadcast_dimensions = array<i64>} : (tensor<IT>) -> tensor<500xIT>
    %n = stablehlo.constant dense<100> : tensor<IT>
    %nb = "stablehlo.broadcast_in_dim"(%n) {broadcast_dimensions = array<i64>} : (tensor<IT>) -> tensor<500xIT>
    %n1 = stablehlo.constant dense<99> : tensor<IT>
    %mb = "stablehlo.broadcast_in_dim"(%n1) {broadcast_dimensions = array<i64>} : (tensor<IT>) -> tensor<500xIT>
    %neg = "stablehlo.compare"(%i, %zb) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<500xIT>, tensor<500xIT>) -> tensor<500xi1>
    %w = "stablehlo.add"(%i, %nb) : (tensor<500xIT>, tensor<500xIT>) -> tensor<500xIT>
    %s = "stablehlo.select"(%neg, %w, %i) : (tensor<500xi1>, tensor<500xIT>, tensor<500xIT>) -> tensor<500xIT>
    %r = "stablehlo.reshape"(IDX) : (tensor<500xIT>) -> tensor<500x1xIT>
    %g = "stablehlo.gather"(%x, %r) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<100xVT>, tensor<500x1xIT>) -> tensor<500xVT>
    %lo = stablehlo.constant dense<LOWER> : tensor<IT>
    %lob = "stablehlo.broadcast_in_dim"(%lo) {broadcast_dimensions = array<i64>} : (tensor<IT>) -> tensor<500xIT>
    %ge = "stablehlo.compare"(%i, %lob) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<500xIT>, tensor<500xIT>) -> tensor<500xi1>
    %lt = UPPER : (tensor<500xIT>, tensor<500xIT>) -> tensor<500xi1>
    %a = "stablehlo.and"(%ge, %lt) : (tensor<500xi1>, tensor<500xi1>) -> tensor<500xi1>
    %f = stablehlo.constant dense<FILL> : tensor<VT>
    %fb = "stablehlo.broadcast_in_dim"(%f) {broadcast_dimensions = array<i64>} : (tensor<VT>) -> tensor<500xVT>
    %o = "stablehlo.select"(%a, %g, %fb) : (tensor<500xi1>, tensor<500xVT>, tensor<500xVT>) -> tensor<500xVT>
    %p = "stablehlo.add"(%o, %o) : (tensor<500xVT>, tensor<500xVT>) -> tensor<500xVT>
    "func.return"(RESULT) : (tensor<500xVT>) -> ()
  }
})",
                                           {{"VT", c.value}, {"IT", c.index}, {"FILL", c.fill},
                                            {"UPPER", c.upper}, {"LOWER", c.lower_bound},
                                            {"IDX", indices},
                                            {"RESULT", c.read_further ? "%p" : "%o"}});
    auto m = Parse(text);
    ASSERT_NE(m, nullptr);
    std::mt19937_64 rng(11);
    std::vector<Literal> args = RandomArgs(*m, rng, /*special=*/false);
    const DType it = m->entry()->parameters()[1]->shape().dtype;
    DispatchDType(it, [&](auto tag) {
      using I = typename decltype(tag)::type;
      if constexpr (std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>) {
        I* idx = args[1].mutable_data_as<I>();
        std::uniform_int_distribution<int> pick(-250, 250);
        for (int k = 0; k < 500; ++k) idx[k] = static_cast<I>(pick(rng));
        const I edges[] = {std::numeric_limits<I>::min(), std::numeric_limits<I>::max(),
                           I{-101}, I{-100}, I{-1}, I{0}, I{99}, I{100}};
        for (size_t k = 0; k < std::size(edges); ++k) idx[k] = edges[k];
      }
    });
    EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat("take fill ", c.value, " ", c.index, " ",
                                                  c.lower_bound, c.wrap ? " wrap" : ""),
                           /*tol=*/0));
  }
}

// A float condition is not a counter: it still runs as a program.
TEST(CpuFastPaths, NonCounterConditionStillRuns) {
  auto m = Parse(R"(module @m {
  func.func @main(%x: tensor<f32>) -> (tensor<f32>) {
    %r = "stablehlo.while"(%x) ({
    ^bb0(%v: tensor<f32>):
      %lim = stablehlo.constant dense<100.0> : tensor<f32>
      %c = "stablehlo.compare"(%v, %lim) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%v: tensor<f32>):
      %two = stablehlo.constant dense<2.0> : tensor<f32>
      %w = "stablehlo.multiply"(%v, %two) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%w) : (tensor<f32>) -> ()
    }) : (tensor<f32>) -> (tensor<f32>)
    "func.return"(%r) : (tensor<f32>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  Literal x(Shape(DType::kF32, {}));
  *x.mutable_data_as<float>() = 3.0f;
  auto got = RunOn("cpu", *m, {x});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].data_as<float>()[0], 192.0f);
}

// xla_math.fma's float64 chain, with scalar (splat) and array addends, a
// chain whose product is also used elsewhere (not folded), and a
// conversion of a scalar constant that is computed once per tile.
TEST(CpuFastPaths, FmaThroughF64MatchesReferenceExactly) {
  auto m = Parse(R"(module @m {
  func.func @main(%a: tensor<5000xf32>, %b: tensor<5000xf32>, %c: tensor<5000xf32>) -> (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf64>) {
    %s = stablehlo.constant dense<0.1> : tensor<f32>
    %sb = "stablehlo.broadcast_in_dim"(%s) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<5000xf32>
    %a64 = "stablehlo.convert"(%a) : (tensor<5000xf32>) -> tensor<5000xf64>
    %b64 = "stablehlo.convert"(%b) : (tensor<5000xf32>) -> tensor<5000xf64>
    %c64 = "stablehlo.convert"(%c) : (tensor<5000xf32>) -> tensor<5000xf64>
    %s64 = "stablehlo.convert"(%sb) : (tensor<5000xf32>) -> tensor<5000xf64>
    %p = "stablehlo.multiply"(%a64, %b64) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    %q = "stablehlo.add"(%p, %c64) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    %r = "stablehlo.convert"(%q) : (tensor<5000xf64>) -> tensor<5000xf32>
    %r64 = "stablehlo.convert"(%r) : (tensor<5000xf32>) -> tensor<5000xf64>
    %p2 = "stablehlo.multiply"(%r64, %s64) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    %q2 = "stablehlo.add"(%s64, %p2) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    %r2 = "stablehlo.convert"(%q2) : (tensor<5000xf64>) -> tensor<5000xf32>
    %p3 = "stablehlo.multiply"(%a64, %s64) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    %q3 = "stablehlo.add"(%p3, %s64) : (tensor<5000xf64>, tensor<5000xf64>) -> tensor<5000xf64>
    "func.return"(%r, %r2, %q3) : (tensor<5000xf32>, tensor<5000xf32>, tensor<5000xf64>) -> ()
  }
})");
  ASSERT_NE(m, nullptr);
  std::mt19937_64 rng(5);
  EXPECT_TRUE(CrossCheck(*m, RandomArgs(*m, rng), "fma chains", /*tol=*/0));
}

TEST(CpuFastPaths, MultiplyAddMatchesReferenceExactly) {
  for (const char* type : {"f32", "f64"}) {
    auto m = Parse(absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: tensor<3000xTY>, %y: tensor<3000xTY>, %z: tensor<3000xTY>, %a: tensor<TY>) -> (tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>) {
    %ab = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64>} : (tensor<TY>) -> tensor<3000xTY>
    %c = stablehlo.constant dense<0.25> : tensor<TY>
    %cb = "stablehlo.broadcast_in_dim"(%c) {broadcast_dimensions = array<i64>} : (tensor<TY>) -> tensor<3000xTY>
    %p = "stablehlo.multiply"(%x, %ab) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r1 = "stablehlo.add"(%p, %cb) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %q = "stablehlo.multiply"(%x, %y) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r2 = "stablehlo.add"(%z, %q) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %s = "stablehlo.multiply"(%ab, %y) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r3 = "stablehlo.add"(%s, %z) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %t = "stablehlo.multiply"(%r1, %r2) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r4 = "stablehlo.add"(%t, %t) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    "func.return"(%r1, %r2, %r3, %r4) : (tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>) -> ()
  }
})",
                                       {{"TY", type}}));
    ASSERT_NE(m, nullptr);
    std::mt19937_64 rng(8);
    // Two roundings in the ops' order: bit-exact against the reference.
    EXPECT_TRUE(CrossCheck(*m, RandomArgs(*m, rng), absl::StrCat(type, " multiply-add"),
                           /*tol=*/0));
  }
}

TEST(CpuFastPaths, RotateMatchesReferenceExactly) {
  for (const char* type : {"ui32", "i32", "ui64", "i64"}) {
    auto m = Parse(absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: tensor<3000xTY>, %a: tensor<TY>, %b: tensor<TY>, %v: tensor<3000xTY>) -> (tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>) {
    %ab = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64>} : (tensor<TY>) -> tensor<3000xTY>
    %bb = "stablehlo.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64>} : (tensor<TY>) -> tensor<3000xTY>
    %l = "stablehlo.shift_left"(%x, %ab) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r = "stablehlo.shift_right_logical"(%x, %bb) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %o = "stablehlo.or"(%r, %l) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %l2 = "stablehlo.shift_left"(%o, %v) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r2 = "stablehlo.shift_right_logical"(%o, %bb) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %o2 = "stablehlo.or"(%l2, %r2) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %l3 = "stablehlo.shift_left"(%x, %ab) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %r3 = "stablehlo.shift_right_logical"(%v, %bb) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    %o3 = "stablehlo.or"(%l3, %r3) : (tensor<3000xTY>, tensor<3000xTY>) -> tensor<3000xTY>
    "func.return"(%o, %o2, %o3) : (tensor<3000xTY>, tensor<3000xTY>, tensor<3000xTY>) -> ()
  }
})",
                                       {{"TY", type}}));
    ASSERT_NE(m, nullptr);
    std::mt19937_64 rng(6);
    // Shift amounts in and out of range (0, the width, beyond, negative).
    for (int64_t a : {13, 0, 32, 64, -1}) {
      std::vector<Literal> args = RandomArgs(*m, rng);
      const DType t = args[1].shape().dtype;
      args[1] = Scalar(t, a);
      args[2] = Scalar(t, (t == DType::kU32 || t == DType::kS32 ? 32 : 64) - a);
      EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat(type, " rotate by ", a), /*tol=*/0));
    }
  }
}

TEST(CpuFastPaths, SmallMatmulsMatchReference) {
  struct Case {
    std::vector<int64_t> lhs, rhs, lc, rc;
  };
  const std::vector<Case> cases = {
      {{64}, {64, 64}, {0}, {0}},          // an RNN step: vector x matrix
      {{3, 64}, {64, 64}, {1}, {0}},       // a few rows
      {{64, 5}, {64, 7}, {0}, {0}},        // lhs transposed
      {{6, 2, 3}, {6, 4, 2}, {0}, {0}},    // contracting first, several free dims
      {{8, 64}, {64, 64}, {1}, {0}},       // exactly kSmallMatmulWork multiply-adds
      {{9, 64}, {64, 64}, {1}, {0}},       // just above: the general path
      {{5, 6}, {7, 6}, {1}, {1}},          // rhs contracting last: the general path
  };
  std::mt19937_64 rng(7);
  for (const Case& c : cases) {
    DotGeneralAttrs attrs{DotDimensionNumbers{{}, {}, c.lc, c.rc}};
    auto m = OneOpModule(Opcode::kDotGeneral,
                         {Shape(DType::kF32, c.lhs), Shape(DType::kF32, c.rhs)}, attrs);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, /*special=*/false),
                           absl::StrCat("dot ", c.lhs.size(), "x", c.rhs.size()), 1e-5));
  }
}

}  // namespace
}  // namespace xjit::cpu::testing
