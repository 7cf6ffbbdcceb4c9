// The cuda backend's generated kernels, run on the host (host_emulation.h),
// against the reference backend: every element-wise op on every element
// type it takes, with NaN, infinities, signed zeros and integer extremes
// among the inputs, and converts between every pair of types. This checks
// the per-element rules of scalar_prelude.cc as compiled C++ (the GPU adds
// libdevice's transcendentals and NVRTC's code generation, which only a GPU
// run checks).
#include "xjit/backends/cuda/host_emulation.h"

#include <random>
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"

namespace xjit::cuda {
namespace {

using cpu::testing::DefaultTolerance;
using cpu::testing::ExpectLiteralsMatch;
using cpu::testing::kAllDTypes;
using cpu::testing::RandomArgs;
using cpu::testing::RunOn;

// Runs `module` through the cuda lowering on the host and on the reference
// backend and compares every result.
void ExpectEmulationMatchesReference(const Module& module, std::mt19937_64& rng,
                                     const std::string& what) {
  std::vector<Literal> args = RandomArgs(module, rng);
  absl::StatusOr<std::vector<Literal>> want = RunOn("reference", module, args);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  absl::StatusOr<LoweredProgram> lowered = LowerForCuda(module);
  ASSERT_TRUE(lowered.ok()) << what << ": " << lowered.status();
  absl::StatusOr<std::unique_ptr<HostEmulation>> emulation = HostEmulation::Create(*std::move(lowered));
  ASSERT_TRUE(emulation.ok()) << what << ": " << emulation.status();
  std::vector<Literal> got;
  std::vector<const void*> in;
  std::vector<void*> out;
  for (const Literal& a : args) in.push_back(a.data());
  for (const Shape& s : module.ResultShapes()) got.emplace_back(s);
  for (Literal& g : got) out.push_back(g.mutable_data());
  absl::Status run = (*emulation)->Run(in, out);
  ASSERT_TRUE(run.ok()) << what << ": " << run;
  ASSERT_EQ(got.size(), want->size());
  for (size_t i = 0; i < got.size(); ++i) {
    // Transcendentals: the host's libm against the reference's rules.
    ExpectLiteralsMatch(got[i], (*want)[i], 4 * DefaultTolerance(got[i].shape().dtype),
                        what + " result " + std::to_string(i));
  }
}

// One module per element type: x and y of that type, every unary op on x,
// every binary op on (x, y), compare in every direction, select and clamp;
// ops the builder rejects for the type are left out.
TEST(CudaHostEmulation, EveryElementwiseOpEveryDTypeMatchesTheReference) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (DType t : kAllDTypes) {
    ModuleBuilder mb("elementwise");
    ComputationBuilder* main = mb.NewComputation("main");
    const Shape shape(t, {3, 67});
    Instruction* x = main->Parameter(shape);
    Instruction* y = main->Parameter(shape);
    Instruction* p = main->Parameter(Shape(DType::kPred, {3, 67}));
    std::vector<Instruction*> results;
    for (int o = 0; o < kNumOpcodes; ++o) {
      const Opcode op = static_cast<Opcode>(o);
      absl::StatusOr<Instruction*> r = absl::InvalidArgumentError("");
      if (IsElementwiseUnary(op) && op != Opcode::kConvert && op != Opcode::kReducePrecision) {
        r = main->Add(op, {x});
      } else if (IsElementwiseBinary(op) && op != Opcode::kCompare) {
        r = main->Add(op, {x, y});
      }
      if (r.ok()) results.push_back(*r);
    }
    for (ComparisonDirection d : {ComparisonDirection::kEq, ComparisonDirection::kNe,
                                  ComparisonDirection::kLt, ComparisonDirection::kLe,
                                  ComparisonDirection::kGt, ComparisonDirection::kGe}) {
      CompareAttrs attrs;
      attrs.comparison_direction = d;
      absl::StatusOr<Instruction*> r = main->Add(Opcode::kCompare, {x, y}, Attributes(attrs));
      if (r.ok()) results.push_back(*r);
    }
    if (auto r = main->Add(Opcode::kSelect, {p, x, y}); r.ok()) results.push_back(*r);
    if (auto r = main->Add(Opcode::kClamp, {y, x, y}); r.ok()) results.push_back(*r);
    auto entry = main->Finish(results);
    ASSERT_TRUE(entry.ok()) << entry.status();
    auto module = mb.Build(*entry);
    ASSERT_TRUE(module.ok()) << module.status();
    ExpectEmulationMatchesReference(**module, rng, std::string(StableHloName(t)));
    checked += static_cast<int>(results.size());
  }
  EXPECT_GT(checked, 250);
}

TEST(CudaHostEmulation, ConvertBetweenEveryPairMatchesTheReference) {
  std::mt19937_64 rng(8);
  ModuleBuilder mb("converts");
  ComputationBuilder* main = mb.NewComputation("main");
  std::vector<Instruction*> results;
  for (DType from : kAllDTypes) {
    Instruction* x = main->Parameter(Shape(from, {2, 33}));
    for (DType to : kAllDTypes) {
      auto r = main->AddWithResultType(Opcode::kConvert, Shape(to, {2, 33}), {x}, Attributes());
      ASSERT_TRUE(r.ok()) << r.status();
      results.push_back(*r);
    }
  }
  auto entry = main->Finish(results);
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto module = mb.Build(*entry);
  ASSERT_TRUE(module.ok()) << module.status();
  ExpectEmulationMatchesReference(**module, rng, "convert");
}

}  // namespace
}  // namespace xjit::cuda
