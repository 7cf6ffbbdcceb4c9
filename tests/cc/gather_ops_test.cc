// gather, scatter, dynamic_slice, dynamic_update_slice: shape inference (the
// spec's constraints, by name), printing and parsing back, and the cpu backend
// against the reference (clamped gather starts, skipped scatter updates,
// batching dims, windows, every recognised scatter body and a generic one,
// variadic scatter, the parallel unique_indices path).
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cpu_test_util.h"
#include "shape_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::Must;
using xjit::testing::Infer;
using xjit::testing::ExpectError;
using xjit::testing::T;

const DType F32 = DType::kF32, S32 = DType::kS32, S64 = DType::kS64;

GatherAttrs Rows(int64_t width) {  // take rows: operand [n, width], indices [k, 1]
  GatherAttrs a;
  a.dimension_numbers.offset_dims = {1};
  a.dimension_numbers.collapsed_slice_dims = {0};
  a.dimension_numbers.start_index_map = {0};
  a.dimension_numbers.index_vector_dim = 1;
  a.slice_sizes = {1, width};
  return a;
}

TEST(GatherShapeInference, RowsAndBatching) {
  EXPECT_EQ(*Infer(Opcode::kGather, {T(F32, {5, 3}), T(S32, {4, 1})}, Rows(3)), T(F32, {4, 3}));
  // The spec's example: batching dims and a two-component index vector.
  GatherAttrs a;
  a.dimension_numbers = {{3, 4}, {1}, {0}, {1}, {2, 1}, 3};
  a.slice_sizes = {1, 1, 2, 2};
  EXPECT_EQ(*Infer(Opcode::kGather, {T(S32, {2, 3, 4, 2}), T(S64, {2, 2, 3, 2})}, a),
            T(S32, {2, 2, 3, 2, 2}));
  // index_vector_dim == rank: scalar indices.
  GatherAttrs s = Rows(3);
  s.dimension_numbers.index_vector_dim = 1;
  EXPECT_EQ(*Infer(Opcode::kGather, {T(F32, {5, 3}), T(S32, {4})}, s), T(F32, {4, 3}));
}

TEST(GatherShapeInference, Constraints) {
  auto bad = [](auto mutate, const std::string& text, Shape idx = T(S32, {4, 1})) {
    GatherAttrs a = Rows(3);
    mutate(a);
    ExpectError(Infer(Opcode::kGather, {T(F32, {5, 3}), idx}, a), text);
  };
  bad([](GatherAttrs& a) { a.dimension_numbers.offset_dims = {}; }, "gather: size(offset_dims)");
  bad([](GatherAttrs& a) { a.dimension_numbers.index_vector_dim = 3; }, "(C2)");
  bad([](GatherAttrs& a) { a.dimension_numbers.start_index_map = {0, 1}; }, "(C3)");
  bad([](GatherAttrs& a) { a.slice_sizes = {2, 3}; }, "must have slice size <= 1, got 2 (C9)");
  bad([](GatherAttrs& a) { a.slice_sizes = {1, 4}; }, "(C21)");
  bad([](GatherAttrs& a) { a.slice_sizes = {1}; }, "(C20)");
  bad([](GatherAttrs& a) { a.dimension_numbers.collapsed_slice_dims = {2}; }, "(C8)");
  bad([](GatherAttrs& a) { a.dimension_numbers.start_index_map = {5}; }, "(C19)");
  bad([](GatherAttrs& a) { a.dimension_numbers.offset_dims = {2}; }, "(C5)");
  bad([](GatherAttrs& a) { a.dimension_numbers.start_index_map = {0}; },
      "start_indices must have an integer type", T(F32, {4, 1}));
  GatherAttrs b;
  b.dimension_numbers = {{1}, {}, {0}, {0}, {0}, 1};
  b.slice_sizes = {1, 3};
  ExpectError(Infer(Opcode::kGather, {T(F32, {5, 3}), T(S32, {5, 1})}, b), "(C18)");
  GatherAttrs c;
  c.dimension_numbers = {{1, 0}, {}, {}, {}, {0}, 1};
  c.slice_sizes = {1, 3};
  ExpectError(Infer(Opcode::kGather, {T(F32, {5, 3}), T(S32, {4, 1})}, c),
              "gather: offset_dims must be sorted, got [1, 0] (C4)");
  GatherAttrs d;  // batching dims of different sizes
  d.dimension_numbers = {{}, {1}, {0}, {0}, {1}, 1};
  d.slice_sizes = {1, 1};
  ExpectError(Infer(Opcode::kGather, {T(F32, {5, 3}), T(S32, {4, 1})}, d), "(C17)");
}

Computation* AddRegion(ModuleBuilder& mb, DType t) {
  ComputationBuilder* cb = mb.NewComputation("add");
  Instruction* a = cb->Parameter(Shape(t, {}));
  Instruction* b = cb->Parameter(Shape(t, {}));
  return *cb->Finish({Must(cb->Add(Opcode::kAdd, {a, b}))});
}

ScatterAttrs RowScatter() {
  ScatterAttrs a;
  a.scatter_dimension_numbers.update_window_dims = {1};
  a.scatter_dimension_numbers.inserted_window_dims = {0};
  a.scatter_dimension_numbers.scatter_dims_to_operand_dims = {0};
  a.scatter_dimension_numbers.index_vector_dim = 1;
  return a;
}

TEST(ScatterShapeInference, Constraints) {
  ModuleBuilder mb("m");
  const Computation* add = AddRegion(mb, F32);
  const Computation* add_i = AddRegion(mb, S32);
  EXPECT_EQ(*Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 3})},
                   RowScatter(), {add}),
            T(F32, {5, 3}));
  // Window smaller than the input's dimension is fine (C4 is <=).
  EXPECT_TRUE(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 2})},
                    RowScatter(), {add})
                  .ok());
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {3, 3})},
                    RowScatter(), {add}),
              "must match scatter_indices' size 4 (C4)");
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 4})},
                    RowScatter(), {add}),
              "(C4)");
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(S32, {4, 3})},
                    RowScatter(), {add}),
              "(C6)");
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 3})},
                    RowScatter(), {add_i}),
              "scatter: update_computation");
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1})}, RowScatter(), {add}),
              "(C5)");
  ScatterAttrs a = RowScatter();
  a.scatter_dimension_numbers.update_window_dims = {2};
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 3})}, a,
                    {add}),
              "(C8)");
  a = RowScatter();
  a.scatter_dimension_numbers.scatter_dims_to_operand_dims = {0, 1};
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 3})}, a,
                    {add}),
              "(C19)");
  a = RowScatter();
  a.scatter_dimension_numbers.inserted_window_dims = {1};
  a.scatter_dimension_numbers.update_window_dims = {1};
  a.scatter_dimension_numbers.scatter_dims_to_operand_dims = {1};
  EXPECT_TRUE(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 3})}, a,
                    {add}).ok());
  ExpectError(Infer(Opcode::kScatter, {T(F32, {5, 3}), T(S32, {4, 1}), T(F32, {4, 6})}, a,
                    {add}),
              "(C4)");
}

TEST(DynamicSliceShapeInference, Constraints) {
  EXPECT_EQ(*Infer(Opcode::kDynamicSlice, {T(F32, {4, 4}), T(S32, {}), T(S32, {})},
                   DynamicSliceAttrs{{2, 2}}),
            T(F32, {2, 2}));
  ExpectError(Infer(Opcode::kDynamicSlice, {T(F32, {4, 4}), T(S32, {})}, DynamicSliceAttrs{{2, 2}}),
              "dynamic_slice: expected 2 start indices");
  ExpectError(Infer(Opcode::kDynamicSlice, {T(F32, {4, 4}), T(S32, {}), T(S64, {})},
                    DynamicSliceAttrs{{2, 2}}),
              "(C3)");
  ExpectError(Infer(Opcode::kDynamicSlice, {T(F32, {4, 4}), T(S32, {}), T(F32, {})},
                    DynamicSliceAttrs{{2, 2}}),
              "(C3)");
  ExpectError(Infer(Opcode::kDynamicSlice, {T(F32, {4, 4}), T(S32, {}), T(S32, {})},
                    DynamicSliceAttrs{{2, 5}}),
              "(C4)");
  EXPECT_EQ(*Infer(Opcode::kDynamicUpdateSlice,
                   {T(F32, {4, 4}), T(F32, {2, 2}), T(S32, {}), T(S32, {})}, NoAttrs{}),
            T(F32, {4, 4}));
  ExpectError(Infer(Opcode::kDynamicUpdateSlice,
                    {T(F32, {4, 4}), T(S32, {2, 2}), T(S32, {}), T(S32, {})}, NoAttrs{}),
              "(C2)");
  ExpectError(Infer(Opcode::kDynamicUpdateSlice,
                    {T(F32, {4, 4}), T(F32, {2}), T(S32, {}), T(S32, {})}, NoAttrs{}),
              "(C3)");
  ExpectError(Infer(Opcode::kDynamicUpdateSlice,
                    {T(F32, {4, 4}), T(F32, {5, 2}), T(S32, {}), T(S32, {})}, NoAttrs{}),
              "(C6)");
  ExpectError(Infer(Opcode::kDynamicUpdateSlice, {T(F32, {4, 4}), T(F32, {2, 2}), T(S32, {})},
                  NoAttrs{}),
              "(C4)");
}

// ----------------------------------------------------------- text round trip

const char* kGatherText = R"(module @m {
  func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x3xf32> {
    %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}
)";

const char* kScatterText = R"(module @m {
  func.func @main(%x: tensor<5x3xBODYT>, %i: tensor<4x1xi32>, %u: tensor<4x3xBODYT>) -> tensor<5x3xBODYT> {
    %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<BODYT>, %b: tensor<BODYT>):
      BODY
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = UNIQUE} : (tensor<5x3xBODYT>, tensor<4x1xi32>, tensor<4x3xBODYT>) -> tensor<5x3xBODYT>
    return %0 : tensor<5x3xBODYT>
  }
}
)";

std::string ScatterText(const std::string& body, const std::string& type, bool unique = false,
                        int64_t rows = 5, int64_t k = 4) {
  std::string t = absl::StrReplaceAll(
      kScatterText, {{"BODYT", type}, {"BODY", body}, {"UNIQUE", unique ? "true" : "false"}});
  return absl::StrReplaceAll(t, {{"5x3x", absl::StrCat(rows, "x3x")},
                                 {"4x1x", absl::StrCat(k, "x1x")},
                                 {"4x3x", absl::StrCat(k, "x3x")}});
}

TEST(GatherText, RoundTrip) {
  for (const std::string& text :
       {std::string(kGatherText),
        ScatterText("%c = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
                    "      \"stablehlo.return\"(%c) : (tensor<f32>) -> ()",
                    "f32")}) {
    auto m = ParseModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    std::string printed = PrintModule(**m);
    auto again = ParseModule(printed);
    ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
    EXPECT_EQ(PrintModule(**again), printed);
  }
  auto parsed = ParseModule(kGatherText);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::string printed = PrintModule(**parsed);
  EXPECT_THAT(printed, HasSubstr("#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = "
                                 "[0], start_index_map = [0], index_vector_dim = 1>"));
}

// ------------------------------------------------------------ cpu vs reference

// Integer indices spread a little past both ends of [0, n).
Literal Indices(const Shape& s, int64_t n, std::mt19937_64& rng, bool in_bounds = false) {
  Literal l(s);
  std::uniform_int_distribution<int64_t> d(in_bounds ? 0 : -2, in_bounds ? n - 1 : n + 2);
  DispatchDType(s.dtype, [&](auto tag) {
    using V = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
      for (int64_t i = 0; i < s.num_elements(); ++i) l.mutable_data_as<V>()[i] = V(d(rng));
    }
  });
  return l;
}

void Check(const std::string& text, std::vector<Literal> args, const std::string& what) {
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << what << ": " << m.status();
  ASSERT_TRUE(CrossCheck(**m, args, what, 0)) << what << ": the reference rejected it";
}

TEST(GatherCpu, RowsClampedAndWindows) {
  std::mt19937_64 rng(1);
  Check(kGatherText, {RandomLiteral(T(F32, {5, 3}), rng), Indices(T(S32, {4, 1}), 5, rng)},
        "rows");
  // 2x2 windows of a 6x5 operand at (row, col) starts, clamped; u8 and s64 indices.
  for (const char* it : {"ui8", "i64"}) {
    std::string text = absl::StrReplaceAll(R"(module @m {
  func.func @main(%x: tensor<6x5xf64>, %i: tensor<7x2xIT>) -> tensor<7x2x2xf64> {
    %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2>} : (tensor<6x5xf64>, tensor<7x2xIT>) -> tensor<7x2x2xf64>
    return %0 : tensor<7x2x2xf64>
  }
})", {{"IT", it}});
    Check(text, {RandomLiteral(T(DType::kF64, {6, 5}), rng),
                 Indices(T(std::string(it) == "i64" ? S64 : DType::kU8, {7, 2}), 6, rng)},
          std::string("windows ") + it);
  }
  // Columns (offset dim first in the result, collapsed dim 1): strided window.
  Check(R"(module @m {
  func.func @main(%x: tensor<4x6xi16>, %i: tensor<3xi32>) -> tensor<4x3xi16> {
    %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>} : (tensor<4x6xi16>, tensor<3xi32>) -> tensor<4x3xi16>
    return %0 : tensor<4x3xi16>
  }
})",
        {RandomLiteral(T(DType::kS16, {4, 6}), rng), Indices(T(S32, {3}), 6, rng)}, "columns");
  // take_along_axis: operand and indices batched together along dim 0.
  Check(R"(module @m {
  func.func @main(%x: tensor<3x5xf32>, %i: tensor<3x4x1xi32>) -> tensor<3x4xf32> {
    %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>} : (tensor<3x5xf32>, tensor<3x4x1xi32>) -> tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
})",
        {RandomLiteral(T(F32, {3, 5}), rng), Indices(T(S32, {3, 4, 1}), 5, rng)}, "batching");
  // Big enough to run in parallel.
  std::string big = absl::StrReplaceAll(kGatherText, {{"5x3x", "300x128x"}, {"4x1x", "500x1x"},
                                                      {"4x3x", "500x128x"}, {"1, 3", "1, 128"}});
  Check(big, {RandomLiteral(T(F32, {300, 128}), rng), Indices(T(S32, {500, 1}), 300, rng)},
        "big rows");
}

TEST(ScatterCpu, BodiesAndBounds) {
  std::mt19937_64 rng(2);
  auto binary = [](const std::string& op, const std::string& t) {
    return absl::StrCat("%c = \"stablehlo.", op, "\"(%a, %b) : (tensor<", t, ">, tensor<", t,
                        ">) -> tensor<", t, ">\n      \"stablehlo.return\"(%c) : (tensor<", t,
                        ">) -> ()");
  };
  const std::string set = "\"stablehlo.return\"(%b) : (tensor<f32>) -> ()";
  const std::string generic =  // 2 * current - update: not a fast-path body
      "%two = stablehlo.constant dense<2.0> : tensor<f32>\n"
      "      %d = \"stablehlo.multiply\"(%a, %two) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      %c = \"stablehlo.subtract\"(%d, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      \"stablehlo.return\"(%c) : (tensor<f32>) -> ()";
  struct Case {
    std::string body, type;
    DType dtype;
  };
  for (const Case& c : std::vector<Case>{{set, "f32", F32},
                                         {binary("add", "f32"), "f32", F32},
                                         {binary("add", "i32"), "i32", S32},
                                         {binary("multiply", "f64"), "f64", DType::kF64},
                                         {binary("maximum", "f32"), "f32", F32},
                                         {binary("minimum", "i32"), "i32", S32},
                                         {binary("add", "bf16"), "bf16", DType::kBF16},
                                         {generic, "f32", F32}}) {
    for (bool unique : {false, true}) {
      Check(ScatterText(c.body, c.type, unique),
            {RandomLiteral(T(c.dtype, {5, 3}), rng), Indices(T(S32, {4, 1}), 5, rng, unique),
             RandomLiteral(T(c.dtype, {4, 3}), rng)},
            absl::StrCat(c.type, " ", c.body.substr(0, 24), unique ? " unique" : ""));
    }
  }
  // Parallel unique path: a permutation of rows.
  const int64_t n = 2000;
  Literal perm(T(S32, {n, 1}));
  for (int64_t i = 0; i < n; ++i) perm.mutable_data_as<int32_t>()[i] = int32_t((i * 7 + 3) % n);
  Check(ScatterText(binary("add", "f32"), "f32", true, n, n),
        {RandomLiteral(T(F32, {n, 3}), rng), perm, RandomLiteral(T(F32, {n, 3}), rng)},
        "parallel unique");
  // Windows partly out of bounds: each element is skipped on its own.
  Check(R"(module @m {
  func.func @main(%x: tensor<6x5xf32>, %i: tensor<7x2xi64>, %u: tensor<7x3x2xf32>) -> tensor<6x5xf32> {
    %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%c) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<6x5xf32>, tensor<7x2xi64>, tensor<7x3x2xf32>) -> tensor<6x5xf32>
    return %0 : tensor<6x5xf32>
  }
})",
        {RandomLiteral(T(F32, {6, 5}), rng), Indices(T(S64, {7, 2}), 6, rng),
         RandomLiteral(T(F32, {7, 3, 2}), rng)},
        "partial windows");
}

TEST(ScatterCpu, Variadic) {
  std::mt19937_64 rng(3);
  // (value, index) pairs: keep the larger value and its index (an argmax update).
  Check(R"(module @m {
  func.func @main(%x: tensor<5xf32>, %xi: tensor<5xi32>, %i: tensor<6x1xi32>, %u: tensor<6xf32>, %ui: tensor<6xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
    %0:2 = "stablehlo.scatter"(%x, %xi, %i, %u, %ui) ({
    ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
      %gt = "stablehlo.compare"(%b, %a) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v = "stablehlo.select"(%gt, %b, %a) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %w = "stablehlo.select"(%gt, %bi, %ai) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%v, %w) : (tensor<f32>, tensor<i32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xf32>, tensor<5xi32>, tensor<6x1xi32>, tensor<6xf32>, tensor<6xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
  }
})",
        {RandomLiteral(T(F32, {5}), rng, false), RandomLiteral(T(S32, {5}), rng),
         Indices(T(S32, {6, 1}), 5, rng), RandomLiteral(T(F32, {6}), rng, false),
         RandomLiteral(T(S32, {6}), rng)},
        "variadic");
}

TEST(DynamicSliceCpu, ClampedStarts) {
  std::mt19937_64 rng(4);
  const char* ds = R"(module @m {
  func.func @main(%x: tensor<5x6xf32>, %a: tensor<i32>, %b: tensor<i32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.dynamic_slice"(%x, %a, %b) {slice_sizes = array<i64: 2, 3>} : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
})";
  const char* dus = R"(module @m {
  func.func @main(%x: tensor<5x6xf32>, %u: tensor<2x3xf32>, %a: tensor<i64>, %b: tensor<i64>) -> tensor<5x6xf32> {
    %0 = "stablehlo.dynamic_update_slice"(%x, %u, %a, %b) : (tensor<5x6xf32>, tensor<2x3xf32>, tensor<i64>, tensor<i64>) -> tensor<5x6xf32>
    return %0 : tensor<5x6xf32>
  }
})";
  for (int trial = 0; trial < 10; ++trial) {
    Check(ds, {RandomLiteral(T(F32, {5, 6}), rng), Indices(T(S32, {}), 6, rng),
               Indices(T(S32, {}), 6, rng)},
          "dynamic_slice");
    Check(dus, {RandomLiteral(T(F32, {5, 6}), rng), RandomLiteral(T(F32, {2, 3}), rng),
                Indices(T(S64, {}), 6, rng), Indices(T(S64, {}), 6, rng)},
          "dynamic_update_slice");
  }
  // Known values: start (4, -1) clamps to (3, 0).
  auto parsed = ParseModule(ds);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const Module* m = parsed->get();
  Literal x(T(F32, {5, 6}));
  for (int i = 0; i < 30; ++i) x.mutable_data_as<float>()[i] = float(i);
  Literal a = Literal::Scalar(S32, int32_t{4}), b = Literal::Scalar(S32, int32_t{-1});
  for (const char* platform : {"reference", "cpu"}) {
    auto r = RunOn(platform, *m, {x, a, b});
    ASSERT_TRUE(r.ok()) << r.status();
    const float* p = (*r)[0].template data_as<float>();
    EXPECT_EQ(std::vector<float>(p, p + 6), (std::vector<float>{18, 19, 20, 24, 25, 26}))
        << platform;
  }
}

}  // namespace
}  // namespace xjit::cpu::testing

namespace xjit::cpu::testing {
namespace {

TEST(IndexingCpu, ExtremeIndicesAndEmptySlices) {
  std::mt19937_64 rng(5);
  Literal extreme(T(S64, {4, 1}));
  const int64_t values[] = {INT64_MIN, INT64_MAX, -1, 2};
  for (int i = 0; i < 4; ++i) extreme.mutable_data_as<int64_t>()[i] = values[i];
  std::string gather = absl::StrReplaceAll(kGatherText, {{"4x1xi32", "4x1xi64"}});
  Check(gather, {RandomLiteral(T(F32, {5, 3}), rng), extreme}, "gather extreme");
  std::string scatter = absl::StrReplaceAll(
      ScatterText("%c = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
                  "      \"stablehlo.return\"(%c) : (tensor<f32>) -> ()",
                  "f32"),
      {{"4x1xi32", "4x1xi64"}});
  Check(scatter, {RandomLiteral(T(F32, {5, 3}), rng), extreme, RandomLiteral(T(F32, {4, 3}), rng)},
        "scatter extreme");
  // Windows reaching out of both ends.
  Check(R"(module @m {
  func.func @main(%x: tensor<6xf32>, %i: tensor<3x1xi64>, %u: tensor<3x4xf32>) -> tensor<6xf32> {
    %0 = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      "stablehlo.return"(%b) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<6xf32>, tensor<3x1xi64>, tensor<3x4xf32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
})",
        {RandomLiteral(T(F32, {6}), rng), Indices(T(S64, {3, 1}), 6, rng),
         RandomLiteral(T(F32, {3, 4}), rng)},
        "partial windows both ends");
  // A collapsed dimension of slice size 0: every slice is empty, the result zeros.
  const char* empty = R"(module @m {
  func.func @main(%x: tensor<3x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 0, 3>} : (tensor<3x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
})";
  Literal idx(T(S32, {2, 1}));
  idx.mutable_data_as<int32_t>()[0] = 5;
  idx.mutable_data_as<int32_t>()[1] = 1;
  auto m = ParseModule(empty);
  ASSERT_TRUE(m.ok()) << m.status();
  for (const char* platform : {"reference", "cpu"}) {
    auto r = RunOn(platform, **m, {RandomLiteral(T(F32, {3, 3}), rng), idx});
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < 6; ++i) EXPECT_EQ((*r)[0].data_as<float>()[i], 0.0f) << platform;
  }
}

}  // namespace
}  // namespace xjit::cpu::testing

namespace xjit::cpu::testing {
namespace {

// Duplicate indices and enough work to split the results over threads: each
// element must still see its updates in order (bit-exact with the reference).
TEST(ScatterCpu, ParallelWithDuplicates) {
  std::mt19937_64 rng(6);
  const std::string add = "%c = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> "
                          "tensor<f32>\n      \"stablehlo.return\"(%c) : (tensor<f32>) -> ()";
  const std::string set = "\"stablehlo.return\"(%b) : (tensor<f32>) -> ()";
  const std::string generic =
      "%two = stablehlo.constant dense<0.5> : tensor<f32>\n"
      "      %d = \"stablehlo.multiply\"(%a, %two) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      %c = \"stablehlo.add\"(%d, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "      \"stablehlo.return\"(%c) : (tensor<f32>) -> ()";
  for (const std::string& body : {add, set, generic}) {
    std::string text = absl::StrReplaceAll(ScatterText(body, "f32", false, 300, 20000),
                                           {{"x3xf32", "x8xf32"}});
    Check(text, {RandomLiteral(T(F32, {300, 8}), rng, false),
                 Indices(T(S32, {20000, 1}), 300, rng),
                 RandomLiteral(T(F32, {20000, 8}), rng, false)},
          "parallel duplicates " + body.substr(0, 20));
  }
}

}  // namespace
}  // namespace xjit::cpu::testing
