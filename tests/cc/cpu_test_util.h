// Helpers for the cpu backend tests: build one-op (or small) modules, run
// them on "cpu" and "reference" with the same random inputs, and compare
// (exactly for integers and pred, with a tolerance for floats).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/literal.h"
#include "xjit/runtime/backend.h"

namespace xjit::cpu::testing {

inline constexpr DType kAllDTypes[] = {
    DType::kPred, DType::kS8,  DType::kS16, DType::kS32,  DType::kS64,
    DType::kU8,   DType::kU16, DType::kU32, DType::kU64,  DType::kF16,
    DType::kBF16, DType::kF32, DType::kF64, DType::kC64,  DType::kC128};

// Random values that hit the interesting cases: small ints around zero plus
// the extremes; floats in [-4, 4] plus some 0, -0, +-inf and NaN when `special`.
inline Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, bool special = true) {
  Literal l(shape);
  std::uniform_int_distribution<int> small(-20, 20), pick(0, 99);
  std::uniform_real_distribution<double> real(-4.0, 4.0);
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = l.mutable_data_as<T>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      int k = pick(rng);
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = k < 50;
      } else if constexpr (std::is_integral_v<T>) {
        if (special && k == 0) p[i] = std::numeric_limits<T>::min();
        else if (special && k == 1) p[i] = std::numeric_limits<T>::max();
        else if (special && k == 2) p[i] = T(0);
        else if (special && k == 3) p[i] = T(-1);
        else p[i] = static_cast<T>(small(rng));
      } else {
        auto value = [&]() -> double {
          if (!special || k > 5) return real(rng);
          double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0.5};
          return specials[k];
        };
        if constexpr (is_complex_v<T>) {
          p[i] = T(real(rng), real(rng));
          if (special && k == 0) p[i] = T(0, 0);
        } else if constexpr (is_half_v<T>) {
          p[i] = T(static_cast<float>(value()));
        } else {
          p[i] = static_cast<T>(value());
        }
      }
    }
  });
  return l;
}

using xjit::testing::RunOn;

inline double DefaultTolerance(DType t) {
  switch (t) {
    case DType::kF16: return 2e-3;
    case DType::kBF16: return 1.6e-2;
    case DType::kF32: case DType::kC64: return 2e-5;
    case DType::kF64: case DType::kC128: return 1e-12;
    default: return 0;
  }
}

inline bool Close(double a, double b, double tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= tol * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

// Exact for integers/pred (and bit-exact -0 vs 0 is not required for floats).
inline void ExpectLiteralsMatch(const Literal& got, const Literal& want, double tol,
                                const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  int failures = 0;
  DispatchDType(got.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* g = got.data_as<T>();
    const T* w = want.data_as<T>();
    for (int64_t i = 0; i < got.shape().num_elements() && failures < 5; ++i) {
      bool ok;
      if constexpr (is_complex_v<T>) {
        ok = Close(g[i].real(), w[i].real(), tol) && Close(g[i].imag(), w[i].imag(), tol);
      } else if constexpr (is_half_v<T> || std::is_floating_point_v<T>) {
        ok = Close(static_cast<double>(static_cast<float>(g[i])), static_cast<double>(static_cast<float>(w[i])), tol);
        if constexpr (std::is_same_v<T, double>) ok = Close(g[i], w[i], tol);
      } else {
        ok = g[i] == w[i];
      }
      if (!ok) {
        ++failures;
        ADD_FAILURE() << what << ": element " << i << " cpu=" << got.ElementToString(i)
                      << " reference=" << want.ElementToString(i);
      }
    }
  });
}

// Runs on both backends; true when compared. Returns false (no failure) when
// the reference rejects the module too, so loops over dtypes can probe.
inline bool CrossCheck(const Module& module, const std::vector<Literal>& args, const std::string& what,
                       double tol = -1) {
  auto want = RunOn("reference", module, args);
  auto got = RunOn("cpu", module, args);
  if (!want.ok()) {
    return false;
  }
  EXPECT_TRUE(got.ok()) << what << ": " << got.status();
  if (!got.ok()) return false;
  for (size_t i = 0; i < want->size(); ++i) {
    double t = tol >= 0 ? tol : DefaultTolerance((*want)[i].shape().dtype);
    ExpectLiteralsMatch((*got)[i], (*want)[i], t, what + " result " + std::to_string(i));
  }
  return true;
}

// A module whose entry takes `params` and applies one op to all of them.
// `result_type` for an op that declares one (reshape, broadcast_in_dim, convert).
inline absl::StatusOr<std::unique_ptr<Module>> OneOpModule(Opcode op, const std::vector<Shape>& params,
                                                           Attributes attrs = {},
                                                           std::vector<Computation*> called = {},
                                                           std::optional<Shape> result_type = {}) {
  ModuleBuilder mb("one_op");
  ComputationBuilder* main = mb.NewComputation("main");
  std::vector<Instruction*> operands;
  for (const Shape& s : params) operands.push_back(main->Parameter(s));
  auto r = result_type ? main->AddWithResultType(op, *result_type, operands, std::move(attrs),
                                                 std::move(called))
                       : main->Add(op, operands, std::move(attrs), std::move(called));
  if (!r.ok()) return r.status();
  auto entry = main->Finish({*r});
  if (!entry.ok()) return entry.status();
  return mb.Build(*entry);
}

inline std::vector<Literal> RandomArgs(const Module& m, std::mt19937_64& rng, bool special = true) {
  std::vector<Literal> args;
  for (const Shape& s : m.ParameterShapes()) args.push_back(RandomLiteral(s, rng, special));
  return args;
}

// The fusion options the cpu backend passes: row and column fusion where its
// typed reduce kernels exist.
inline passes::FusionOptions CpuFusionOptions() {
  passes::FusionOptions options;
  options.row_reduce = [](const Instruction& r) { return GetRowReduceKernel(r) != nullptr; };
  options.column_reduce = [](const Instruction& r) { return GetColumnReduceKernel(r) != nullptr; };
  return options;
}

// A fused module computes what its original does: the original on the
// reference backend against the fused one on the reference backend (its
// regions evaluated as callees) and on cpu, on random arguments from `seed`.
inline void ExpectFusedMatchesOriginal(const Module& original, const Module& fused,
                                       double tolerance, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (const Shape& s : original.ParameterShapes()) args.push_back(RandomLiteral(s, rng, false));
  auto want = RunOn("reference", original, args);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const std::string platform : {"reference", "cpu"}) {
    auto got = RunOn(platform, fused, args);
    ASSERT_TRUE(got.ok()) << platform << ": " << got.status();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size(); ++i) {
      ExpectLiteralsMatch((*got)[i], (*want)[i], tolerance,
                          platform + " result " + std::to_string(i));
    }
  }
}

}  // namespace xjit::cpu::testing
