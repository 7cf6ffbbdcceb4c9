// The generated fused kernels (cpu/jit_fusion.h, cpu/jit_row.h) against the
// interpreter,
// bit for bit, and against the reference backend within tolerance: every op
// the generator covers, special values (NaN, infinities, signed zeros, exp's
// overflow and underflow, tanh's clamp and tiny inputs), splats, several
// results and lengths that end in a partial vector.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "jit_test_util.h"
#include "test_util.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/text/parser.h"

namespace xjit::testing {
namespace {
TEST(JitFusion, EveryBinaryOpWithSplats) {
  for (int64_t n : {8192, 8192 + 5, 16 * 1024 + 15, 40000}) {
    for (std::string op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"}) {
      std::string body = Op(op, "a", "%x, %y", n) + Op(op, "b", "%a, %half", n) +
                         Op(op, "c", "%ten, %b", n) + Op(op, "d", "%c, %x", n);
      CheckModule(Module2(n, body, "%d", 1), 1e-6);
    }
  }
}

// maximum and minimum with a constant splat take shorter forms when the
// constant is known (jit_avx2_code.cc): signed zeros and NaN among them, on
// either side.
TEST(JitFusion, MaximumAndMinimumWithConstants) {
  const int64_t n = 8192 + 3;
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  for (std::string value : {"0.0", "-0.0", "0x7FC00000", "0.5", "-3.0", "0x7F800000"}) {
    for (std::string op : {"maximum", "minimum"}) {
      std::string body = "  %k = stablehlo.constant dense<" + value + "> : tensor<f32>\n" +
                         "  %s = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> " +
                         t + "\n" + Op(op, "a", "%x, %s", n) + Op(op, "b", "%s, %y", n) +
                         Op("add", "c", "%a, %b", n);
      CheckModule(Module2(n, body, "%c", 1), 1e-6);
    }
  }
}

TEST(JitFusion, EveryUnaryOp) {
  const int64_t n = 8192 + 7;
  for (std::string op : {"negate", "abs", "sqrt", "rsqrt", "exponential", "tanh", "log",
                         "log_plus_one", "logistic", "exponential_minus_one", "floor", "ceil",
                         "round_nearest_even", "erf"}) {
    std::string body = Op(op, "a", "%x", n) + Op("multiply", "b", "%a, %half", n) +
                       Op(op, "c", "%y", n) + Op("add", "d", "%b, %c", n);
    CheckModule(Module2(n, body, "%d", 1), 2e-6);
  }
}

// floor, ceil and round-to-nearest-even on exact halves (k / 2: the ties),
// signed zeros among them, and on the special inputs.
TEST(JitFusion, RoundingOnHalves) {
  const int64_t n = 8192 + 9;
  std::string body = Op("multiply", "a", "%x, %ten", n) + Op("round_nearest_even", "b", "%a", n) +
                     Op("multiply", "c", "%b, %half", n) + Op("round_nearest_even", "d", "%c", n) +
                     Op("floor", "e", "%c", n) + Op("ceil", "f", "%c", n) +
                     Op("negate", "g", "%c", n) + Op("round_nearest_even", "r", "%g", n) +
                     Op("floor", "i", "%y", n) + Op("ceil", "j", "%y", n);
  CheckModule(Module2(n, body, "%d, %e, %f, %r, %i, %j", 6), 0);
}

// Mostly ordinary inputs: the generated exp and tanh run their short paths
// on most vectors (the special ones above mostly take the cold paths).
TEST(JitFusion, UnaryOpsOnOrdinaryInputs) {
  const int64_t n = 16 * 1024 + 3;
  for (std::string op : {"exponential", "tanh", "logistic", "exponential_minus_one", "log",
                         "log_plus_one", "erf"}) {
    // The logarithms' short path needs positive inputs.
    const bool positive = op == "log" || op == "log_plus_one";
    std::string body = Op("abs", "ax", "%x", n) + Op("abs", "ay", "%y", n) +
                       Op(op, "a", positive ? "%ax" : "%x", n) +
                       Op("multiply", "b", "%a, %half", n) +
                       Op(op, "c", positive ? "%ay" : "%y", n) + Op("add", "d", "%b, %c", n);
    CheckModule(Module2(n, body, "%d", 1), 2e-6, 1, 200);
  }
}

// exp, logistic and log on their own (no fusion around them) are generated too;
// other lone ops stay on the interpreter's kernels.
TEST(JitFusion, LoneTranscendentalOps) {
  const int64_t n = 8192 + 3;
  for (std::string op : {"exponential", "logistic", "log"}) {
    CheckModule(Module2(n, Op(op, "a", "%x", n), "%a", 1), 2e-6);
  }
  for (std::string op : {"negate", "tanh"}) {
    CheckModule(Module2(n, Op(op, "a", "%y", n), "%a", 1), 2e-6, 0);
  }
}

// Issue 12's chain, with three results (one also used inside) and a value
// read by several ops.
TEST(JitFusion, ChainWithSeveralResults) {
  const int64_t n = 50000;
  std::string body = Op("multiply", "a", "%x, %ten", n) + Op("add", "b", "%a, %half", n) +
                     Op("tanh", "c", "%b", n) + Op("negate", "nx", "%x", n) +
                     Op("multiply", "d", "%nx, %x", n) + Op("exponential", "e", "%d", n) +
                     Op("multiply", "f", "%c, %e", n) + Op("maximum", "g", "%x, %half", n) +
                     Op("abs", "hy", "%y", n) + Op("add", "i", "%ten, %hy", n) +
                     Op("divide", "j", "%g, %i", n) + Op("add", "k", "%f, %j", n) +
                     Op("minimum", "l", "%k, %e", n);
  CheckModule(Module2(n, body, "%k, %e, %l", 3), 2e-6);
}

// Results past the streaming threshold (lowered here to every size) are
// stored non-temporally: the same bits, over several parallel chunks and a
// partial last vector.
TEST(JitFusion, StreamedResultsMatchTheInterpreter) {
  cpu::SetStreamingStoreBytes(1);
  const int64_t before = cpu::NumStreamingJitKernels();
  for (int64_t n : {8192 + 5, 3 * 16 * 1024 + 7}) {
    std::string body = Op("multiply", "a", "%x, %ten", n) + Op("add", "b", "%a, %half", n) +
                       Op("tanh", "c", "%b", n) + Op("exponential", "e", "%y", n) +
                       Op("add", "k", "%c, %e", n);
    CheckModule(Module2(n, body, "%k, %e", 2), 2e-6);
  }
  if (HasJitIsa()) EXPECT_GT(cpu::NumStreamingJitKernels(), before);
  cpu::SetStreamingStoreBytes(-1);
  EXPECT_GE(cpu::StreamingStoreBytes(), int64_t{1} << 20);  // half a real cache
}

// An output that is not aligned to the vector width (non-temporal stores
// need it: 32 bytes for AVX2, 64 for AVX-512) runs the kernel with ordinary
// stores: one float off, and 32 bytes off a 64-byte boundary.
TEST(JitFusion, StreamingKernelTakesMisalignedOutputs) {
  const int64_t n = 40000;
  auto m = ParseModule(Module2(n, Op("multiply", "a", "%x, %ten", n) + Op("add", "b", "%a, %y", n),
                               "%b", 1));
  ASSERT_TRUE(m.ok()) << m.status();
  auto fused = passes::FuseElementwise(**m);
  ASSERT_TRUE(fused.ok()) << fused.status();
  const Instruction* fusion = nullptr;
  for (const auto& instr : (*fused)->entry()->instructions()) {
    if (instr->opcode() == Opcode::kFusion) fusion = instr.get();
  }
  ASSERT_NE(fusion, nullptr);
  // Operands: x, the splat's one element (10), y, in the fusion's order.
  std::vector<std::vector<float>> data;
  std::vector<void*> buffers;
  for (const Instruction* o : fusion->operands()) {
    data.emplace_back(o->shape().num_elements());
    for (size_t i = 0; i < data.back().size(); ++i) data.back()[i] = 0.25f * (i % 97) - 3.0f;
    if (data.back().size() == 1) data.back()[0] = 10.0f;
  }
  for (auto& d : data) buffers.push_back(d.data());
  buffers.push_back(nullptr);
  std::vector<float> result(n + 32, -1.0f);
  float* aligned = result.data() + (64 - reinterpret_cast<uintptr_t>(result.data()) % 64) % 64 / 4;
  for (cpu::JitIsa isa : GeneratorsToTest()) {
    cpu::SetFusionJitIsa(isa);
    cpu::SetStreamingStoreBytes(1);
    int64_t work = 0;
    std::vector<cpu::SlotId> inputs;
    for (size_t i = 0; i < fusion->operands().size(); ++i) {
      inputs.push_back(static_cast<cpu::SlotId>(i));
    }
    const cpu::SlotId out = static_cast<cpu::SlotId>(inputs.size());
    std::unique_ptr<cpu::Thunk> thunk = cpu::MakeJitFusionThunk(*fusion, inputs, {out}, &work);
    cpu::SetStreamingStoreBytes(-1);
    cpu::SetFusionJitIsa(cpu::JitIsa::kAuto);
    if (thunk == nullptr) GTEST_SKIP() << "no generator for this CPU";
    for (int offset : {1, 8}) {
      float* misaligned = aligned + offset;
      buffers.back() = misaligned;
      thunk->Execute(buffers.data());
      for (int64_t i = 0; i < n; ++i) {
        const float x = 0.25f * (i % 97) - 3.0f;
        ASSERT_EQ(misaligned[i], x * 10.0f + x) << i << " offset " << offset;
      }
    }
  }
}

// 16-bit float regions (bfloat16, float16): each op computes in float32 and
// rounds to its type (to nearest even) as the interpreter's kernels do;
// inputs are widened and results narrowed, in the tail's partial vector too.
// Inputs hold NaN payloads, signalling ones among them (SpecialInputOf).
struct HalfType {
  const char* name;
  double tolerance;  // against the reference (which rounds libm's functions)
};
constexpr HalfType kHalfTypes[] = {{"bf16", 1.6e-2}, {"f16", 4e-3}};

TEST(JitFusion, HalfBinaryOpsWithSplats) {
  for (const HalfType& h : kHalfTypes) {
    for (int64_t n : {8192, 8192 + 5, 40000 + 3}) {
      for (std::string op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"}) {
        std::string body = Op(op, "a", "%x, %y", n, h.name) + Op(op, "b", "%a, %half", n, h.name) +
                           Op(op, "c", "%ten, %b", n, h.name) + Op(op, "d", "%c, %x", n, h.name);
        CheckModule(Module2(n, body, "%d", 1, h.name), h.tolerance);
      }
    }
  }
}

TEST(JitFusion, HalfUnaryOps) {
  const int64_t n = 8192 + 7;
  for (const HalfType& h : kHalfTypes) {
    for (std::string op : {"negate", "abs", "sqrt", "rsqrt", "exponential", "tanh", "log",
                           "log_plus_one", "logistic", "exponential_minus_one", "floor", "ceil",
                           "round_nearest_even", "erf"}) {
      std::string body = Op(op, "a", "%x", n, h.name) +
                         Op("multiply", "b", "%a, %half", n, h.name) +
                         Op(op, "c", "%y", n, h.name) + Op("add", "d", "%b, %c", n, h.name);
      CheckModule(Module2(n, body, "%d", 1, h.name), h.tolerance);
    }
  }
}

// Masks (jit_region.h: JitCoversMask): every compare direction on special
// inputs (NaN, signed zeros, infinities, equal values from the splat), the
// masks combined with and/or/xor/not, and selects of floats on them, in
// float32 and the 16-bit types; the preds never leave the region.
std::string MaskModule(int64_t n, const std::string& dir, const std::string& type) {
  const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
  const std::string m = "tensor<" + std::to_string(n) + "xi1>";
  auto cmp = [&](const std::string& dst, const std::string& a, const std::string& b,
                 const std::string& d) {
    return "  %" + dst + " = \"stablehlo.compare\"(" + a + ", " + b +
           ") {comparison_direction = #stablehlo<comparison_direction " + d + ">} : (" + t +
           ", " + t + ") -> " + m + "\n";
  };
  auto logic = [&](const std::string& dst, const std::string& op, const std::string& operands) {
    return "  %" + dst + " = \"stablehlo." + op + "\"(" + operands + ") : (" +
           (op == "not" ? m : m + ", " + m) + ") -> " + m + "\n";
  };
  auto select = [&](const std::string& dst, const std::string& p, const std::string& a,
                    const std::string& b) {
    return "  %" + dst + " = \"stablehlo.select\"(" + p + ", " + a + ", " + b + ") : (" + m +
           ", " + t + ", " + t + ") -> " + t + "\n";
  };
  const std::string body =
      Op("multiply", "z", "%y, %half", n, type) +  // ties with x where y == 2x
      cmp("p", "%x", "%y", dir) + cmp("q", "%x", "%half", dir) + cmp("r", "%z", "%x", dir) +
      logic("pq", "and", "%p, %q") + logic("qr", "or", "%q, %r") + logic("nr", "not", "%r") +
      logic("x1", "xor", "%pq, %nr") + select("a", "%p", "%x", "%y") +
      select("b", "%x1", "%a", "%half") + select("c", "%qr", "%b", "%z") +
      Op("add", "d", "%c, %ten", n, type);
  return Module2(n, body, "%a, %d", 2, type);
}

TEST(JitFusion, MasksCompareAndSelect) {
  for (const std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    CheckModule(MaskModule(8192 + 11, dir, "f32"), 0);
    for (const HalfType& h : kHalfTypes) CheckModule(MaskModule(8192 + 3, dir, h.name), 0);
  }
}

// Converts inside a region, every way: float32 inputs rounded to the 16-bit
// type `h`, computed on, widened again, and converted to the other 16-bit
// type and back; results of three types, one of them also read by a later op.
std::string MixedModule(int64_t n, const std::string& h, const std::string& other) {
  const std::string f = "tensor<" + std::to_string(n) + "xf32>";
  const std::string t = "tensor<" + std::to_string(n) + "x" + h + ">";
  const std::string o = "tensor<" + std::to_string(n) + "x" + other + ">";
  return "func.func @main(%x: " + f + ", %y: " + t + ") -> (" + t + ", " + f + ", " + t + ", " +
         o + ") {\n" +
         "  %k = stablehlo.constant dense<1.5> : tensor<" + h + ">\n"
         "  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<" + h + ">) -> " + t + "\n" +
         "  %xh = \"stablehlo.convert\"(%x) : (" + f + ") -> " + t + "\n" +
         Op("multiply", "a", "%xh, %kb", n, h) + Op("add", "b", "%a, %y", n, h) +
         Op("tanh", "c", "%b", n, h) +
         "  %cf = \"stablehlo.convert\"(%c) : (" + t + ") -> " + f + "\n" +
         Op("exponential", "e", "%x", n) + Op("multiply", "g", "%cf, %e", n) +
         "  %gh = \"stablehlo.convert\"(%g) : (" + f + ") -> " + t + "\n" +
         Op("subtract", "r", "%gh, %c", n, h) +
         "  %ro = \"stablehlo.convert\"(%r) : (" + t + ") -> " + o + "\n" +
         Op("multiply", "s", "%ro, %ro", n, other) +
         "  return %c, %g, %r, %s : " + t + ", " + f + ", " + t + ", " + o + "\n}";
}

TEST(JitFusion, HalfConvertsAndMixedResults) {
  for (int64_t n : {8192 + 1, 16 * 1024 + 15, 50000}) {
    CheckModule(MixedModule(n, "bf16", "f16"), 1.6e-2);
    CheckModule(MixedModule(n, "f16", "bf16"), 1.6e-2);
  }
}

// 16-bit results stream too (16- or 32-byte non-temporal stores), over
// several chunks and a partial last vector.
TEST(JitFusion, HalfStreamedResults) {
  cpu::SetStreamingStoreBytes(1);
  const int64_t before = cpu::NumStreamingJitKernels();
  CheckModule(MixedModule(3 * 16 * 1024 + 7, "bf16", "f16"), 1.6e-2);
  CheckModule(MixedModule(3 * 16 * 1024 + 7, "f16", "bf16"), 1.6e-2);
  if (HasJitIsa()) EXPECT_GT(cpu::NumStreamingJitKernels(), before);
  cpu::SetStreamingStoreBytes(-1);
}

// Regions with 16-bit values are generated from 1K elements (the
// interpreter converts them one by one); float32 ones from 8K.
TEST(JitFusion, HalfRegionsFromAThousandElements) {
  const int64_t n = 2048 + 5;
  for (const HalfType& h : kHalfTypes) {
    std::string body = Op("multiply", "a", "%x, %ten", n, h.name) +
                       Op("add", "b", "%a, %y", n, h.name);
    CheckModule(Module2(n, body, "%b", 1, h.name), h.tolerance);
  }
  std::string body = Op("multiply", "a", "%x, %ten", n) + Op("add", "b", "%a, %y", n);
  CheckModule(Module2(n, body, "%b", 1), 1e-6, 0);
  CheckModule(Module2(1000, Op("multiply", "a", "%x, %ten", 1000, "f16") +
                                Op("add", "b", "%a, %y", 1000, "f16"), "%b", 1, "f16"),
              4e-3, 0);
}

// Inputs spread over rows by a broadcast, a row the same for every row
// (b[None, :]) and a value per row (w[:, None]): the kernel is called a row
// at a time (parallel chunks end mid-row), and streamed where rows keep the
// outputs 64-byte aligned (256 floats) and not where they do not (300).
// Rows under kMinJitPeriod stay interpreted.
TEST(JitFusion, InputsSpreadOverRows) {
  for (auto [rows, cols, streaming] : {std::tuple<int64_t, int64_t, bool>{40, 300, false},
                                       {200, 300, true}, {64, 256, true}, {100, 100, false}}) {
    if (streaming) cpu::SetStreamingStoreBytes(1);
    const std::string r = std::to_string(rows), c = std::to_string(cols);
    const std::string t = "tensor<" + r + "x" + c + "xf32>";
    const std::string text =
        "func.func @main(%x: " + t + ", %b: tensor<" + c + "xf32>, %w: tensor<" + r +
        "xf32>) -> (" + t + ", " + t + ") {\n"
        "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<" + c + "xf32>) -> " + t +
        "\n  %wb = stablehlo.broadcast_in_dim %w, dims = [0] : (tensor<" + r + "xf32>) -> " + t +
        "\n  %p = stablehlo.multiply %x, %bb : " + t +
        "\n  %q = stablehlo.add %p, %wb : " + t +
        "\n  %e = stablehlo.exponential %q : " + t +
        "\n  %d = stablehlo.subtract %e, %bb : " + t +
        "\n  return %d, %q : " + t + ", " + t + "\n}";
    CheckModule(text, 2e-6, cols >= 256 ? 1 : 0);
    cpu::SetStreamingStoreBytes(-1);
  }
}

// Float results converted to integers as the region returns them (NaN -> 0,
// out of range saturated, truncated toward zero), of every integer type of
// 32 bits or fewer, on special values and values past each type's range:
// the interpreter's bytes and the reference's. Only the AVX-512 generator
// emits them; the AVX2 one leaves the region to the interpreter.
TEST(JitFusion, IntegerResultsOfConverts) {
  const int64_t n = 20000 + 13;
  Literal x = SpecialInput(n, 41);
  float* v = reinterpret_cast<float*>(x.mutable_data());
  const float edges[] = {127.5f, -128.5f, 128.0f, -129.0f, 255.9f, 256.0f, 32767.9f, 32768.0f,
                         -32769.0f, 65535.5f, 65536.0f, 2147483520.0f, 2147483648.0f,
                         -2147483648.0f, -2147483904.0f, 4294967040.0f, 4294967296.0f, 3e9f,
                         -3e9f, -0.9f};
  for (size_t i = 0; i < sizeof(edges) / sizeof(float); ++i) v[i * 7] = edges[i];
  for (int64_t i = 0; i < n; i += 3) v[i] *= 1000.0f;
  const std::string t = "tensor<" + std::to_string(n) + "x";
  for (const std::string type : {"i8", "ui8", "i16", "ui16", "i32", "ui32"}) {
    const std::string text = "func.func @main(%x: " + t + "f32>) -> (" + t + type + ">, " + t +
                             "f32>) {\n"
                             "  %a = stablehlo.multiply %x, %x : " + t + "f32>\n"
                             "  %b = stablehlo.subtract %a, %x : " + t + "f32>\n"
                             "  %c = stablehlo.convert %x : (" + t + "f32>) -> " + t + type +
                             ">\n  return %c, %b : " + t + type + ">, " + t + "f32>\n}";
    auto m = ParseModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    std::vector<Literal> interpreted = xjit::testing::Run(**m, {x}, false);
    auto reference = RunOn("reference", **m, {x});
    ASSERT_TRUE(reference.ok()) << reference.status();
    for (cpu::JitIsa isa : GeneratorsToTest()) {
      cpu::SetFusionJitIsa(isa);
      int64_t kernels = 0;
      std::vector<Literal> jit = xjit::testing::Run(**m, {x}, true, &kernels);
      cpu::SetFusionJitIsa(cpu::JitIsa::kAuto);
      const bool avx512 = isa == cpu::JitIsa::kAuto && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw");
      EXPECT_EQ(kernels, avx512 ? 1 : 0) << type;
      ASSERT_EQ(jit.size(), 2u);
      const size_t bytes = jit[0].shape().num_elements() * ByteWidth(jit[0].shape().dtype);
      EXPECT_EQ(std::memcmp(jit[0].data(), interpreted[0].data(), bytes), 0) << type;
      EXPECT_EQ(std::memcmp(jit[0].data(), (*reference)[0].data(), bytes), 0) << type;
      ExpectSameBits(jit[1], interpreted[1], type);
    }
  }
}

// A reverse of every dim feeding a fusion and nothing else is read
// backwards by the generated kernel (compiler.cc: PlanReversedReads): the
// bits of the reverse written out and the fusion run after it (the
// interpreter; the AVX2 generator, which reverses nothing, does the same),
// over parallel chunks and a partial last vector; a reverse also returned
// is written out as before.
TEST(JitFusion, ReversedOperandsReadBackwards) {
  for (int64_t n : {int64_t{8192 + 7}, int64_t{3 * 16 * 1024 + 5}}) {
    const std::string t = "tensor<" + std::to_string(n) + "xf32>";
    const std::string reverse = " = \"stablehlo.reverse\"(%x) {dimensions = array<i64: 0>} : (" +
                                t + ") -> " + t + "\n";
    std::string body = "  %r" + reverse + Op("multiply", "a", "%r, %ten", n) +
                       Op("add", "b", "%a, %y", n) + Op("exponential", "e", "%r", n);
    CheckModule(Module2(n, body, "%b, %e", 2), 2e-6);
    body = "  %r" + reverse + Op("multiply", "a", "%r, %ten", n) + Op("add", "b", "%a, %y", n);
    CheckModule(Module2(n, body, "%b, %r", 2), 2e-6);
  }
  // The last dim of a matrix: each row read backwards (rows of 300).
  const std::string rows = "tensor<40x300xf32>";
  CheckModule("func.func @main(%x: " + rows + ", %y: " + rows + ") -> " + rows + " {\n"
              "  %r = \"stablehlo.reverse\"(%x) {dimensions = array<i64: 1>} : (" + rows +
              ") -> " + rows + "\n  %a = stablehlo.multiply %r, %y : " + rows +
              "\n  %b = stablehlo.add %a, %r : " + rows + "\n  return %b : " + rows + "\n}", 2e-6);
  // Both dims of a matrix: the elements in reverse order.
  const std::string m = "tensor<300x70xf32>";
  CheckModule("func.func @main(%x: " + m + ", %y: " + m + ") -> " + m + " {\n"
              "  %r = \"stablehlo.reverse\"(%x) {dimensions = array<i64: 0, 1>} : (" + m +
              ") -> " + m + "\n  %a = stablehlo.multiply %r, %y : " + m +
              "\n  %b = stablehlo.add %a, %r : " + m + "\n  return %b : " + m + "\n}", 2e-6);
}

// tril's mask: row and column numbers (iotas spread over the matrix, int32)
// compared, and a select of x or 0; the same of uint32; every direction. A
// square matrix's numbers are one iota (after CSE) spread two ways.
TEST(JitFusion, IntegerCompareOfSpreadNumbers) {
  for (const char* shape : {"300x280", "256x256"}) {
    for (const char* type : {"i32", "ui32"}) {
      for (const char* dir : {"GE", "GT", "LE", "LT", "EQ", "NE"}) {
        const std::string s = shape, it = "tensor<" + s + "x" + type + ">";
        const std::string ft = "tensor<" + s + "xf32>", pt = "tensor<" + s + "xi1>";
        const std::string cmp = std::string(type) == "i32" ? "SIGNED" : "UNSIGNED";
        SCOPED_TRACE(s + " " + type + " " + dir);
        CheckModule("func.func @main(%x: " + ft + ") -> " + ft + " {\n"
                    "  %r = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> " + it + "\n"
                    "  %c = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> " + it + "\n"
                    "  %k = \"stablehlo.compare\"(%r, %c) {comparison_direction = "
                    "#stablehlo<comparison_direction " + dir + ">, compare_type = "
                    "#stablehlo<comparison_type " + cmp + ">} : (" + it + ", " + it + ") -> " +
                    pt + "\n"
                    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
                    "  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " + ft +
                    "\n  %y = stablehlo.select %k, %x, %zb : " + pt + ", " + ft + "\n"
                    "  return %y : " + ft + "\n}",
                    0);
      }
    }
  }
}

// int32/uint32 arithmetic in generated code (AVX-512 only; AVX2 leaves such
// regions to the interpreter): every op JitCoversInt names on the extremes
// (INT_MIN / -1, division by zero, shift counts past 31, abs(INT_MIN)), and
// the converts to float32, bit for bit with the interpreter and reference.
TEST(JitFusion, IntegerArithmetic) {
  const int64_t n = 8192 + 5;
  for (const char* type : {"i32", "ui32"}) {
    SCOPED_TRACE(type);
    const bool is_signed = std::string(type) == "i32";
    std::string body;
    for (const char* op : {"add", "subtract", "multiply", "divide", "remainder", "maximum",
                           "minimum", "shift_left", "shift_right_logical",
                           "shift_right_arithmetic", "and", "or", "xor"}) {
      body += Op(op, std::string("b_") + op, "%x, %y", n, type);
    }
    std::vector<const char*> unary = {"negate", "not"};
    if (is_signed) unary = {"negate", "not", "abs", "sign"};
    for (const char* op : unary) body += Op(op, std::string("u_") + op, "%x", n, type);
    const std::string t = "tensor<" + std::to_string(n) + "x" + type + ">";
    const std::string p = "tensor<" + std::to_string(n) + "xi1>";
    const std::string f = "tensor<" + std::to_string(n) + "xf32>";
    // Chained: floor-mod as jnp.remainder builds it, a select on a compare of
    // masks, and a float result from the integers.
    body += "  %zs = stablehlo.constant dense<0> : tensor<" + std::string(type) + ">\n" +
            "  %z = stablehlo.broadcast_in_dim %zs, dims = [] : (tensor<" + type + ">) -> " + t +
            "\n  %neg = stablehlo.compare LT, %b_remainder, %z : (" + t + ", " + t + ") -> " + p +
            "\n  %yneg = stablehlo.compare LT, %y, %z : (" + t + ", " + t + ") -> " + p +
            "\n  %diff = stablehlo.compare NE, %neg, %yneg : (" + p + ", " + p + ") -> " + p +
            "\n" + Op("add", "fix", "%b_remainder, %y", n, type) +
            "  %mod = stablehlo.select %diff, %fix, %b_remainder : " + p + ", " + t + "\n" +
            "  %sum = stablehlo.add %mod, %b_divide : " + t + "\n" +
            "  %fl = stablehlo.convert %sum : (" + t + ") -> " + f + "\n";
    std::string results = "%sum, %b_add, %b_subtract, %b_multiply, %b_maximum, %b_minimum, "
                          "%b_shift_left, %b_shift_right_logical, %b_shift_right_arithmetic, "
                          "%b_and, %b_or, %b_xor, %u_negate, %u_not";
    std::string types = t;
    for (int i = 0; i < 13; ++i) types += ", " + t;
    if (is_signed) {
      results += ", %u_abs, %u_sign";
      types += ", " + t + ", " + t;
    }
    results += ", %fl";
    types += ", " + f;
    CheckModuleAvx512Only("func.func @main(%x: " + t + ", %y: " + t + ") -> (" + types +
                              ") {\n" + body + "  return " + results + " : " + types + "\n}",
                          0);
  }
}

// A mask result (AVX-512 only) is stored as bytes of 0 or 1. A first cut
// stored its 32-bit lanes into the byte buffer, overrunning it (scatter
// indices went wrong intermittently); this test crashed or failed then.
// Here with a tail (8192 + 11 elements), beside an int32 result, and float
// compares, is_finite and a select of masks (jnp.isclose's shape) returned
// alone; AVX2 leaves such regions to the interpreter.
TEST(JitFusion, MaskResultsAreBytes) {
  const int64_t n = 8192 + 11;
  const std::string t = "tensor<" + std::to_string(n) + "xi32>";
  const std::string p = "tensor<" + std::to_string(n) + "xi1>";
  const std::string f = "tensor<" + std::to_string(n) + "xf32>";
  const std::string ints =
      "func.func @main(%x: " + t + ") -> (" + p + ", " + t + ") {\n"
      "  %zs = stablehlo.constant dense<0> : tensor<i32>\n"
      "  %z = stablehlo.broadcast_in_dim %zs, dims = [] : (tensor<i32>) -> " + t + "\n"
      "  %ms = stablehlo.constant dense<1000> : tensor<i32>\n"
      "  %m = stablehlo.broadcast_in_dim %ms, dims = [] : (tensor<i32>) -> " + t + "\n"
      "  %lo = stablehlo.compare GE, %x, %z : (" + t + ", " + t + ") -> " + p + "\n"
      "  %hi = stablehlo.compare LE, %x, %m : (" + t + ", " + t + ") -> " + p + "\n"
      "  %in = stablehlo.and %lo, %hi : " + p + "\n"
      "  %y = stablehlo.select %in, %x, %m : " + p + ", " + t + "\n"
      "  return %in, %y : " + p + ", " + t + "\n}";
  const std::string floats =
      "func.func @main(%x: " + f + ", %y: " + f + ") -> " + p + " {\n"
      "  %d = stablehlo.subtract %x, %y : " + f + "\n"
      "  %a = stablehlo.abs %d : " + f + "\n"
      "  %c = stablehlo.compare LE, %a, %y : (" + f + ", " + f + ") -> " + p + "\n"
      "  %e = stablehlo.compare EQ, %x, %y : (" + f + ", " + f + ") -> " + p + "\n"
      "  %o = stablehlo.or %c, %e : " + p + "\n"
      // jnp.isclose's shape: where both are finite the tolerance test, else equality.
      "  %fx = stablehlo.is_finite %x : (" + f + ") -> " + p + "\n"
      "  %fy = stablehlo.is_finite %y : (" + f + ") -> " + p + "\n"
      "  %f = stablehlo.and %fx, %fy : " + p + "\n"
      "  %r = stablehlo.select %f, %o, %e : " + p + ", " + p + "\n"
      "  return %r : " + p + "\n}";
  CheckModuleAvx512Only(ints, 0);
  CheckModuleAvx512Only(floats, 0);
}

// int32 division and remainder by constants multiply by a magic number
// (Hacker's Delight 10-1) instead of dividing; -1, 0, 1 and INT_MIN still
// divide. Bit for bit with the interpreter's idiv on the extremes.
TEST(JitFusion, IntegerDivisionByConstants) {
  const int64_t n = 8192 + 3;
  const std::string t = "tensor<" + std::to_string(n) + "xi32>";
  for (int64_t c : {2LL, 3LL, 7LL, -7LL, 10LL, 1000LL, 65536LL, 641LL, 1LL << 30, -(1LL << 30),
                    2147483647LL, -2147483647LL, 1LL, -1LL, 0LL, -2147483648LL}) {
    SCOPED_TRACE(c);
    CheckModuleAvx512Only("func.func @main(%x: " + t + ") -> (" + t + ", " + t + ") {\n"
                          "  %cs = stablehlo.constant dense<" + std::to_string(c) +
                          "> : tensor<i32>\n"
                          "  %c = stablehlo.broadcast_in_dim %cs, dims = [] : (tensor<i32>) -> " +
                          t + "\n" + Op("divide", "q", "%x, %c", n, "i32") +
                          Op("remainder", "r", "%x, %c", n, "i32") +
                          "  return %q, %r : " + t + ", " + t + "\n}",
                          0);
  }
}

// (x > y).astype(float) * x and jnp.eye's mask converted: a true lane is
// 1.0, not the mask's all-ones bits (a NaN); to bfloat16 too.
TEST(JitFusion, ConvertsOfMasks) {
  const int64_t n = 10000;
  const std::string p = "tensor<10000xi1>";
  for (const char* type : {"f32", "bf16"}) {
    const std::string t = std::string("tensor<10000x") + type + ">";
    CheckModule(Module2(n,
                        "  %k = \"stablehlo.compare\"(%x, %y) {comparison_direction = "
                        "#stablehlo<comparison_direction GT>} : (" + t + ", " + t + ") -> " + p +
                            "\n  %f = stablehlo.convert %k : (" + p + ") -> " + t + "\n" +
                            Op("multiply", "m", "%f, %x", n, type) +
                            Op("add", "a", "%f, %half", n, type),
                        "%m, %a", 2, type),
                0);
  }
  const std::string it = "tensor<300x300xi32>", ft = "tensor<300x300xf32>";
  CheckModule("func.func @main(%x: " + ft + ") -> " + ft + " {\n"
              "  %r = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> " + it + "\n"
              "  %c = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> " + it + "\n"
              "  %k = \"stablehlo.compare\"(%r, %c) {comparison_direction = "
              "#stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type "
              "SIGNED>} : (" + it + ", " + it + ") -> tensor<300x300xi1>\n"
              "  %e = stablehlo.convert %k : (tensor<300x300xi1>) -> " + ft + "\n"
              "  %y = stablehlo.add %e, %x : " + ft + "\n  return %y : " + ft + "\n}",
              0);
}

// Bool inputs (bytes widened to all-ones or all-zeros lanes; AVX-512 only):
// where(m, x, y) with m whole, a mask spread over rows (m[None, :], as
// jnp.take's fill reads its column mask) and one value per row (m[:, None]),
// and masks combined.
TEST(JitFusion, BoolInputs) {
  const std::string ft = "tensor<300x280xf32>", pt = "tensor<300x280xi1>";
  const std::string head = "func.func @main(%x: " + ft + ", %y: " + ft +
                           ", %m: " + pt + ", %c: tensor<280xi1>, %r: tensor<300xi1>) -> " + ft +
                           " {\n"
                           "  %cb = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<280xi1>) -> " +
                           pt + "\n  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : "
                           "(tensor<300xi1>) -> " + pt + "\n";
  const std::string bodies[] = {
      "  %s = stablehlo.select %m, %x, %y : " + pt + ", " + ft + "\n",
      "  %s = stablehlo.select %cb, %x, %y : " + pt + ", " + ft + "\n",
      "  %s = stablehlo.select %rb, %x, %y : " + pt + ", " + ft + "\n",
      "  %a = stablehlo.and %m, %cb : " + pt + "\n  %o = stablehlo.or %a, %rb : " + pt +
          "\n  %n = stablehlo.not %o : " + pt + "\n  %s = stablehlo.select %n, %x, %y : " + pt +
          ", " + ft + "\n",
      // (A convert of %cb alone would run on %c before the broadcast:
      // algebraic simplification sinks spreads below element-wise ops.)
      "  %a = stablehlo.and %cb, %m : " + pt + "\n  %f = stablehlo.convert %a : (" + pt + ") -> " +
          ft + "\n  %s = stablehlo.multiply %f, %x : " + ft + "\n",
  };
  for (const std::string& body : bodies) {
    CheckModuleAvx512Only(head + body + "  %t = stablehlo.add %s, %x : " + ft +
                              "\n  return %t : " + ft + "\n}",
                          0);
  }
}

TEST(JitFusion, SmallOrUncoveredRegionsUseTheInterpreter) {
  // A sine is not covered, nor a compare of TOTALORDER; a short chain stays
  // interpreted: all must still run and agree with the reference.
  const int64_t n = 10000;
  std::string body = Op("add", "a", "%x, %y", n) + Op("sine", "s", "%a", n) +
                     Op("exponential", "e", "%s", n);
  CheckModule(Module2(n, body, "%e", 1), 2e-6, 0);
  body = Op("add", "a", "%x, %y", n) +
         "  %p = \"stablehlo.compare\"(%a, %x) {comparison_direction = "
         "#stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type "
         "TOTALORDER>} : (tensor<10000xf32>, tensor<10000xf32>) -> tensor<10000xi1>\n"
         "  %s = stablehlo.select %p, %a, %y : tensor<10000xi1>, tensor<10000xf32>\n" +
         Op("exponential", "e", "%s", n);
  CheckModule(Module2(n, body, "%e", 1), 2e-6, 0);
  std::string small = Op("tanh", "a", "%x", 100) + Op("exponential", "b", "%a", 100);
  CheckModule(Module2(100, small, "%b", 1), 2e-6, 0);
}

// Softmax (max, exp and sum, divide: three loops) returning the row maxima
// too; once more with whole rows stored non-temporally (the streaming
// threshold lowered to every size), per-row results as before.
TEST(JitRowFusion, SoftmaxWithItsRowMaxima) {
  const int64_t streaming_before = cpu::NumStreamingJitKernels();
  for (auto [rows, cols, streaming] :
       {std::tuple<int64_t, int64_t, bool>{37, 320, false}, {4, 64, false}, {300, 1024, false},
        {37, 320, true}, {300, 1024, true}, {64, 64, false}, {256, 256, true}}) {
    cpu::SetStreamingStoreBytes(streaming ? 1 : -1);
    std::string body = SoftmaxRows("x", rows, cols);
    const std::string t = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
    CheckModule(RowModule(rows, cols, body, "%y, %m", t + ", tensor<" + std::to_string(rows) +
                                                          "xf32>"),
                2e-6);
  }
  cpu::SetStreamingStoreBytes(-1);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    // Three streaming cases, each compiled once per generator tested.
    EXPECT_EQ(cpu::NumStreamingJitKernels(),
              streaming_before + 3 * static_cast<int64_t>(GeneratorsToTest().size()));
  }
}

// Layer norm with a per-row scale (g broadcast to every row), both sums in
// one loop, per-row ops between the loops, and min/multiply reduces.
// 96 x 96 too: square rows, where the 96-element %g is one row for every
// row (only a row-invariant broadcast reads it) and the per-row values have
// as many elements.
TEST(JitRowFusion, LayerNormAndOtherReduces) {
  for (const int64_t rows : {50, 96}) {
  const int64_t cols = 96;
  const std::string r = std::to_string(rows), t = "tensor<" + r + "x96xf32>";
  std::string body =
      LayerNormRows("x", rows, cols) +
      "  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<96xf32>) -> " + t + "\n" +
      RowOp("y0", "stablehlo.multiply %d, %rb", rows, cols) +
      RowOp("y", "stablehlo.multiply %y0, %gb", rows, cols) +
      RowOp("a", "stablehlo.abs %y", rows, cols) +
      RowReduce("mn", "a", "inf", "minimum", rows, cols) +
      RowOp("h", "stablehlo.tanh %y", rows, cols) +
      RowReduce("p", "h", "one", "multiply", rows, cols);
  CheckModule(RowModule(rows, cols, body, "%y, %mean, %mn, %p",
                        t + ", tensor<" + r + "xf32>, tensor<" + r + "xf32>, tensor<" + r +
                            "xf32>"),
              2e-5);
  }
}

// Rows that are not a multiple of 32 elements stay interpreted.
// A long full reduction is split into rows (passes/reduction_splitting.h):
// the sum of squares then runs as one generated row fusion.
TEST(JitRowFusion, SplitFullReductionOfProducts) {
  const int64_t n = 512 * 1024;
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  const std::string text =
      "func.func @main(%x: " + t + ", %y: " + t + ") -> (tensor<f32>, tensor<f32>) {\n"
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %sq = stablehlo.multiply %x, %x : " + t + "\n"
      "  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0]"
      " : (" + t + ", tensor<f32>) -> tensor<f32>\n"
      "  %e = stablehlo.exponential %y : " + t + "\n"
      "  %m = stablehlo.reduce(%e init: %ninf) applies stablehlo.maximum across dimensions = [0]"
      " : (" + t + ", tensor<f32>) -> tensor<f32>\n"
      "  return %s, %m : tensor<f32>, tensor<f32>\n}";
  CheckModule(text, 1e-3, 2, 200);
}

// Pairwise differences of a[i] and b[j] over rows of k: each input is read
// in place through a broadcast whose rows are runs of it (x[:, None, :]),
// row by row, with a whole-row result besides the reduces. With a = 4 x 64
// and b = 64 x 64, a has as many elements as there are rows: still a rows
// input, not a value per row.
TEST(JitRowFusion, RowsOfBroadcastInputsReadInPlace) {
  for (auto [na, nb, k] : {std::tuple<int64_t, int64_t, int64_t>{4, 64, 64}, {3, 5, 96},
                           {7, 1, 128}}) {
    auto t = [](std::vector<int64_t> dims) {
      std::string s = "tensor<";
      for (int64_t d : dims) s += std::to_string(d) + "x";
      return s + "f32>";
    };
    const std::string whole = t({na, nb, k}), rows = t({na, nb});
    const std::string text =
        "func.func @main(%a: " + t({na, k}) + ", %b: " + t({nb, k}) + ") -> (" + rows + ", " +
        rows + ", " + whole + ") {\n"
        "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %ab = stablehlo.broadcast_in_dim %a, dims = [0, 2] : (" + t({na, k}) + ") -> " + whole +
        "\n  %bb = stablehlo.broadcast_in_dim %b, dims = [1, 2] : (" + t({nb, k}) + ") -> " +
        whole + "\n  %d = stablehlo.subtract %ab, %bb : " + whole +
        "\n  %sq = stablehlo.multiply %d, %d : " + whole +
        "\n  %s = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2]"
        " : (" + whole + ", tensor<f32>) -> " + rows +
        "\n  %p = stablehlo.multiply %ab, %d : " + whole +
        "\n  %m = stablehlo.reduce(%p init: %ninf) applies stablehlo.maximum across dimensions"
        " = [2] : (" + whole + ", tensor<f32>) -> " + rows +
        "\n  %e = stablehlo.exponential %d : " + whole +
        "\n  return %s, %m, %e : " + rows + ", " + rows + ", " + whole + "\n}";
    CheckModule(text, 1e-5);
  }
}

// Masks in rows (AVX-512 only): a causal [s, s] mask spread over batches
// (each row reads a run of it), a whole-row mask, a mask shared by every row,
// a float compare in the rows, and/not/EQ of masks and a mask converted to
// 1.0/0.0; softmax over the masked rows, with rows of 96 and with a tail (100).
TEST(JitRowFusion, MasksInRows) {
  for (const int64_t s : {96, 100}) {
    SCOPED_TRACE(s);
    const std::string n = std::to_string(s);
    const std::string ft = "tensor<3x" + n + "x" + n + "xf32>", pt = "tensor<3x" + n + "x" + n + "xi1>";
    const std::string rt = "tensor<3x" + n + "xf32>", sq = "tensor<" + n + "x" + n + "xi1>";
    const std::string row = "tensor<" + n + "xi1>";
    const std::string head =
        "func.func @main(%x: " + ft + ", %c: " + sq + ", %w: " + pt + ", %v: " + row + ") -> (" +
        ft + ", " + rt + ") {\n"
        "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
        "  %big = stablehlo.constant dense<-1.0e9> : tensor<f32>\n"
        "  %bigb = stablehlo.broadcast_in_dim %big, dims = [] : (tensor<f32>) -> " + ft + "\n"
        "  %zb = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> " + ft + "\n"
        "  %cb = stablehlo.broadcast_in_dim %c, dims = [1, 2] : (" + sq + ") -> " + pt + "\n"
        "  %vb = stablehlo.broadcast_in_dim %v, dims = [2] : (" + row + ") -> " + pt + "\n";
    const std::string masks[] = {
        "  %k = stablehlo.and %cb, %w : " + pt + "\n",
        "  %k0 = stablehlo.compare GT, %x, %zb : (" + ft + ", " + ft + ") -> " + pt + "\n" +
            "  %k1 = stablehlo.not %vb : " + pt + "\n  %k2 = stablehlo.or %k0, %k1 : " + pt +
            "\n  %k = stablehlo.compare EQ, %k2, %cb : (" + pt + ", " + pt + ") -> " + pt + "\n",
    };
    for (const std::string& mask : masks) {
      const std::string body =
          mask + "  %a = stablehlo.select %k, %x, %bigb : " + pt + ", " + ft + "\n" +
          "  %m = stablehlo.reduce(%a init: %ninf) applies stablehlo.maximum across dimensions = "
          "[2] : (" + ft + ", tensor<f32>) -> " + rt + "\n" +
          "  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (" + rt + ") -> " + ft + "\n" +
          "  %d = stablehlo.subtract %a, %mb : " + ft + "\n" +
          "  %e = stablehlo.exponential %d : " + ft + "\n" +
          "  %f = stablehlo.convert %k : (" + pt + ") -> " + ft + "\n" +
          "  %ef = stablehlo.multiply %e, %f : " + ft + "\n" +
          "  %sum = stablehlo.reduce(%ef init: %zero) applies stablehlo.add across dimensions = "
          "[2] : (" + ft + ", tensor<f32>) -> " + rt + "\n" +
          "  %sb = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (" + rt + ") -> " + ft + "\n" +
          "  %y = stablehlo.divide %ef, %sb : " + ft + "\n";
      CheckModuleAvx512Only(head + body + "  return %y, %m : " + ft + ", " + rt + "\n}", 2e-6);
    }
  }
}

// Rows that are not a multiple of 32 (from 64 elements): the AVX-512
// generator runs their last elements as a masked tail, the reduces combining
// them one at a time after the lanes (the interpreter's order: the same
// bits); the AVX2 one leaves them to the interpreter. Softmax with its
// maxima, layer norm with min and product reduces, streamed rows (320 bytes:
// aligned, tail of 16), bfloat16 rows, pairwise rows read in place.
TEST(JitRowFusion, RowsWithATail) {
  const auto check = CheckModuleAvx512Only;
  for (auto [rows, cols, streaming] :
       {std::tuple<int64_t, int64_t, bool>{20, 100, false}, {37, 65, false}, {9, 1000, false},
        {33, 80, true}, {12, 81, false}, {40, 127, true}, {5, 95, false}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    cpu::SetStreamingStoreBytes(streaming ? 1 : -1);
    const std::string r = std::to_string(rows), t = "tensor<" + r + "x" + std::to_string(cols);
    check(RowModule(rows, cols, SoftmaxRows("x", rows, cols), "%y, %m",
                    t + "xf32>, tensor<" + r + "xf32>"),
          2e-6);
    std::string body =
        LayerNormRows("x", rows, cols) + RowOp("y", "stablehlo.multiply %d, %rb", rows, cols) +
        RowOp("a", "stablehlo.abs %y", rows, cols) +
        RowReduce("mn", "a", "inf", "minimum", rows, cols) +
        RowOp("h", "stablehlo.tanh %y", rows, cols) +
        RowReduce("p", "h", "one", "multiply", rows, cols) +
        RowReduce("mx", "h", "ninf", "maximum", rows, cols);
    check(RowModule(rows, cols, body, "%y, %mean, %mn, %p, %mx",
                    t + "xf32>, tensor<" + r + "xf32>, tensor<" + r + "xf32>, tensor<" + r +
                        "xf32>, tensor<" + r + "xf32>"),
          2e-5);
  }
  cpu::SetStreamingStoreBytes(-1);
  // bfloat16 rows (widened on load, rounded after each op) with a tail.
  const std::string bt = "tensor<30x100xbf16>";
  check(RowModule(30, 100,
                  "  %xf = stablehlo.convert %x : (" + bt + ") -> tensor<30x100xf32>\n" +
                      RowReduce("m", "xf", "ninf", "maximum", 30, 100) +
                      RowBroadcast("mb", "m", 30, 100) +
                      RowOp("d", "stablehlo.subtract %xf, %mb", 30, 100) +
                      RowOp("e", "stablehlo.exponential %d", 30, 100) +
                      "  %eb = stablehlo.convert %e : (tensor<30x100xf32>) -> " + bt + "\n",
                  "%eb, %m", bt + ", tensor<30xf32>", "bf16"),
        1e-2);
  // Pairwise L1 distances of 100-d points, both inputs read in place.
  const std::string whole = "tensor<6x7x100xf32>", pairs = "tensor<6x7xf32>";
  check("func.func @main(%a: tensor<6x100xf32>, %b: tensor<7x100xf32>) -> (" + pairs + ", " +
            whole + ") {\n"
            "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %ab = stablehlo.broadcast_in_dim %a, dims = [0, 2] : (tensor<6x100xf32>) -> " +
            whole + "\n  %bb = stablehlo.broadcast_in_dim %b, dims = [1, 2] : (tensor<7x100xf32>) -> " +
            whole + "\n  %d = stablehlo.subtract %ab, %bb : " + whole +
            "\n  %l = stablehlo.abs %d : " + whole +
            "\n  %s = stablehlo.reduce(%l init: %zero) applies stablehlo.add across dimensions = [2]"
            " : (" + whole + ", tensor<f32>) -> " + pairs + "\n  return %s, %d : " + pairs + ", " +
            whole + "\n}",
        1e-5);
}

// Rows under 64 elements stay interpreted.
TEST(JitRowFusion, ShortRowsUseTheInterpreter) {
  const int64_t rows = 20, cols = 48;
  std::string body = RowReduce("m", "x", "ninf", "maximum", rows, cols) +
                     RowBroadcast("mb", "m", rows, cols) +
                     RowOp("d", "stablehlo.subtract %x, %mb", rows, cols);
  CheckModule(RowModule(rows, cols, body, "%d", "tensor<20x48xf32>"), 2e-6, 0);
}

// A counted while loop: carried %v (n floats) and %w updated by `body`
// (which may read the invariant %a, the splat %s and the counter %i), %n the
// trip bound (or the constant 25 when `bound` is %lim). Returns %v, %w and
// the counter after the loop.
std::string LoopModule(int64_t n, const std::string& body, const std::string& bound) {
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  const std::string types = "tensor<i32>, " + t + ", " + t + ", " + t + ", tensor<f32>, tensor<i32>";
  const std::string args = "(%i: tensor<i32>, %v: " + t + ", %w: " + t + ", %a: " + t +
                           ", %s: tensor<f32>, %n: tensor<i32>)";
  return "func.func @main(%x: " + t + ", %a0: " + t + ", %s0: tensor<f32>, %n0: tensor<i32>) -> (" +
         t + ", " + t + ", tensor<i32>) {\n"
         "  %zero = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %r:6 = \"stablehlo.while\"(%zero, %x, %a0, %a0, %s0, %n0) ({\n"
         "  ^bb0" + args + ":\n" +
         (bound == "%lim" ? "    %lim = stablehlo.constant dense<25> : tensor<i32>\n" : "") +
         "    %c = stablehlo.compare LT, %i, " + bound + " : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    stablehlo.return %c : tensor<i1>\n"
         "  }, {\n"
         "  ^bb0" + args + ":\n"
         "    %one = stablehlo.constant dense<1> : tensor<i32>\n"
         "    %i2 = stablehlo.add %i, %one : tensor<i32>\n"
         "    %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> " + t + "\n" +
         body + "    stablehlo.return %i2, %v2, %w2, %a, %s, %n : " + types + "\n"
         "  }) : (" + types + ") -> (" + types + ")\n"
         "  return %r#1, %r#2, %r#0 : " + t + ", " + t + ", tensor<i32>\n}";
}

void CheckLoop(const std::string& text, int64_t n, int32_t trips, int64_t want_kernels) {
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  std::vector<Literal> args = {SpecialInput(n, 5), SpecialInput(n, 6),
                               Literal::Scalar<float>(DType::kF32, 0.25f),
                               Literal::Scalar<int32_t>(DType::kS32, trips)};
  int64_t kernels = 0;
  std::vector<Literal> jit = Run(**m, args, true, &kernels), interpreted = Run(**m, args, false);
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) want_kernels = 0;
  EXPECT_EQ(kernels, want_kernels) << "generated loops";
  auto reference = RunOn("reference", **m, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_EQ(jit.size(), interpreted.size());
  for (size_t i = 0; i < jit.size(); ++i) {
    ExpectSameBits(jit[i], interpreted[i], "result " + std::to_string(i));
    cpu::testing::ExpectLiteralsMatch(jit[i], (*reference)[i], 1e-4,
                                      "reference, result " + std::to_string(i));
  }
}

// Two carried arrays, an invariant array, a splat, constants and every kind
// of op the generator has (tanh, exp, maximum); trip counts 0, 1 and many;
// the bound a parameter or a constant.
TEST(JitLoop, ElementWiseBodiesRunAsOneFunction) {
  for (int64_t n : {16, 1000}) {
    const std::string t = "tensor<" + std::to_string(n) + "xf32>";
    const std::string body =
        "    %m = stablehlo.multiply %v, %a : " + t + "\n"
        "    %h = stablehlo.tanh %m : " + t + "\n"
        "    %v2 = stablehlo.add %h, %sb : " + t + "\n"
        "    %k = stablehlo.constant dense<0.5> : tensor<f32>\n"
        "    %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> " + t + "\n"
        "    %e = stablehlo.multiply %w, %kb : " + t + "\n"
        "    %x2 = stablehlo.exponential %e : " + t + "\n"
        "    %w2 = stablehlo.maximum %x2, %v : " + t + "\n";
    for (int32_t trips : {0, 1, 37}) {
      CheckLoop(LoopModule(n, body, "%n"), n, trips, 1);
    }
    CheckLoop(LoopModule(n, body, "%lim"), n, 0, 1);  // a constant bound: 25 trips
  }
}

// A body that reads the counter, or rows not a multiple of 8, runs as before.
TEST(JitLoop, OtherLoopsUseTheWhileThunk) {
  const std::string t = "tensor<16xf32>";
  const std::string reads_counter =
      "    %fi = stablehlo.convert %i : (tensor<i32>) -> " + std::string("tensor<f32>") + "\n"
      "    %fb = stablehlo.broadcast_in_dim %fi, dims = [] : (tensor<f32>) -> " + t + "\n"
      "    %v2 = stablehlo.add %v, %fb : " + t + "\n"
      "    %w2 = stablehlo.multiply %w, %sb : " + t + "\n";
  CheckLoop(LoopModule(16, reads_counter, "%n"), 16, 9, 0);
  const std::string t12 = "tensor<12xf32>";
  const std::string plain = "    %v2 = stablehlo.multiply %v, %a : " + t12 + "\n"
                            "    %w2 = stablehlo.add %w, %sb : " + t12 + "\n";
  CheckLoop(LoopModule(12, plain, "%n"), 12, 9, 0);
}

}  // namespace
}  // namespace xjit::testing
