// What the AVX-512 row generator (cpu/jit_row_avx512.cc) does its own way,
// against the interpreter bit for bit (and the AVX2 generator's runs too):
// maximum and minimum reduces over signed zeros, infinities and NaNs in
// every lane, more per-row values in one loop than it keeps in registers,
// and streamed whole rows into outputs aligned to 32 bytes but not 64.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "jit_test_util.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_row.h"
#include "xjit/backends/cpu/row_fusion.h"
#include "xjit/passes/elementwise_fusion.h"

namespace xjit::testing {
namespace {

std::string Tensor(int64_t rows, int64_t cols) {
  return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
}

// Rows of signed zeros only, of zeros with one NaN of either sign, of
// infinities with one zero, all NaN, and ordinary values with zeros among
// them: the reduces' equal-value rule (max ANDs the bits, min ORs them) and
// NaN in whichever lane it falls.
Literal ZerosAndNaNs(int64_t rows, int64_t cols, uint64_t seed) {
  Literal lit(Shape(DType::kF32, {rows, cols}));
  float* x = reinterpret_cast<float*>(lit.mutable_data());
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * cols;
    const int64_t at = static_cast<int64_t>(rng() % cols);
    for (int64_t i = 0; i < cols; ++i) {
      const bool sign = rng() % 2;
      const float zero = sign ? -0.0f : 0.0f;
      switch (r % 8) {
        case 0: row[i] = zero; break;
        case 1: row[i] = -0.0f; break;
        case 2: row[i] = i == at ? -NAN : zero; break;
        case 3: row[i] = i == at ? NAN : zero; break;
        case 4: row[i] = i == at ? zero : (sign ? -INFINITY : INFINITY); break;
        case 5: row[i] = rng() % 4 == 0 ? zero : normal(rng); break;
        case 6: row[i] = sign ? -NAN : NAN; break;
        default: row[i] = i == at ? 0.0f : -INFINITY; break;
      }
    }
  }
  return lit;
}

// Maximum and minimum of the rows (of a value read in place and of one
// computed in the loop), with x less its row maximum.
TEST(JitRowAvx512, MaxAndMinOfSignedZerosAndNaNs) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{40, 64}, {24, 320}}) {
    const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
    const std::string body = RowReduce("m", "x", "ninf", "maximum", rows, cols) +
                             RowReduce("n", "x", "inf", "minimum", rows, cols) +
                             RowOp("a", "stablehlo.negate %x", rows, cols) +
                             RowReduce("k", "a", "ninf", "maximum", rows, cols) +
                             RowBroadcast("mb", "m", rows, cols) +
                             RowOp("d", "stablehlo.subtract %x, %mb", rows, cols);
    const std::string text = RowModule(rows, cols, body, "%d, %m, %n, %k",
                                       Tensor(rows, cols) + ", " + r + ", " + r + ", " + r);
    std::vector<Literal> args = {ZerosAndNaNs(rows, cols, 7),
                                 SpecialInputOf(Shape(DType::kF32, {cols}), 8)};
    for (cpu::JitIsa isa : GeneratorsToTest()) CheckModuleOn(text, args, isa, 2e-6);
  }
}

// Ten per-row values read by one loop (the generator keeps eight in
// registers, broadcasting the others where they are read).
TEST(JitRowAvx512, ManyPerRowValuesInOneLoop) {
  const int64_t rows = 30, cols = 128;
  const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
  std::string body = RowReduce("s", "x", "zero", "add", rows, cols);
  std::string sum = "x";
  for (int k = 1; k <= 10; ++k) {
    const std::string c = "c" + std::to_string(k), p = "p" + std::to_string(k);
    const std::string y = "y" + std::to_string(k);
    body += "  %" + c + " = stablehlo.constant dense<" + std::to_string(k) + ".5> : " + r + "\n" +
            RowOp(p, "stablehlo.multiply %s, %" + c, rows, cols, true) +
            RowBroadcast(p + "b", p, rows, cols) +
            RowOp(y, "stablehlo.add %" + sum + ", %" + p + "b", rows, cols);
    sum = y;
  }
  CheckModule(RowModule(rows, cols, body, "%" + sum + ", %s", Tensor(rows, cols) + ", " + r),
              1e-5);
}

// A softmax row fusion's thunk with streaming stores, run into outputs
// aligned to 64 bytes, to 32 but not 64 (AVX-512's non-temporal stores need
// 64: the ordinary function runs) and to 4: the same bits as the
// interpreter's thunk of the same fusion each time.
TEST(JitRowAvx512, StreamedRowsIntoMisalignedOutputs) {
  const int64_t rows = 48, cols = 256;
  const std::string r = "tensor<" + std::to_string(rows) + "xf32>";
  const std::string body = SoftmaxRows("x", rows, cols);
  auto m = ParseModule(RowModule(rows, cols, body, "%y, %m", Tensor(rows, cols) + ", " + r));
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<Literal> args = {SpecialInputOf(Shape(DType::kF32, {rows, cols}), 3, 200),
                                     SpecialInputOf(Shape(DType::kF32, {cols}), 4)};
  passes::FusionOptions options;
  options.row_reduce = [](const Instruction&) { return true; };
  auto fused = passes::FuseElementwise(**m, options);
  ASSERT_TRUE(fused.ok()) << fused.status();
  const Instruction* fusion = nullptr;
  for (const auto& instr : (*fused)->entry()->instructions()) {
    if (instr->opcode() == Opcode::kFusion) fusion = instr.get();
  }
  ASSERT_NE(fusion, nullptr);
  // The fusion's results: the rows and the maxima, in either order.
  const std::vector<Instruction*>& results = fusion->called_computations()[0]->results();
  ASSERT_EQ(results.size(), 2u);
  const int rows_result = results[0]->shape().num_elements() == rows * cols ? 0 : 1;
  // Each operand: a parameter's argument, or a constant's value.
  std::vector<const void*> operands;
  for (const Instruction* o : fusion->operands()) {
    if (o->opcode() == Opcode::kParameter) {
      operands.push_back(args[o->attrs<ParameterAttrs>().number].data());
    } else {
      ASSERT_EQ(o->opcode(), Opcode::kConstant);
      operands.push_back(o->attrs<ConstantAttrs>().value.data());
    }
  }
  // The interpreter's results (row_fusion.h) on the same fusion.
  std::vector<cpu::SlotId> slots;
  for (size_t i = 0; i < operands.size() + 2; ++i) slots.push_back(static_cast<cpu::SlotId>(i));
  const std::vector<cpu::SlotId> inputs(slots.begin(), slots.end() - 2);
  const std::vector<cpu::SlotId> outputs(slots.end() - 2, slots.end());
  Literal want_rows(Shape(DType::kF32, {rows, cols})), want_maxima(Shape(DType::kF32, {rows}));
  {
    cpu::SetFusionJitEnabled(false);
    int64_t work = 0;
    auto interpreted = cpu::MakeRowFusionThunk(*fusion, inputs, outputs, &work);
    cpu::SetFusionJitEnabled(true);
    ASSERT_TRUE(interpreted.ok()) << interpreted.status();
    std::vector<void*> buffers;
    for (const void* o : operands) buffers.push_back(const_cast<void*>(o));
    buffers.push_back(rows_result == 0 ? want_rows.mutable_data() : want_maxima.mutable_data());
    buffers.push_back(rows_result == 0 ? want_maxima.mutable_data() : want_rows.mutable_data());
    (*interpreted)->Execute(buffers.data());
  }
  std::vector<float> y(rows * cols + 64), maxima(rows);
  float* aligned = y.data() + (64 - reinterpret_cast<uintptr_t>(y.data()) % 64) % 64 / 4;
  for (cpu::JitIsa isa : GeneratorsToTest()) {
    cpu::SetFusionJitIsa(isa);
    cpu::SetStreamingStoreBytes(1);
    int64_t work = 0;
    std::unique_ptr<cpu::Thunk> thunk = cpu::MakeRowJitThunk(*fusion, inputs, outputs, &work);
    cpu::SetStreamingStoreBytes(-1);
    cpu::SetFusionJitIsa(cpu::JitIsa::kAuto);
    if (thunk == nullptr) GTEST_SKIP() << "no generator for this CPU";
    for (int offset : {0, 8, 1}) {
      std::vector<void*> buffers;
      for (const void* o : operands) buffers.push_back(const_cast<void*>(o));
      buffers.push_back(rows_result == 0 ? static_cast<void*>(aligned + offset) : maxima.data());
      buffers.push_back(rows_result == 0 ? static_cast<void*>(maxima.data()) : aligned + offset);
      thunk->Execute(buffers.data());
      const std::string which = (isa == cpu::JitIsa::kAvx2 ? "AVX2, offset " : "offset ") +
                                std::to_string(offset);
      ExpectSameBits(Literal(want_rows.shape(), aligned + offset), want_rows, which);
      ExpectSameBits(Literal(want_maxima.shape(), maxima.data()), want_maxima, which + ", maxima");
    }
  }
}

}  // namespace
}  // namespace xjit::testing
