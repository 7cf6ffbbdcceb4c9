// cholesky and triangular_solve: shape inference (the spec's constraints),
// text, the reference's results against the definitions, and the cpu backend
// (LAPACK potrf / BLAS trsm) against the reference over dtypes, batches,
// every attribute combination, empty matrices and failing factorizations.
#include <cmath>
#include <complex>
#include <random>

#include <omp.h>

#include "cpu_test_util.h"
#include "shape_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/backends/lapack/target_util.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::ExpectError;
using xjit::testing::Infer;

const DType F32 = DType::kF32, F64 = DType::kF64, C64 = DType::kC64, C128 = DType::kC128;

Shape T(DType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }

CholeskyAttrs Chol(bool lower) {
  CholeskyAttrs a;
  a.lower = lower;
  return a;
}

TriangularSolveAttrs Solve(bool left, bool lower, bool unit, TransposeKind t) {
  TriangularSolveAttrs a;
  a.left_side = left;
  a.lower = lower;
  a.unit_diagonal = unit;
  a.transpose_a = t;
  return a;
}

TEST(LinalgShapeInference, Results) {
  EXPECT_EQ(*Infer(Opcode::kCholesky, {T(F32, {3, 3})}, Chol(true)), T(F32, {3, 3}));
  EXPECT_EQ(*Infer(Opcode::kCholesky, {T(C128, {2, 5, 4, 4})}, Chol(false)), T(C128, {2, 5, 4, 4}));
  EXPECT_EQ(*Infer(Opcode::kCholesky, {T(F64, {0, 0})}, Chol(true)), T(F64, {0, 0}));
  const auto nt = TransposeKind::kNoTranspose;
  EXPECT_EQ(*Infer(Opcode::kTriangularSolve, {T(F32, {3, 3}), T(F32, {3, 5})},
                   Solve(true, true, false, nt)),
            T(F32, {3, 5}));
  EXPECT_EQ(*Infer(Opcode::kTriangularSolve, {T(C64, {2, 4, 4}), T(C64, {2, 7, 4})},
                   Solve(false, false, true, TransposeKind::kAdjoint)),
            T(C64, {2, 7, 4}));
}

TEST(LinalgShapeInference, Rejections) {
  ExpectError(Infer(Opcode::kCholesky, {T(DType::kS32, {3, 3})}, Chol(true)),
              "cholesky: a must be a tensor of a floating-point or complex type, got tensor<3x3xi32>");
  ExpectError(Infer(Opcode::kCholesky, {T(F32, {3})}, Chol(true)),
              "cholesky: a must have rank >= 2");
  ExpectError(Infer(Opcode::kCholesky, {T(F32, {2, 3})}, Chol(true)),
              "cholesky: a must be a batch of square matrices");
  ExpectError(Infer(Opcode::kCholesky, {T(F32, {3, 3})}, Attributes()),
              "cholesky: takes CholeskyAttrs, got NoAttrs");
  const auto nt = TransposeKind::kNoTranspose;
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {3, 3}), T(F64, {3, 3})},
                    Solve(true, true, false, nt)),
              "triangular_solve: a and b must have the same element type");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {2, 3, 3}), T(F32, {3, 3})},
                    Solve(true, true, false, nt)),
              "triangular_solve: a and b must have the same rank");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {2, 3, 3}), T(F32, {4, 3, 3})},
                    Solve(true, true, false, nt)),
              "batch dimensions of a and b must be equal");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {3, 4}), T(F32, {3, 3})},
                    Solve(true, true, false, nt)),
              "triangular_solve: a must be a batch of square matrices");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {3, 3}), T(F32, {3, 2})},
                    Solve(false, true, false, nt)),
              "with left_side = false, the size of a's matrices (3) must equal b's columns (2)");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {3, 3}), T(F32, {2, 3})},
                    Solve(true, true, false, nt)),
              "must equal b's rows (2)");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(F32, {3, 3}), T(F32, {3, 3})},
                    Solve(true, true, false, TransposeKind::kTransposeInvalid)),
              "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  ExpectError(Infer(Opcode::kTriangularSolve, {T(DType::kS32, {3, 3}), T(DType::kS32, {3, 3})},
                    Solve(true, true, false, nt)),
              "floating-point or complex type");
}

TEST(LinalgText, GenericAndPrettyFormsRoundTrip) {
  const char* text = R"(%l = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
%u = "stablehlo.cholesky"(%l) : (tensor<3x3xf32>) -> tensor<3x3xf32>
%x = "stablehlo.triangular_solve"(%l, %u) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>)";
  auto parsed = ParseOps(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::string printed = PrintModule(*parsed->module);
  EXPECT_THAT(printed, HasSubstr("transpose_a = #stablehlo<transpose ADJOINT>"));
  EXPECT_THAT(printed, HasSubstr("lower = true"));
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
  const std::string pretty = PrintModule(*parsed->module, /*pretty=*/true);
  EXPECT_THAT(pretty, HasSubstr(", lower = true : tensor<3x3xf32>"));
  EXPECT_THAT(pretty, HasSubstr("stablehlo.cholesky %"));
  auto from_pretty = ParseModule(pretty);
  ASSERT_TRUE(from_pretty.ok()) << from_pretty.status() << "\n" << pretty;
  EXPECT_EQ(PrintModule(**from_pretty), printed);
  auto bad = ParseOps("%l = stablehlo.cholesky %a, lower = yes : tensor<3x3xf32>");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("expected true or false"));
}

// ------------------------------------------------------------ values

// A random Hermitian positive-definite batch: M M^H + n I.
Literal RandomSpd(DType t, const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  Literal m = RandomLiteral(Shape(t, dims), rng, /*special=*/false);
  Literal out(Shape(t, dims));
  const int64_t n = dims.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < dims.size(); ++i) batch *= dims[i];
  DispatchDType(t, [&](auto tag) {
    using V = typename decltype(tag)::type;
    if constexpr (is_complex_v<V> || std::is_floating_point_v<V>) {
      const V* a = m.data_as<V>();
      V* o = out.mutable_data_as<V>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            V s(0);
            for (int64_t k = 0; k < n; ++k) {
              V y = a[b * n * n + j * n + k];
              if constexpr (is_complex_v<V>) y = std::conj(y);
              s += a[b * n * n + i * n + k] * y;
            }
            if (i == j) s += V(n);
            o[b * n * n + i * n + j] = s;
          }
        }
      }
    }
  });
  return out;
}

TEST(LinalgReference, CholeskyReconstructs) {
  std::mt19937_64 rng(3);
  for (DType t : {F64, C128}) {
    for (bool lower : {true, false}) {
      Literal a = RandomSpd(t, {2, 4, 4}, rng);
      auto m = OneOpModule(Opcode::kCholesky, {a.shape()}, Chol(lower));
      ASSERT_TRUE(m.ok()) << m.status();
      auto r = RunOn("reference", **m, {a});
      ASSERT_TRUE(r.ok()) << r.status();
      DispatchDType(t, [&](auto tag) {
        using V = typename decltype(tag)::type;
        if constexpr (is_complex_v<V> || std::is_same_v<V, double>) {
          const V* l = (*r)[0].data_as<V>();
          const V* x = a.data_as<V>();
          auto conj = [](V v) {
            if constexpr (is_complex_v<V>) return std::conj(v); else return v;
          };
          for (int64_t b = 0; b < 2; ++b) {
            for (int64_t i = 0; i < 4; ++i) {
              for (int64_t j = 0; j < 4; ++j) {
                V s(0);  // lower: (L L^H)_ij; upper: (U^H U)_ij
                for (int64_t k = 0; k < 4; ++k) {
                  s += lower ? l[b * 16 + i * 4 + k] * conj(l[b * 16 + j * 4 + k])
                             : conj(l[b * 16 + k * 4 + i]) * l[b * 16 + k * 4 + j];
                }
                EXPECT_NEAR(std::abs(s - x[b * 16 + i * 4 + j]), 0.0, 1e-9);
                const bool outside = lower ? j > i : j < i;
                if (outside) EXPECT_EQ(l[b * 16 + i * 4 + j], V(0));
              }
            }
          }
        }
      });
    }
  }
}

TEST(LinalgCpu, CholeskyMatchesReference) {
  std::mt19937_64 rng(5);
  for (DType t : {F32, F64, C64, C128, DType::kF16}) {
    for (std::vector<int64_t> dims : std::vector<std::vector<int64_t>>{
             {1, 1}, {5, 5}, {3, 4, 4}, {2, 2, 6, 6}, {0, 3, 3}, {2, 0, 0}, {64, 8, 8},
             {150, 150}}) {
      for (bool lower : {true, false}) {
        auto m = OneOpModule(Opcode::kCholesky, {Shape(t, dims)}, Chol(lower));
        ASSERT_TRUE(m.ok()) << m.status();
        Literal a = t == DType::kF16 ? RandomLiteral(Shape(t, dims), rng, false)
                                     : RandomSpd(t, dims, rng);
        if (t == DType::kF16) {  // a small well-conditioned SPD matrix: the identity scaled
          DispatchDType(t, [&](auto tag) {
            using V = typename decltype(tag)::type;
            if constexpr (is_half_v<V>) {
              V* p = a.mutable_data_as<V>();
              const int64_t n = dims.back();
              for (int64_t i = 0; i < a.shape().num_elements(); ++i) {
                const int64_t r = (i / n) % n, c = i % n;
                p[i] = V(r == c ? 4.0f + static_cast<float>(r) : 0.25f);
              }
            }
          });
        }
        const double tol = t == F64 || t == C128 ? 1e-10 : t == DType::kF16 ? 5e-3 : 2e-4;
        EXPECT_TRUE(CrossCheck(**m, {a}, absl::StrCat("cholesky ", Shape(t, dims).ToString(),
                                                      " lower=", lower),
                               tol));
      }
    }
  }
}

TEST(LinalgCpu, CholeskyFailureIsNaN) {
  // [[1, 2], [2, 1]] is indefinite; the second matrix of the batch is fine.
  Literal a(Shape(F32, {2, 2, 2}));
  float* p = a.mutable_data_as<float>();
  const float values[] = {1, 2, 2, 1, 4, 2, 2, 5};
  std::copy(values, values + 8, p);
  for (bool lower : {true, false}) {
    auto m = OneOpModule(Opcode::kCholesky, {a.shape()}, Chol(lower));
    ASSERT_TRUE(m.ok());
    for (const char* backend : {"cpu", "reference"}) {
      auto r = RunOn(backend, **m, {a});
      ASSERT_TRUE(r.ok()) << r.status();
      const float* l = (*r)[0].data_as<float>();
      EXPECT_TRUE(std::isnan(l[0])) << backend;
      EXPECT_TRUE(std::isnan(l[3])) << backend;
      EXPECT_EQ(lower ? l[1] : l[2], 0.0f) << backend;  // outside the triangle
      EXPECT_TRUE(std::isnan(lower ? l[2] : l[1])) << backend;
      EXPECT_FLOAT_EQ(l[4], 2.0f) << backend;
      EXPECT_FLOAT_EQ(l[7], 2.0f) << backend;
      EXPECT_FLOAT_EQ(lower ? l[6] : l[5], 1.0f) << backend;
    }
  }
}

// A random well-conditioned triangular batch (both triangles random, the
// diagonal moved away from zero: the op reads only one triangle).
Literal RandomTriangular(DType t, const std::vector<int64_t>& dims, std::mt19937_64& rng) {
  Literal a = RandomLiteral(Shape(t, dims), rng, false);
  const int64_t n = dims.back();
  DispatchDType(t, [&](auto tag) {
    using V = typename decltype(tag)::type;
    if constexpr (is_complex_v<V> || std::is_floating_point_v<V> || is_half_v<V>) {
      V* p = a.mutable_data_as<V>();
      for (int64_t i = 0; i < a.shape().num_elements(); ++i) {
        const int64_t r = (i / n) % n, c = i % n;
        // Off-diagonal entries small: well-conditioned with a unit diagonal too.
        if (r == c) {
          p[i] = V(static_cast<float>(n) + 4.0f);
        } else {
          p[i] = V(p[i] * V(0.5f / static_cast<float>(n)));
        }
      }
    }
  });
  return a;
}

TEST(LinalgCpu, TriangularSolveMatchesReference) {
  std::mt19937_64 rng(7);
  struct Case {
    std::vector<int64_t> a, b;
    bool left;
  };
  const std::vector<Case> cases = {{{4, 4}, {4, 3}, true},     {{4, 4}, {3, 4}, false},
                                   {{2, 5, 5}, {2, 5, 1}, true}, {{2, 5, 5}, {2, 6, 5}, false},
                                   {{0, 3, 3}, {0, 3, 2}, true}, {{3, 3}, {3, 0}, true},
                                   {{0, 0}, {4, 0}, false},      {{40, 6, 6}, {40, 6, 6}, true},
                                   {{100, 100}, {100, 64}, true}};
  for (DType t : {F32, F64, C64, C128, DType::kBF16}) {
    for (const Case& c : cases) {
      for (bool lower : {true, false}) {
        for (bool unit : {false, true}) {
          for (TransposeKind tr : {TransposeKind::kNoTranspose, TransposeKind::kTranspose,
                                   TransposeKind::kAdjoint}) {
            auto m = OneOpModule(Opcode::kTriangularSolve, {Shape(t, c.a), Shape(t, c.b)},
                                 Solve(c.left, lower, unit, tr));
            ASSERT_TRUE(m.ok()) << m.status();
            std::vector<Literal> args;
            args.push_back(RandomTriangular(t, c.a, rng));
            args.push_back(RandomLiteral(Shape(t, c.b), rng, false));
            const double tol = t == F64 || t == C128 ? 1e-10 : t == DType::kBF16 ? 3e-2 : 2e-4;
            EXPECT_TRUE(CrossCheck(
                **m, args,
                absl::StrCat("triangular_solve ", Shape(t, c.a).ToString(), " ",
                             Shape(t, c.b).ToString(), " left=", c.left, " lower=", lower,
                             " unit=", unit, " ", EnumName(tr)),
                tol));
          }
        }
      }
    }
  }
}

// The spec's cholesky example with its result typed as its operand (the
// spec types it f64: a defect, listed in conformance_test.cc).
TEST(LinalgCpu, SpecCholeskyExampleWithCorrectedType) {
  auto parsed = ParseOps(R"(%result = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>)");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  Literal a(Shape(F32, {3, 3}));
  const float in[] = {1, 2, 3, 2, 20, 26, 3, 26, 70};
  std::copy(in, in + 9, a.mutable_data_as<float>());
  const float want[] = {1, 0, 0, 2, 4, 0, 3, 5, 6};
  for (const char* backend : {"cpu", "reference"}) {
    auto r = RunOn(backend, *parsed->module, {a});
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < 9; ++i) EXPECT_NEAR((*r)[0].data_as<float>()[i], want[i], 1e-5) << backend;
  }
}

TEST(LinalgCpu, UnsupportedTypeIsAnError) {
  // Shape inference rejects integers; the cpu lowering names its own limits.
  auto m = OneOpModule(Opcode::kCholesky, {Shape(DType::kS32, {2, 2})}, Chol(true));
  EXPECT_FALSE(m.ok());
}

// The condensed-form targets run their LAPACK call with the calling
// thread's OpenMP team set to one (what OpenBLAS's OpenMP build follows),
// and the setting comes back afterwards; the others keep the team.
TEST(LapackThreads, OneThreadForCondensedFormsThenRestored) {
  const int team = omp_get_max_threads();
  std::vector<int> seen;
  lapack::ForEachMatrix(2, 512 * 512, [&](int64_t) { seen.push_back(omp_get_max_threads()); },
                        lapack::BlasThreads::kOne);
  lapack::ForEachMatrix(1, 512 * 512, [&](int64_t) { seen.push_back(omp_get_max_threads()); });
  EXPECT_EQ(seen, (std::vector<int>{1, 1, team}));
  EXPECT_EQ(omp_get_max_threads(), team);
}

}  // namespace
}  // namespace xjit::cpu::testing
