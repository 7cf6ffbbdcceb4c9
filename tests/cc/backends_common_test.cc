// The kernel-side helpers every backend shares: reduction geometry and
// recognising a reduce body as one known op.
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/backends/common/reduction_geometry.h"

namespace xjit::testing {
namespace {

TEST(ReductionGeometry, MergesContiguousDimsAndDropsUnitDims) {
  // [2, 1, 3, 4] reducing dims 2 and 3: the reduced dims are one run of 12.
  common::ReductionGeometry g = common::MakeReductionGeometry(T(DType::kF32, {2, 1, 3, 4}), {2, 3});
  EXPECT_EQ(g.num_outputs, 2);
  EXPECT_EQ(g.num_reduced, 12);
  ASSERT_EQ(g.reduced.size(), 1u);
  EXPECT_EQ(g.reduced[0].size, 12);
  EXPECT_EQ(g.reduced[0].stride, 1);
  ASSERT_EQ(g.kept.size(), 1u);
  EXPECT_EQ(g.kept[0].stride, 12);
}

TEST(ReductionGeometry, VisitsEveryReducedElementOnce) {
  // [3, 4, 5] reducing dims 0 and 2: output o (dim 1) reads 15 elements.
  const Shape s = T(DType::kF32, {3, 4, 5});
  common::ReductionGeometry g = common::MakeReductionGeometry(s, {0, 2});
  ASSERT_EQ(g.num_outputs, 4);
  std::vector<int> seen(60, 0);
  for (int64_t o = 0; o < g.num_outputs; ++o) {
    EXPECT_EQ(common::OutputBase(g, o), o * 5);
    common::ForEachReducedRun(g, common::OutputBase(g, o), [&](int64_t off, int64_t n, int64_t st) {
      for (int64_t i = 0; i < n; ++i) ++seen[off + i * st];
    });
  }
  for (int v : seen) EXPECT_EQ(v, 1);
}

// A reduce of f32[4] -> f32[] whose body is `op(p0, p1)` or `op(p1, p0)`.
std::optional<Opcode> Recognise(Opcode op, bool swapped, DType body_type = DType::kF32) {
  ModuleBuilder mb("r");
  ComputationBuilder* bb = mb.NewComputation("body");
  Instruction* p = bb->Parameter(T(body_type, {}));
  Instruction* q = bb->Parameter(T(body_type, {}));
  auto r = bb->Add(op, swapped ? std::vector<Instruction*>{q, p} : std::vector<Instruction*>{p, q});
  if (!r.ok()) return std::nullopt;
  Computation* body = *bb->Finish({*r});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(body_type, {4}));
  Instruction* init = cb->Parameter(T(body_type, {}));
  ReduceAttrs dims{{0}};
  Instruction* reduce = Must(cb->Add(Opcode::kReduce, {x, init}, dims, {body}));
  return reduce == nullptr ? std::nullopt : RecogniseReduceBody(*reduce);
}

TEST(ReduceBody, RecognisesTheSixKnownOpsInEitherOrder) {
  for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum}) {
    EXPECT_EQ(Recognise(op, false), op) << OpcodeName(op);
    EXPECT_EQ(Recognise(op, true), op) << OpcodeName(op);
  }
  EXPECT_EQ(Recognise(Opcode::kAnd, false, DType::kPred), Opcode::kAnd);
  EXPECT_EQ(Recognise(Opcode::kOr, true, DType::kS32), Opcode::kOr);
  EXPECT_EQ(Recognise(Opcode::kSubtract, false), std::nullopt);
  EXPECT_EQ(Recognise(Opcode::kDivide, false), std::nullopt);
}

TEST(ReduceBody, RejectsBodiesThatAreNotOneOpOfBothParameters) {
  ModuleBuilder mb("r");
  ComputationBuilder* bb = mb.NewComputation("body");
  Instruction* p = bb->Parameter(T(DType::kF32, {}));
  bb->Parameter(T(DType::kF32, {}));
  Computation* body = *bb->Finish({Must(bb->Add(Opcode::kAdd, {p, p}))});  // p0 + p0
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {4}));
  Instruction* init = cb->Parameter(T(DType::kF32, {}));
  ReduceAttrs dims{{0}};
  Instruction* reduce = Must(cb->Add(Opcode::kReduce, {x, init}, dims, {body}));
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(RecogniseReduceBody(*reduce), std::nullopt);
}

}  // namespace
}  // namespace xjit::testing
