// Helpers for the transforms' tests: a function is built with the
// ComputationBuilder from a lambda, transformed, and the transformed
// computations are run on the reference backend next to the original:
//   - JVP against central finite differences (f64, so they are accurate),
//   - VJP against JVP: <vjp(ct), t> == <ct, jvp(t)>,
//   - vmap against running the function once per batch element.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/transforms/batching.h"
#include "xjit/transforms/emitter.h"
#include "xjit/transforms/jvp.h"
#include "xjit/transforms/transpose.h"

namespace xjit::testing {

using transforms::Emitter;
using BuildFn = std::function<std::vector<Instruction*>(Emitter& e, std::vector<Instruction*> p)>;

struct FnCase {
  std::vector<Shape> params;
  BuildFn build;
  double lo = -1.5, hi = 1.5;  // the inputs' range (floats)
};

// f built in `mb` as computation `name`.
inline Computation* BuildFunction(ModuleBuilder& mb, const FnCase& c, const std::string& name) {
  ComputationBuilder* cb = mb.NewComputation(name);
  std::vector<Instruction*> params;
  for (const Shape& s : c.params) params.push_back(cb->Parameter(s));
  Emitter e(mb, *cb);
  std::vector<Instruction*> results = c.build(e, params);
  for (Instruction* r : results) {
    if (r == nullptr) {
      ADD_FAILURE() << "building the function failed";
      return nullptr;
    }
  }
  absl::StatusOr<Computation*> f = cb->Finish(results);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : nullptr;
}

// Deterministic values in [lo, hi] (integers: 0..4).
inline Literal Values(const Shape& s, int seed, double lo, double hi) {
  Literal lit(s);
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  DispatchDType(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>();
    for (int64_t i = 0; i < s.num_elements(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      double u = static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
      if constexpr (std::is_same_v<T, bool>) {
        out[i] = u > 0.5;
      } else if constexpr (is_half_v<T>) {
        out[i] = T(static_cast<float>(lo + (hi - lo) * u));
      } else if constexpr (is_complex_v<T>) {
        out[i] = T(lo + (hi - lo) * u, 0);
      } else if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(lo + (hi - lo) * u);
      } else {
        out[i] = static_cast<T>(static_cast<int>(u * 5));
      }
    }
  });
  return lit;
}

inline std::vector<double> AsDoubles(const Literal& l) {
  std::vector<double> out;
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      const T* p = l.data_as<T>();
      for (int64_t i = 0; i < l.shape().num_elements(); ++i) out.push_back(double(float(p[i])));
      if constexpr (std::is_same_v<T, double>) {
        for (int64_t i = 0; i < l.shape().num_elements(); ++i) out[i] = p[i];
      }
    }
  });
  return out;
}

inline Literal FromDoubles(const Shape& s, const std::vector<double>& v) {
  Literal lit(s);
  DispatchDType(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      T* p = lit.mutable_data_as<T>();
      for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(static_cast<float>(v[i]));
      if constexpr (std::is_same_v<T, double>) {
        for (size_t i = 0; i < v.size(); ++i) p[i] = v[i];
      }
    }
  });
  return lit;
}

// Appends a call of `callee` and returns its results one by one.
inline std::vector<Instruction*> CallParts(ComputationBuilder& b, Computation* callee,
                                           std::vector<Instruction*> operands) {
  absl::StatusOr<Instruction*> call = b.Add(Opcode::kCall, std::move(operands), {}, {callee});
  EXPECT_TRUE(call.ok()) << call.status();
  if (!call.ok()) return {};
  if (!(*call)->shape().is_tuple) return {*call};
  std::vector<Instruction*> parts;
  for (size_t i = 0; i < (*call)->shape().tuple_shapes.size(); ++i) {
    GetTupleElementAttrs a;
    a.index = static_cast<int64_t>(i);
    parts.push_back(*b.Add(Opcode::kGetTupleElement, {*call}, a));
  }
  return parts;
}

// JVP against finite differences and VJP against JVP, all float parameters
// differentiated.
inline void CheckDerivatives(const FnCase& c, double tol = 1e-5, double eps = 1e-6) {
  ModuleBuilder mb("check");
  Computation* f = BuildFunction(mb, c, "f");
  ASSERT_NE(f, nullptr);
  std::vector<bool> wants;
  for (const Shape& s : c.params) wants.push_back(transforms::IsDifferentiable(s.dtype));
  absl::StatusOr<transforms::JvpResult> jvp = transforms::Jvp(*f, wants, mb, "f_jvp");
  ASSERT_TRUE(jvp.ok()) << jvp.status();
  absl::StatusOr<transforms::VjpResult> vjp = transforms::Vjp(*f, wants, mb, "f_vjp");
  ASSERT_TRUE(vjp.ok()) << vjp.status();

  // check(x..., t..., ct..., x+eps t..., x-eps t...) ->
  //   (jvp tangents..., vjp cotangents..., f(x+)..., f(x-)...)
  ComputationBuilder* cb = mb.NewComputation("main");
  std::vector<Instruction*> x, t, ct, xp, xm;
  for (const Shape& s : c.params) x.push_back(cb->Parameter(s));
  std::vector<Shape> tshapes;
  for (size_t i = 0; i < c.params.size(); ++i) {
    if (wants[i]) tshapes.push_back(c.params[i]);
  }
  for (const Shape& s : tshapes) t.push_back(cb->Parameter(s));
  std::vector<Shape> ctshapes;
  for (size_t i = 0; i < f->results().size(); ++i) {
    if (jvp->result_has_tangent[i]) ctshapes.push_back(f->results()[i]->shape());
  }
  for (const Shape& s : ctshapes) ct.push_back(cb->Parameter(s));
  for (const Shape& s : c.params) xp.push_back(cb->Parameter(s));
  for (const Shape& s : c.params) xm.push_back(cb->Parameter(s));
  std::vector<Instruction*> jargs = x;
  jargs.insert(jargs.end(), t.begin(), t.end());
  std::vector<Instruction*> jout = CallParts(*cb, jvp->computation, jargs);
  std::vector<Instruction*> fout = CallParts(*cb, vjp->forward, x);
  size_t nres = f->results().size();
  std::vector<Instruction*> bargs(fout.begin() + nres, fout.end());
  bargs.insert(bargs.end(), ct.begin(), ct.end());
  std::vector<Instruction*> bout = CallParts(*cb, vjp->backward, bargs);
  std::vector<Instruction*> outs(jout.begin() + nres, jout.end());
  outs.insert(outs.end(), bout.begin(), bout.end());
  for (Instruction* v : CallParts(*cb, f, xp)) outs.push_back(v);
  for (Instruction* v : CallParts(*cb, f, xm)) outs.push_back(v);
  absl::StatusOr<Computation*> main = cb->Finish(outs);
  ASSERT_TRUE(main.ok()) << main.status();
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(*main);
  ASSERT_TRUE(module.ok()) << module.status();


  std::vector<Literal> args;
  std::vector<Literal> xs, ts;
  for (size_t i = 0; i < c.params.size(); ++i) xs.push_back(Values(c.params[i], i, c.lo, c.hi));
  for (size_t i = 0; i < tshapes.size(); ++i) ts.push_back(Values(tshapes[i], 100 + i, -1, 1));
  for (const Literal& l : xs) args.push_back(l);
  for (const Literal& l : ts) args.push_back(l);
  std::vector<Literal> cts;
  for (size_t i = 0; i < ctshapes.size(); ++i) cts.push_back(Values(ctshapes[i], 200 + i, -1, 1));
  for (const Literal& l : cts) args.push_back(l);
  for (int sign : {1, -1}) {
    size_t k = 0;
    for (size_t i = 0; i < c.params.size(); ++i) {
      if (!wants[i]) {
        args.push_back(xs[i]);
        continue;
      }
      std::vector<double> xv = AsDoubles(xs[i]), tv = AsDoubles(ts[k++]);
      for (size_t j = 0; j < xv.size(); ++j) xv[j] += sign * eps * tv[j];
      args.push_back(FromDoubles(c.params[i], xv));
    }
  }
  absl::StatusOr<std::vector<Literal>> got = RunOn("reference", **module, args);
  ASSERT_TRUE(got.ok()) << got.status() << "\n" << PrintModule(**module);
  size_t nct = ctshapes.size(), nt = tshapes.size();
  // JVP vs finite differences.
  double lhs = 0, rhs = 0;
  for (size_t i = 0, k = 0; i < nres; ++i) {
    if (!jvp->result_has_tangent[i]) continue;
    std::vector<double> tan = AsDoubles((*got)[k]);
    std::vector<double> plus = AsDoubles((*got)[nct + nt + i]);
    std::vector<double> minus = AsDoubles((*got)[nct + nt + nres + i]);
    std::vector<double> cv = AsDoubles(cts[k]);
    for (size_t j = 0; j < tan.size(); ++j) {
      double fd = (plus[j] - minus[j]) / (2 * eps);
      EXPECT_NEAR(tan[j], fd, tol * (1 + std::abs(fd))) << "result " << i << " element " << j;
      rhs += cv[j] * tan[j];
    }
    ++k;
  }
  // VJP vs JVP.
  for (size_t i = 0; i < nt; ++i) {
    std::vector<double> cv = AsDoubles((*got)[nct + i]);
    std::vector<double> tv = AsDoubles(ts[i]);
    for (size_t j = 0; j < tv.size(); ++j) lhs += cv[j] * tv[j];
  }
  // f32 intermediates round differently in the two computations.
  EXPECT_NEAR(lhs, rhs, std::max(1e-9, tol * 1e-3) * (1 + std::abs(rhs)))
      << "<vjp(ct), t> != <ct, jvp(t)>";
}

// A literal's slice `lane` along dimension 0.
inline Literal Lane(const Literal& l, int64_t lane) {
  Shape s = l.shape();
  int64_t n = s.dims[0];
  s.dims.erase(s.dims.begin());
  Literal out(s);
  int64_t bytes = l.size_bytes() / n;
  std::memcpy(out.mutable_data(), l.data() + lane * bytes, bytes);
  return out;
}

// vmap over dimension 0 of every parameter (or none where `mapped` is false)
// against a loop over the batch.
inline void CheckBatching(const FnCase& c, std::vector<bool> mapped = {}, int64_t batch = 3) {
  if (mapped.empty()) mapped.assign(c.params.size(), true);
  ModuleBuilder mb("vmap");
  Computation* f = BuildFunction(mb, c, "f");
  ASSERT_NE(f, nullptr);
  std::vector<int64_t> in_axes;
  for (bool m : mapped) in_axes.push_back(m ? 0 : transforms::kNotMapped);
  std::vector<int64_t> out_axes(f->results().size(), 0);
  absl::StatusOr<Computation*> v = transforms::Vmap(*f, in_axes, batch, out_axes, mb, "f_vmap");
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<std::unique_ptr<Module>> batched = mb.Build(*v);
  ASSERT_TRUE(batched.ok()) << batched.status();
  ModuleBuilder mb2("once");
  Computation* g = BuildFunction(mb2, c, "main");
  ASSERT_NE(g, nullptr);
  absl::StatusOr<std::unique_ptr<Module>> once = mb2.Build(g);
  ASSERT_TRUE(once.ok()) << once.status();

  std::vector<Literal> args;
  for (size_t i = 0; i < c.params.size(); ++i) {
    Shape s = c.params[i];
    if (mapped[i]) s.dims.insert(s.dims.begin(), batch);
    args.push_back(Values(s, i, c.lo, c.hi));
  }
  absl::StatusOr<std::vector<Literal>> got = RunOn("reference", **batched, args);
  ASSERT_TRUE(got.ok()) << got.status() << "\n" << PrintModule(**batched);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Literal> lane_args;
    for (size_t i = 0; i < args.size(); ++i) {
      lane_args.push_back(mapped[i] ? Lane(args[i], b) : args[i]);
    }
    absl::StatusOr<std::vector<Literal>> want = RunOn("reference", **once, lane_args);
    ASSERT_TRUE(want.ok()) << want.status();
    for (size_t r = 0; r < want->size(); ++r) {
      EXPECT_EQ(Lane((*got)[r], b), (*want)[r])
          << "result " << r << " lane " << b << ": " << Lane((*got)[r], b).ToString() << " vs "
          << (*want)[r].ToString();
    }
  }
}

}  // namespace xjit::testing
