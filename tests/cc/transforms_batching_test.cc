// Batching rules against a loop over the batch (transforms/batching_rules.cc).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "transforms_test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using V = std::vector<Instruction*>;

Shape F32(std::vector<int64_t> dims) { return Shape(DType::kF32, std::move(dims)); }

Instruction* Ok(absl::StatusOr<Instruction*> v) {
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : nullptr;
}

TEST(TransformsBatching, Elementwise) {
  FnCase c{{F32({2, 3}), F32({2, 3}), F32({})}, [](Emitter& e, V p) {
    Instruction* s = Ok(e.Unary(Opcode::kSine, p[0]));
    Instruction* m = Ok(e.Mul(s, p[1]));
    Instruction* cmp = Ok(e.Compare(ComparisonDirection::kGt, m, p[1]));
    Instruction* sel = Ok(e.Select(cmp, m, p[0]));
    Instruction* cl = Ok(e.builder().Add(Opcode::kClamp, {p[2], sel, p[2]}));
    Instruction* cv = Ok(e.Convert(cl, DType::kF64));
    return V{cv, cmp};
  }};
  CheckBatching(c);
  CheckBatching(c, {true, false, false});
  CheckBatching(c, {false, true, true});
}

TEST(TransformsBatching, DataMovement) {
  FnCase c{{F32({2, 1, 3}), F32({})}, [](Emitter& e, V p) {
    Instruction* b = Ok(e.BroadcastInDim(p[0], {4, 2, 5, 3}, {1, 2, 3}));
    Instruction* t = Ok(e.Transpose(b, {3, 0, 2, 1}));
    Instruction* r = Ok(e.Reshape(t, {12, 10}));
    Instruction* s = Ok(e.Slice(r, {1, 0}, {12, 9}, {3, 2}));
    ReverseAttrs ra;
    ra.dimensions = {1};
    Instruction* rev = Ok(e.builder().Add(Opcode::kReverse, {s}, ra));
    Instruction* pad = Ok(e.Pad(rev, p[1], {1, -1}, {0, 2}, {1, 0}));
    ConcatenateAttrs ca;
    ca.dimension = 0;
    return V{Ok(e.builder().Add(Opcode::kConcatenate, {pad, pad}, ca))};
  }};
  CheckBatching(c);
  CheckBatching(c, {true, false});
  CheckBatching(c, {false, true});  // a batched padding value
}

TEST(TransformsBatching, DotGeneral) {
  FnCase c{{F32({2, 3, 4}), F32({2, 4, 5})}, [](Emitter& e, V p) {
    DotDimensionNumbers d;
    d.lhs_batching_dimensions = {0};
    d.rhs_batching_dimensions = {0};
    d.lhs_contracting_dimensions = {2};
    d.rhs_contracting_dimensions = {1};
    return V{Ok(e.DotGeneral(p[0], p[1], d))};
  }};
  CheckBatching(c);
  CheckBatching(c, {true, false});
  CheckBatching(c, {false, true});
}

TEST(TransformsBatching, ReduceAndIota) {
  FnCase c{{F32({3, 4})}, [](Emitter& e, V p) {
    Instruction* s = Ok(e.ReduceSum(p[0], {1}));
    Computation* body = *e.ScalarBody(Opcode::kMaximum, DType::kF32);
    ReduceAttrs a;
    a.dimensions = {0};
    Instruction* m =
        Ok(e.builder().Add(Opcode::kReduce, {p[0], Ok(e.Full(DType::kF32, {}, -1e9))}, a, {body}));
    IotaAttrs ia;
    Instruction* iota = Ok(e.builder().AddWithResultType(Opcode::kIota, F32({4}), {}, ia));
    return V{s, Ok(e.Add(m, iota))};
  }};
  CheckBatching(c);
}

TEST(TransformsBatching, InAxesAndOutAxes) {
  ModuleBuilder mb("axes");
  FnCase c{{F32({2, 3})}, [](Emitter& e, V p) { return V{Ok(e.Unary(Opcode::kNegate, p[0]))}; }};
  Computation* f = BuildFunction(mb, c, "f");
  auto v = transforms::Vmap(*f, {1}, 4, {2}, mb, "g");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)->parameters()[0]->shape().dims, (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ((*v)->results()[0]->shape().dims, (std::vector<int64_t>{2, 3, 4}));
  auto bad = transforms::Vmap(*f, {3}, 4, {0}, mb, "h");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("out of range"));
  auto unmapped = transforms::Vmap(*f, {0}, 4, {transforms::kNotMapped}, mb, "k");
  ASSERT_FALSE(unmapped.ok());
  EXPECT_THAT(unmapped.status().message(), HasSubstr("out_axes is None"));
}

}  // namespace
}  // namespace xjit::testing
