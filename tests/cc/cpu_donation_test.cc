// The cpu backend's ResultMayReuseParameter on small graphs: yes when the
// parameter's last read comes before the result's first write, or when the
// writing element-wise op or fused chain reads it only at the same index
// first; no for transpose, dot and a fusion that reads it after writing. Every
// yes is checked by running the program with the result in the parameter's
// storage.
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace xjit::cpu::testing {
namespace {

using xjit::testing::Must;
using xjit::testing::T;

struct Compiled {
  std::unique_ptr<Module> module;
  std::unique_ptr<CompiledProgram> program;
};

Compiled Compile(ModuleBuilder& mb, ComputationBuilder* cb, std::vector<Instruction*> results) {
  Compiled c;
  auto main = cb->Finish(std::move(results));
  EXPECT_TRUE(main.ok()) << main.status();
  if (!main.ok()) return c;
  auto module = mb.Build(*main);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return c;
  c.module = *std::move(module);
  auto compiler = GetCompiler("cpu");
  EXPECT_TRUE(compiler.ok()) << compiler.status();
  auto program = (*compiler)->Compile(*c.module);
  EXPECT_TRUE(program.ok()) << program.status();
  if (program.ok()) c.program = *std::move(program);
  return c;
}

// Runs `c` once into fresh result buffers and once with result `result`
// written into argument `parameter`'s storage; true when all results agree.
bool AliasedRunMatches(const Compiled& c, int result, int parameter) {
  std::mt19937_64 rng(7);
  std::vector<Literal> args;
  for (const Shape& s : c.module->ParameterShapes()) args.push_back(RandomLiteral(s, rng, false));
  auto run = [&](std::vector<Literal>& in, bool alias) {
    std::vector<Literal> out;
    for (const Shape& s : c.module->ResultShapes()) out.emplace_back(s);
    std::vector<const void*> in_ptrs;
    for (const Literal& a : in) in_ptrs.push_back(a.data());
    std::vector<void*> out_ptrs;
    for (Literal& r : out) out_ptrs.push_back(r.mutable_data());
    if (alias) out_ptrs[result] = in[parameter].mutable_data();
    absl::Status s = c.program->Run(in_ptrs, out_ptrs);
    EXPECT_TRUE(s.ok()) << s;
    if (alias) std::memcpy(out[result].mutable_data(), in[parameter].data(), out[result].size_bytes());
    return out;
  };
  std::vector<Literal> fresh_args = args, donated_args = args;
  std::vector<Literal> expected = run(fresh_args, false);
  std::vector<Literal> got = run(donated_args, true);
  for (size_t i = 0; i < expected.size(); ++i) {
    if (got[i] != expected[i]) return false;
  }
  return true;
}

Instruction* Splat(ComputationBuilder* cb, float v, std::vector<int64_t> dims) {
  Instruction* c = cb->Constant(Literal::Scalar<float>(DType::kF32, v));
  return Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kF32, std::move(dims)),
                                    {c}, BroadcastInDimAttrs{{}}));
}

TEST(CpuDonation, OptimizerUpdateWritesOverTheParameterItReads) {
  for (int64_t n : {int64_t{64}, int64_t{300000}}) {  // one tile; many tiles in parallel
    ModuleBuilder mb("update");
    ComputationBuilder* cb = mb.NewComputation("main");
    Instruction* p = cb->Parameter(T(DType::kF32, {n}));
    Instruction* g = cb->Parameter(T(DType::kF32, {n}));
    Instruction* step = Must(cb->Add(Opcode::kMultiply, {Splat(cb, 0.1f, {n}), g}));
    Compiled c = Compile(mb, cb, {Must(cb->Add(Opcode::kSubtract, {p, step}))});
    ASSERT_NE(c.program, nullptr);
    EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 0)) << n;
    EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 1)) << n;
    EXPECT_FALSE(c.program->ResultMayReuseParameter(0, 2));
    EXPECT_FALSE(c.program->ResultMayReuseParameter(1, 0));
    EXPECT_TRUE(AliasedRunMatches(c, 0, 0)) << n;
    EXPECT_TRUE(AliasedRunMatches(c, 0, 1)) << n;
  }
}

TEST(CpuDonation, AResultWrittenAfterTheLastReadMayReuseIt) {
  ModuleBuilder mb("later");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(T(DType::kF32, {8, 8}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {p}));
  Compiled c = Compile(mb, cb, {Must(cb->Add(Opcode::kTranspose, {e}, TransposeAttrs{{1, 0}}))});
  ASSERT_NE(c.program, nullptr);
  EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 0));
  EXPECT_TRUE(AliasedRunMatches(c, 0, 0));
}

TEST(CpuDonation, TransposeAndDotNeverWriteOverWhatTheyRead) {
  ModuleBuilder mb("movement");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(T(DType::kF32, {8, 8}));
  Instruction* q = cb->Parameter(T(DType::kF32, {8, 8}));
  Instruction* t = Must(cb->Add(Opcode::kTranspose, {p}, TransposeAttrs{{1, 0}}));
  Instruction* d = Must(cb->Add(Opcode::kDotGeneral, {q, q},
                                DotGeneralAttrs{DotDimensionNumbers{{}, {}, {1}, {0}}}));
  Compiled c = Compile(mb, cb, {t, d});
  ASSERT_NE(c.program, nullptr);
  EXPECT_FALSE(c.program->ResultMayReuseParameter(0, 0));
  EXPECT_FALSE(c.program->ResultMayReuseParameter(1, 1));
  // Each is written after the other parameter's last read.
  EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 1) || c.program->ResultMayReuseParameter(1, 0));
  EXPECT_FALSE(AliasedRunMatches(c, 0, 0));  // what the rule prevents
}

TEST(CpuDonation, AFusionReadingTheParameterAfterWritingTheResultMayNot) {
  // One fusion: a = p * 2 (result 0), then b = a + p (result 1) reads p again.
  ModuleBuilder mb("fusion");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(T(DType::kF32, {64}));
  Instruction* a = Must(cb->Add(Opcode::kMultiply, {p, Splat(cb, 2.0f, {64})}));
  Instruction* b = Must(cb->Add(Opcode::kAdd, {a, p}));
  Compiled c = Compile(mb, cb, {a, b});
  ASSERT_NE(c.program, nullptr);
  EXPECT_FALSE(c.program->ResultMayReuseParameter(0, 0));
  EXPECT_FALSE(AliasedRunMatches(c, 0, 0));  // b would read 2p as p
  EXPECT_TRUE(c.program->ResultMayReuseParameter(1, 0));
  EXPECT_TRUE(AliasedRunMatches(c, 1, 0));
}

TEST(CpuDonation, APassthroughResultIsCopiedOntoItself) {
  ModuleBuilder mb("passthrough");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(T(DType::kF32, {16}));
  Instruction* g = cb->Parameter(T(DType::kF32, {16}));
  Compiled c = Compile(mb, cb, {p, Must(cb->Add(Opcode::kNegate, {g}))});
  ASSERT_NE(c.program, nullptr);
  EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 0));
  EXPECT_TRUE(AliasedRunMatches(c, 0, 0));
  // The copy of p at the end may go into g's storage: g is read before.
  EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 1));
  EXPECT_TRUE(AliasedRunMatches(c, 0, 1));
  EXPECT_FALSE(c.program->ResultMayReuseParameter(1, 0));  // p is still read by its copy
  EXPECT_TRUE(c.program->ResultMayReuseParameter(1, 1));
  EXPECT_TRUE(AliasedRunMatches(c, 1, 1));
}

TEST(CpuDonation, SizesMustMatch) {
  ModuleBuilder mb("sizes");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* p = cb->Parameter(T(DType::kF32, {16}));
  Compiled c = Compile(mb, cb, {Must(cb->AddWithResultType(Opcode::kConvert, T(DType::kF64, {16}), {p}))});
  ASSERT_NE(c.program, nullptr);
  EXPECT_FALSE(c.program->ResultMayReuseParameter(0, 0));
}

// dynamic_update_slice updates its operand in place (x.at[i].set(v), a
// scan's output buffer): the result may take over the operand, never the
// update or an index.
TEST(CpuDonation, DynamicUpdateSliceWritesOverItsOperand) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {6, 3}));
  Instruction* u = cb->Parameter(T(DType::kF32, {1, 3}));
  Instruction* i = cb->Parameter(T(DType::kS32, {}));
  Instruction* zero = cb->Constant(Literal::Scalar<int32_t>(DType::kS32, 0));
  Compiled c = Compile(mb, cb, {Must(cb->Add(Opcode::kDynamicUpdateSlice, {x, u, i, zero}))});
  ASSERT_NE(c.program, nullptr);
  EXPECT_TRUE(c.program->ResultMayReuseParameter(0, 0));
  EXPECT_FALSE(c.program->ResultMayReuseParameter(0, 1));
  EXPECT_TRUE(AliasedRunMatches(c, 0, 0));
}

}  // namespace
}  // namespace xjit::cpu::testing
