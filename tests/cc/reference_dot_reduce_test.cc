// dot_general and reduce kernels, and the evaluator on whole graphs built
// with the builder (reduce bodies, variadic argmax, call, tuples) and run
// through the registered "reference" compiler.
#include <algorithm>

#include "gtest/gtest.h"
#include "reference_test_util.h"
#include "test_util.h"
#include "xjit/backends/reference/evaluator.h"
#include "xjit/backends/reference/ops.h"
#include "xjit/builder/builder.h"
#include "xjit/runtime/backend.h"

namespace xjit::reference::testing {
namespace {

DotDimensionNumbers Dims(std::vector<int64_t> lb, std::vector<int64_t> rb, std::vector<int64_t> lc,
                         std::vector<int64_t> rc) {
  DotDimensionNumbers d;
  d.lhs_batching_dimensions = lb;
  d.rhs_batching_dimensions = rb;
  d.lhs_contracting_dimensions = lc;
  d.rhs_contracting_dimensions = rc;
  return d;
}

TEST(ReferenceDotGeneral, SpecExampleWithBatchDims) {
  Literal lhs = Lit<int64_t>(DType::kS64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Literal rhs = Lit<int64_t>(DType::kS64, {2, 2, 2}, {1, 0, 0, 1, 1, 0, 0, 1});
  absl::StatusOr<Literal> r = EvalDotGeneral(lhs, rhs, Dims({0}, {0}, {2}, {1}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape().dims, (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(Read<int64_t>(*r), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(ReferenceDotGeneral, MatmulTransposedOuterAndBatchInTheMiddle) {
  Literal a = Lit<int>(DType::kS32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Literal b = Lit<int>(DType::kS32, {3, 2}, {7, 8, 9, 10, 11, 12});
  EXPECT_EQ(Read<int>(*EvalDotGeneral(a, b, Dims({}, {}, {1}, {0}))), (std::vector<int>{58, 64, 139, 154}));
  // a^T . a: contract lhs dim 0 with rhs dim 0 -> 3x3.
  EXPECT_EQ(Read<int>(*EvalDotGeneral(a, a, Dims({}, {}, {0}, {0}))),
            (std::vector<int>{17, 22, 27, 22, 29, 36, 27, 36, 45}));
  // No contraction: outer product, lhs free dims first.
  absl::StatusOr<Literal> outer =
      EvalDotGeneral(Vec<int>(DType::kS32, {1, 2}), Vec<int>(DType::kS32, {3, 4, 5}), Dims({}, {}, {}, {}));
  EXPECT_EQ(outer->shape().dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Read<int>(*outer), (std::vector<int>{3, 4, 5, 6, 8, 10}));
  // Batch dim 1 of lhs (2x2x3: k,b,m) against dim 0 of rhs (2x2: b,k):
  // result[b, m] = sum_k lhs[k, b, m] * rhs[b, k].
  Literal l3 = Lit<int>(DType::kS32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Literal r2 = Lit<int>(DType::kS32, {2, 2}, {1, 10, 100, 1000});
  absl::StatusOr<Literal> m = EvalDotGeneral(l3, r2, Dims({1}, {0}, {0}, {1}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->shape().dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Read<int>(*m), (std::vector<int>{71, 82, 93, 10400, 11500, 12600}));
  EXPECT_FALSE(EvalDotGeneral(a, b, Dims({}, {}, {1}, {1})).ok());  // 3 vs 2
}

TEST(ReferenceDotGeneral, HalfAccumulatesInFloatIntegersWrap) {
  // In f16, 2048 + 1 rounds back to 2048; a float accumulator keeps 2050.
  Literal a = Vec<double>(DType::kF16, {2048.0, 1.0, 1.0});
  Literal ones = Vec<double>(DType::kF16, {1.0, 1.0, 1.0});
  absl::StatusOr<Literal> r = EvalDotGeneral(a, ones, Dims({}, {}, {0}, {0}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Read<float>(*r), (std::vector<float>{2050.0f}));
  absl::StatusOr<Literal> w =
      EvalDotGeneral(Vec<int>(DType::kS8, {100, 1}), Vec<int>(DType::kS8, {2, 0}), Dims({}, {}, {0}, {0}));
  EXPECT_EQ(Read<int>(*w), (std::vector<int>{-56}));
  absl::StatusOr<Literal> p = EvalDotGeneral(Vec<bool>(DType::kPred, {true, false}),
                                             Vec<bool>(DType::kPred, {false, true}), Dims({}, {}, {0}, {0}));
  EXPECT_EQ(Read<bool>(*p), (std::vector<bool>{false}));
  using z = std::complex<double>;
  absl::StatusOr<Literal> c = EvalDotGeneral(Vec<z>(DType::kC128, {z(0, 1), z(2, 0)}),
                                             Vec<z>(DType::kC128, {z(0, 1), z(1, 1)}), Dims({}, {}, {0}, {0}));
  EXPECT_EQ(Read<z>(*c), (std::vector<z>{z(1, 2)}));
}

// Sum body built as a function: the kernel is independent of the graph.
ReduceBody AddBody() {
  return [](std::vector<Literal> args) -> absl::StatusOr<std::vector<Literal>> {
    absl::StatusOr<Literal> s = EvalBinary(Opcode::kAdd, args[0], args[1]);
    if (!s.ok()) return s.status();
    std::vector<Literal> out;
    out.push_back(std::move(*s));
    return out;
  };
}

TEST(ReferenceReduce, KernelSpecExampleAndOrder) {
  Literal x = Lit<int64_t>(DType::kS64, {1, 6}, {0, 1, 2, 3, 4, 5});
  Literal init = Scalar(DType::kS64, int64_t{0});
  const Literal* in[] = {&x};
  const Literal* inits[] = {&init};
  absl::StatusOr<std::vector<Literal>> r = EvalReduce(in, inits, {1}, AddBody());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].shape().dims, (std::vector<int64_t>{1}));
  EXPECT_EQ(Read<int64_t>((*r)[0]), (std::vector<int64_t>{15}));
  // Reducing dims {0, 2} of 2x2x2 keeps dim 1.
  Literal y = Lit<int>(DType::kS32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Literal zero = Scalar(DType::kS32, 0);
  const Literal* yin[] = {&y};
  const Literal* zinit[] = {&zero};
  EXPECT_EQ(Read<int>((*EvalReduce(yin, zinit, {0, 2}, AddBody()))[0]), (std::vector<int>{14, 22}));
  // Left fold in index order from the init value: ((1 - 1) - 2) - 3 with subtract.
  ReduceBody sub = [](std::vector<Literal> a) -> absl::StatusOr<std::vector<Literal>> {
    std::vector<Literal> out;
    out.push_back(*EvalBinary(Opcode::kSubtract, a[0], a[1]));
    return out;
  };
  Literal v = Vec<int>(DType::kS32, {1, 2, 3});
  Literal one = Scalar(DType::kS32, 1);
  const Literal* vin[] = {&v};
  const Literal* oinit[] = {&one};
  EXPECT_EQ(Read<int>((*EvalReduce(vin, oinit, {0}, sub))[0]), (std::vector<int>{-5}));
  // Empty reduced dimension gives the init value.
  Literal e(Shape(DType::kS32, {2, 0}));
  const Literal* ein[] = {&e};
  EXPECT_EQ(Read<int>((*EvalReduce(ein, oinit, {1}, AddBody()))[0]), (std::vector<int>{1, 1}));
}

// Builds reduce bodies and entry computations through the builder.
class ReferenceGraph : public ::testing::Test {
 protected:
  static Shape S(DType t, std::vector<int64_t> dims = {}) { return Shape(t, std::move(dims)); }
  Instruction* Op(ComputationBuilder* b, Opcode op, std::vector<Instruction*> operands,
                  Attributes attrs = {}, std::vector<Computation*> called = {}) {
    absl::StatusOr<Instruction*> r = b->Add(op, std::move(operands), std::move(attrs), std::move(called));
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : nullptr;
  }
  Computation* Finish(ComputationBuilder* b, std::vector<Instruction*> results) {
    absl::StatusOr<Computation*> c = b->Finish(std::move(results));
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : nullptr;
  }
  // Runs the module through the registered compiler.
  std::vector<Literal> Run(const Module& module, std::vector<Literal> args) {
    absl::StatusOr<std::vector<Literal>> results = xjit::testing::RunOn("reference", module, args);
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? *std::move(results) : std::vector<Literal>{};
  }
};

TEST_F(ReferenceGraph, ReduceSumThroughCompiler) {
  ModuleBuilder mb("sum");
  ComputationBuilder* body = mb.NewComputation("add");
  Instruction* a = body->Parameter(S(DType::kF32));
  Instruction* b = body->Parameter(S(DType::kF32));
  Computation* add = Finish(body, {Op(body, Opcode::kAdd, {a, b})});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(S(DType::kF32, {2, 3}));
  Instruction* zero = main->Constant(Scalar(DType::kF32, 0.0f));
  Computation* entry = Finish(main, {Op(main, Opcode::kReduce, {x, zero}, ReduceAttrs{{1}}, {add})});
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(entry);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> out = Run(**module, {Lit<float>(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6.5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Read<float>(out[0]), (std::vector<float>{6.0f, 15.5f}));
}

TEST_F(ReferenceGraph, VariadicArgmaxReduce) {
  ModuleBuilder mb("argmax");
  ComputationBuilder* body = mb.NewComputation("argmax_body");
  Instruction* acc_v = body->Parameter(S(DType::kF32));
  Instruction* acc_i = body->Parameter(S(DType::kS32));
  Instruction* v = body->Parameter(S(DType::kF32));
  Instruction* i = body->Parameter(S(DType::kS32));
  Instruction* take = Op(body, Opcode::kCompare, {v, acc_v}, CompareAttrs{ComparisonDirection::kGt});
  Computation* argmax = Finish(body, {Op(body, Opcode::kSelect, {take, v, acc_v}),
                                      Op(body, Opcode::kSelect, {take, i, acc_i})});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(S(DType::kF32, {2, 4}));
  Instruction* idx = *main->AddWithResultType(Opcode::kIota, S(DType::kS32, {2, 4}), {}, IotaAttrs{1});
  Instruction* ninf = main->Constant(Scalar(DType::kF32, -std::numeric_limits<float>::infinity()));
  Instruction* neg1 = main->Constant(Scalar(DType::kS32, -1));
  Instruction* red = Op(main, Opcode::kReduce, {x, idx, ninf, neg1}, ReduceAttrs{{1}}, {argmax});
  GetTupleElementAttrs first{0}, second{1};
  Computation* entry = Finish(main, {Op(main, Opcode::kGetTupleElement, {red}, first),
                                     Op(main, Opcode::kGetTupleElement, {red}, second)});
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(entry);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> out =
      Run(**module, {Lit<float>(DType::kF32, {2, 4}, {3, 7, 2, 7, -1, -5, -0.5, -2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Read<float>(out[0]), (std::vector<float>{7, -0.5}));
  EXPECT_EQ(Read<int>(out[1]), (std::vector<int>{1, 2}));  // first maximum wins ties
}

TEST_F(ReferenceGraph, CallTupleAndElementwiseChain) {
  ModuleBuilder mb("call");
  ComputationBuilder* callee = mb.NewComputation("affine");
  Instruction* p = callee->Parameter(S(DType::kS32, {3}));
  Instruction* q = callee->Parameter(S(DType::kS32, {3}));
  Instruction* prod = Op(callee, Opcode::kMultiply, {p, q});
  Computation* affine = Finish(callee, {Op(callee, Opcode::kAdd, {prod, p}), prod});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(S(DType::kS32, {3}));
  Instruction* y = main->Parameter(S(DType::kS32, {3}));
  Instruction* call = Op(main, Opcode::kCall, {x, y}, {}, {affine});
  GetTupleElementAttrs e0{0}, e1{1};
  Instruction* sum = Op(main, Opcode::kGetTupleElement, {call}, e0);
  Instruction* product = Op(main, Opcode::kGetTupleElement, {call}, e1);
  Instruction* tup = Op(main, Opcode::kTuple, {product, sum});
  Instruction* back = Op(main, Opcode::kGetTupleElement, {tup}, e1);
  Computation* entry = Finish(main, {Op(main, Opcode::kSubtract, {back, product})});
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(entry);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> out = Run(**module, {Vec<int>(DType::kS32, {1, 2, 3}), Vec<int>(DType::kS32, {4, 5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Read<int>(out[0]), (std::vector<int>{1, 2, 3}));  // (x*y + x) - x*y
}

TEST_F(ReferenceGraph, CompilerIsRegisteredAndChecksArgumentCount) {
  std::vector<std::string> platforms = RegisteredPlatforms();
  EXPECT_NE(std::find(platforms.begin(), platforms.end(), "reference"), platforms.end());
  ModuleBuilder mb("neg");
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(S(DType::kBF16, {2}));
  Computation* entry = Finish(main, {Op(main, Opcode::kNegate, {x})});
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(entry);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> out = Run(**module, {Vec<double>(DType::kBF16, {1.5, -2.0})});
  EXPECT_EQ(Read<float>(out[0]), (std::vector<float>{-1.5f, 2.0f}));
  absl::StatusOr<std::unique_ptr<CompiledProgram>> program = (*GetCompiler("reference"))->Compile(**module);
  ASSERT_TRUE(program.ok());
  Literal result(Shape(DType::kBF16, {2}));
  void* results[] = {result.mutable_data()};
  EXPECT_FALSE((*program)->Run({}, results).ok());
}

TEST(ReferenceEvaluator, RejectsDeclaredShapeMismatchAndMissingArgs) {
  // Built by hand: an add that claims the wrong result type.
  Computation c("bad");
  ParameterAttrs p0{0}, p1{1};
  Instruction* a = c.AddInstruction(std::make_unique<Instruction>(
      Opcode::kParameter, Shape(DType::kS32, {2}), std::vector<Instruction*>{}, p0, std::vector<Computation*>{}));
  Instruction* b = c.AddInstruction(std::make_unique<Instruction>(
      Opcode::kParameter, Shape(DType::kS32, {2}), std::vector<Instruction*>{}, p1, std::vector<Computation*>{}));
  Instruction* sum = c.AddInstruction(std::make_unique<Instruction>(
      Opcode::kAdd, Shape(DType::kF32, {2}), std::vector<Instruction*>{a, b}, Attributes{},
      std::vector<Computation*>{}));
  c.set_results({sum});
  std::vector<Value> args;
  args.emplace_back(Vec<int>(DType::kS32, {1, 2}));
  args.emplace_back(Vec<int>(DType::kS32, {3, 4}));
  absl::StatusOr<std::vector<Value>> r = EvaluateComputation(c, args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("add"), std::string::npos) << r.status();
  args.pop_back();
  EXPECT_FALSE(EvaluateComputation(c, args).ok());
  // An argument of the wrong type is caught at the parameter.
  args.emplace_back(Vec<double>(DType::kF32, {3, 4}));
  EXPECT_FALSE(EvaluateComputation(c, args).ok());
}

}  // namespace
}  // namespace xjit::reference::testing
