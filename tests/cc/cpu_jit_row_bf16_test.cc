// Row fusions of bfloat16 values as generated code (cpu/jit_row.h) against
// the interpreter, bit for bit, and against the reference backend within
// tolerance: bf16 inputs widened (whole rows, a row shared by every row,
// per-row values, splats), converts both ways, bf16 ops rounded after each
// step, bf16 results of whole rows and per row, streamed or not, reduces of
// bf16 values accumulated in float32. Each module runs once more with every
// bf16 made float16 (CheckBothHalves).
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "jit_test_util.h"
#include "xjit/backends/cpu/jit_fusion.h"

namespace xjit::testing {
namespace {

constexpr double kBf16Tolerance = 1.6e-2;

// `text` with its bfloat16 made float16 (-inf's bits too).
std::string AsFloat16(std::string text) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"bf16", "f16"},
                                 {"0xFF80", "0xFC00"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  }
  return text;
}

// CheckModule of `text` (bfloat16) and of AsFloat16(text).
void CheckBothHalves(const std::string& text, double tolerance, int64_t want_kernels = 1,
                     int special_one_in = 8) {
  CheckModule(text, tolerance, want_kernels, special_one_in);
  CheckModule(AsFloat16(text), tolerance, want_kernels, special_one_in);
}

std::string Tensor(int64_t rows, int64_t cols, const std::string& type) {
  return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + type + ">";
}

std::string Convert(const std::string& dst, const std::string& src, const std::string& from,
                    const std::string& to) {
  return "  %" + dst + " = \"stablehlo.convert\"(%" + src + ") : (" + from + ") -> " + to + "\n";
}

// Softmax of bf16 rows as JAX computes it: widened to float32, max, exp and
// sum, divide, rounded back to bf16. `pre`: bf16 lines before the convert
// reading %x, ending in %xh (the value converted).
std::string Bf16Softmax(int64_t rows, int64_t cols, const std::string& pre = "",
                        const std::string& converted = "x") {
  const std::string f = Tensor(rows, cols, "f32"), h = Tensor(rows, cols, "bf16");
  std::string body = pre + Convert("xf", converted, h, f) + SoftmaxRows("xf", rows, cols) +
                     Convert("yh", "y", f, h);
  return RowModule(rows, cols, body, "%yh", h, "bf16");
}

TEST(JitRowBf16, Softmax) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 320}, {4, 64}, {300, 1024}}) {
    CheckBothHalves(Bf16Softmax(rows, cols), kBf16Tolerance);
  }
}

// The same with whole rows stored non-temporally (16 bytes at a time).
TEST(JitRowBf16, SoftmaxStreamed) {
  const int64_t before = cpu::NumStreamingJitKernels();
  cpu::SetStreamingStoreBytes(1);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 320}, {300, 1024}}) {
    CheckBothHalves(Bf16Softmax(rows, cols), kBf16Tolerance);
  }
  cpu::SetStreamingStoreBytes(-1);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    // Two cases, two types, compiled once per generator (GeneratorsToTest).
    EXPECT_EQ(cpu::NumStreamingJitKernels(),
              before + 4 * static_cast<int64_t>(GeneratorsToTest().size()));
  }
}

// bf16 ops before the convert, each rounded: x * x, plus the shared row %g,
// times a bf16 splat constant; the whole input read twice by one op.
TEST(JitRowBf16, SoftmaxOfBf16Ops) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 320}, {4, 64}}) {
    const std::string h = Tensor(rows, cols, "bf16"), c = std::to_string(cols);
    const std::string pre =
        "  %k = stablehlo.constant dense<1.5> : tensor<bf16>\n"
        "  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<bf16>) -> " + h + "\n" +
        "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<" + c + "xbf16>) -> " + h +
        "\n" + RowOp("sq", "stablehlo.multiply %x, %x", rows, cols, false, "bf16") +
        RowOp("a", "stablehlo.add %sq, %gb", rows, cols, false, "bf16") +
        RowOp("xh", "stablehlo.multiply %a, %kb", rows, cols, false, "bf16");
    CheckBothHalves(Bf16Softmax(rows, cols, pre, "xh"), kBf16Tolerance);
  }
}

// Layer norm of bf16 rows: sums in float32, per-row ops, the normalised
// rows rounded to bf16 and scaled by the bf16 %g (a bf16 op), the mean
// returned per row as bf16 (its own rounding, a per-row convert), a
// per-row bf16 op on it, and it broadcast over the rows in a bf16 op.
TEST(JitRowBf16, LayerNorm) {
  const int64_t rows = 50, cols = 96;
  const std::string r = std::to_string(rows);
  const std::string f = Tensor(rows, cols, "f32"), h = Tensor(rows, cols, "bf16");
  const std::string rf = "tensor<" + r + "xf32>", rh = "tensor<" + r + "xbf16>";
  std::string body =
      Convert("xf", "x", h, f) + LayerNormRows("xf", rows, cols) +
      RowOp("y0", "stablehlo.multiply %d, %rb", rows, cols) + Convert("y0h", "y0", f, h) +
      "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<96xbf16>) -> " + h + "\n" +
      RowOp("y", "stablehlo.multiply %y0h, %gb", rows, cols, false, "bf16") +
      Convert("meanh", "mean", rf, rh) +
      RowOp("mh2", "stablehlo.multiply %meanh, %meanh", rows, cols, true, "bf16") +
      "  %mhb = stablehlo.broadcast_in_dim %meanh, dims = [0] : (" + rh + ") -> " + h + "\n" +
      RowOp("yc", "stablehlo.subtract %y, %mhb", rows, cols, false, "bf16");
  // Streamed too: whole rows non-temporally, the per-row results as before.
  for (int64_t streaming_bytes : {-1, 1}) {
    cpu::SetStreamingStoreBytes(streaming_bytes);
    CheckBothHalves(RowModule(rows, cols, body, "%y, %meanh, %mh2, %yc",
                          h + ", " + rh + ", " + rh + ", " + h, "bf16"),
                kBf16Tolerance);
  }
  cpu::SetStreamingStoreBytes(-1);
}

// A per-row bf16 input (its one element per row widened into a slot), and
// float32 results next to bf16 ones.
TEST(JitRowBf16, PerRowInputAndMixedResults) {
  const int64_t rows = 40, cols = 128;
  const std::string f = Tensor(rows, cols, "f32"), h = Tensor(rows, cols, "bf16");
  const std::string rh = "tensor<40xbf16>", rf = "tensor<40xf32>";
  const std::string text =
      "func.func @main(%x: " + h + ", %b: " + rh + ") -> (" + h + ", " + f + ", " + rf + ") {\n" +
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
      "  %bb = stablehlo.broadcast_in_dim %b, dims = [0] : (" + rh + ") -> " + h + "\n" +
      RowOp("a", "stablehlo.subtract %x, %bb", rows, cols, false, "bf16") +
      RowOp("t", "stablehlo.tanh %a", rows, cols, false, "bf16") + Convert("tf", "t", h, f) +
      RowOp("e", "stablehlo.exponential %tf", rows, cols) +
      RowReduce("s", "e", "zero", "add", rows, cols) +
      "  return %t, %e, %s : " + h + ", " + f + ", " + rf + "\n}";
  CheckBothHalves(text, kBf16Tolerance);
}

// A long full sum of bf16 values widened to float32, split into rows
// (passes/reduction_splitting.h): one generated row fusion.
TEST(JitRowBf16, SplitFullSum) {
  const int64_t n = 512 * 1024;
  const std::string h = "tensor<" + std::to_string(n) + "xbf16>";
  const std::string f = "tensor<" + std::to_string(n) + "xf32>";
  const std::string text =
      "func.func @main(%x: " + h + ") -> tensor<f32> {\n"
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
      Convert("xf", "x", h, f) +
      "  %s = stablehlo.reduce(%xf init: %zero) applies stablehlo.add across dimensions = [0]"
      " : (" + f + ", tensor<f32>) -> tensor<f32>\n"
      "  return %s : tensor<f32>\n}";
  CheckBothHalves(text, 1e-3, 1, 200);
}

// Sums of bf16 rows that the AVX-512 generator reads interleaved (the even
// and odd elements in a trip's two copies; the lanes put back in order
// before they combine), over values whose exponents span -20..12: their
// float32 sums round differently in any other lane order. A whole row and a
// row shared by every row, both bf16.
TEST(JitRowBf16, WideRangeSumsKeepTheLaneOrder) {
  const int64_t rows = 24, cols = 1024;
  const std::string h = Tensor(rows, cols, "bf16"), f = Tensor(rows, cols, "f32");
  const std::string rf = "tensor<" + std::to_string(rows) + "xf32>";
  const std::string body =
      "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<" + std::to_string(cols) +
      "xbf16>) -> " + h + "\n" + Convert("xf", "x", h, f) + Convert("gf", "gb", h, f) +
      RowOp("xg", "stablehlo.multiply %xf, %gf", rows, cols) +
      RowReduce("s", "xf", "zero", "add", rows, cols) +
      RowReduce("t", "xg", "zero", "add", rows, cols);
  const std::string text = RowModule(rows, cols, body, "%s, %t", rf + ", " + rf, "bf16");
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-20, 12);
  std::vector<Literal> args;
  for (const Shape& s : (*m)->ParameterShapes()) {
    Literal lit(s);
    uint16_t* p = reinterpret_cast<uint16_t*>(lit.mutable_data());
    for (int64_t i = 0; i < s.num_elements(); ++i) {
      const float sign = rng() % 2 ? 1.0f : -1.0f;
      p[i] = bf16(std::ldexp(sign * mantissa(rng), exponent(rng))).bits;
    }
    args.push_back(std::move(lit));
  }
  for (cpu::JitIsa isa : GeneratorsToTest()) CheckModuleOn(text, args, isa, kBf16Tolerance);
}

// Reduces of bf16 values accumulate in float32 and round their result once,
// as the interpreter's do: a sum and a maximum per row, and softmax as
// xjit.nn.softmax writes it for bf16 (max in bf16, the sum in float32).
TEST(JitRowBf16, ReducesOfBf16Values) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 320}, {300, 1024}}) {
    const std::string h = Tensor(rows, cols, "bf16"), f = Tensor(rows, cols, "f32");
    const std::string r = std::to_string(rows);
    const std::string rh = "tensor<" + r + "xbf16>", rf = "tensor<" + r + "xf32>";
    const std::string sums =
        "  %zh = stablehlo.constant dense<0.0> : tensor<bf16>\n"
        "  %s = stablehlo.reduce(%x init: %zh) applies stablehlo.add across dimensions = [1] : (" +
        h + ", tensor<bf16>) -> " + rh + "\n" +
        "  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (" + rh + ") -> " + h + "\n" +
        RowOp("d", "stablehlo.subtract %x, %sb", rows, cols, false, "bf16");
    CheckBothHalves(RowModule(rows, cols, sums, "%d, %s", h + ", " + rh, "bf16"), kBf16Tolerance);
    const std::string softmax =
        "  %nh = stablehlo.constant dense<0xFF80> : tensor<bf16>\n"
        "  %m = stablehlo.reduce(%x init: %nh) applies stablehlo.maximum across dimensions = [1]"
        " : (" + h + ", tensor<bf16>) -> " + rh + "\n" +
        "  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (" + rh + ") -> " + h + "\n" +
        RowOp("e0", "stablehlo.subtract %x, %mb", rows, cols, false, "bf16") +
        RowOp("e", "stablehlo.exponential %e0", rows, cols, false, "bf16") +
        "  %ef = \"stablehlo.convert\"(%e) : (" + h + ") -> " + f + "\n" +
        "  %s = stablehlo.reduce(%ef init: %zero) applies stablehlo.add across dimensions = [1]"
        " : (" + f + ", tensor<f32>) -> " + rf + "\n" +
        "  %sh = \"stablehlo.convert\"(%s) : (" + rf + ") -> " + rh + "\n" +
        "  %sb = stablehlo.broadcast_in_dim %sh, dims = [0] : (" + rh + ") -> " + h + "\n" +
        RowOp("y", "stablehlo.divide %e, %sb", rows, cols, false, "bf16");
    CheckBothHalves(RowModule(rows, cols, softmax, "%y, %m", h + ", " + rh, "bf16"), kBf16Tolerance);
  }
}

}  // namespace
}  // namespace xjit::testing
