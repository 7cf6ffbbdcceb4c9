// reduce on "cpu" against "reference": the fast path for each recognised body
// over inner, outer, middle and all dims; a body the fast path does not know
// (through the scalar evaluator); a variadic argmax; big multi-threaded sizes.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "cpu_test_util.h"
#include "xjit/backends/cpu/arg_reduce.h"
#include "xjit/text/parser.h"
#include "gtest/gtest.h"

namespace xjit::cpu::testing {
namespace {

// reduce(x, init, dims) with body `op(p0, p1)`; `swap` builds op(p1, p0).
absl::StatusOr<std::unique_ptr<Module>> ReduceModule(Opcode op, DType t, std::vector<int64_t> dims,
                                                     std::vector<int64_t> reduce_dims,
                                                     bool extra_op_in_body = false) {
  ModuleBuilder mb("reduce");
  ComputationBuilder* body = mb.NewComputation("body");
  Instruction* a = body->Parameter(Shape(t, {}));
  Instruction* b = body->Parameter(Shape(t, {}));
  auto r = body->Add(op, {a, b});
  if (!r.ok()) return r.status();
  Instruction* result = *r;
  if (extra_op_in_body) {  // op(a, b) then op(result, b) minus b: same monoid, unknown shape
    auto twice = body->Add(op, {result, b});
    if (!twice.ok()) return twice.status();
    auto back = body->Add(Opcode::kSubtract, {*twice, b});
    if (!back.ok()) return back.status();
    result = *back;
  }
  auto body_c = body->Finish({result});
  if (!body_c.ok()) return body_c.status();
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(Shape(t, dims));
  Instruction* init = main->Parameter(Shape(t, {}));
  auto red = main->Add(Opcode::kReduce, {x, init}, ReduceAttrs{std::move(reduce_dims)}, {*body_c});
  if (!red.ok()) return red.status();
  auto entry = main->Finish({*red});
  if (!entry.ok()) return entry.status();
  return mb.Build(*entry);
}

void NearOne(Literal& l, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> d(0.8, 1.2);
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      for (int64_t i = 0; i < l.shape().num_elements(); ++i) l.mutable_data_as<T>()[i] = T(d(rng), 0.1 * d(rng));
    } else if constexpr (is_half_v<T> || std::is_floating_point_v<T>) {
      for (int64_t i = 0; i < l.shape().num_elements(); ++i) l.mutable_data_as<T>()[i] = T(static_cast<float>(d(rng)));
    }
  });
}

TEST(CpuReduce, FastBodiesOverEveryAxisPattern) {
  std::mt19937_64 rng(31);
  const std::vector<std::vector<int64_t>> patterns = {{2}, {0}, {1}, {0, 2}, {0, 1, 2}, {}};
  int checked = 0;
  for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
                    Opcode::kAnd, Opcode::kOr}) {
    for (DType t : {DType::kF32, DType::kF64, DType::kBF16, DType::kS32, DType::kU8, DType::kPred,
                    DType::kC64}) {
      for (const auto& p : patterns) {
        auto m = ReduceModule(op, t, {6, 7, 70}, p);
        if (!m.ok()) continue;
        auto args = RandomArgs(**m, rng, /*special=*/op != Opcode::kMultiply);
        // Products of hundreds of values in [-4, 4] overflow, and where they
        // overflow depends on the order: keep factors near 1.
        if (op == Opcode::kMultiply) NearOne(args[0], rng);
        double tol = t == DType::kBF16 ? 5e-2 : t == DType::kF32 || t == DType::kC64 ? 1e-4 : -1;
        if (CrossCheck(**m, args, std::string(OpcodeName(op)) + "/" +
                                      std::string(StableHloName(t)) + "/" + std::to_string(p.size()),
                       tol)) {
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(CpuReduce, GenericBodyThroughScalarEvaluator) {
  std::mt19937_64 rng(32);
  for (DType t : {DType::kF64, DType::kS32}) {
    for (const std::vector<int64_t>& p : {std::vector<int64_t>{1}, std::vector<int64_t>{0, 2}}) {
      auto m = ReduceModule(Opcode::kAdd, t, {5, 9, 33}, p, /*extra_op_in_body=*/true);
      ASSERT_TRUE(m.ok()) << m.status();
      EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), "generic body", 1e-9));
    }
  }
}

TEST(CpuReduce, VariadicArgmax) {
  ModuleBuilder mb("argmax");
  ComputationBuilder* body = mb.NewComputation("argmax_body");
  Instruction* acc_v = body->Parameter(Shape(DType::kF32, {}));
  Instruction* acc_i = body->Parameter(Shape(DType::kS32, {}));
  Instruction* v = body->Parameter(Shape(DType::kF32, {}));
  Instruction* i = body->Parameter(Shape(DType::kS32, {}));
  Instruction* take =
      *body->Add(Opcode::kCompare, {v, acc_v}, CompareAttrs{ComparisonDirection::kGt});
  Computation* argmax = *body->Finish({*body->Add(Opcode::kSelect, {take, v, acc_v}),
                                       *body->Add(Opcode::kSelect, {take, i, acc_i})});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(Shape(DType::kF32, {300, 257}));
  Instruction* idx =
      *main->AddWithResultType(Opcode::kIota, Shape(DType::kS32, {300, 257}), {}, IotaAttrs{1});
  Instruction* ninf = main->Constant(Literal::Scalar(DType::kF32, -std::numeric_limits<float>::infinity()));
  Instruction* neg1 = main->Constant(Literal::Scalar(DType::kS32, int32_t{-1}));
  Instruction* red = *main->Add(Opcode::kReduce, {x, idx, ninf, neg1}, ReduceAttrs{{1}}, {argmax});
  GetTupleElementAttrs e0{0}, e1{1};
  auto entry = main->Finish({*main->Add(Opcode::kGetTupleElement, {red}, e0),
                             *main->Add(Opcode::kGetTupleElement, {red}, e1)});
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto m = mb.Build(*entry);
  ASSERT_TRUE(m.ok()) << m.status();
  std::mt19937_64 rng(33);
  auto args = RandomArgs(**m, rng, false);
  EXPECT_TRUE(CrossCheck(**m, args, "argmax"));
  // And by hand for row 0.
  auto r = RunOn("cpu", **m, args);
  ASSERT_TRUE(r.ok()) << r.status();
  const float* xs = args[0].data_as<float>();
  int best = 0;
  for (int j = 1; j < 257; ++j) if (xs[j] > xs[best]) best = j;
  EXPECT_EQ((*r)[1].data_as<int32_t>()[0], best);
  EXPECT_EQ((*r)[0].data_as<float>()[0], xs[best]);
}

// The passes spread an iota of a matrix as a 1-D iota (algebraic
// simplification): jnp.argmax over such positions still takes the vector
// kernel; positions along the other dim are no positions of the reduce.
TEST(CpuReduce, ArgmaxOverASpreadIotaTakesTheKernel) {
  for (const char* spread : {"%c, dims = [1] : (tensor<257xi32>)", "%r, dims = [0] : (tensor<30xi32>)"}) {
    const std::string text = std::string(R"(
func.func @main(%x: tensor<30x257xf32>) -> tensor<30xi32> {
  %c = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<257xi32>
  %r = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<30xi32>
  %i = stablehlo.broadcast_in_dim )") + spread + R"( -> tensor<30x257xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %big = stablehlo.constant dense<2147483647> : tensor<i32>
  %m:2 = "stablehlo.reduce"(%x, %i, %ninf, %big) ({
  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
    %4 = "stablehlo.compare"(%b, %a) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = "stablehlo.compare"(%b, %a) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %7 = "stablehlo.compare"(%b, %b) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = "stablehlo.not"(%6) : (tensor<i1>) -> tensor<i1>
    %9 = "stablehlo.and"(%7, %8) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %11 = "stablehlo.and"(%4, %8) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %12 = "stablehlo.or"(%9, %11) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %13 = "stablehlo.and"(%6, %7) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %14 = "stablehlo.or"(%5, %13) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %15 = "stablehlo.compare"(%bi, %ai) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %16 = "stablehlo.and"(%14, %15) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %17 = "stablehlo.or"(%12, %16) : (tensor<i1>, tensor<i1>) -> tensor<i1>
    %18 = "stablehlo.select"(%12, %b, %a) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %19 = "stablehlo.select"(%17, %bi, %ai) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%18, %19) : (tensor<f32>, tensor<i32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<30x257xf32>, tensor<30x257xi32>, tensor<f32>, tensor<i32>) -> (tensor<30xf32>, tensor<30xi32>)
  return %m#1 : tensor<30xi32>
})";
    auto m = ParseModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    const Instruction& reduce = *(*m)->entry()->results()[0]->operand(0);
    ASSERT_EQ(reduce.opcode(), Opcode::kReduce);
    const bool columns = std::string(spread)[1] == 'c';
    EXPECT_EQ(cpu::MakeArgReduceThunk(reduce, {0, 1, 2, 3}, {4, 5}) != nullptr, columns) << spread;
    std::mt19937_64 rng(35);
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), spread));
  }
}

TEST(CpuReduce, LargeSumsTakeTheParallelPath) {
  std::mt19937_64 rng(34);
  for (const std::vector<int64_t>& p : {std::vector<int64_t>{1}, std::vector<int64_t>{0},
                                        std::vector<int64_t>{0, 1}}) {
    auto m = ReduceModule(Opcode::kAdd, DType::kF32, {1000, 513}, p);
    ASSERT_TRUE(m.ok());
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), "large sum", 1e-3));
    auto mx = ReduceModule(Opcode::kMaximum, DType::kS64, {1000, 513}, p);
    ASSERT_TRUE(mx.ok());
    EXPECT_TRUE(CrossCheck(**mx, RandomArgs(**mx, rng), "large max"));
  }
}

// Full reductions of 256K elements or more, and column reductions (axis 0
// of rows up to 4096 elements) of 512K or more, are split into chunks fixed
// by the shape and reduced in parallel: the same bits on one thread as on
// several, specials (NaN, infinities, signed zeros) included, and the
// reference's result.
TEST(CpuReduce, ChunkedReductionsDoNotDependOnThreads) {
  std::mt19937_64 rng(35);
  struct Case {
    std::vector<int64_t> dims, reduce;
    bool against_reference;  // (the reference backend takes seconds on these)
  };
  const std::vector<Case> cases = {{{256 * 1024}, {0}, true}, {{600001}, {0}, false},
                                   {{1000, 600}, {0}, true},  {{70001, 8}, {0}, false},
                                   {{300, 4096}, {0}, false}, {{2000, 4097}, {0}, false}};
  for (Opcode op : {Opcode::kAdd, Opcode::kMaximum, Opcode::kMinimum, Opcode::kOr}) {
    for (const Case& c : cases) {
      const DType t = op == Opcode::kOr ? DType::kPred : DType::kF32;
      auto m = ReduceModule(op, t, c.dims, c.reduce);
      ASSERT_TRUE(m.ok()) << m.status();
      auto args = RandomArgs(**m, rng, /*special=*/op != Opcode::kAdd);
      const std::string what = absl::StrCat(OpcodeName(op), " ", c.dims[0], "x",
                                            c.dims.size() > 1 ? c.dims[1] : 1);
      if (c.against_reference) {
        EXPECT_TRUE(CrossCheck(**m, args, what, t == DType::kF32 ? 1e-3 : -1));
      }
      const int threads = omp_get_max_threads();
      omp_set_num_threads(1);
      auto one = RunOn("cpu", **m, args);
      omp_set_num_threads(std::max(threads, 2));
      auto several = RunOn("cpu", **m, args);
      omp_set_num_threads(threads);
      ASSERT_TRUE(one.ok() && several.ok());
      const Literal &a = (*one)[0], &b = (*several)[0];
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.shape().num_elements() * ByteWidth(t)), 0)
          << what;
    }
  }
}

// Float maximum and minimum of contiguous runs take a plain vector max
// (QuickMaxMin) and rerun exactly for NaN or a zero result: rows built to
// hit each case, compared bit for bit (signed zeros included) with the
// reference.
TEST(CpuReduce, MaxMinRowsWithNaNsAndSignedZeros) {
  constexpr int64_t kRows = 9, kCols = 1000;
  for (Opcode op : {Opcode::kMaximum, Opcode::kMinimum}) {
    auto m = ReduceModule(op, DType::kF32, {kRows, kCols}, {1});
    ASSERT_TRUE(m.ok()) << m.status();
    Literal x(Shape(DType::kF32, {kRows, kCols}));
    float* v = x.mutable_data_as<float>();
    std::mt19937_64 rng(36);
    std::uniform_real_distribution<float> d(-5.0f, 5.0f);
    for (int64_t i = 0; i < kRows * kCols; ++i) v[i] = d(rng);
    auto row = [&](int64_t r) { return v + r * kCols; };
    row(0)[3] = NAN;                       // NaN among the first lanes
    row(1)[700] = -NAN;                    // NaN later
    row(2)[kCols - 1] = NAN;               // NaN in the tail
    for (int64_t j = 0; j < kCols; ++j) {  // zeros of both signs decide
      row(3)[j] = op == Opcode::kMaximum ? -std::fabs(row(3)[j]) : std::fabs(row(3)[j]);
      row(4)[j] = -0.0f;
      row(5)[j] = 0.0f;
    }
    row(3)[10] = -0.0f;
    row(3)[900] = 0.0f;
    row(4)[500] = 0.0f;
    row(5)[37] = -0.0f;
    row(6)[123] = op == Opcode::kMaximum ? INFINITY : -INFINITY;
    for (int64_t j = 0; j < kCols; ++j) row(7)[j] = -INFINITY;  // and row 8 ordinary
    std::vector<Literal> args;
    args.push_back(std::move(x));
    args.push_back(Literal::Scalar(DType::kF32, op == Opcode::kMaximum ? -INFINITY : INFINITY));
    auto cpu = RunOn("cpu", **m, args);
    auto ref = RunOn("reference", **m, args);
    ASSERT_TRUE(cpu.ok() && ref.ok());
    for (int64_t r = 0; r < kRows; ++r) {
      const float a = (*cpu)[0].data_as<float>()[r], b = (*ref)[0].data_as<float>()[r];
      if (std::isnan(a) || std::isnan(b)) {
        EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << OpcodeName(op) << " row " << r;
        continue;
      }
      EXPECT_EQ(std::memcmp(&a, &b, 4), 0) << OpcodeName(op) << " row " << r << ": " << a
                                           << " vs " << b;
    }
  }
}

}  // namespace
}  // namespace xjit::cpu::testing
