// batch_norm_inference/training/grad: shape inference (the spec's
// constraints), the f32 attribute in text, and the cpu backend (oneDNN and
// our own kernel) against the reference over layouts, feature indices and
// element types.
#include <cmath>
#include <random>

#include "cpu_test_util.h"
#include "shape_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/batch_norm.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::ExpectError;
using xjit::testing::Infer;
using xjit::testing::T;

const DType F32 = DType::kF32, F64 = DType::kF64, S32 = DType::kS32;

BatchNormAttrs Attrs(int64_t feature_index, float epsilon = 1e-3f) {
  BatchNormAttrs a;
  a.feature_index = feature_index;
  a.epsilon = epsilon;
  return a;
}

TEST(BatchNormShapeInference, Results) {
  const Shape x = T(F32, {2, 3, 4}), v = T(F32, {3});
  EXPECT_EQ(*Infer(Opcode::kBatchNormInference, {x, v, v, v, v}, Attrs(1)), x);
  EXPECT_EQ(*Infer(Opcode::kBatchNormTraining, {x, v, v}, Attrs(1)), Shape::Tuple({x, v, v}));
  EXPECT_EQ(*Infer(Opcode::kBatchNormGrad, {x, v, v, v, x}, Attrs(1)), Shape::Tuple({x, v, v}));
  const Shape w = T(F64, {4});
  EXPECT_EQ(*Infer(Opcode::kBatchNormTraining, {T(F64, {2, 3, 4}), w, w}, Attrs(2)),
            Shape::Tuple({T(F64, {2, 3, 4}), w, w}));
}

TEST(BatchNormShapeInference, Rejections) {
  const Shape x = T(F32, {2, 3, 4}), v = T(F32, {3});
  // Operand counts.
  ExpectError(Infer(Opcode::kBatchNormInference, {x, v, v, v}, Attrs(1)),
              "batch_norm_inference: expected 5 operands (operand, scale, offset, mean, variance)");
  ExpectError(Infer(Opcode::kBatchNormTraining, {x, v}, Attrs(1)),
              "batch_norm_training: expected 3 operand(s), got 2");
  ExpectError(Infer(Opcode::kBatchNormGrad, {x, v, v, v}, Attrs(1)),
              "batch_norm_grad: expected 5 operands");
  // C1: feature_index range.
  ExpectError(Infer(Opcode::kBatchNormTraining, {x, v, v}, Attrs(3)),
              "batch_norm_training: feature_index 3 is out of range [0, 3)");
  ExpectError(Infer(Opcode::kBatchNormInference, {x, v, v, v, v}, Attrs(-1)),
              "feature_index -1 is out of range");
  ExpectError(Infer(Opcode::kBatchNormTraining, {T(F32, {}), T(F32, {1}), T(F32, {1})}, Attrs(0)),
              "out of range [0, 0) for an operand of rank 0");
  // Floating-point operand.
  ExpectError(Infer(Opcode::kBatchNormTraining, {T(S32, {2, 3}), T(S32, {3}), T(S32, {3})},
                    Attrs(1)),
              "batch_norm_training: operand must be a tensor of a floating-point type");
  // C2: one element type.
  ExpectError(Infer(Opcode::kBatchNormInference, {x, v, v, T(F64, {3}), v}, Attrs(1)),
              "batch_norm_inference: mean must have the operand's element type");
  // 1-d vectors, C3-C6: their size is dim(operand, feature_index).
  ExpectError(Infer(Opcode::kBatchNormTraining, {x, T(F32, {3, 1}), v}, Attrs(1)),
              "batch_norm_training: scale must be 1-dimensional");
  ExpectError(Infer(Opcode::kBatchNormTraining, {x, v, T(F32, {4})}, Attrs(1)),
              "batch_norm_training: size of offset (4) must equal the operand's dimension "
              "feature_index 1 (3)");
  ExpectError(Infer(Opcode::kBatchNormInference, {x, v, v, v, T(F32, {2})}, Attrs(1)),
              "size of variance (2)");
  ExpectError(Infer(Opcode::kBatchNormGrad, {x, v, T(F32, {5}), v, x}, Attrs(1)),
              "batch_norm_grad: size of mean (5)");
  // grad: grad_output has the operand's type (C2, C3).
  ExpectError(Infer(Opcode::kBatchNormGrad, {x, v, v, v, T(F32, {2, 3, 5})}, Attrs(1)),
              "batch_norm_grad: grad_output must have the operand's type");
  ExpectError(Infer(Opcode::kBatchNormGrad, {x, v, v, v, T(F64, {2, 3, 4})}, Attrs(1)),
              "grad_output must have the operand's type");
  // The attribute struct.
  ExpectError(Infer(Opcode::kBatchNormTraining, {x, v, v}, Attributes()),
              "batch_norm_training: takes BatchNormAttrs, got NoAttrs");
}

TEST(BatchNormText, EpsilonPrintsAndParsesBack) {
  const char* text = R"(%o, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %b) {
  epsilon = 1.0e-05 : f32,
  feature_index = 2 : i64
} : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
%r = "stablehlo.batch_norm_inference"(%x, %s, %b, %m, %v) {epsilon = 0x7F800000 : f32, feature_index = 2 : i64} : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2x2xf64>
%g:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %r) {epsilon = 1.1 : f32, feature_index = 0 : i64} : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>))";
  auto parsed = ParseOps(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::string printed = PrintModule(*parsed->module);
  EXPECT_THAT(printed, HasSubstr("epsilon = 1.000000e-05 : f32, feature_index = 2 : i64"));
  EXPECT_THAT(printed, HasSubstr("epsilon = 0x7F800000 : f32"));  // infinity, as MLIR spells it
  EXPECT_THAT(printed, HasSubstr("epsilon = 1.100000e+00 : f32"));
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
  // More digits than an f32 holds read as the nearest f32, printed back %.6e.
  auto tenth = ParseOps(R"(%r = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.100000001 : f32, feature_index = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)");
  ASSERT_TRUE(tenth.ok()) << tenth.status();
  EXPECT_THAT(PrintModule(*tenth->module), HasSubstr("epsilon = 1.000000e-01 : f32"));
  auto bad = ParseOps(R"(%r = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = true, feature_index = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("epsilon: expected an f32 value"));
  auto f64 = ParseOps(R"(%r = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0 : f64, feature_index = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)");
  ASSERT_FALSE(f64.ok());
  EXPECT_THAT(std::string(f64.status().message()), HasSubstr("expected an f32 value, got type f64"));
  auto missing = ParseOps(R"(%r = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {feature_index = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>)");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("epsilon"));
}

// ------------------------------------------------------- cpu vs reference

struct BnCase {
  std::vector<int64_t> dims;
  int64_t feature_index;
};

std::vector<BnCase> Cases() {
  return {{{4, 3, 5, 6}, 1},   // NCHW
          {{4, 5, 6, 3}, 3},   // NHWC: feature last
          {{3, 4, 5}, 0},      // feature first
          {{2, 3, 70, 40}, 1},  // big enough to run in parallel
          {{40, 30, 8}, 2},
          {{7}, 0},            // one element per feature
          {{0, 3, 2}, 1},      // no elements: NaN statistics
          {{2, 0, 3}, 1}};     // no features
}

// One batch norm op on parameters; its results (one per tuple element) are
// the module's.
absl::StatusOr<std::unique_ptr<Module>> BnModule(Opcode op, const std::vector<Shape>& params,
                                                 const BatchNormAttrs& attrs) {
  ModuleBuilder mb("bn");
  ComputationBuilder* main = mb.NewComputation("main");
  std::vector<Instruction*> operands;
  for (const Shape& s : params) operands.push_back(main->Parameter(s));
  absl::StatusOr<Instruction*> r = main->Add(op, operands, attrs);
  if (!r.ok()) return r.status();
  std::vector<Instruction*> results = {*r};
  if ((*r)->shape().is_tuple) {
    results.clear();
    for (int64_t i = 0; i < 3; ++i) {
      GetTupleElementAttrs idx;
      idx.index = i;
      absl::StatusOr<Instruction*> part = main->Add(Opcode::kGetTupleElement, {*r}, idx);
      if (!part.ok()) return part.status();
      results.push_back(*part);
    }
  }
  absl::StatusOr<Computation*> entry = main->Finish(results);
  if (!entry.ok()) return entry.status();
  return mb.Build(*entry);
}

std::vector<Shape> Operands(Opcode op, DType t, const BnCase& c) {
  const Shape x = T(t, c.dims), v = T(t, {c.dims[c.feature_index]});
  switch (op) {
    case Opcode::kBatchNormInference: return {x, v, v, v, v};
    case Opcode::kBatchNormTraining: return {x, v, v};
    default: return {x, v, v, v, x};
  }
}

// Random arguments with a positive variance (operand 4 of inference, 3 of grad).
std::vector<Literal> Args(const Module& m, Opcode op, std::mt19937_64& rng) {
  std::vector<Literal> args = RandomArgs(m, rng, /*special=*/false);
  const int variance = op == Opcode::kBatchNormInference ? 4 : op == Opcode::kBatchNormGrad ? 3 : -1;
  if (variance >= 0) {
    Literal& v = args[variance];
    DispatchDType(v.shape().dtype, [&](auto tag) {
      using V = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<V> || is_half_v<V>) {
        V* p = v.mutable_data_as<V>();
        for (int64_t i = 0; i < v.shape().num_elements(); ++i) {
          p[i] = V(std::abs(static_cast<float>(p[i])) + 0.25f);
        }
      }
    });
  }
  return args;
}

TEST(BatchNormCpu, MatchesReference) {
  std::mt19937_64 rng(11);
  for (Opcode op : {Opcode::kBatchNormInference, Opcode::kBatchNormTraining,
                    Opcode::kBatchNormGrad}) {
    for (const BnCase& c : Cases()) {
      for (DType t : {F32, F64, DType::kBF16, DType::kF16}) {
        auto m = BnModule(op, Operands(op, t, c), Attrs(c.feature_index));
        ASSERT_TRUE(m.ok()) << m.status();
        const double tol = t == F64 ? 1e-10 : t == F32 ? 1e-4 : 4e-2;
        const std::string what = absl::StrCat(OpcodeName(op), " ", Shape(t, c.dims).ToString(),
                                              " feature_index ", c.feature_index);
        EXPECT_TRUE(CrossCheck(**m, Args(**m, op, rng), what, tol)) << what;
      }
    }
  }
}

TEST(BatchNormCpu, SpecExampleValues) {
  // The spec's batch_norm_training example, on both backends.
  auto m = BnModule(Opcode::kBatchNormTraining, {T(F64, {2, 2, 2}), T(F64, {2}), T(F64, {2})},
                       Attrs(2, 0.0f));
  ASSERT_TRUE(m.ok());
  Literal x(T(F64, {2, 2, 2})), s(T(F64, {2})), b(T(F64, {2}));
  const double xv[] = {1, 2, 3, 4, 3, 4, 1, 2};
  std::copy(xv, xv + 8, x.mutable_data_as<double>());
  s.mutable_data_as<double>()[0] = s.mutable_data_as<double>()[1] = 1;
  b.mutable_data_as<double>()[0] = b.mutable_data_as<double>()[1] = 1;
  for (const char* platform : {"cpu", "reference"}) {
    auto r = RunOn(platform, **m, {x, s, b});
    ASSERT_TRUE(r.ok()) << r.status();
    const double want_out[] = {0, 0, 2, 2, 2, 2, 0, 0};
    for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ((*r)[0].data_as<double>()[i], want_out[i]);
    EXPECT_DOUBLE_EQ((*r)[1].data_as<double>()[0], 2.0);
    EXPECT_DOUBLE_EQ((*r)[1].data_as<double>()[1], 3.0);
    EXPECT_DOUBLE_EQ((*r)[2].data_as<double>()[0], 1.0);
  }
}

// oneDNN runs f32 only, and only where it has a jit kernel for the layout
// (machine-dependent: the feature-last nhwc layout on AVX2 and newer).
TEST(BatchNormCpu, OneDnnOnlyForF32) {
  for (Opcode op : {Opcode::kBatchNormInference, Opcode::kBatchNormTraining,
                    Opcode::kBatchNormGrad}) {
    for (const BnCase& c : Cases()) {
      for (DType t : {F32, F64, DType::kBF16}) {
        auto m = BnModule(op, Operands(op, t, c), Attrs(c.feature_index));
        ASSERT_TRUE(m.ok());
        const Instruction* bn = (*m)->entry()->results()[0];
        while (bn->opcode() != op) bn = bn->operand(0);  // through a tuple, if any
        int64_t n = 1;
        for (int64_t d : c.dims) n *= d;
        if (t != F32 || n == 0) {
          EXPECT_FALSE(BatchNormUsesOneDnn(*bn)) << OpcodeName(op) << " " << Shape(t, c.dims).ToString();
        }
      }
    }
  }
}

}  // namespace
}  // namespace xjit::cpu::testing
