// Golden-text tests: the printer's output is what the parser and users read,
// so each test pins the whole module text.
#include "xjit/text/printer.h"

#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/builder/builder.h"

namespace xjit::testing {
namespace {

// (acc_0.., x_0..) -> acc_i + x_i for each i, for scalars of the given types.
Computation* SumBody(ModuleBuilder& mb, std::vector<DType> types) {
  ComputationBuilder* body = mb.NewComputation("sum");
  std::vector<Instruction*> acc, x, out;
  for (DType t : types) acc.push_back(body->Parameter(T(t, {})));
  for (DType t : types) x.push_back(body->Parameter(T(t, {})));
  for (size_t i = 0; i < types.size(); ++i)
    out.push_back(Must(body->Add(Opcode::kAdd, {acc[i], x[i]})));
  return *body->Finish(out);
}

TEST(Printer, Elementwise) {
  ModuleBuilder mb("jit_f");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2}));
  Instruction* y = cb->Parameter(T(DType::kF32, {2}));
  Instruction* s = Must(cb->Add(Opcode::kAdd, {x, y}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {s}));
  EXPECT_EQ(BuildAndPrint(mb, cb, {e, x}),
            R"(module @jit_f {
  func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.exponential"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)");
}

TEST(Printer, ReduceWithRegion) {
  ModuleBuilder mb("jit_f");
  Computation* body = SumBody(mb, {DType::kF32});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* init = cb->Parameter(T(DType::kF32, {}));
  Instruction* r = Must(cb->Add(Opcode::kReduce, {x, init}, ReduceAttrs{{1}}, {body}));
  EXPECT_EQ(BuildAndPrint(mb, cb, {r}),
            R"(module @jit_f {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>) {
    %0 = "stablehlo.reduce"(%arg0, %arg1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %1 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }
}
)");
}

TEST(Printer, MultiResultReduceUsesAliases) {
  ModuleBuilder mb("m");
  Computation* body = SumBody(mb, {DType::kF32, DType::kS32});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {4}));
  Instruction* i = cb->Parameter(T(DType::kS32, {4}));
  Instruction* x0 = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  Instruction* i0 = cb->Constant(Literal::Scalar<int32_t>(DType::kS32, 0));
  Instruction* r = Must(cb->Add(Opcode::kReduce, {x, i, x0, i0}, ReduceAttrs{{0}}, {body}));
  Instruction* g1 = Must(cb->Add(Opcode::kGetTupleElement, {r}, GetTupleElementAttrs{1}));
  Instruction* g0 = Must(cb->Add(Opcode::kGetTupleElement, {r}));
  Instruction* n = Must(cb->Add(Opcode::kNegate, {g1}));
  EXPECT_EQ(BuildAndPrint(mb, cb, {g0, n}),
            R"(module @m {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<f32>, tensor<i32>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %2:2 = "stablehlo.reduce"(%arg0, %arg1, %0, %1) ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<i32>):
      %3 = "stablehlo.add"(%arg2, %arg4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      %4 = "stablehlo.add"(%arg3, %arg5) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%3, %4) : (tensor<f32>, tensor<i32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    %5 = "stablehlo.negate"(%2#1) : (tensor<i32>) -> tensor<i32>
    "func.return"(%2#0, %5) : (tensor<f32>, tensor<i32>) -> ()
  }
}
)");
}

TEST(Printer, DotGeneralAndCompare) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 2, 2}));
  Instruction* b = cb->Parameter(T(DType::kF32, {2, 2, 2}));
  DotGeneralAttrs dot{{{0}, {0}, {2}, {1}}};
  Instruction* d = Must(cb->Add(Opcode::kDotGeneral, {a, b}, dot));
  Instruction* c = Must(cb->Add(Opcode::kCompare, {d, d}, CompareAttrs{ComparisonDirection::kLt}));
  DotGeneralAttrs mm;
  mm.dot_dimension_numbers.lhs_contracting_dimensions = {2};
  mm.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  Instruction* m = Must(cb->Add(Opcode::kDotGeneral, {a, b}, mm));
  EXPECT_EQ(BuildAndPrint(mb, cb, {c, m}),
            R"(module @m {
  func.func @main(%arg0: tensor<2x2x2xf32>, %arg1: tensor<2x2x2xf32>) -> (tensor<2x2x2xi1>, tensor<2x2x2x2xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
    %1 = "stablehlo.compare"(%0, %0) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xi1>
    %2 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2x2xf32>
    "func.return"(%1, %2) : (tensor<2x2x2xi1>, tensor<2x2x2x2xf32>) -> ()
  }
}
)");
}

TEST(Printer, ConstantsSplatAndNonSplat) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  int32_t values[] = {1, 2, 3, 4};
  Instruction* dense = cb->Constant(Literal(T(DType::kS32, {2, 2}), values));
  float ones[] = {1.5f, 1.5f, 1.5f};
  Instruction* splat = cb->Constant(Literal(T(DType::kF32, {3}), ones));
  EXPECT_EQ(BuildAndPrint(mb, cb, {dense, splat}),
            R"(module @m {
  func.func @main() -> (tensor<2x2xi32>, tensor<3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
    %1 = "stablehlo.constant"() {value = dense<1.5> : tensor<3xf32>} : () -> tensor<3xf32>
    "func.return"(%0, %1) : (tensor<2x2xi32>, tensor<3xf32>) -> ()
  }
}
)");
}

TEST(Printer, MovementAttributes) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kS32, {1, 3}));
  Instruction* b = Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kS32, {2, 3, 2}),
                                              {x}, BroadcastInDimAttrs{{2, 1}}));
  Instruction* i = Must(cb->AddWithResultType(Opcode::kIota, T(DType::kS32, {4}), {}));
  SliceAttrs slice;
  slice.start_indices = {1};
  slice.limit_indices = {3};
  Instruction* s = Must(cb->Add(Opcode::kSlice, {i}, slice));
  ConcatenateAttrs cat;
  Instruction* c = Must(cb->Add(Opcode::kConcatenate, {s, i}, cat));
  PadAttrs pad;
  pad.edge_padding_low = {0, 1};
  pad.edge_padding_high = {2, -1};
  pad.interior_padding = {1, 0};
  Instruction* zero = cb->Constant(Literal::Scalar<int32_t>(DType::kS32, 7));
  Instruction* p = Must(cb->Add(Opcode::kPad, {x, zero}, pad));
  TransposeAttrs perm;
  perm.permutation = {1, 0};
  Instruction* t = Must(cb->Add(Opcode::kTranspose, {p}, perm));
  Instruction* tup = Must(cb->Add(Opcode::kTuple, {t, c}));
  GetTupleElementAttrs idx;
  idx.index = 1;
  Instruction* g = Must(cb->Add(Opcode::kGetTupleElement, {tup}, idx));
  EXPECT_EQ(BuildAndPrint(mb, cb, {b, g, t}),
            R"(module @m {
  func.func @main(%arg0: tensor<1x3xi32>) -> (tensor<2x3x2xi32>, tensor<6xi32>, tensor<3x3xi32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 2, 1>} : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
    %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>
    %2 = "stablehlo.slice"(%1) {start_indices = array<i64: 1>, limit_indices = array<i64: 3>, strides = array<i64: 1>} : (tensor<4xi32>) -> tensor<2xi32>
    %3 = "stablehlo.concatenate"(%2, %1) {dimension = 0 : i64} : (tensor<2xi32>, tensor<4xi32>) -> tensor<6xi32>
    %4 = "stablehlo.constant"() {value = dense<7> : tensor<i32>} : () -> tensor<i32>
    %5 = "stablehlo.pad"(%arg0, %4) {edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 2, -1>, interior_padding = array<i64: 1, 0>} : (tensor<1x3xi32>, tensor<i32>) -> tensor<3x3xi32>
    %6 = "stablehlo.transpose"(%5) {permutation = array<i64: 1, 0>} : (tensor<3x3xi32>) -> tensor<3x3xi32>
    %7 = "stablehlo.tuple"(%6, %3) : (tensor<3x3xi32>, tensor<6xi32>) -> tuple<tensor<3x3xi32>, tensor<6xi32>>
    %8 = "stablehlo.get_tuple_element"(%7) {index = 1 : i32} : (tuple<tensor<3x3xi32>, tensor<6xi32>>) -> tensor<6xi32>
    "func.return"(%0, %8, %6) : (tensor<2x3x2xi32>, tensor<6xi32>, tensor<3x3xi32>) -> ()
  }
}
)");
}

TEST(Printer, CallPrintsCalleeAsFunction) {
  ModuleBuilder mb("m");
  ComputationBuilder* fb = mb.NewComputation("double_it");
  Instruction* a = fb->Parameter(T(DType::kF32, {2}));
  Instruction* sum = Must(fb->Add(Opcode::kAdd, {a, a}));
  Computation* callee = *fb->Finish({sum, a});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2}));
  Instruction* call = Must(cb->Add(Opcode::kCall, {x}, {}, {callee}));
  Instruction* g = Must(cb->Add(Opcode::kGetTupleElement, {call}));
  EXPECT_EQ(BuildAndPrint(mb, cb, {g}),
            R"(module @m {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0:2 = "func.call"(%arg0) {callee = @double_it} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    "func.return"(%0#0) : (tensor<2xf32>) -> ()
  }
  func.func @double_it(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }
}
)");
}

}  // namespace
}  // namespace xjit::testing
