// What the tests of the generated kernels (cpu/jit_fusion.h, cpu/jit_row.h)
// share: inputs with every special value the kernels branch on, runs with
// and without the generators, bit-for-bit comparison with the interpreter
// and comparison with the reference backend, and StableHLO module text.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/ir/half.h"
#include "xjit/text/parser.h"

namespace xjit::testing {

// Inputs that hit every special case the kernels branch on.
// (Row fusions: rows holding NaN, infinities, overflowing exp, -0.)
// `one_in`: one element in that many (on average) is special, a quarter of
// the rest anywhere in [-110, 110], the others in [-3, 3]; with one in 8, most
// vectors hold a lane the generated exp and tanh leave to their cold paths,
// with one in 200 most do not.
inline Literal SpecialInput(int64_t n, uint64_t seed, int one_in = 8) {
  Literal lit(Shape(DType::kF32, {n}));
  float* x = reinterpret_cast<float*>(lit.mutable_data());
  std::mt19937_64 rng(seed);
  const float specials[] = {0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY, 88.72f, 88.73f,
                            89.0f, -103.9f, -104.0f, -120.0f, 7.9053f, 7.906f, -7.906f,
                            0.0004f, -0.0004f, 0.00039f, 1e-30f, -1e-30f, 1e-40f, 3.0f, -3.0f};
  std::uniform_real_distribution<float> wide(-110.0f, 110.0f), narrow(-3.0f, 3.0f);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = rng() % one_in;
    if (k == 0) {
      x[i] = specials[rng() % (sizeof(specials) / sizeof(float))];
    } else if (k <= static_cast<uint64_t>(one_in / 4)) {
      x[i] = wide(rng);
    } else {
      x[i] = narrow(rng);
    }
  }
  return lit;
}


// The same special values as `dtype` (float32, bfloat16 or float16; the
// 16-bit types also get NaNs with payloads, signalling ones among them, one
// in 64); random bools for pred.
inline Literal SpecialInputOf(const Shape& shape, uint64_t seed, int one_in = 8) {
  if (shape.dtype == DType::kPred) {  // bools: bytes of 0 or 1
    Literal lit(shape);
    std::mt19937_64 rng(seed);
    for (int64_t i = 0; i < shape.num_elements(); ++i) lit.mutable_data()[i] = rng() % 2;
    return lit;
  }
  if (shape.dtype == DType::kS32 || shape.dtype == DType::kU32) {
    // 32-bit integers: the extremes, zero, +-1 and small divisors one in
    // `one_in`, otherwise of every size.
    Literal lit(shape);
    std::mt19937_64 rng(seed);
    const int32_t special[] = {0, 1, -1, 2, -2, 7, -7, 31, 32, 33, INT32_MIN, INT32_MAX,
                               INT32_MIN + 1};
    int32_t* v = reinterpret_cast<int32_t*>(lit.mutable_data());
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      if (rng() % one_in == 0) {
        v[i] = special[rng() % (sizeof(special) / sizeof(special[0]))];
      } else {
        v[i] = static_cast<int32_t>(rng() >> (32 + rng() % 32));
      }
    }
    return lit;
  }
  Literal f32 = SpecialInput(shape.num_elements(), seed, one_in);
  if (shape.dtype == DType::kF32) return Literal(shape, f32.data());
  Literal lit(shape);
  const float* x = reinterpret_cast<const float*>(f32.data());
  uint16_t* h = reinterpret_cast<uint16_t*>(lit.mutable_data());
  const bool is_f16 = shape.dtype == DType::kF16;
  const uint16_t bf16_nans[] = {0x7f81, 0xffc1, 0x7fff, 0xffff};
  const uint16_t f16_nans[] = {0x7c01, 0xfe01, 0x7fff, 0xffff};
  std::mt19937_64 rng(seed + 1000);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    if (rng() % 64 == 0) {
      h[i] = (is_f16 ? f16_nans : bf16_nans)[rng() % 4];
    } else {
      h[i] = is_f16 ? f16(x[i]).bits : bf16(x[i]).bits;
    }
  }
  return lit;
}

inline std::vector<Literal> Run(const Module& m, const std::vector<Literal>& args, bool jit,
                                int64_t* kernels = nullptr) {
  cpu::SetFusionJitEnabled(jit);
  const int64_t before = cpu::NumJitFusionKernels();
  auto out = RunOn("cpu", m, args);
  if (kernels != nullptr) *kernels = cpu::NumJitFusionKernels() - before;
  cpu::SetFusionJitEnabled(true);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<Literal>{};
}

// Bit for bit (float32, bfloat16 or float16), but for NaN payloads; other
// types (masks, integers) byte for byte.
inline void ExpectSameBits(const Literal& a, const Literal& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape());
  const DType t = a.shape().dtype;
  if (t != DType::kF32 && t != DType::kF16 && t != DType::kBF16) {
    const int64_t width = ByteWidth(t);
    for (int64_t i = 0; i < a.shape().num_elements(); ++i) {
      ASSERT_EQ(std::memcmp(a.data() + i * width, b.data() + i * width, width), 0)
          << what << " element " << i;
    }
    return;
  }
  auto value = [t](const Literal& l, int64_t i) -> float {
    if (t == DType::kF32) return reinterpret_cast<const float*>(l.data())[i];
    const uint16_t h = reinterpret_cast<const uint16_t*>(l.data())[i];
    if (t == DType::kF16) return f16::ToFloat(h);
    return BitsToFloat(uint32_t{h} << 16);
  };
  auto bits = [t](const Literal& l, int64_t i) -> uint32_t {
    if (t == DType::kF32) return reinterpret_cast<const uint32_t*>(l.data())[i];
    return reinterpret_cast<const uint16_t*>(l.data())[i];
  };
  for (int64_t i = 0; i < a.shape().num_elements(); ++i) {
    const float fx = value(a, i), fy = value(b, i);
    if (std::isnan(fx) && std::isnan(fy)) continue;  // NaN payloads may differ
    ASSERT_EQ(bits(a, i), bits(b, i)) << what << " element " << i << ": " << fx << " vs " << fy;
  }
}

// A module of two `type`[n] inputs whose body is `body` (it may use %x, %y and

// The text of a float32 tensor type of these dims: tensor<4x8xf32>.
inline std::string F32Tensor(const std::vector<int64_t>& dims) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + "f32>";
}
// the splats %half and %ten) returning `results` (of that type).
inline std::string Module2(int64_t n, const std::string& body, const std::string& results,
                           int num_results, const std::string& type = "f32") {
  const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
  const std::string scalar = "tensor<" + type + ">";
  std::string types;
  for (int i = 0; i < num_results; ++i) types += (i ? ", " : "") + t;
  return "func.func @main(%x: " + t + ", %y: " + t + ") -> (" + types + ") {\n" +
         "  %h = stablehlo.constant dense<0.5> : " + scalar + "\n" +
         "  %half = stablehlo.broadcast_in_dim %h, dims = [] : (" + scalar + ") -> " + t + "\n" +
         "  %tn = stablehlo.constant dense<10.0> : " + scalar + "\n" +
         "  %ten = stablehlo.broadcast_in_dim %tn, dims = [] : (" + scalar + ") -> " + t + "\n" +
         body + "  return " + results + " : " + types + "\n}";
}

// The element-wise generators this CPU runs: the widest, and AVX2 too on a
// CPU with AVX-512 (jit_fusion.h: SetFusionJitIsa).
inline std::vector<cpu::JitIsa> GeneratorsToTest() {
  std::vector<cpu::JitIsa> isas = {cpu::JitIsa::kAuto};
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    isas.push_back(cpu::JitIsa::kAvx2);
  }
  return isas;
}

inline bool HasJitIsa() {
  return __builtin_cpu_supports("avx512f") ||
         (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

// CheckModule's checks of `m` on `args` with one generator, `isa`: the same
// bits as `interpreted` (the interpreter's results), `want_kernels` kernels
// generated, and the reference backend's values (`reference`) within
// `tolerance`.
inline void CheckGenerated(const Module& m, const std::vector<Literal>& args, cpu::JitIsa isa,
                           const std::vector<Literal>& interpreted,
                           const std::vector<Literal>& reference, double tolerance,
                           int64_t want_kernels) {
  // The generators emit AVX-512 or AVX2 with FMA; other CPUs run the
  // interpreter, which the comparisons still check.
  if (!HasJitIsa()) want_kernels = 0;
  const std::string which = isa == cpu::JitIsa::kAvx2 ? "AVX2, " : "";
  cpu::SetFusionJitIsa(isa);
  int64_t kernels = 0;
  std::vector<Literal> jit = Run(m, args, true, &kernels);
  cpu::SetFusionJitIsa(cpu::JitIsa::kAuto);
  EXPECT_EQ(kernels, want_kernels) << which << "generated kernels";
  ASSERT_EQ(jit.size(), interpreted.size());
  for (size_t i = 0; i < jit.size(); ++i) {
    ExpectSameBits(jit[i], interpreted[i], which + "result " + std::to_string(i));
    cpu::testing::ExpectLiteralsMatch(jit[i], reference[i], tolerance,
                                      which + "reference, result " + std::to_string(i));
  }
}

// CheckGenerated for `text` on `args` with the generators `isas`.
inline void CheckModuleWith(const std::string& text, const std::vector<Literal>& args,
                            const std::vector<cpu::JitIsa>& isas, double tolerance,
                            int64_t want_kernels) {
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  std::vector<Literal> interpreted = Run(**m, args, false);
  auto reference = RunOn("reference", **m, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (cpu::JitIsa isa : isas) {
    CheckGenerated(**m, args, isa, interpreted, *reference, tolerance, want_kernels);
  }
}

// Runs `text` on special inputs with the generators (each of
// GeneratorsToTest) and without: the same bits, `want_kernels` kernels
// generated, and the reference backend's values within `tolerance`.
inline void CheckModule(const std::string& text, double tolerance, int64_t want_kernels = 1,
                        int special_one_in = 8) {
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  std::vector<Literal> args;
  for (const Shape& s : (*m)->ParameterShapes()) {
    args.push_back(SpecialInputOf(s, args.size() + 3, special_one_in));
  }
  CheckModuleWith(text, args, GeneratorsToTest(), tolerance, want_kernels);
}

// CheckModule's checks where only the AVX-512 generator takes the region (a
// row tail, bool inputs): one kernel from it, none from AVX2 (interpreted).
inline void CheckModuleAvx512Only(const std::string& text, double tolerance) {
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  std::vector<Literal> args;
  for (const Shape& s : (*m)->ParameterShapes()) {
    args.push_back(SpecialInputOf(s, args.size() + 3, 8));
  }
  for (cpu::JitIsa isa : GeneratorsToTest()) {
    const bool avx512 = isa == cpu::JitIsa::kAuto && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw");
    CheckModuleWith(text, args, {isa}, tolerance, avx512 ? 1 : 0);
  }
}

// CheckModule's checks on the inputs `args` with one generator, `isa`.
inline void CheckModuleOn(const std::string& text, const std::vector<Literal>& args,
                          cpu::JitIsa isa, double tolerance, int64_t want_kernels = 1) {
  CheckModuleWith(text, args, {isa}, tolerance, want_kernels);
}

inline std::string Op(const std::string& name, const std::string& dst,
                      const std::string& operands, int64_t n, const std::string& type = "f32") {
  return "  %" + dst + " = stablehlo." + name + " " + operands + " : tensor<" +
         std::to_string(n) + "x" + type + ">\n";
}

// A row fusion over rows x cols float32 (the passes fuse the whole body:
// passes/elementwise_fusion.h) with `body` reading %x and %g (one row's
// worth, broadcast to every row) and the scalars %zero, %ninf, %inf, %one.
// `type`: the element type of %x and %g.
inline std::string RowModule(int64_t rows, int64_t cols, const std::string& body,
                             const std::string& results, const std::string& result_types,
                             const std::string& type = "f32") {
  const std::string c = std::to_string(cols);
  return "func.func @main(%x: tensor<" + std::to_string(rows) + "x" + c + "x" + type +
         ">, %g: tensor<" + c + "x" + type + ">) -> (" + result_types + ") {\n"
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>\n" +
         body + "  return " + results + " : " + result_types + "\n}";
}

// One line of a row module: `name` = op over the whole rows (T) or per row (R).
// `type`: its element type and its operands' (a convert, whose types
// differ, is written out whole).
inline std::string RowOp(const std::string& dst, const std::string& text, int64_t rows,
                         int64_t cols, bool per_row = false, const std::string& type = "f32") {
  const std::string t = per_row ? "tensor<" + std::to_string(rows) + "x" + type + ">"
                                : "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) +
                                      "x" + type + ">";
  return "  %" + dst + " = " + text + " : " + t + "\n";
}

inline std::string RowReduce(const std::string& dst, const std::string& in, const std::string& init,
                      const std::string& op, int64_t rows, int64_t cols) {
  const std::string r = std::to_string(rows);
  return "  %" + dst + " = stablehlo.reduce(%" + in + " init: %" + init + ") applies stablehlo." +
         op + " across dimensions = [1] : (tensor<" + r + "x" + std::to_string(cols) +
         "xf32>, tensor<f32>) -> tensor<" + r + "xf32>\n";
}

inline std::string RowBroadcast(const std::string& dst, const std::string& in, int64_t rows,
                         int64_t cols) {
  const std::string r = std::to_string(rows);
  return "  %" + dst + " = stablehlo.broadcast_in_dim %" + in + ", dims = [0] : (tensor<" + r +
         "xf32>) -> tensor<" + r + "x" + std::to_string(cols) + "xf32>\n";
}

// Softmax of the float32 rows %`in` (max, exp and sum, divide: three loops):
// %m the row maxima, %y the result.
inline std::string SoftmaxRows(const std::string& in, int64_t rows, int64_t cols) {
  return RowReduce("m", in, "ninf", "maximum", rows, cols) + RowBroadcast("mb", "m", rows, cols) +
         RowOp("d", "stablehlo.subtract %" + in + ", %mb", rows, cols) +
         RowOp("e", "stablehlo.exponential %d", rows, cols) +
         RowReduce("s", "e", "zero", "add", rows, cols) + RowBroadcast("sb", "s", rows, cols) +
         RowOp("y", "stablehlo.divide %e, %sb", rows, cols);
}

// Layer norm's statistics of the float32 rows %`in` (both sums in one loop,
// per-row ops after it; a row length of 96): %mean, %rs (1/sqrt(variance)),
// and %d, the rows minus their mean, %rb the broadcast %rs.
inline std::string LayerNormRows(const std::string& in, int64_t rows, int64_t cols) {
  const std::string r = std::to_string(rows);
  return RowReduce("s", in, "zero", "add", rows, cols) +
         RowOp("sq", "stablehlo.multiply %" + in + ", %" + in, rows, cols) +
         RowReduce("s2", "sq", "zero", "add", rows, cols) +
         "  %n = stablehlo.constant dense<96.0> : tensor<" + r + "xf32>\n" +
         RowOp("mean", "stablehlo.divide %s, %n", rows, cols, true) +
         RowOp("ex2", "stablehlo.divide %s2, %n", rows, cols, true) +
         RowOp("m2", "stablehlo.multiply %mean, %mean", rows, cols, true) +
         RowOp("var", "stablehlo.subtract %ex2, %m2", rows, cols, true) +
         RowOp("rs", "stablehlo.rsqrt %var", rows, cols, true) +
         RowBroadcast("mb", "mean", rows, cols) + RowBroadcast("rb", "rs", rows, cols) +
         RowOp("d", "stablehlo.subtract %" + in + ", %mb", rows, cols);
}

}  // namespace xjit::testing
