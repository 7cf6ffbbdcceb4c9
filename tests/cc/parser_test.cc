// The parser against the printer: print -> parse -> print must be the
// identity for modules that together use every op of the registry, and
// malformed text must fail with "line:column: what was expected".
#include "xjit/text/parser.h"

#include <cstdint>
#include <cmath>
#include <complex>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/half.h"
#include "xjit/ir/window_attrs.h"
#include "xjit/text/literal_parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {

// print(parse(text)) == text.
void ExpectRoundTrip(const std::string& text) {
  ASSERT_FALSE(text.empty());
  absl::StatusOr<std::unique_ptr<Module>> parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(PrintModule(**parsed), text);
}

// The first operand type (tried in this order) an op accepts, so the sweep
// below follows the registry instead of a hand-kept list.
const DType kTryTypes[] = {DType::kF32, DType::kS32, DType::kC64, DType::kPred};

// Element-wise ops of the registry, each on the first type it accepts.
std::string ElementwiseModule(std::vector<Opcode>& covered) {
  ModuleBuilder mb("elementwise");
  ComputationBuilder* cb = mb.NewComputation("main");
  std::vector<Instruction*> params;
  for (DType t : kTryTypes) params.push_back(cb->Parameter(T(t, {2, 3})));
  std::vector<Instruction*> results;
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    if (!IsElementwise(op)) continue;
    for (Instruction* p : params) {
      Attributes attrs;
      std::vector<Instruction*> operands;
      if (op == Opcode::kCompare) attrs = CompareAttrs{ComparisonDirection::kGe};
      if (IsElementwiseUnary(op)) operands = {p};
      else if (IsElementwiseBinary(op)) operands = {p, p};
      else if (op == Opcode::kSelect) operands = {params[3], p, p};
      else operands = {p, p, p};  // clamp
      absl::StatusOr<Instruction*> r =
          op == Opcode::kConvert ? cb->AddWithResultType(op, T(DType::kF64, {2, 3}), operands)
                                 : cb->Add(op, operands, attrs);
      if (r.ok()) {
        results.push_back(*r);
        covered.push_back(op);
        break;
      }
    }
  }
  return BuildAndPrint(mb, cb, results);
}

std::string MovementModule() {
  ModuleBuilder mb("movement");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kS32, {1, 3}));
  Instruction* b = Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kS32, {2, 3, 2}),
                                              {x}, BroadcastInDimAttrs{{2, 1}}));
  Instruction* i =
      Must(cb->AddWithResultType(Opcode::kIota, T(DType::kU16, {4, 2}), {}, IotaAttrs{1}));
  Instruction* flat = Must(cb->AddWithResultType(Opcode::kReshape, T(DType::kU16, {8}), {i}));
  SliceAttrs slice;
  slice.start_indices = {1};
  slice.limit_indices = {7};
  slice.strides = {2};
  Instruction* s = Must(cb->Add(Opcode::kSlice, {flat}, slice));
  ConcatenateAttrs cat;
  Instruction* c = Must(cb->Add(Opcode::kConcatenate, {s, flat, s}, cat));
  PadAttrs pad;
  pad.edge_padding_low = {0, 1};
  pad.edge_padding_high = {2, -1};
  pad.interior_padding = {1, 0};
  Instruction* seven = cb->Constant(Literal::Scalar<int32_t>(DType::kS32, -7));
  Instruction* p = Must(cb->Add(Opcode::kPad, {x, seven}, pad));
  TransposeAttrs perm;
  perm.permutation = {1, 0};
  Instruction* t = Must(cb->Add(Opcode::kTranspose, {p}, perm));
  ReverseAttrs rev;
  rev.dimensions = {0, 1};
  Instruction* r = Must(cb->Add(Opcode::kReverse, {t}, rev));
  Instruction* tup = Must(cb->Add(Opcode::kTuple, {r, c}));
  Instruction* nested = Must(cb->Add(Opcode::kTuple, {tup, x}));
  GetTupleElementAttrs idx;
  idx.index = 0;
  Instruction* inner = Must(cb->Add(Opcode::kGetTupleElement, {nested}, idx));
  idx.index = 1;
  Instruction* g = Must(cb->Add(Opcode::kGetTupleElement, {inner}, idx));
  return BuildAndPrint(mb, cb, {b, g, t});
}

// Sum of N accumulators, as reduce bodies.
Computation* SumBody(ModuleBuilder& mb, std::vector<DType> types) {
  ComputationBuilder* body = mb.NewComputation("sum");
  std::vector<Instruction*> acc, x, out;
  for (DType t : types) acc.push_back(body->Parameter(T(t, {})));
  for (DType t : types) x.push_back(body->Parameter(T(t, {})));
  for (size_t i = 0; i < types.size(); ++i) out.push_back(Must(body->Add(Opcode::kAdd, {acc[i], x[i]})));
  return *body->Finish(out);
}

std::string ReduceDotCallModule() {
  ModuleBuilder mb("regions");
  Computation* sum1 = SumBody(mb, {DType::kF32});
  Computation* sum2 = SumBody(mb, {DType::kF32, DType::kS64});
  ComputationBuilder* fb = mb.NewComputation("helper");
  Instruction* a = fb->Parameter(T(DType::kF32, {2, 2}));
  Instruction* twice = Must(fb->Add(Opcode::kAdd, {a, a}));
  Computation* helper = *fb->Finish({twice, a});
  ComputationBuilder* gb = mb.NewComputation("single");
  Instruction* ga = gb->Parameter(T(DType::kF32, {2, 2}));
  Computation* single = *gb->Finish({Must(gb->Add(Opcode::kNegate, {ga}))});

  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 2}));
  Instruction* n = cb->Parameter(T(DType::kS64, {2, 2}));
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  Instruction* izero = cb->Constant(Literal::Scalar<int64_t>(DType::kS64, 0));
  ReduceAttrs dims;
  dims.dimensions = {1};
  Instruction* r1 = Must(cb->Add(Opcode::kReduce, {x, zero}, dims, {sum1}));
  Instruction* r2 = Must(cb->Add(Opcode::kReduce, {x, n, zero, izero}, dims, {sum2}));
  GetTupleElementAttrs second;
  second.index = 1;
  Instruction* r2b = Must(cb->Add(Opcode::kGetTupleElement, {r2}, second));
  DotGeneralAttrs dot;
  dot.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  dot.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  Instruction* d = Must(cb->Add(Opcode::kDotGeneral, {x, x}, dot));
  DotGeneralAttrs bdot;
  bdot.dot_dimension_numbers.lhs_batching_dimensions = {0};
  bdot.dot_dimension_numbers.rhs_batching_dimensions = {0};
  Instruction* bd = Must(cb->Add(Opcode::kDotGeneral, {x, x}, bdot));
  Instruction* call = Must(cb->Add(Opcode::kCall, {d}, {}, {helper}));
  Instruction* c0 = Must(cb->Add(Opcode::kGetTupleElement, {call}));
  Instruction* c1 = Must(cb->Add(Opcode::kGetTupleElement, {call}, second));
  Instruction* one = Must(cb->Add(Opcode::kCall, {c1}, {}, {single}));
  return BuildAndPrint(mb, cb, {r1, r2b, c0, one, bd});
}

// A fusion (made by passes/elementwise_fusion.cc) with two results and a
// splat in its region.
std::string FusionModule() {
  ModuleBuilder mb("fusion");
  ComputationBuilder* rb = mb.NewComputation("region");
  Instruction* x = rb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* s = rb->Parameter(T(DType::kF32, {}));
  Instruction* b = Must(rb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kF32, {2, 3}), {s},
                                              BroadcastInDimAttrs{}));
  Instruction* e = Must(rb->Add(Opcode::kExponential, {Must(rb->Add(Opcode::kMultiply, {x, b}))}));
  Instruction* flat = Must(rb->AddWithResultType(Opcode::kReshape, T(DType::kF32, {6}), {e}));
  Instruction* n = Must(rb->Add(Opcode::kNegate, {flat}));
  Computation* region = *rb->Finish({e, n});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* two = cb->Constant(Literal::Scalar<float>(DType::kF32, 2.0f));
  Instruction* f = Must(cb->Add(Opcode::kFusion, {a, two}, {}, {region}));
  return BuildAndPrint(mb, cb, {Must(cb->Add(Opcode::kGetTupleElement, {f}, GetTupleElementAttrs{1}))});
}

// rng_bit_generator: two declared results, an enum attribute.
std::string RngModule() {
  ModuleBuilder mb("rng");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* state = cb->Parameter(T(DType::kU64, {2}));
  Instruction* r = Must(cb->AddWithResultType(Opcode::kRngBitGenerator, T(DType::kF32, {2, 3}),
                                              {state}, RngBitGeneratorAttrs{RngAlgorithm::kThreeFry}));
  return BuildAndPrint(mb, cb, {Must(cb->Add(Opcode::kGetTupleElement, {r})),
                                Must(cb->Add(Opcode::kGetTupleElement, {r},
                                             GetTupleElementAttrs{1}))});
}

// sort with a two-operand comparator, map and a width-changing bitcast_convert.
std::string SortMapBitcastModule() {
  ModuleBuilder mb("sort_map");
  ComputationBuilder* cmp = mb.NewComputation("cmp");
  Instruction* a = cmp->Parameter(T(DType::kF32, {}));
  Instruction* b = cmp->Parameter(T(DType::kF32, {}));
  cmp->Parameter(T(DType::kS32, {}));
  cmp->Parameter(T(DType::kS32, {}));
  Computation* less = *cmp->Finish({Must(cmp->Add(
      Opcode::kCompare, {a, b},
      CompareAttrs{ComparisonDirection::kLt, ComparisonType::kTotalOrder}))});
  ComputationBuilder* fn = mb.NewComputation("fn");
  Instruction* p = fn->Parameter(T(DType::kS32, {}));
  Instruction* q = fn->Parameter(T(DType::kS32, {}));
  Computation* add = *fn->Finish({Must(fn->Add(Opcode::kAdd, {p, q}))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* i = cb->Parameter(T(DType::kS32, {2, 3}));
  Instruction* sorted = Must(cb->Add(Opcode::kSort, {x, i}, SortAttrs{-1, true}, {less}));
  Instruction* keys = Must(cb->Add(Opcode::kGetTupleElement, {sorted}, GetTupleElementAttrs{0}));
  Instruction* idx = Must(cb->Add(Opcode::kGetTupleElement, {sorted}, GetTupleElementAttrs{1}));
  Instruction* sum = Must(cb->Add(Opcode::kMap, {idx, idx}, MapAttrs{{0, 1}}, {add}));
  Instruction* bytes =
      Must(cb->AddWithResultType(Opcode::kBitcastConvert, T(DType::kU8, {2, 3, 4}), {keys}));
  return BuildAndPrint(mb, cb, {sum, bytes});
}

std::string IndexingModule() {
  ModuleBuilder mb("indexing");
  ComputationBuilder* fn = mb.NewComputation("add");
  Instruction* p = fn->Parameter(T(DType::kF32, {}));
  Instruction* q = fn->Parameter(T(DType::kF32, {}));
  Computation* add = *fn->Finish({Must(fn->Add(Opcode::kAdd, {p, q}))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {5, 3}));
  Instruction* i = cb->Parameter(T(DType::kS32, {4, 1}));
  Instruction* s = cb->Parameter(T(DType::kS32, {}));
  GatherAttrs g;
  g.dimension_numbers = {{1}, {0}, {}, {}, {0}, 1};
  g.slice_sizes = {1, 3};
  Instruction* rows = Must(cb->Add(Opcode::kGather, {x, i}, g));
  ScatterAttrs sc;
  sc.scatter_dimension_numbers = {{1}, {0}, {}, {}, {0}, 1};
  sc.unique_indices = true;
  Instruction* summed = Must(cb->Add(Opcode::kScatter, {x, i, rows}, sc, {add}));
  Instruction* win = Must(cb->Add(Opcode::kDynamicSlice, {summed, s, s}, DynamicSliceAttrs{{2, 2}}));
  Instruction* put = Must(cb->Add(Opcode::kDynamicUpdateSlice, {x, win, s, s}, NoAttrs{}));
  return BuildAndPrint(mb, cb, {put});
}

// convolution (odd layout, every window field), reduce_window and
// select_and_scatter (two regions).
std::string WindowModule() {
  ModuleBuilder mb("window");
  ComputationBuilder* mx = mb.NewComputation("max");
  Instruction* a = mx->Parameter(T(DType::kF32, {}));
  Instruction* b = mx->Parameter(T(DType::kF32, {}));
  Computation* max = *mx->Finish({Must(mx->Add(Opcode::kMaximum, {a, b}))});
  ComputationBuilder* ge = mb.NewComputation("ge");
  Instruction* c = ge->Parameter(T(DType::kF32, {}));
  Instruction* d = ge->Parameter(T(DType::kF32, {}));
  Computation* sel = *ge->Finish({Must(ge->Add(Opcode::kCompare, {c, d},
                                               CompareAttrs{ComparisonDirection::kGe}))});
  ComputationBuilder* ad = mb.NewComputation("add");
  Instruction* e = ad->Parameter(T(DType::kF32, {}));
  Instruction* f = ad->Parameter(T(DType::kF32, {}));
  Computation* add = *ad->Finish({Must(ad->Add(Opcode::kAdd, {e, f}))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {3, 6, 2, 5}));
  Instruction* k = cb->Parameter(T(DType::kF32, {4, 2, 3, 3}));
  ConvolutionAttrs conv;
  conv.dimension_numbers = *ConvDimensionNumbers::FromText("[f, 1, b, 0]x[o, 1, 0, i]->[1, f, 0, b]");
  conv.window_strides = {1, 2};
  conv.padding = PaddingLiteral({{1, -1}, {0, 2}});
  conv.lhs_dilation = {2, 1};
  conv.rhs_dilation = {1, 2};
  conv.window_reversal = {0, 1};
  Instruction* y = Must(cb->Add(Opcode::kConvolution, {x, k}, conv));
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0.0f));
  ReduceWindowAttrs rw;
  rw.window_dimensions = {2, 1, 1, 2};
  rw.window_strides = {2, 1, 1, 1};
  Instruction* pooled = Must(cb->Add(Opcode::kReduceWindow, {y, zero}, rw, {max}));
  SelectAndScatterAttrs sas;
  sas.window_dimensions = {2, 1, 1, 2};
  sas.window_strides = {2, 1, 1, 1};
  Instruction* grad = Must(cb->Add(Opcode::kSelectAndScatter, {y, pooled, zero}, sas, {sel, add}));
  return BuildAndPrint(mb, cb, {grad});
}

std::string BatchNormModule() {
  ModuleBuilder mb("batch_norm");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3, 4}));
  Instruction* s = cb->Parameter(T(DType::kF32, {4}));
  BatchNormAttrs bn;
  bn.epsilon = 1e-5f;
  bn.feature_index = 2;
  Instruction* trained = Must(cb->Add(Opcode::kBatchNormTraining, {x, s, s}, bn));
  std::vector<Instruction*> parts;
  for (int64_t i = 0; i < 3; ++i) {
    GetTupleElementAttrs idx;
    idx.index = i;
    parts.push_back(Must(cb->Add(Opcode::kGetTupleElement, {trained}, idx)));
  }
  bn.epsilon = 0.1f;
  Instruction* y = Must(cb->Add(Opcode::kBatchNormInference, {x, s, s, parts[1], parts[2]}, bn));
  Instruction* g = Must(cb->Add(Opcode::kBatchNormGrad, {x, s, parts[1], parts[2], y}, bn));
  GetTupleElementAttrs first;
  Instruction* gx = Must(cb->Add(Opcode::kGetTupleElement, {g}, first));
  return BuildAndPrint(mb, cb, {parts[0], gx});
}

// cholesky and triangular_solve (h-linalg).
std::string LinalgModule() {
  ModuleBuilder mb("linalg");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 3, 3}));
  Instruction* b = cb->Parameter(T(DType::kF32, {2, 3, 4}));
  CholeskyAttrs chol;
  chol.lower = true;
  Instruction* l = Must(cb->Add(Opcode::kCholesky, {a}, chol));
  TriangularSolveAttrs ts;
  ts.left_side = true;
  ts.lower = true;
  ts.transpose_a = TransposeKind::kAdjoint;
  Instruction* x = Must(cb->Add(Opcode::kTriangularSolve, {l, b}, ts));
  return BuildAndPrint(mb, cb, {x});
}

// Quantized types (per tensor with a storage range, per axis) and the ops
// that make and read them; an add on them declares its quantized result.
std::string QuantizedModule() {
  ModuleBuilder mb("quantized");
  ComputationBuilder* cb = mb.NewComputation("main");
  auto quantized = [](std::vector<int64_t> dims, QuantizedType q) {
    Shape s(q.storage, std::move(dims));
    s.quant = std::make_shared<const QuantizedType>(std::move(q));
    return s;
  };
  QuantizedType per_axis{DType::kS8, DType::kF32, -128, 127, 1, {0.1, 0.5}, {-30, -20}};
  QuantizedType per_tensor{DType::kS8, DType::kF32, -127, 127, -1, {0.25}, {3}};
  Instruction* x = cb->Parameter(T(DType::kF32, {3, 2}));
  Instruction* q = Must(cb->AddWithResultType(Opcode::kUniformQuantize, quantized({3, 2}, per_axis), {x}));
  Instruction* r = Must(cb->AddWithResultType(Opcode::kUniformQuantize, quantized({3, 2}, per_tensor), {q}));
  Instruction* s = Must(cb->AddWithResultType(Opcode::kAdd, quantized({3, 2}, per_tensor), {r, r}));
  Instruction* d = Must(cb->Add(Opcode::kUniformDequantize, {s}));
  return BuildAndPrint(mb, cb, {d});
}

// custom_call with a dictionary config, layouts and two results.
std::string CustomCallModule() {
  ModuleBuilder mb("custom_call");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  CustomCallAttrs cc;
  cc.call_target_name = "some_target";
  cc.has_side_effect = true;
  cc.mhlo_backend_config.text = "{uplo = 76 : ui8, name = \"x\"}";
  cc.operand_layouts.text = "[dense<[0, 1]> : tensor<2xindex>]";
  Instruction* r = Must(cb->AddWithResultType(
      Opcode::kCustomCall, Shape::Tuple({T(DType::kF32, {2, 3}), T(DType::kS32, {})}), {x}, cc));
  GetTupleElementAttrs first;
  return BuildAndPrint(mb, cb, {Must(cb->Add(Opcode::kGetTupleElement, {r}, first))});
}

// Tokens and host transfers (h-host): after_all, infeed, outfeed, send, recv.
std::string HostIoModule() {
  ModuleBuilder mb("host_io");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* t0 = Must(cb->Add(Opcode::kAfterAll, {}));
  Instruction* in = Must(cb->AddWithResultType(Opcode::kInfeed, T(DType::kF32, {2, 3}), {t0}));
  GetTupleElementAttrs g0, g1;
  g1.index = 1;
  Instruction* value = Must(cb->Add(Opcode::kGetTupleElement, {in}, g0));
  Instruction* t1 = Must(cb->Add(Opcode::kGetTupleElement, {in}, g1));
  Instruction* t2 = Must(cb->Add(Opcode::kOutfeed, {value, x, t1}));
  SendRecvAttrs channel;
  channel.channel_handle.handle = 3;
  channel.channel_handle.type = 2;
  channel.is_host_transfer = true;
  Instruction* t3 = Must(cb->Add(Opcode::kSend, {x, Must(cb->Add(Opcode::kAfterAll, {t2, t1}))},
                                 channel));
  Instruction* r = Must(cb->AddWithResultType(
      Opcode::kRecv, Shape::Tuple({T(DType::kS32, {4}), Shape::Token()}), {t3}, channel));
  return BuildAndPrint(mb, cb, {Must(cb->Add(Opcode::kGetTupleElement, {r}, g0))});
}

template <typename T>
Instruction* ConstantOf(ComputationBuilder* cb, DType t, std::vector<int64_t> dims,
                        std::vector<T> values) {
  return cb->Constant(Literal(Shape(t, std::move(dims)), values.data()));
}

std::string ConstantsModule() {
  ModuleBuilder mb("constants");
  ComputationBuilder* cb = mb.NewComputation("main");
  const float inf = INFINITY;
  std::vector<Instruction*> cs = {
      ConstantOf<uint8_t>(cb, DType::kPred, {3}, {1, 0, 1}),  // pred is one byte,
      ConstantOf<int8_t>(cb, DType::kS8, {2}, {-128, 127}),
      ConstantOf<int16_t>(cb, DType::kS16, {2}, {-32768, 5}),
      ConstantOf<int32_t>(cb, DType::kS32, {2, 2}, {1, -2, 3, -4}),
      ConstantOf<int64_t>(cb, DType::kS64, {2}, {INT64_MIN, INT64_MAX}),
      ConstantOf<uint8_t>(cb, DType::kU8, {2}, {0, 255}),
      ConstantOf<uint16_t>(cb, DType::kU16, {1}, {65535}),
      ConstantOf<uint32_t>(cb, DType::kU32, {2}, {0, 4294967295u}),
      ConstantOf<uint64_t>(cb, DType::kU64, {1}, {UINT64_MAX}),
      ConstantOf<f16>(cb, DType::kF16, {3}, {f16(0.5f), f16(-2.0f), f16(65504.0f)}),
      ConstantOf<bf16>(cb, DType::kBF16, {2}, {bf16(1.5f), bf16(-3.0f)}),
      ConstantOf<float>(cb, DType::kF32, {6}, {0.1f, -0.0f, 1e-30f, inf, -inf, NAN}),
      ConstantOf<double>(cb, DType::kF64, {3}, {0.1, -1e300, 2.5}),
      ConstantOf<std::complex<float>>(cb, DType::kC64, {2}, {{1.0f, -2.0f}, {0.5f, 0.0f}}),
      ConstantOf<std::complex<double>>(cb, DType::kC128, {1}, {{0.1, 3.0}}),
      ConstantOf<float>(cb, DType::kF32, {2, 2}, {7.0f, 7.0f, 7.0f, 7.0f}),  // splat
      ConstantOf<int32_t>(cb, DType::kS32, {}, {42}),                        // rank 0
      ConstantOf<float>(cb, DType::kF32, {2, 0}, {}),                         // empty
  };
  return BuildAndPrint(mb, cb, cs);
}

// while, if and case, with values captured from the function: printed with
// the captures as trailing operands and region parameters.
std::string ControlFlowModule() {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(module @m {
  func.func @main(%k: tensor<i32>, %p: tensor<i1>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %w:2 = "stablehlo.while"(%k, %x) ({
    ^bb0(%i: tensor<i32>, %v: tensor<f32>):
      %c = "stablehlo.compare"(%i, %k) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %v: tensor<f32>):
      %u = "stablehlo.if"(%p) ({
        "stablehlo.return"(%x) : (tensor<f32>) -> ()
      }, {
        "stablehlo.return"(%v) : (tensor<f32>) -> ()
      }) : (tensor<i1>) -> tensor<f32>
      "stablehlo.return"(%i, %u) : (tensor<i32>, tensor<f32>) -> ()
    }) : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)
    %r = "stablehlo.case"(%k) ({
      "stablehlo.return"(%x) : (tensor<f32>) -> ()
    }, {
      "stablehlo.return"(%w#1) : (tensor<f32>) -> ()
    }, {
      %n = "stablehlo.negate"(%x) : (tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%n) : (tensor<f32>) -> ()
    }) : (tensor<i32>) -> tensor<f32>
    "func.return"(%w#1, %r) : (tensor<f32>, tensor<f32>) -> ()
  }
})");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? PrintModule(**m) : std::string();
}

// issue 11 (h-fft): fft, the dynamic-shape ops, rng, optimization_barrier,
// replica_id, partition_id and composite.
std::string Issue11Module() {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(module @m {
  func.func @main(%x: tensor<2x4xcomplex<f32>>, %f: tensor<2x3xf32>, %i: tensor<2x1xi32>) -> (tensor<2x4xcomplex<f32>>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xi32>, tensor<4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<ui32>, tensor<ui32>, tensor<2x3xf32>, tensor<1x2x3x1xf32>) {
    %0 = "stablehlo.fft"(%x) {fft_type = #stablehlo<fft_type IFFT>, fft_length = array<i64: 2, 4>} : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %s = "stablehlo.constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
    %t = "stablehlo.constant"() {value = dense<[3, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
    %z = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %o = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.dynamic_broadcast_in_dim"(%f, %s) {broadcast_dimensions = array<i64: 0, 1>, known_expanding_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    %2 = "stablehlo.dynamic_reshape"(%f, %t) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    %3 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 1 : i64} : (tensor<2xi64>) -> tensor<2x3xi32>
    %l = "stablehlo.constant"() {value = dense<[0, 1]> : tensor<2xi64>} : () -> tensor<2xi64>
    %h = "stablehlo.constant"() {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
    %4 = "stablehlo.dynamic_pad"(%f, %z, %l, %h, %h) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x4xf32>
    %ss = "stablehlo.constant"() {value = dense<[1, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
    %5 = "stablehlo.dynamic_gather"(%f, %i, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x3xf32>
    %three = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %6 = "stablehlo.set_dimension_size"(%f, %three) {dimension = 1 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
    %7 = "stablehlo.get_dimension_size"(%f) {dimension = 0 : i64} : (tensor<2x3xf32>) -> tensor<i32>
    %8 = "stablehlo.rng"(%z, %o, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
    %9:2 = "stablehlo.optimization_barrier"(%f, %6) : (tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    %10 = "stablehlo.replica_id"() : () -> tensor<ui32>
    %11 = "stablehlo.partition_id"() : () -> tensor<ui32>
    %12 = "stablehlo.composite"(%f, %9#0) {name = "xjit.add", composite_attributes = {k = "v"}, decomposition = @add, version = 3 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %lhs = "stablehlo.reshape"(%f) : (tensor<2x3xf32>) -> tensor<1x2x3x1xf32>
    %k = "stablehlo.constant"() {value = dense<1.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
    %cp = "stablehlo.constant"() {value = dense<0> : tensor<2x2xi64>} : () -> tensor<2x2xi64>
    %13 = "stablehlo.dynamic_conv"(%lhs, %k, %cp) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x2x3x1xf32>, tensor<1x1x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x3x1xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %9#1, %7, %8, %12, %10, %11, %6, %13) : (tensor<2x4xcomplex<f32>>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xi32>, tensor<4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<ui32>, tensor<ui32>, tensor<2x3xf32>, tensor<1x2x3x1xf32>) -> ()
  }
  func.func private @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%0) : (tensor<2x3xf32>) -> ()
  }
})");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? PrintModule(**m) : std::string();
}

TEST(ParserRoundTrip, EveryElementwiseOp) {
  std::vector<Opcode> covered;
  ExpectRoundTrip(ElementwiseModule(covered));
  int elementwise = 0;
  for (int i = 0; i < kNumOpcodes; ++i) elementwise += IsElementwise(static_cast<Opcode>(i));
  EXPECT_EQ(static_cast<int>(covered.size()), elementwise) << "an element-wise op accepts none "
                                                              "of the tried types";
}

TEST(ParserRoundTrip, DataMovementAndTuples) { ExpectRoundTrip(MovementModule()); }
TEST(ParserRoundTrip, ReduceDotAndCalls) { ExpectRoundTrip(ReduceDotCallModule()); }
TEST(ParserRoundTrip, ConstantsOfEveryType) { ExpectRoundTrip(ConstantsModule()); }
TEST(ParserRoundTrip, Fusion) { ExpectRoundTrip(FusionModule()); }
TEST(ParserRoundTrip, RngBitGenerator) { ExpectRoundTrip(RngModule()); }
TEST(ParserRoundTrip, SortMapBitcast) { ExpectRoundTrip(SortMapBitcastModule()); }
TEST(ParserRoundTrip, Indexing) { ExpectRoundTrip(IndexingModule()); }
TEST(ParserRoundTrip, ControlFlow) { ExpectRoundTrip(ControlFlowModule()); }
TEST(ParserRoundTrip, Windows) { ExpectRoundTrip(WindowModule()); }
TEST(ParserRoundTrip, BatchNorm) { ExpectRoundTrip(BatchNormModule()); }
TEST(ParserRoundTrip, CustomCall) { ExpectRoundTrip(CustomCallModule()); }
TEST(ParserRoundTrip, Issue11Ops) { ExpectRoundTrip(Issue11Module()); }
TEST(ParserRoundTrip, HostIo) { ExpectRoundTrip(HostIoModule()); }
TEST(ParserRoundTrip, Linalg) { ExpectRoundTrip(LinalgModule()); }
TEST(ParserRoundTrip, Quantized) { ExpectRoundTrip(QuantizedModule()); }

TEST(ParserRoundTrip, TheModulesTogetherUseEveryOp) {
  std::vector<Opcode> covered;
  std::string all = absl::StrCat(ElementwiseModule(covered), MovementModule(),
                                 ReduceDotCallModule(), ConstantsModule(), FusionModule(),
                                 RngModule(), SortMapBitcastModule(), IndexingModule(),
                                 ControlFlowModule(), WindowModule(), BatchNormModule(),
                                 CustomCallModule(), Issue11Module(), HostIoModule(),
                                 LinalgModule(), QuantizedModule());
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    if (op == Opcode::kParameter) continue;  // printed as function arguments
    std::string name = op == Opcode::kCall     ? "\"func.call\""
                       : op == Opcode::kFusion ? "\"xjit.fusion\""
                                               : absl::StrCat("\"stablehlo.", OpcodeName(op), "\"");
    EXPECT_TRUE(absl::StrContains(all, name)) << name << " is not covered by the round trip";
  }
}

TEST(Parser, ParsedModuleKeepsValuesAndStructure) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(
module @m {
  func.func @main(%x: tensor<2xf32>) -> tensor<f32> {
    %c = "stablehlo.constant"() {value = dense<[1.5, -2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %s = "stablehlo.add"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %z = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %r = "stablehlo.reduce"(%s, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%t) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%r) : (tensor<f32>) -> ()
  }
})");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "m");
  const Computation& main = *(*m)->entry();
  ASSERT_EQ(main.parameters().size(), 1u);
  EXPECT_EQ(main.parameters()[0]->shape(), T(DType::kF32, {2}));
  const Instruction* c = main.instructions()[1].get();
  ASSERT_EQ(c->opcode(), Opcode::kConstant);
  EXPECT_EQ(c->attrs<ConstantAttrs>().value.data_as<float>()[1], -2.0f);
  ASSERT_EQ(main.results().size(), 1u);
  const Instruction* r = main.results()[0];
  EXPECT_EQ(r->opcode(), Opcode::kReduce);
  ASSERT_EQ(r->called_computations().size(), 1u);
  EXPECT_EQ(r->called_computations()[0]->parameters().size(), 2u);
}

TEST(Parser, CalleeMayBeDefinedAfterOrBeforeItsCaller) {
  const char* text = R"(
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @twice(%a: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.add %a, %a : tensor<i32>
    return %0 : tensor<i32>
  }
  func.func public @main(%arg0: tensor<i32> {jax.arg_info = "x"}) -> (tensor<i32> {jax.result_info = ""}) {
    %0 = func.call @twice(%arg0) : (tensor<i32>) -> tensor<i32>
    %1 = call @later(%0) : (tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func @later(%a: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.multiply %a, %0 : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%1) : (tensor<i32>) -> ()
  }
})";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(**m), R"(module @m {
  func.func @main(%arg0: tensor<i32>) -> (tensor<i32>) {
    %0 = "func.call"(%arg0) {callee = @twice} : (tensor<i32>) -> tensor<i32>
    %1 = "func.call"(%0) {callee = @later} : (tensor<i32>) -> tensor<i32>
    "func.return"(%1) : (tensor<i32>) -> ()
  }
  func.func @twice(%arg0: tensor<i32>) -> (tensor<i32>) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%0) : (tensor<i32>) -> ()
  }
  func.func @later(%arg0: tensor<i32>) -> (tensor<i32>) {
    %0 = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
    %1 = "stablehlo.multiply"(%arg0, %0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "func.return"(%1) : (tensor<i32>) -> ()
  }
}
)");
}

TEST(Parser, SpecExampleOpsBecomeAModule) {
  absl::StatusOr<ParsedOps> p = ParseOps(R"(
// %lhs: [[1, 2], [3, 4]]
%result:2 = "stablehlo.reduce"(%input0, %input1, %init0, %init1) ({
  ^bb0(%a0: tensor<i64>, %a1: tensor<i64>, %b0: tensor<i64>, %b1: tensor<i64>):
    %0 = "stablehlo.add"(%a0, %b0) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %1 = stablehlo.maximum %a1, %b1 : tensor<i64>
    stablehlo.return %0, %1 : tensor<i64>, tensor<i64>
}) {
  dimensions = array<i64: 1>  // a comment inside the attributes
} : (tensor<1x6xi64>, tensor<1x6xi64>, tensor<i64>, tensor<i64>)
    -> (tensor<1xi64>, tensor<1xi64>)
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parameter_names, (std::vector<std::string>{"input0", "input1", "init0", "init1"}));
  EXPECT_EQ(p->result_names, (std::vector<std::string>{"result#0", "result#1"}));
  EXPECT_EQ(p->module->ResultShapes(),
            (std::vector<Shape>{T(DType::kS64, {1}), T(DType::kS64, {1})}));
}

TEST(Parser, SpecAttributeForms) {
  // Older dense<> arrays, si32 spelling, precision_config, a dot algorithm,
  // discardable attributes and a list of result names.
  absl::StatusOr<ParsedOps> p = ParseOps(R"(
%t = "stablehlo.transpose"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>, mhlo.sharding = "{replicated}"}
  : (tensor<2x3xsi32>) -> tensor<3x2xi32>
%d = "stablehlo.dot_general"(%t, %x) {
  dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,
  precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>],
  algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32,
    accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,
    num_primitive_operations = 1, allow_imprecise_accumulation = false>
} : (tensor<3x2xi32>, tensor<2x3xi32>) -> tensor<3x3xi32>
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parameter_names, (std::vector<std::string>{"x"}));
  EXPECT_EQ(p->module->ResultShapes(), (std::vector<Shape>{T(DType::kS32, {3, 3})}));
}

// ---------------------------------------------------------------- literals

TEST(ParseLiteral, FloatsHexBitsSpecialsAndSplat) {
  absl::StatusOr<Literal> l = ParseLiteral(
      "[0xFFF0000000000000, 0x7FF8000000000000, -0.0, 1e300, -nan, inf, 3]", T(DType::kF64, {7}));
  ASSERT_TRUE(l.ok()) << l.status();
  const double* v = l->data_as<double>();
  EXPECT_EQ(v[0], -INFINITY);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_TRUE(std::signbit(v[2]) && v[2] == 0.0);
  EXPECT_EQ(v[3], 1e300);
  EXPECT_TRUE(std::isnan(v[4]) && std::signbit(v[4]));
  EXPECT_EQ(v[5], INFINITY);
  EXPECT_EQ(v[6], 3.0);
  absl::StatusOr<Literal> splat = ParseLiteral("0x7FC00000", T(DType::kF32, {2}));
  ASSERT_TRUE(splat.ok()) << splat.status();
  EXPECT_TRUE(std::isnan(splat->data_as<float>()[1]));
}

TEST(ParseLiteral, IntegersBoolsAndComplex) {
  absl::StatusOr<Literal> i8 = ParseLiteral("[[-128, 127], [0xFF, 0]]", T(DType::kS8, {2, 2}));
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(i8->data_as<int8_t>()[2], -1);  // hex is the bit pattern
  absl::StatusOr<Literal> u64 = ParseLiteral("18446744073709551615", T(DType::kU64, {}));
  ASSERT_TRUE(u64.ok()) << u64.status();
  EXPECT_EQ(u64->data_as<uint64_t>()[0], UINT64_MAX);
  absl::StatusOr<Literal> b = ParseLiteral("[true, false]", T(DType::kPred, {2}));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->data_as<bool>()[0]);
  absl::StatusOr<Literal> c = ParseLiteral("[(1.0, 2.0), (-3, 0x7F800000)]", T(DType::kC64, {2}));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->data_as<std::complex<float>>()[0], std::complex<float>(1.0f, 2.0f));
  EXPECT_EQ(c->data_as<std::complex<float>>()[1].imag(), INFINITY);
}

// ---------------------------------------------------------------- errors

void ExpectError(const absl::Status& s, absl::string_view location, absl::string_view phrase) {
  ASSERT_FALSE(s.ok()) << "expected an error containing: " << phrase;
  EXPECT_TRUE(absl::StartsWith(s.message(), absl::StrCat(location, ": "))) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), phrase)) << s;
}

absl::Status ModuleError(absl::string_view text) { return ParseModule(text).status(); }
absl::Status OpsError(absl::string_view text) { return ParseOps(text).status(); }

TEST(ParserErrors, LiteralProblems) {
  ExpectError(ParseLiteral("[1, 300]", T(DType::kS8, {2})).status(), "1:5", "out of range for i8");
  ExpectError(ParseLiteral("[[1, 2], [3]]", T(DType::kS32, {2, 2})).status(), "1:10",
              "ragged nested list");
  ExpectError(ParseLiteral("[1, 2, 3]", T(DType::kS32, {2})).status(), "1:1",
              "literal has shape [3] but the type is tensor<2xi32>");
  ExpectError(ParseLiteral("0x7FC00000", T(DType::kF64, {})).status(), "1:1",
              "exactly 16 hex digits");
  ExpectError(ParseLiteral("[1.0 2.0]", T(DType::kF32, {2})).status(), "1:6",
              "expected ',' or ']'");
  ExpectError(ParseLiteral("[1.5]", T(DType::kC64, {1})).status(), "1:2",
              "is not a complex (re, im) value");
}

TEST(ParserErrors, TypesAndSignatures) {
  // The spec's is_finite example: "(tensor<7xf64)" misses a '>'.
  ExpectError(OpsError("%y = \"stablehlo.is_finite\"(%x) : (tensor<7xf64) -> tensor<7xi1>"), "1:47",
              "expected '>' closing the type's '<'");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) : (tensor1x2xi64>) -> tensor<1x2xi64>"), "1:29",
              "expected a type");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) : (tensor<2xf32>) -> tensor<3xf32>"), "1:1",
              "is typed (tensor<3xf32>) but its result is (tensor<2xf32>)");
  ExpectError(OpsError("%r = \"stablehlo.add\"(%x, %x) : (tensor<2xf32>, tensor<3xf32>) -> "
                       "tensor<2xf32>"),
              "1:26", "%x has type tensor<2xf32> but 'stablehlo.add' lists operand 1 as "
                      "tensor<3xf32>");
  ExpectError(OpsError("%r = \"stablehlo.add\"(%x, %y) : (tensor<2xf32>, tensor<2xi32>) -> "
                       "tensor<2xf32>"),
              "1:1", "add");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) : (tensor<2x!quant.uniform<i8:f32, "
                       "0.1:300>>) -> tensor<2xf32>"),
              "1:38", "zero point 300 lies outside the storage range");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) : (tensor<2x!quant.uniform<i8:f32 "
                       "0.1>>) -> tensor<2xf32>"),
              "1:38", "expected ',' and the scale");
}

TEST(ParserErrors, OpsAndAttributes) {
  absl::Status gather =
      OpsError("%r = \"stablehlo.all_to_all\"(%x) : (tensor<2xf32>) -> tensor<2xf32>");
  EXPECT_EQ(gather.code(), absl::StatusCode::kUnimplemented);
  ExpectError(gather, "1:1", "op 'stablehlo.all_to_all' is not supported");
  ExpectError(OpsError("%r = \"stablehlo.reverse\"(%x) {dims = array<i64: 0>} : (tensor<2xf32>) -> "
                       "tensor<2xf32>"),
              "1:31", "'stablehlo.reverse' has no attribute 'dims' (expected one of: dimensions)");
  ExpectError(OpsError("%r = \"stablehlo.reverse\"(%x) : (tensor<2xf32>) -> tensor<2xf32>"), "1:1",
              "missing the attribute 'dimensions'");
  ExpectError(OpsError("%r = \"stablehlo.compare\"(%x, %x) {comparison_direction = "
                       "#stablehlo<comparison_direction LESS>} : (tensor<2xf32>, tensor<2xf32>) -> "
                       "tensor<2xi1>"),
              "1:58", "unknown comparison direction 'LESS'");
  ExpectError(OpsError("%r = \"stablehlo.transpose\"(%x) {permutation = array<i64: 0, 0>} : "
                       "(tensor<2x2xf32>) -> tensor<2x2xf32>"),
              "1:1", "transpose");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) {} : (tensor<2xf32>) -> tensor<2xf32>\n"
                       "%r = \"stablehlo.abs\"(%r) : (tensor<2xf32>) -> tensor<2xf32>"),
              "2:1", "redefinition of %r");
  ExpectError(OpsError("%r = \"stablehlo.abs\"(%x) : (tensor<2xf32>) -> tensor<2xf32"), "1:53",
              "unterminated '<'");
  ExpectError(OpsError("%r = \"stablehlo.constant\"() {value = \"abc} : () -> tensor<f32>"), "1:38",
              "unterminated string");
}

TEST(ParserErrors, ModuleStructure) {
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    %0 = \"stablehlo.negate\"(%b) : (tensor<f32>) -> tensor<f32>\n"
                          "    \"func.return\"(%0) : (tensor<f32>) -> ()\n  }\n}"),
              "3:29", "use of undefined value %b");
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    \"func.return\"(%a) : (tensor<f32>) -> ()\n  }\n"),
              "5:1", "expected func.func or '}', got end of input");
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<i32> {\n"
                          "    \"func.return\"(%a) : (tensor<f32>) -> ()\n  }\n}"),
              "2:51", "declares results (tensor<i32>) but returns (tensor<f32>)");
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    %0 = \"func.call\"(%a) {callee = @nowhere} : (tensor<f32>) -> "
                          "tensor<f32>\n    \"func.return\"(%0) : (tensor<f32>) -> ()\n  }\n}"),
              "3:5", "call to undefined function @nowhere");
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    %0 = \"stablehlo.negate\"(%a) : (tensor<f32>) -> tensor<f32>\n  }\n}"),
              "4:3", "expected \"func.return\"");
  // Regions are separate computations: only while/if/case capture the function's values.
  absl::Status capture = ModuleError(R"(module @m {
  func.func @main(%a: tensor<2xf32>, %z: tensor<f32>) -> tensor<f32> {
    %0 = "stablehlo.reduce"(%a, %z) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %1 = "stablehlo.add"(%p, %z) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }
})");
  EXPECT_EQ(capture.code(), absl::StatusCode::kUnimplemented);
  ExpectError(capture, "3:5", "cannot capture");
  ExpectError(ModuleError("module @m {\n  func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    \"func.return\"(%a) : (tensor<f32>) -> ()\n  }\n"
                          "  func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    \"func.return\"(%a) : (tensor<f32>) -> ()\n  }\n}"),
              "5:13", "redefinition of function @f");
  ExpectError(ModuleError("module @m {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
                          "    %0:2 = \"stablehlo.negate\"(%a) : (tensor<f32>) -> tensor<f32>\n"
                          "    \"func.return\"(%0) : (tensor<f32>) -> ()\n  }\n}"),
              "3:5", "has 1 result(s); write %0");
}

// Issue 6: a huge declared type is a size error at the type, checked before
// any allocation; non-ASCII bytes are a line:col error.
std::string ConstantModule(absl::string_view type, absl::string_view value) {
  return absl::StrCat("module @m {\n  func.func @main() -> ", type, " {\n    %0 = \"stablehlo.constant\"() {value = ",
                      value, " : ", type, "} : () -> ", type, "\n    \"func.return\"(%0) : (", type,
                      ") -> ()\n  }\n}\n");
}

TEST(ParserErrors, TooLargeTypesAndLiterals) {
  // Before: SIGSEGV (4 * 2^62 bytes wrapped to 0).
  ExpectError(ModuleError(ConstantModule("tensor<4611686018427387904xi32>", "dense<0>")), "2:31",
              "shape tensor<4611686018427387904xi32> is too large");
  ExpectError(ModuleError(ConstantModule("tensor<4294967296x4294967296xf32>", "dense<0.0>")),
              "2:31", "overflows int64");
  // A mismatched literal for a large (addressable) type: the shape error, before allocating.
  ExpectError(ParseLiteral("[1, 2]", T(DType::kS32, {100000000000})).status(), "1:1",
              "literal has shape [2] but the type is tensor<100000000000xi32>");
  ExpectError(ParseLiteral("\"0x0102\"", T(DType::kS32, {100000000000})).status(), "1:1",
              "hex data has 2 bytes");
  ExpectError(ParseLiteral("1", T(DType::kS32, {int64_t{1} << 62})).status(), "1:1",
              "too large");
}

TEST(ParserErrors, HugeIndexAttributeRejectedBeforeAllocating) {
  // Before: a 1.6 GB splat was made before the op was even looked at (a fuzzer hang).
  ExpectError(OpsError(R"(%0 = "stablehlo.pad"(%a, %b) {edge_padding_low = dense<0> : tensor<100000000x2xi64>} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>)"),
              "1:61", "a dense<...> attribute of 200000000 elements; index attributes hold at "
                      "most 1048576");
}

TEST(ParserErrors, NonAsciiBytesGiveALocation) {
  absl::Status s = ModuleError("module @m {\n  \xc3\xa9 }\n");
  ExpectError(s, "2:3", "unexpected non-ASCII byte 0xc3");
  ExpectError(ModuleError("\xff"), "1:1", "non-ASCII byte 0xff");
}

}  // namespace
}  // namespace xjit::testing
