// convolution, reduce_window and select_and_scatter: shape inference (the
// spec's constraints), printing and parsing back (the compact
// #stablehlo.conv<...> form), and the cpu backend (oneDNN and the direct
// kernel, typed pooling and the ScalarEvaluator paths) against the reference
// over layouts, strides, negative padding, dilations and groups.
#include <random>

#include "cpu_test_util.h"
#include "shape_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/convolution.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/ir/window_attrs.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::Must;
using xjit::testing::Infer;
using xjit::testing::ExpectError;
using xjit::testing::T;

const DType F32 = DType::kF32, S32 = DType::kS32, PRED = DType::kPred;

// NCHW / OIHW / NCHW with every window field spelled out.
ConvolutionAttrs Nchw(int64_t spatial, std::vector<std::pair<int64_t, int64_t>> pads = {}) {
  ConvolutionAttrs a;
  ConvDimensionNumbers& d = a.dimension_numbers;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    d.input_spatial_dimensions.push_back(2 + i);
    d.kernel_spatial_dimensions.push_back(2 + i);
    d.output_spatial_dimensions.push_back(2 + i);
  }
  if (pads.empty()) pads.assign(spatial, {0, 0});
  a.padding = PaddingLiteral(pads);
  a.window_strides.assign(spatial, 1);
  a.lhs_dilation.assign(spatial, 1);
  a.rhs_dilation.assign(spatial, 1);
  a.window_reversal.assign(spatial, 0);
  return a;
}

TEST(ConvolutionShapeInference, Constraints) {
  ConvolutionAttrs a = Nchw(2);
  EXPECT_EQ(*Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, a),
            T(F32, {2, 4, 3, 3}));
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5}), T(F32, {4, 3, 3, 3})}, a),
              "same rank");
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(S32, {4, 3, 3, 3})}, a),
              "same element type");
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 2, 3, 3})}, a),
              "kernel input feature dimension (size 2) must be the input feature dimension");
  ConvolutionAttrs b = a;
  b.window_strides = {1, 0};
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
              "window_strides must be positive");
  b = a;
  b.lhs_dilation = {1};
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
              "lhs_dilation must have 2 elements");
  b = a;
  b.padding = PaddingLiteral({{0, 0}});
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
              "padding must be an integer tensor of shape [2, 2]");
  b = a;
  b.feature_group_count = 3;
  b.batch_group_count = 2;
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {6, 1, 3, 3})}, b),
              "cannot both exceed 1");
  b = a;
  b.batch_group_count = 3;
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {6, 3, 3, 3})}, b),
              "input batch dimension (size 2) must be divisible by batch_group_count 3");
  b = a;
  b.feature_group_count = 3;
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 1, 3, 3})}, b),
              "kernel output feature dimension (size 4) must be divisible by feature_group_count");
  EXPECT_EQ(*Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {6, 1, 3, 3})}, b),
            T(F32, {2, 6, 3, 3}));
  b = a;
  b.dimension_numbers.input_spatial_dimensions = {2, 2};
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
              "input dimensions (batch, spatial..., feature) must be unique");
  b = a;
  b.window_reversal = {0, 2};
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {2, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
              "window_reversal must hold booleans");
  // Negative padding, strides and dilations in the output size (spec C25).
  b = Nchw(2, {{-1, 2}, {3, 0}});
  b.window_strides = {2, 3};
  b.lhs_dilation = {2, 1};
  b.rhs_dilation = {1, 2};
  // dim 2: (5-1)*2+1 = 9, padded 10, window 3 -> (10-3)/2+1 = 4; dim 3: 5+3 = 8, window 5 -> 2.
  EXPECT_EQ(*Infer(Opcode::kConvolution, {T(F32, {1, 3, 5, 5}), T(F32, {4, 3, 3, 3})}, b),
            T(F32, {1, 4, 4, 2}));
  // Window arithmetic that would overflow int64 is rejected.
  b = Nchw(1, {{INT64_MAX - 2, 5}});
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {1, 1, 4}), T(F32, {1, 1, 2})}, b),
              "overflows int64");
  b = Nchw(1);
  b.rhs_dilation = {INT64_MAX / 2};
  ExpectError(Infer(Opcode::kConvolution, {T(F32, {1, 1, 4}), T(F32, {1, 1, 4})}, b),
              "overflows int64");
  // A window larger than the padded input gives 0 windows.
  b = Nchw(1, {{-3, 0}});
  EXPECT_EQ(*Infer(Opcode::kConvolution, {T(F32, {1, 1, 4}), T(F32, {1, 1, 2})}, b),
            T(F32, {1, 1, 0}));
}

Computation* BinaryRegion(ModuleBuilder& mb, DType t, Opcode op) {
  ComputationBuilder* cb = mb.NewComputation("body");
  Instruction* a = cb->Parameter(Shape(t, {}));
  Instruction* b = cb->Parameter(Shape(t, {}));
  return *cb->Finish({Must(cb->Add(op, {a, b}))});
}

Computation* CompareRegion(ModuleBuilder& mb, DType t, ComparisonDirection d) {
  ComputationBuilder* cb = mb.NewComputation("select");
  Instruction* a = cb->Parameter(Shape(t, {}));
  Instruction* b = cb->Parameter(Shape(t, {}));
  return *cb->Finish({Must(cb->Add(Opcode::kCompare, {a, b}, CompareAttrs{d}))});
}

TEST(ReduceWindowShapeInference, Constraints) {
  ModuleBuilder mb("m");
  Computation* add = BinaryRegion(mb, F32, Opcode::kAdd);
  Computation* add_i = BinaryRegion(mb, S32, Opcode::kAdd);
  ReduceWindowAttrs a;
  a.window_dimensions = {2, 1};
  FillReduceWindowDefaults(a, 2);
  EXPECT_EQ(*Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {})}, a, {add}), T(F32, {2, 2}));
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2})}, a, {add}), "expected N > 0 inputs");
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(S32, {})}, a, {add}),
              "init value 0 must be a scalar of the element type of input 0");
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {})}, a, {add_i}),
              "body body must have type");
  ReduceWindowAttrs b = a;
  b.window_dimensions = {2};
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {})}, b, {add}),
              "window_dimensions must have 2 elements");
  b = a;
  b.window_dilations = {0, 1};
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {})}, b, {add}),
              "window_dilations must be positive");
  b = a;
  b.base_dilations = {2, 1};
  b.window_dilations = {3, 1};
  b.window_strides = {4, 1};
  b.padding = PaddingLiteral({{2, 1}, {0, 0}});
  EXPECT_EQ(*Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {})}, b, {add}), T(F32, {2, 2}));
  ExpectError(Infer(Opcode::kReduceWindow, {T(F32, {3, 2}), T(F32, {3, 3}), T(F32, {}), T(F32, {})},
                    a, {add}),
              "inputs must have the same shape");
}

TEST(SelectAndScatterShapeInference, Constraints) {
  ModuleBuilder mb("m");
  Computation* ge = CompareRegion(mb, F32, ComparisonDirection::kGe);
  Computation* add = BinaryRegion(mb, F32, Opcode::kAdd);
  SelectAndScatterAttrs a;
  a.window_dimensions = {3, 1};
  a.window_strides = {2, 1};
  a.padding = PaddingLiteral({{0, 1}, {0, 0}});
  EXPECT_EQ(*Infer(Opcode::kSelectAndScatter, {T(F32, {4, 2}), T(F32, {2, 2}), T(F32, {})}, a,
                   {ge, add}),
            T(F32, {4, 2}));
  ExpectError(Infer(Opcode::kSelectAndScatter, {T(F32, {4, 2}), T(F32, {3, 2}), T(F32, {})}, a,
                    {ge, add}),
              "source must have the shape of the windows, tensor<2x2xf32>");
  ExpectError(Infer(Opcode::kSelectAndScatter, {T(F32, {4, 2}), T(F32, {2, 2}), T(F32, {})}, a,
                    {add, add}),
              "select body must have type");
  ExpectError(Infer(Opcode::kSelectAndScatter, {T(F32, {4, 2}), T(S32, {2, 2}), T(F32, {})}, a,
                    {ge, add}),
              "source must have the operand's element type");
  ExpectError(Infer(Opcode::kSelectAndScatter, {T(F32, {4, 2}), T(F32, {2, 2}), T(F32, {})}, a,
                    {ge}),
              "expected select and scatter regions");
}

TEST(ConvDimensionNumbersText, CompactForm) {
  auto d = ConvDimensionNumbers::FromText("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->input_batch_dimension, 0);
  EXPECT_EQ(d->input_feature_dimension, 3);
  EXPECT_EQ(d->input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(d->kernel_input_feature_dimension, 2);
  EXPECT_EQ(d->kernel_output_feature_dimension, 3);
  EXPECT_EQ(d->ToText(), "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
  auto odd = ConvDimensionNumbers::FromText("[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]");
  ASSERT_TRUE(odd.ok()) << odd.status();
  EXPECT_EQ(odd->input_spatial_dimensions, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(odd->ToText(), "[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]");
  EXPECT_FALSE(ConvDimensionNumbers::FromText("[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]").ok());
  EXPECT_FALSE(ConvDimensionNumbers::FromText("[b, 0, 1]x[0, 1, i, o]->[b, 0, 1, f]").ok());
  EXPECT_FALSE(ConvDimensionNumbers::FromText("[b, 0, 1, f][0, 1, i, o]->[b, 0, 1, f]").ok());
}

TEST(WindowOpsText, PrintAndParseBack) {
  const char* text = R"(%c = "stablehlo.convolution"(%x, %k) {
  window_strides = array<i64: 2, 1>,
  padding = dense<[[1, -1], [0, 2]]> : tensor<2x2xi64>,
  lhs_dilation = array<i64: 1, 2>,
  rhs_dilation = array<i64: 2, 1>,
  window_reversal = array<i1: true, false>,
  dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
  feature_group_count = 1 : i64,
  batch_group_count = 1 : i64,
  precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]
} : (tensor<1x6x6x2xf32>, tensor<2x2x2x3xf32>) -> tensor<1x2x12x3xf32>
%r = "stablehlo.reduce_window"(%c, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
}) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<1x2x12x3xf32>, tensor<f32>) -> tensor<1x1x6x3xf32>)";
  auto parsed = ParseOps(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::string printed = PrintModule(*parsed->module);
  EXPECT_THAT(printed, HasSubstr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"));
  EXPECT_THAT(printed, HasSubstr("window_reversal = array<i1: true, false>"));
  EXPECT_THAT(printed, HasSubstr("padding = dense<[[1, -1], [0, 2]]> : tensor<2x2xi64>"));
  EXPECT_THAT(printed, HasSubstr("base_dilations = array<i64: 1, 1, 1, 1>"));
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
  auto bad = ParseOps(R"(%c = "stablehlo.convolution"(%x, %k) {
  dimension_numbers = #stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>
} : (tensor<1x6x6x2xf32>, tensor<2x2x2x3xf32>) -> tensor<1x5x5x3xf32>)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("dimension_numbers"));
}

// ------------------------------------------------------- cpu vs reference

struct ConvCase {
  std::string name;
  std::vector<int64_t> lhs, rhs;
  ConvolutionAttrs attrs;
};

// NHWC/HWIO/NHWC dimension numbers.
ConvolutionAttrs Nhwc(std::vector<std::pair<int64_t, int64_t>> pads) {
  ConvolutionAttrs a = Nchw(2, pads);
  auto d = ConvDimensionNumbers::FromText("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
  a.dimension_numbers = *d;
  return a;
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  cases.push_back({"nchw_valid", {2, 3, 7, 6}, {4, 3, 3, 2}, Nchw(2)});
  cases.push_back({"nhwc_same", {2, 7, 6, 3}, {3, 3, 3, 4}, Nhwc({{1, 1}, {1, 1}})});
  ConvolutionAttrs s = Nchw(2, {{2, 1}, {0, 3}});
  s.window_strides = {2, 3};
  s.rhs_dilation = {2, 1};
  cases.push_back({"strided_dilated", {1, 2, 9, 8}, {3, 2, 3, 2}, s});
  ConvolutionAttrs neg = Nchw(2, {{-1, -2}, {1, -1}});
  cases.push_back({"negative_padding", {1, 2, 9, 8}, {3, 2, 3, 2}, neg});
  ConvolutionAttrs g = Nchw(2, {{1, 1}, {1, 1}});
  g.feature_group_count = 3;
  cases.push_back({"feature_groups", {2, 6, 5, 5}, {9, 2, 3, 3}, g});
  ConvolutionAttrs bg = Nchw(2);
  bg.batch_group_count = 2;
  cases.push_back({"batch_groups", {4, 3, 5, 5}, {6, 3, 3, 3}, bg});
  ConvolutionAttrs ld = Nchw(2, {{2, 2}, {1, 1}});
  ld.lhs_dilation = {2, 3};
  cases.push_back({"lhs_dilation_deconv", {1, 2, 4, 3}, {3, 2, 3, 2}, ld});
  ConvolutionAttrs ld2 = ld;
  ld2.padding = PaddingLiteral({{3, 0}, {0, 2}});
  ld2.window_strides = {2, 1};
  cases.push_back({"lhs_dilation_strided", {1, 2, 4, 3}, {3, 2, 3, 2}, ld2});
  ConvolutionAttrs rev = Nchw(2, {{1, 0}, {0, 1}});
  rev.window_reversal = {1, 0};
  cases.push_back({"window_reversal", {1, 2, 5, 4}, {2, 2, 3, 2}, rev});
  ConvolutionAttrs odd;
  odd.dimension_numbers = *ConvDimensionNumbers::FromText("[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]");
  FillConvolutionDefaults(odd);
  odd.padding = PaddingLiteral({{1, 0}, {0, 1}});
  cases.push_back({"odd_layout", {3, 6, 2, 5}, {4, 2, 3, 3}, odd});
  ConvolutionAttrs one_d = Nchw(1, {{1, 2}});
  one_d.rhs_dilation = {2};
  cases.push_back({"conv1d", {2, 3, 10}, {4, 3, 3}, one_d});
  ConvolutionAttrs three_d = Nchw(3, {{0, 1}, {1, 0}, {1, 1}});
  cases.push_back({"conv3d", {1, 2, 4, 4, 3}, {2, 2, 2, 2, 2}, three_d});
  return cases;
}

TEST(ConvolutionCpu, MatchesReference) {
  std::mt19937_64 rng(7);
  for (const ConvCase& c : ConvCases()) {
    for (DType t : {F32, DType::kF64, S32, DType::kBF16, DType::kF16}) {
      auto m = OneOpModule(Opcode::kConvolution, {T(t, c.lhs), T(t, c.rhs)}, c.attrs);
      ASSERT_TRUE(m.ok()) << c.name << ": " << m.status();
      double tol = t == DType::kBF16 ? 5e-2 : t == DType::kF16 ? 5e-3 : t == F32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), c.name + " " +
                             std::string(StableHloName(t)), tol));
    }
  }
}

// bf16 too: in its own type or, where oneDNN has only a slow kernel for it
// (no AVX-512 bf16), widened to float32.
TEST(ConvolutionCpu, OneDnnTakesTheCommonCases) {
  for (DType t : {F32, DType::kBF16}) {
    for (const ConvCase& c : ConvCases()) {
      auto m = OneOpModule(Opcode::kConvolution, {T(t, c.lhs), T(t, c.rhs)}, c.attrs);
      ASSERT_TRUE(m.ok());
      const Instruction* conv = (*m)->entry()->results()[0];
      if (c.name == "odd_layout") continue;  // oneDNN's choice for arbitrary strides
      bool want = c.name != "batch_groups" && c.name != "negative_padding" &&
                  c.name != "lhs_dilation_strided";
      EXPECT_EQ(ConvolutionUsesOneDnn(*conv), want) << c.name << " " << StableHloName(t);
    }
  }
}

TEST(ReduceWindowCpu, MatchesReference) {
  std::mt19937_64 rng(3);
  for (Opcode op : {Opcode::kAdd, Opcode::kMaximum, Opcode::kMinimum, Opcode::kMultiply,
                    Opcode::kSubtract}) {
    for (DType t : {F32, S32, DType::kF16}) {
      ModuleBuilder mb("rw");
      Computation* body = BinaryRegion(mb, t, op);
      ComputationBuilder* main = mb.NewComputation("main");
      Instruction* x = main->Parameter(T(t, {2, 9, 7}));
      Instruction* init = main->Parameter(T(t, {}));
      ReduceWindowAttrs a;
      a.window_dimensions = {1, 3, 2};
      a.window_strides = {1, 2, 1};
      a.base_dilations = {1, 2, 1};
      a.window_dilations = {1, 1, 2};
      a.padding = PaddingLiteral({{0, 0}, {1, -1}, {2, 1}});
      Instruction* r = Must(main->Add(Opcode::kReduceWindow, {x, init}, a, {body}));
      auto m = *mb.Build(*main->Finish({r}));
      // With NaN, +-inf and signed zeros: the typed max/min keep the
      // reference's semantics (a NaN wins, +0 > -0).
      for (bool special : {false, true}) {
        EXPECT_TRUE(CrossCheck(*m, RandomArgs(*m, rng, special),
                               absl::StrCat("reduce_window ", OpcodeName(op), " ",
                                            StableHloName(t), special ? " special" : "")));
      }
    }
  }
}

TEST(ReduceWindowCpu, VariadicArgmaxBody) {
  ModuleBuilder mb("rw");
  ComputationBuilder* cb = mb.NewComputation("argmax");
  Instruction* av = cb->Parameter(T(F32, {}));
  Instruction* ai = cb->Parameter(T(S32, {}));
  Instruction* bv = cb->Parameter(T(F32, {}));
  Instruction* bi = cb->Parameter(T(S32, {}));
  Instruction* gt = Must(cb->Add(Opcode::kCompare, {bv, av},
                                 CompareAttrs{ComparisonDirection::kGt}));
  Computation* body = *cb->Finish({Must(cb->Add(Opcode::kSelect, {gt, bv, av})),
                                   Must(cb->Add(Opcode::kSelect, {gt, bi, ai}))});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(T(F32, {6, 5}));
  Instruction* i = main->Parameter(T(S32, {6, 5}));
  Instruction* x0 = main->Parameter(T(F32, {}));
  Instruction* i0 = main->Parameter(T(S32, {}));
  ReduceWindowAttrs a;
  a.window_dimensions = {2, 3};
  a.window_strides = {2, 1};
  a.padding = PaddingLiteral({{0, 1}, {1, 1}});
  Instruction* r = Must(main->Add(Opcode::kReduceWindow, {x, i, x0, i0}, a, {body}));
  std::vector<Instruction*> results = {
      Must(main->Add(Opcode::kGetTupleElement, {r}, GetTupleElementAttrs{0})),
      Must(main->Add(Opcode::kGetTupleElement, {r}, GetTupleElementAttrs{1}))};
  auto m = *mb.Build(*main->Finish(results));
  std::mt19937_64 rng(5);
  EXPECT_TRUE(CrossCheck(*m, RandomArgs(*m, rng, false), "variadic reduce_window"));
}

TEST(SelectAndScatterCpu, MatchesReference) {
  std::mt19937_64 rng(11);
  for (ComparisonDirection d : {ComparisonDirection::kGe, ComparisonDirection::kLe,
                                ComparisonDirection::kEq}) {
    for (Opcode scatter_op : {Opcode::kAdd, Opcode::kMaximum}) {
      for (DType t : {F32, S32}) {
        ModuleBuilder mb("sas");
        Computation* sel = CompareRegion(mb, t, d);
        Computation* sc = BinaryRegion(mb, t, scatter_op);
        ComputationBuilder* main = mb.NewComputation("main");
        Instruction* x = main->Parameter(T(t, {7, 6}));
        Instruction* s = main->Parameter(T(t, {4, 3}));
        Instruction* init = main->Parameter(T(t, {}));
        SelectAndScatterAttrs a;
        a.window_dimensions = {3, 2};
        a.window_strides = {2, 2};
        a.padding = PaddingLiteral({{1, 1}, {0, 0}});
        Instruction* r = Must(main->Add(Opcode::kSelectAndScatter, {x, s, init}, a, {sel, sc}));
        auto m = *mb.Build(*main->Finish({r}));
        // Small integers make ties, which the selection must break in window order.
        auto args = RandomArgs(*m, rng, false);
        EXPECT_TRUE(CrossCheck(*m, args, absl::StrCat("select_and_scatter ", StableHloName(t))));
      }
    }
  }
}

}  // namespace
}  // namespace xjit::cpu::testing
