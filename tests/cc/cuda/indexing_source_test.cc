// The cuda backend's gather and scatter kernels (indexing_source.h), for the
// forms the Python front end emits (x[idx], jnp.take, vmap'd indexing,
// x.at[idx].add/set/max): the generated source compiles with NVRTC (no GPU
// needed), and each scatter applies its updates with atomics, plain stores
// or one sequential thread as its combiner allows. Values are checked on a
// GPU by the backend's run tests.
#include "xjit/backends/cuda/indexing_source.h"

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "pass_test_util.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#include "xjit/backends/cuda/scalar_source.h"

namespace xjit::cuda {
namespace {

using ::xjit::testing::Parse;

// The first instruction of `opcode` in the module's entry.
const Instruction* Find(const Module& m, Opcode opcode) {
  for (const auto& instr : m.entry()->instructions()) {
    if (instr->opcode() == opcode) return instr.get();
  }
  return nullptr;
}

void ExpectCompiles(const std::string& kernels) {
  absl::StatusOr<std::string> ptx =
      CompileCudaSource(ScalarPrelude() + kernels, {8, 0}, DeviceCodeKind::kPtx);
  EXPECT_TRUE(ptx.ok()) << ptx.status();
}

// One gather from `x` (operand type, result type, and attrs as printed).
std::string GatherModule(const std::string& operand, const std::string& indices,
                         const std::string& result, const std::string& attrs) {
  return absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: $X, %i: $I) -> ($R) {
    %g = "stablehlo.gather"(%x, %i) {$A} : ($X, $I) -> $R
    "func.return"(%g) : ($R) -> ()
  }
})",
                             {{"$X", operand}, {"$I", indices}, {"$R", result}, {"$A", attrs}});
}

// x.at[idx].<op>(v) on a 3x4 array of `type` with two row indices; `body`
// is the combiner's return, over %a (current) and %b (update).
std::string ScatterModule(const std::string& type, const std::string& body, bool unique = false) {
  return absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: tensor<3x4xT>, %i: tensor<2x1xi32>, %v: tensor<2x4xT>) -> (tensor<3x4xT>) {
    %s = "stablehlo.scatter"(%x, %i, %v) ({
    ^bb0(%a: tensor<T>, %b: tensor<T>):
      BODY
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = UNIQUE} : (tensor<3x4xT>, tensor<2x1xi32>, tensor<2x4xT>) -> tensor<3x4xT>
    "func.return"(%s) : (tensor<3x4xT>) -> ()
  }
})",
                             {{"BODY", body}, {"UNIQUE", unique ? "true" : "false"}, {"xT", "x" + type},
                              {"<T>", "<" + type + ">"}});
}

std::string Binary(const std::string& op, const std::string& type) {
  return absl::StrReplaceAll(R"(%c = "stablehlo.OP"(%a, %b) : (tensor<T>, tensor<T>) -> tensor<T>
      "stablehlo.return"(%c) : (tensor<T>) -> ())",
                             {{"OP", op}, {"T", type}});
}
std::string ReturnUpdate(const std::string& type) {
  return absl::StrCat(R"("stablehlo.return"(%b) : (tensor<)", type, R"(>) -> ())");
}

TEST(CudaIndexingGather, RowsOfAMatrix) {  // x[idx]
  auto m = Parse(GatherModule(
      "tensor<3x4xf32>", "tensor<2x1xi32>", "tensor<2x4xf32>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>"));
  ASSERT_NE(m, nullptr);
  std::string source;
  absl::StatusOr<KernelLaunch> launch = AppendGather(*Find(*m, Opcode::kGather), "g0", &source);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->name, "g0");
  EXPECT_EQ(launch->threads, 8);
  // The row start is read at the result's batch coordinate and clamped into
  // [0, 3 - 1]; the column is the window coordinate, unclamped start 0.
  EXPECT_NE(source.find("const int64_t s0 = (int64_t)p1[(o0)];"), std::string::npos) << source;
  EXPECT_NE(source.find("c0 = s0 > 2LL ? 2LL : s0;"), std::string::npos) << source;
  EXPECT_NE(source.find("const int64_t w1 = o1;"), std::string::npos) << source;
  EXPECT_NE(source.find("r0[i] = p0[(c0 + w0) * 4LL + (c1 + w1)];"), std::string::npos) << source;
  ExpectCompiles(source);
}

TEST(CudaIndexingGather, TakeAlongAxisOneWithImplicitIndexVector) {
  // jnp.take(x, idx, axis=1), once as emitted and once with the indices
  // left rank 1 (index_vector_dim == rank) and unsigned 64-bit.
  auto m1 = Parse(GatherModule(
      "tensor<3x4xf32>", "tensor<2x1xi32>", "tensor<3x2xf32>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], "
      "start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 3, 1>"));
  auto m2 = Parse(GatherModule(
      "tensor<3x4xf16>", "tensor<2xui64>", "tensor<3x2xf16>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], "
      "start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 3, 1>"));
  ASSERT_NE(m1, nullptr);
  ASSERT_NE(m2, nullptr);
  std::string source;
  ASSERT_TRUE(AppendGather(*Find(*m1, Opcode::kGather), "g0", &source).ok());
  absl::StatusOr<KernelLaunch> launch = AppendGather(*Find(*m2, Opcode::kGather), "g1", &source);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->threads, 6);
  EXPECT_NE(source.find("9223372036854775807ULL"), std::string::npos);  // u64 saturates
  ExpectCompiles(source);
}

TEST(CudaIndexingGather, BatchingDimensions) {
  // vmap(lambda x, i: x[i]) and take_along_axis: batching coordinates come
  // from the result index and are never clamped.
  auto m1 = Parse(GatherModule(
      "tensor<2x3x4xf32>", "tensor<2x2x1xi32>", "tensor<2x2x4xf32>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], "
      "operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], "
      "index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 4>"));
  auto m2 = Parse(GatherModule(
      "tensor<2x3x4xbf16>", "tensor<2x2x4x1xi8>", "tensor<2x2x4xbf16>",
      "dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = "
      "[0, 2], start_indices_batching_dims = [0, 2], start_index_map = [1], index_vector_dim = 3>, "
      "slice_sizes = array<i64: 1, 1, 1>"));
  ASSERT_NE(m1, nullptr);
  ASSERT_NE(m2, nullptr);
  std::string source;
  absl::StatusOr<KernelLaunch> launch = AppendGather(*Find(*m1, Opcode::kGather), "g0", &source);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_EQ(launch->threads, 16);
  EXPECT_NE(source.find("const int64_t s0 = o0;"), std::string::npos) << source;
  EXPECT_EQ(source.find("c0 ="), std::string::npos) << source;  // batching: no clamp
  launch = AppendGather(*Find(*m2, Opcode::kGather), "g1", &source);
  ASSERT_TRUE(launch.ok()) << launch.status();
  ExpectCompiles(source);
}

TEST(CudaIndexingGather, EmptySlicesGiveZeros) {
  auto m = Parse(GatherModule(
      "tensor<3x4xcomplex<f32>>", "tensor<2x1xi32>", "tensor<2x4xcomplex<f32>>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 0, 4>"));
  if (m == nullptr) GTEST_SKIP() << "the verifier rejects slice size 0";
  std::string source;
  absl::StatusOr<KernelLaunch> launch = AppendGather(*Find(*m, Opcode::kGather), "g0", &source);
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_NE(source.find("memset"), std::string::npos);
  ExpectCompiles(source);
}

TEST(CudaIndexingScatter, AddUsesAtomics) {
  std::string source;
  for (const char* type : {"f32", "f64", "f16", "bf16", "i32", "ui32", "i64", "ui64"}) {
    SCOPED_TRACE(type);
    auto m = Parse(ScatterModule(type, Binary("add", type)));
    ASSERT_NE(m, nullptr);
    const Instruction& scatter = *Find(*m, Opcode::kScatter);
    EXPECT_EQ(ChooseScatterStrategy(scatter), ScatterStrategy::kAtomicAdd);
    absl::StatusOr<std::vector<KernelLaunch>> launches =
        AppendScatter(scatter, absl::StrCat("s_", type), &source);
    ASSERT_TRUE(launches.ok()) << launches.status();
    ASSERT_EQ(launches->size(), 2u);
    EXPECT_EQ((*launches)[0].name, absl::StrCat("s_", type, "_copy"));
    EXPECT_EQ((*launches)[0].threads, 12);  // one per input element
    EXPECT_EQ((*launches)[1].threads, 8);   // one per update element
  }
  EXPECT_NE(source.find("atomicAdd((unsigned long long*)&r0[at]"), std::string::npos);
  // Out-of-bounds update elements are skipped (the row index of a 3-row input).
  EXPECT_NE(source.find("if (ri0 < 0 || ri0 >= 3LL) continue;"), std::string::npos) << source;
  ExpectCompiles(source);
}

TEST(CudaIndexingScatter, IntegerMinMaxUseAtomicsFloatOnesOneThread) {
  std::string source;
  for (const char* type : {"i32", "ui32", "i64", "ui64"}) {
    SCOPED_TRACE(type);
    auto m = Parse(ScatterModule(type, Binary("maximum", type)));
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(ChooseScatterStrategy(*Find(*m, Opcode::kScatter)), ScatterStrategy::kAtomicMinMax);
    ASSERT_TRUE(AppendScatter(*Find(*m, Opcode::kScatter), absl::StrCat("max_", type), &source).ok());
  }
  auto min = Parse(ScatterModule("i64", Binary("minimum", "i64")));
  ASSERT_NE(min, nullptr);
  ASSERT_TRUE(AppendScatter(*Find(*min, Opcode::kScatter), "min_i64", &source).ok());
  EXPECT_NE(source.find("atomicMin(&r0[at], p2[u]);"), std::string::npos);
  auto fmax = Parse(ScatterModule("f32", Binary("maximum", "f32")));
  ASSERT_NE(fmax, nullptr);
  absl::StatusOr<std::vector<KernelLaunch>> launches =
      AppendScatter(*Find(*fmax, Opcode::kScatter), "max_f32", &source);
  ASSERT_TRUE(launches.ok()) << launches.status();
  EXPECT_EQ((*launches)[1].threads, 1);  // NaN rules: sequential
  ExpectCompiles(source);
}

TEST(CudaIndexingScatter, SetIsSequentialUnlessUnique) {
  std::string source;
  auto set = Parse(ScatterModule("f32", ReturnUpdate("f32")));
  auto unique = Parse(ScatterModule("f32", ReturnUpdate("f32"), /*unique=*/true));
  ASSERT_NE(set, nullptr);
  ASSERT_NE(unique, nullptr);
  EXPECT_EQ(ChooseScatterStrategy(*Find(*set, Opcode::kScatter)), ScatterStrategy::kSequential);
  EXPECT_EQ(ChooseScatterStrategy(*Find(*unique, Opcode::kScatter)), ScatterStrategy::kStore);
  absl::StatusOr<std::vector<KernelLaunch>> a =
      AppendScatter(*Find(*set, Opcode::kScatter), "set", &source);
  absl::StatusOr<std::vector<KernelLaunch>> b =
      AppendScatter(*Find(*unique, Opcode::kScatter), "unique", &source);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*a)[1].threads, 1);  // the last update must win: in order
  EXPECT_EQ((*b)[1].threads, 8);
  EXPECT_NE(source.find("for (int64_t u = 0; u < 8LL; ++u)"), std::string::npos) << source;
  ExpectCompiles(source);
}

TEST(CudaIndexingScatter, GeneralCombinersRunInOneThread) {
  std::string source;
  int count = 0;
  for (const char* type : {"f32", "i8", "complex<f32>", "f16"}) {  // multiply, or add without an atomic
    SCOPED_TRACE(type);
    const bool add = std::string(type) == "i8" || std::string(type) == "complex<f32>";
    auto m = Parse(ScatterModule(type, Binary(add ? "add" : "multiply", type)));
    ASSERT_NE(m, nullptr);
    absl::StatusOr<std::vector<KernelLaunch>> launches =
        AppendScatter(*Find(*m, Opcode::kScatter), absl::StrCat("g", count++), &source);
    ASSERT_TRUE(launches.ok()) << launches.status();
    EXPECT_EQ((*launches)[1].threads, 1);
  }
  // Two inputs and two updates (an argmax-style pair): sequential, both
  // results computed before either is stored.
  auto pair = Parse(R"(module @m {
  func.func @main(%x: tensor<5xf32>, %y: tensor<5xi32>, %i: tensor<3x1xi64>, %u: tensor<3xf32>, %v: tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
    %s:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) ({
    ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
      %g = "stablehlo.compare"(%c, %a) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %m = "stablehlo.select"(%g, %c, %a) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %n = "stablehlo.select"(%g, %d, %b) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%m, %n) : (tensor<f32>, tensor<i32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf32>, tensor<5xi32>, tensor<3x1xi64>, tensor<3xf32>, tensor<3xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    "func.return"(%s#0, %s#1) : (tensor<5xf32>, tensor<5xi32>) -> ()
  }
})");
  ASSERT_NE(pair, nullptr);
  absl::StatusOr<std::vector<KernelLaunch>> launches =
      AppendScatter(*Find(*pair, Opcode::kScatter), "pair", &source);
  ASSERT_TRUE(launches.ok()) << launches.status();
  EXPECT_EQ((*launches)[0].threads, 5);
  EXPECT_EQ((*launches)[1].threads, 1);
  EXPECT_NE(source.find("r1[at] = t1;"), std::string::npos) << source;
  ExpectCompiles(source);
}

TEST(CudaIndexing, NarrowTypesAreUnsupported) {
  auto g = Parse(GatherModule(
      "tensor<3x4xi4>", "tensor<2x1xi32>", "tensor<2x4xi4>",
      "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>"));
  auto s = Parse(ScatterModule("f8E4M3FN", ReturnUpdate("f8E4M3FN")));
  ASSERT_NE(g, nullptr);
  ASSERT_NE(s, nullptr);
  std::string source;
  absl::StatusOr<KernelLaunch> a = AppendGather(*Find(*g, Opcode::kGather), "g", &source);
  absl::StatusOr<std::vector<KernelLaunch>> b = AppendScatter(*Find(*s, Opcode::kScatter), "s", &source);
  ASSERT_FALSE(a.ok());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kUnimplemented) << a.status();
  EXPECT_EQ(b.status().code(), absl::StatusCode::kUnimplemented) << b.status();
  EXPECT_TRUE(source.empty());  // nothing appended on failure
}

}  // namespace
}  // namespace xjit::cuda
