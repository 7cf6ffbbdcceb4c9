// Data movement, creation ops, calls and tuples on "cpu" against "reference".
#include <random>
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/program.h"

namespace xjit::cpu::testing {
namespace {

constexpr DType kTypes[] = {DType::kF32, DType::kS8, DType::kBF16, DType::kS64, DType::kC128,
                            DType::kPred};

TEST(CpuDataMovement, BroadcastTransposeReverseReshape) {
  std::mt19937_64 rng(21);
  for (DType t : kTypes) {
    std::string n(StableHloName(t));
    auto m = OneOpModule(Opcode::kBroadcastInDim, {Shape(t, {5, 1})}, BroadcastInDimAttrs{{2, 0}},
                         {}, Shape(t, {3, 4, 5}));
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "broadcast " + n));

    m = OneOpModule(Opcode::kTranspose, {Shape(t, {3, 4, 5})}, TransposeAttrs{{2, 0, 1}});
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "transpose " + n));

    m = OneOpModule(Opcode::kReverse, {Shape(t, {3, 4, 5})}, ReverseAttrs{{0, 2}});
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "reverse " + n));

    m = OneOpModule(Opcode::kReshape, {Shape(t, {3, 4, 5})}, {}, {}, Shape(t, {20, 3}));
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "reshape " + n));
  }
}

TEST(CpuDataMovement, SliceConcatenatePad) {
  std::mt19937_64 rng(22);
  for (DType t : kTypes) {
    std::string n(StableHloName(t));
    SliceAttrs s;
    s.start_indices = {1, 0, 2};
    s.limit_indices = {7, 4, 9};
    s.strides = {2, 1, 3};
    auto m = OneOpModule(Opcode::kSlice, {Shape(t, {8, 4, 9})}, s);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "slice " + n));

    ConcatenateAttrs c{1};
    m = OneOpModule(Opcode::kConcatenate, {Shape(t, {3, 2, 4}), Shape(t, {3, 5, 4}), Shape(t, {3, 1, 4})}, c);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "concatenate " + n));

    PadAttrs p;
    p.edge_padding_low = {1, -2};
    p.edge_padding_high = {-1, 3};
    p.interior_padding = {2, 1};
    m = OneOpModule(Opcode::kPad, {Shape(t, {4, 5}), Shape(t, {})}, p);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "pad " + n));
  }
}

TEST(CpuDataMovement, LargeTransposeAndBroadcast) {
  std::mt19937_64 rng(23);
  auto m = OneOpModule(Opcode::kTranspose, {Shape(DType::kF32, {700, 500})}, TransposeAttrs{{1, 0}});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "large transpose"));
  m = OneOpModule(Opcode::kBroadcastInDim, {Shape(DType::kF64, {400})}, BroadcastInDimAttrs{{1}},
                  {}, Shape(DType::kF64, {300, 400}));
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "large broadcast"));
}

// Transposes that take the register tiles (backends/cpu/transpose_tiles.cc):
// 4- and 8-byte elements, whole tiles and ragged edges on both sides, outer
// dims before, between and after the transposed pair; others take the
// strided copy (1- and 2-byte elements, pairs too small for a tile).
TEST(CpuDataMovement, TransposesInRegisterTiles) {
  std::mt19937_64 rng(29);
  struct Case {
    std::vector<int64_t> dims, perm;
  };
  const Case cases[] = {{{16, 16}, {1, 0}},          {{64, 48}, {1, 0}},
                        {{37, 53}, {1, 0}},          {{15, 100}, {1, 0}},
                        {{100, 15}, {1, 0}},         {{8, 40, 33}, {0, 2, 1}},
                        {{3, 17, 5, 19}, {0, 3, 1, 2}}, {{3, 19, 17, 5}, {0, 2, 3, 1}},
                        {{20, 3, 18}, {2, 1, 0}},    {{4, 2, 16, 24}, {1, 3, 0, 2}},
                        // Destination rows of 2 KiB or more: bands of rows.
                        {{600, 37}, {1, 0}},         {{1030, 45}, {1, 0}},
                        {{2, 530, 20}, {0, 2, 1}},   {{300, 17}, {1, 0}}};
  for (DType t : {DType::kF32, DType::kS32, DType::kF64, DType::kC64, DType::kBF16, DType::kS8}) {
    for (const Case& c : cases) {
      auto m = OneOpModule(Opcode::kTranspose, {Shape(t, c.dims)}, TransposeAttrs{c.perm});
      ASSERT_TRUE(m.ok()) << m.status();
      EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng),
                             "transpose " + std::string(StableHloName(t)) + " " +
                                 Shape(t, c.dims).ToString()));
    }
  }
}

TEST(CpuDataMovement, IotaConstantCallTupleAndAliasedResults) {
  ModuleBuilder mb("misc");
  ComputationBuilder* callee = mb.NewComputation("affine");
  Instruction* p = callee->Parameter(Shape(DType::kS32, {3}));
  Instruction* q = callee->Parameter(Shape(DType::kS32, {3}));
  Instruction* prod = *callee->Add(Opcode::kMultiply, {p, q});
  Computation* affine = *callee->Finish({*callee->Add(Opcode::kAdd, {prod, p}), prod});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(Shape(DType::kS32, {3}));
  Instruction* idx = *main->AddWithResultType(Opcode::kIota, Shape(DType::kS32, {3}), {});
  Instruction* call = *main->Add(Opcode::kCall, {x, idx}, {}, {affine});
  GetTupleElementAttrs e0{0}, e1{1};
  Instruction* sum = *main->Add(Opcode::kGetTupleElement, {call}, e0);
  Instruction* product = *main->Add(Opcode::kGetTupleElement, {call}, e1);
  Instruction* reshaped = *main->AddWithResultType(Opcode::kReshape, Shape(DType::kS32, {1, 3}), {sum});
  // Results: a computed value, a reshape alias, a parameter, a repeat, an iota.
  auto entry = main->Finish({product, reshaped, x, product, idx});
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto m = mb.Build(*entry);
  ASSERT_TRUE(m.ok()) << m.status();
  Literal xv(Shape(DType::kS32, {3}));
  int32_t xs[] = {5, 6, 7};
  std::memcpy(xv.mutable_data(), xs, sizeof(xs));
  auto r = RunOn("cpu", **m, {xv});
  ASSERT_TRUE(r.ok()) << r.status();
  auto get = [&](int i) { const int32_t* d = (*r)[i].data_as<int32_t>(); return std::vector<int32_t>(d, d + 3); };
  EXPECT_EQ(get(0), (std::vector<int32_t>{0, 6, 14}));
  EXPECT_EQ(get(1), (std::vector<int32_t>{5, 12, 21}));
  EXPECT_EQ(get(2), (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(get(3), (std::vector<int32_t>{0, 6, 14}));
  EXPECT_EQ(get(4), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_TRUE(CrossCheck(**m, {xv}, "misc"));
}

TEST(CpuDataMovement, ChainReusesArenaAndRejectsBadArity) {
  // A chain of 50 adds: with liveness reuse the arena holds a couple of buffers.
  ModuleBuilder mb("chain");
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(Shape(DType::kF32, {1024}));
  Instruction* v = x;
  for (int i = 0; i < 50; ++i) v = *main->Add(Opcode::kAdd, {v, x});
  auto entry = main->Finish({*main->Add(Opcode::kNegate, {v})});
  ASSERT_TRUE(entry.ok());
  auto m = mb.Build(*entry);
  ASSERT_TRUE(m.ok());
  std::mt19937_64 rng(24);
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng, false), "chain"));
  auto compiler = GetCompiler("cpu");
  ASSERT_TRUE(compiler.ok());
  auto program = (*compiler)->Compile(**m);
  ASSERT_TRUE(program.ok());
  auto* cpu_program = dynamic_cast<CpuProgram*>(program->get());
  ASSERT_NE(cpu_program, nullptr);
  EXPECT_LE(cpu_program->arena_bytes(), 2 * 4096);
  EXPECT_EQ(cpu_program->num_thunks(), 1);  // the 51 element-wise ops are one fused chain
  EXPECT_FALSE((*program)->Run({}, {}).ok());
}


// Scalar broadcasts feeding binary ops, select and clamp are read in place
// (stride 0) and never materialized; one that is also a result is.
TEST(CpuDataMovement, ScalarBroadcastsFuseIntoElementwiseOps) {
  for (bool broadcast_is_result : {false, true}) {
    ModuleBuilder mb("splat");
    ComputationBuilder* main = mb.NewComputation("main");
    Instruction* x = main->Parameter(Shape(DType::kF32, {1000}));
    Instruction* c = main->Parameter(Shape(DType::kF32, {}));
    Instruction* b =
        *main->AddWithResultType(Opcode::kBroadcastInDim, Shape(DType::kF32, {1000}), {c});
    Instruction* sum = *main->Add(Opcode::kAdd, {x, b});
    Instruction* diff = *main->Add(Opcode::kSubtract, {b, sum});
    Instruction* less = *main->Add(Opcode::kCompare, {diff, b}, CompareAttrs{ComparisonDirection::kLt});
    Instruction* pick = *main->Add(Opcode::kSelect, {less, b, diff});
    Instruction* both = *main->Add(Opcode::kMultiply, {b, b});
    Instruction* clamped = *main->Add(Opcode::kClamp, {b, pick, both});
    std::vector<Instruction*> results = {clamped};
    if (broadcast_is_result) results.push_back(b);
    auto entry = main->Finish(results);
    ASSERT_TRUE(entry.ok()) << entry.status();
    auto m = mb.Build(*entry);
    ASSERT_TRUE(m.ok()) << m.status();
    std::mt19937_64 rng(31);
    EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "splat"));
    auto program = (*GetCompiler("cpu"))->Compile(**m);
    ASSERT_TRUE(program.ok());
    auto* cpu_program = dynamic_cast<CpuProgram*>(program->get());
    ASSERT_NE(cpu_program, nullptr);
    // One fused chain, plus the broadcast when it is a result.
    EXPECT_EQ(cpu_program->num_thunks(), broadcast_is_result ? 2 : 1);
  }
}

// Instructions no result depends on get no thunk.
TEST(CpuDataMovement, DeadInstructionsAreNotCompiled) {
  ModuleBuilder mb("dead");
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(Shape(DType::kF32, {64, 64}));
  Instruction* unused = *main->Add(Opcode::kTranspose, {x}, TransposeAttrs{{1, 0}});
  (void)*main->Add(Opcode::kExponential, {unused});
  Instruction* y = *main->Add(Opcode::kNegate, {x});
  auto entry = main->Finish({y});
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto m = mb.Build(*entry);
  ASSERT_TRUE(m.ok()) << m.status();
  std::mt19937_64 rng(5);
  EXPECT_TRUE(CrossCheck(**m, RandomArgs(**m, rng), "dead"));
  auto program = (*GetCompiler("cpu"))->Compile(**m);
  ASSERT_TRUE(program.ok());
  auto* cpu_program = dynamic_cast<CpuProgram*>(program->get());
  ASSERT_NE(cpu_program, nullptr);
  EXPECT_EQ(cpu_program->num_thunks(), 1);
  EXPECT_EQ(cpu_program->arena_bytes(), 0);
}

}  // namespace
}  // namespace xjit::cpu::testing
