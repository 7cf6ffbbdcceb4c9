// sort, map, reduce_precision and bitcast_convert: shape inference (every
// constraint), printing and parsing back, the comparator recogniser, and the
// cpu backend against the reference (stability, NaN, -0.0, several operands,
// every element type, comparators the fast path does not know).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "cpu_test_util.h"
#include "shape_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/backends/common/sort_comparator.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::cpu::testing {
namespace {

using ::testing::HasSubstr;
using xjit::testing::Must;
using xjit::testing::Infer;
using xjit::testing::T;

const DType F32 = DType::kF32, S32 = DType::kS32, PRED = DType::kPred;

// --------------------------------------------------------------- regions

// The comparator `compare(p[a], p[b], direction, type)` over 2N scalar
// parameters of `types` (each twice).
Computation* CompareRegion(ModuleBuilder& mb, const std::vector<DType>& types, int a, int b,
                           ComparisonDirection d, ComparisonType ct = ComparisonType::kNotype) {
  ComputationBuilder* cb = mb.NewComputation("cmp");
  std::vector<Instruction*> p;
  for (DType t : types) {
    p.push_back(cb->Parameter(Shape(t, {})));
    p.push_back(cb->Parameter(Shape(t, {})));
  }
  Instruction* c = Must(cb->Add(Opcode::kCompare, {p[a], p[b]}, CompareAttrs{d, ct}));
  return *cb->Finish({c});
}

// JAX's comparator: canonicalise (0 -> +0, NaN -> +NaN), compare LT TOTALORDER.
Computation* JaxRegion(ModuleBuilder& mb, const std::vector<DType>& types) {
  ComputationBuilder* cb = mb.NewComputation("jax_cmp");
  const DType t = types[0];
  std::vector<Instruction*> p;
  for (DType u : types) {
    p.push_back(cb->Parameter(Shape(u, {})));
    p.push_back(cb->Parameter(Shape(u, {})));
  }
  auto canon = [&](Instruction* x) {
    Literal zero(Shape(t, {})), nan(Shape(t, {}));
    DispatchDType(t, [&](auto tag) {
      using V = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<V> || is_half_v<V>) {
        zero.mutable_data_as<V>()[0] = V(0.0f);
        nan.mutable_data_as<V>()[0] = V(NAN);
      }
    });
    Instruction* z = cb->Constant(zero);
    Instruction* n = cb->Constant(nan);
    Instruction* eq = Must(cb->Add(Opcode::kCompare, {x, z},
                                   CompareAttrs{ComparisonDirection::kEq, ComparisonType::kFloat}));
    Instruction* s = Must(cb->Add(Opcode::kSelect, {eq, z, x}));
    Instruction* isnan = Must(cb->Add(
        Opcode::kCompare, {x, x}, CompareAttrs{ComparisonDirection::kNe, ComparisonType::kFloat}));
    return Must(cb->Add(Opcode::kSelect, {isnan, n, s}));
  };
  Instruction* c = Must(cb->Add(Opcode::kCompare, {canon(p[0]), canon(p[1])},
                                CompareAttrs{ComparisonDirection::kLt,
                                             ComparisonType::kTotalOrder}));
  return *cb->Finish({c});
}

// Lexicographic (p0 < p1) || (p0 == p1 && p2 > p3): not a fast-path form.
Computation* LexRegion(ModuleBuilder& mb, DType t0, DType t1) {
  ComputationBuilder* cb = mb.NewComputation("lex");
  Instruction* a = cb->Parameter(Shape(t0, {}));
  Instruction* b = cb->Parameter(Shape(t0, {}));
  Instruction* c = cb->Parameter(Shape(t1, {}));
  Instruction* d = cb->Parameter(Shape(t1, {}));
  Instruction* lt = Must(cb->Add(Opcode::kCompare, {a, b}, CompareAttrs{ComparisonDirection::kLt}));
  Instruction* eq = Must(cb->Add(Opcode::kCompare, {a, b}, CompareAttrs{ComparisonDirection::kEq}));
  Instruction* gt = Must(cb->Add(Opcode::kCompare, {c, d}, CompareAttrs{ComparisonDirection::kGt}));
  Instruction* both = Must(cb->Add(Opcode::kAnd, {eq, gt}));
  return *cb->Finish({Must(cb->Add(Opcode::kOr, {lt, both}))});
}

std::unique_ptr<Module> SortModule(const std::vector<Shape>& inputs, int64_t dimension,
                                   const std::function<Computation*(ModuleBuilder&)>& region) {
  ModuleBuilder mb("sort");
  Computation* cmp = region(mb);
  ComputationBuilder* main = mb.NewComputation("main");
  std::vector<Instruction*> ps;
  for (const Shape& s : inputs) ps.push_back(main->Parameter(s));
  Instruction* sorted = Must(main->Add(Opcode::kSort, ps, SortAttrs{dimension, true}, {cmp}));
  std::vector<Instruction*> results;
  if (inputs.size() == 1) {
    results.push_back(sorted);
  } else {
    for (size_t i = 0; i < inputs.size(); ++i) {
      results.push_back(Must(main->Add(Opcode::kGetTupleElement, {sorted},
                                       GetTupleElementAttrs{static_cast<int64_t>(i)})));
    }
  }
  return *mb.Build(*main->Finish(results));
}

// Bit-exact: a sort result is a permutation of its input, -0.0 and NaN
// payloads included.
void ExpectSameBits(const std::vector<Literal>& got, const std::vector<Literal>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what;
    // memcmp of zero bytes may see null data (empty arrays): UB even so.
    if (got[i].size_bytes() != want[i].size_bytes() ||
        (got[i].size_bytes() != 0 &&
         std::memcmp(got[i].data(), want[i].data(), got[i].size_bytes()) != 0)) {
      ADD_FAILURE() << what << " result " << i << "\n cpu: " << got[i].ToString()
                    << "\n ref: " << want[i].ToString();
    }
  }
}

void CompareBackends(const Module& m, const std::vector<Literal>& args, const std::string& what) {
  auto want = RunOn("reference", m, args);
  auto got = RunOn("cpu", m, args);
  ASSERT_TRUE(want.ok()) << what << ": " << want.status();
  ASSERT_TRUE(got.ok()) << what << ": " << got.status();
  ExpectSameBits(*got, *want, what);
}

// ------------------------------------------------------- shape inference

void ExpectError(const absl::StatusOr<Shape>& got, absl::StatusCode code, absl::string_view text) {
  ASSERT_FALSE(got.ok()) << got->ToString();
  EXPECT_EQ(got.status().code(), code) << got.status();
  EXPECT_THAT(std::string(got.status().message()), HasSubstr(std::string(text)));
}

TEST(SortShapeInference, EveryConstraint) {
  ModuleBuilder mb("m");
  Computation* two = CompareRegion(mb, {F32, S32}, 0, 1, ComparisonDirection::kLt);
  Computation* one = CompareRegion(mb, {F32}, 0, 1, ComparisonDirection::kLt);
  SortAttrs a{-1, true};
  auto ok = Infer(Opcode::kSort, {T(F32, {2, 3}), T(S32, {2, 3})}, a, {two});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, Shape::Tuple({T(F32, {2, 3}), T(S32, {2, 3})}));
  EXPECT_EQ(*Infer(Opcode::kSort, {T(F32, {4})}, SortAttrs{0, false}, {one}), T(F32, {4}));
  // C1: at least one input.
  ExpectError(Infer(Opcode::kSort, {}, a, {one}), absl::StatusCode::kInvalidArgument,
              "sort: expected at least one input");
  // C3: same shapes.
  ExpectError(Infer(Opcode::kSort, {T(F32, {2, 3}), T(S32, {3, 2})}, a, {two}),
              absl::StatusCode::kInvalidArgument, "sort: inputs must have the same shape");
  // C4: -R <= dimension < R.
  ExpectError(Infer(Opcode::kSort, {T(F32, {2, 3})}, SortAttrs{2, true}, {one}),
              absl::StatusCode::kOutOfRange, "sort: dimension 2 is out of range [-2, 2)");
  ExpectError(Infer(Opcode::kSort, {T(F32, {2, 3})}, SortAttrs{-3, true}, {one}),
              absl::StatusCode::kOutOfRange, "sort: dimension -3 is out of range");
  EXPECT_TRUE(Infer(Opcode::kSort, {T(F32, {2, 3})}, SortAttrs{-2, true}, {one}).ok());
  ExpectError(Infer(Opcode::kSort, {T(F32, {})}, SortAttrs{0, true}, {one}),
              absl::StatusCode::kOutOfRange, "for inputs of rank 0");
  // C5: comparator type.
  ExpectError(Infer(Opcode::kSort, {T(S32, {3})}, a, {one}), absl::StatusCode::kInvalidArgument,
              "sort: comparator cmp must have type (tensor<i32>, tensor<i32>) -> tensor<i1>, got "
              "(tensor<f32>, tensor<f32>) -> (tensor<i1>)");
  ExpectError(Infer(Opcode::kSort, {T(F32, {3})}, a, {two}), absl::StatusCode::kInvalidArgument,
              "sort: comparator");
  ComputationBuilder* bad = mb.NewComputation("bad");
  Instruction* x = bad->Parameter(T(F32, {}));
  bad->Parameter(T(F32, {}));
  Computation* returns_f32 = *bad->Finish({x});
  ExpectError(Infer(Opcode::kSort, {T(F32, {3})}, a, {returns_f32}),
              absl::StatusCode::kInvalidArgument, "-> (tensor<f32>)");
  ExpectError(Infer(Opcode::kSort, {T(F32, {3})}, a, {}), absl::StatusCode::kInvalidArgument,
              "sort: expected one comparator region, got 0");
}

TEST(MapShapeInference, EveryConstraint) {
  ModuleBuilder mb("m");
  ComputationBuilder* cb = mb.NewComputation("fn");
  Instruction* p0 = cb->Parameter(T(S32, {}));
  Instruction* p1 = cb->Parameter(T(S32, {}));
  Instruction* lt = Must(cb->Add(Opcode::kCompare, {p0, p1}, CompareAttrs{ComparisonDirection::kLt}));
  Computation* fn = *cb->Finish({lt});
  MapAttrs dims{{0, 1}};
  EXPECT_EQ(*Infer(Opcode::kMap, {T(S32, {2, 3}), T(S32, {2, 3})}, dims, {fn}), T(PRED, {2, 3}));
  ExpectError(Infer(Opcode::kMap, {}, MapAttrs{}, {fn}), absl::StatusCode::kInvalidArgument,
              "map: expected at least one input");
  ExpectError(Infer(Opcode::kMap, {T(S32, {2, 3}), T(S32, {3, 2})}, dims, {fn}),
              absl::StatusCode::kInvalidArgument, "map: inputs must have the same shape");
  ExpectError(Infer(Opcode::kMap, {T(S32, {2, 3}), T(S32, {2, 3})}, MapAttrs{{1, 0}}, {fn}),
              absl::StatusCode::kOutOfRange, "map: dimensions must be [0, 1]");
  ExpectError(Infer(Opcode::kMap, {T(S32, {2, 3}), T(S32, {2, 3})}, MapAttrs{{0}}, {fn}),
              absl::StatusCode::kOutOfRange, "got [0]");
  ExpectError(Infer(Opcode::kMap, {T(F32, {2, 3}), T(S32, {2, 3})}, dims, {fn}),
              absl::StatusCode::kInvalidArgument,
              "map: computation fn must take (tensor<f32>, tensor<i32>) and return one scalar");
  ExpectError(Infer(Opcode::kMap, {T(S32, {2, 3})}, dims, {fn}),
              absl::StatusCode::kInvalidArgument, "map: computation fn must take");
  ExpectError(Infer(Opcode::kMap, {T(S32, {2, 3}), T(S32, {2, 3})}, dims, {}),
              absl::StatusCode::kInvalidArgument, "map: expected one computation region");
}

TEST(ReducePrecisionShapeInference, EveryConstraint) {
  EXPECT_EQ(*Infer(Opcode::kReducePrecision, {T(F32, {3})}, ReducePrecisionAttrs{5, 10}),
            T(F32, {3}));
  ExpectError(Infer(Opcode::kReducePrecision, {T(S32, {3})}, ReducePrecisionAttrs{5, 10}),
              absl::StatusCode::kInvalidArgument,
              "reduce_precision: expected floating-point element type, got tensor<3xi32>");
  ExpectError(Infer(Opcode::kReducePrecision, {T(F32, {3})}, ReducePrecisionAttrs{0, 10}),
              absl::StatusCode::kOutOfRange, "reduce_precision: exponent_bits must be >= 1");
  ExpectError(Infer(Opcode::kReducePrecision, {T(F32, {3})}, ReducePrecisionAttrs{5, -1}),
              absl::StatusCode::kOutOfRange, "reduce_precision: mantissa_bits must be >= 0");
  ExpectError(Infer(Opcode::kReducePrecision, {T(F32, {3})}, ReducePrecisionAttrs{int64_t{1} << 40, 1}),
              absl::StatusCode::kOutOfRange, "fit in i32");
}

TEST(BitcastConvertShapeInference, EveryConstraint) {
  auto infer = [](Shape in, Shape out) {
    return Infer(Opcode::kBitcastConvert, {in}, NoAttrs{}, {}, &out);
  };
  EXPECT_EQ(*infer(T(F32, {2, 3}), T(S32, {2, 3})), T(S32, {2, 3}));
  EXPECT_EQ(*infer(T(DType::kF64, {}), T(DType::kF16, {4})), T(DType::kF16, {4}));
  EXPECT_EQ(*infer(T(DType::kU8, {5, 4}), T(F32, {5})), T(F32, {5}));
  EXPECT_EQ(*infer(T(DType::kC64, {2}), T(DType::kC64, {2})), T(DType::kC64, {2}));
  ExpectError(infer(T(F32, {2}), T(DType::kF16, {2})), absl::StatusCode::kInvalidArgument,
              "bitcast_convert: result shape must be tensor<2x2xf16> (a narrower result adds a "
              "minor dimension of 2)");
  ExpectError(infer(T(DType::kU8, {5, 3}), T(F32, {5})), absl::StatusCode::kInvalidArgument,
              "bitcast_convert: a wider result needs the operand's last dimension to be 4");
  ExpectError(infer(T(DType::kU8, {}), T(DType::kU16, {})), absl::StatusCode::kInvalidArgument,
              "last dimension to be 2");
  ExpectError(infer(T(F32, {2}), T(S32, {3})), absl::StatusCode::kInvalidArgument,
              "equal widths keep the shape");
  ExpectError(infer(T(DType::kC64, {2}), T(DType::kF64, {2})), absl::StatusCode::kInvalidArgument,
              "bitcast_convert: a complex operand or result requires both to be complex");
  ExpectError(infer(T(PRED, {8}), T(DType::kU8, {})), absl::StatusCode::kInvalidArgument,
              "bitcast_convert: i1 has no defined bit layout");
  ExpectError(Infer(Opcode::kBitcastConvert, {T(F32, {2})}, NoAttrs{}),
              absl::StatusCode::kInvalidArgument, "bitcast_convert: missing result type");
}

// ------------------------------------------------------ printer / parser

TEST(SortText, PrintsAndParsesBack) {
  auto m = SortModule({T(F32, {2, 3}), T(S32, {2, 3})}, 0, [](ModuleBuilder& mb) {
    return CompareRegion(mb, {F32, S32}, 0, 1, ComparisonDirection::kGt);
  });
  std::string text = PrintModule(*m);
  EXPECT_THAT(text, HasSubstr("\"stablehlo.sort\""));
  EXPECT_THAT(text, HasSubstr("dimension = 0 : i64"));
  EXPECT_THAT(text, HasSubstr("is_stable = true"));
  auto parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(PrintModule(**parsed), text);
  // is_stable defaults to false and dimension to -1 when left out.
  auto short_form = ParseOps(R"(%r = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %p = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>)");
  ASSERT_TRUE(short_form.ok()) << short_form.status();
  std::string again = PrintModule(*short_form->module);
  EXPECT_THAT(again, HasSubstr("dimension = -1 : i64, is_stable = false"));
  auto bad = ParseOps(R"(%r = "stablehlo.sort"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %p = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }) {is_stable = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("is_stable: expected true or false"));
}

TEST(MapReducePrecisionBitcastText, PrintAndParseBack) {
  const char* text = R"(%r = "stablehlo.reduce_precision"(%x) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : (tensor<3xf32>) -> tensor<3xf32>
%b = "stablehlo.bitcast_convert"(%r) : (tensor<3xf32>) -> tensor<3x4xui8>
%m = "stablehlo.map"(%b, %b) ({
  ^bb0(%p: tensor<ui8>, %q: tensor<ui8>):
    %s = stablehlo.add %p, %q : tensor<ui8>
    stablehlo.return %s : tensor<ui8>
}) {dimensions = array<i64: 0, 1>} : (tensor<3x4xui8>, tensor<3x4xui8>) -> tensor<3x4xui8>)";
  auto parsed = ParseOps(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  std::string printed = PrintModule(*parsed->module);
  EXPECT_THAT(printed, HasSubstr("exponent_bits = 5 : i32, mantissa_bits = 2 : i32"));
  EXPECT_THAT(printed, HasSubstr("\"stablehlo.bitcast_convert\""));
  EXPECT_THAT(printed, HasSubstr("dimensions = array<i64: 0, 1>"));
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
}

// --------------------------------------------------- comparator recogniser

TEST(SortComparator, RecognisesPlainTotalOrderAndJaxForms) {
  using common::RecogniseSortComparator;
  using common::SortKeyOrder;
  auto recognise = [](std::unique_ptr<Module> m) {
    for (const auto& instr : m->entry()->instructions()) {
      if (instr->opcode() == Opcode::kSort) return RecogniseSortComparator(*instr);
    }
    return std::optional<common::SimpleSortComparator>();
  };
  auto lt = recognise(SortModule({T(S32, {3})}, 0, [](ModuleBuilder& mb) {
    return CompareRegion(mb, {S32}, 0, 1, ComparisonDirection::kLt);
  }));
  ASSERT_TRUE(lt.has_value());
  EXPECT_FALSE(lt->descending);
  EXPECT_EQ(lt->order, SortKeyOrder::kPlain);
  auto swapped = recognise(SortModule({T(F32, {3}), T(S32, {3})}, 0, [](ModuleBuilder& mb) {
    return CompareRegion(mb, {F32, S32}, 1, 0, ComparisonDirection::kLt,
                         ComparisonType::kTotalOrder);
  }));
  ASSERT_TRUE(swapped.has_value());
  EXPECT_TRUE(swapped->descending);
  EXPECT_EQ(swapped->order, SortKeyOrder::kTotalOrder);
  auto jax = recognise(SortModule({T(F32, {3}), T(F32, {3})}, 0,
                                  [](ModuleBuilder& mb) { return JaxRegion(mb, {F32, F32}); }));
  ASSERT_TRUE(jax.has_value());
  EXPECT_EQ(jax->order, SortKeyOrder::kCanonical);
  EXPECT_FALSE(recognise(SortModule({T(F32, {3}), T(S32, {3})}, 0, [](ModuleBuilder& mb) {
                 return CompareRegion(mb, {F32, S32}, 2, 3, ComparisonDirection::kLt);
               })).has_value());  // keyed on operand 1
  EXPECT_FALSE(recognise(SortModule({T(F32, {3}), T(S32, {3})}, 0, [](ModuleBuilder& mb) {
                 return LexRegion(mb, F32, S32);
               })).has_value());
  EXPECT_FALSE(recognise(SortModule({T(F32, {3})}, 0, [](ModuleBuilder& mb) {
                 return CompareRegion(mb, {F32}, 0, 1, ComparisonDirection::kLe);
               })).has_value());
}

// --------------------------------------------------------- cpu vs reference

// Keys with many duplicates (stability shows) and the float specials.
Literal Keys(const Shape& s, std::mt19937_64& rng) {
  Literal l = RandomLiteral(s, rng, true);
  std::uniform_int_distribution<int> small(-3, 3);
  DispatchDType(s.dtype, [&](auto tag) {
    using V = typename decltype(tag)::type;
    V* p = l.mutable_data_as<V>();
    for (int64_t i = 0; i < s.num_elements(); i += 3) {
      if constexpr (std::is_same_v<V, bool>) {
        p[i] = (i / 3) % 2;
      } else if constexpr (is_complex_v<V>) {
        p[i] = V(small(rng), small(rng));
      } else if constexpr (is_half_v<V>) {
        p[i] = V(static_cast<float>(small(rng)));
      } else {
        p[i] = static_cast<V>(small(rng));
      }
    }
  });
  return l;
}

TEST(CpuSort, EveryDTypeEveryComparatorMatchesReference) {
  std::mt19937_64 rng(7);
  const std::vector<std::vector<int64_t>> shapes = {{37}, {5, 33}, {6, 4, 3}};
  int checked = 0;
  for (DType t : kAllDTypes) {
    const bool is_float = IsFloat(t);
    for (const auto& dims : shapes) {
      for (int64_t dim : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
        if (dim >= static_cast<int64_t>(dims.size())) continue;
        std::vector<std::pair<std::string, std::function<Computation*(ModuleBuilder&)>>> regions;
        for (auto d : {ComparisonDirection::kLt, ComparisonDirection::kGt}) {
          regions.push_back({"plain", [t, d](ModuleBuilder& mb) {
                               return CompareRegion(mb, {t, S32}, 0, 1, d);
                             }});
          regions.push_back({"swapped", [t, d](ModuleBuilder& mb) {
                               return CompareRegion(mb, {t, S32}, 1, 0, d);
                             }});
          if (is_float) {
            regions.push_back({"totalorder", [t, d](ModuleBuilder& mb) {
                                 return CompareRegion(mb, {t, S32}, 0, 1, d,
                                                      ComparisonType::kTotalOrder);
                               }});
          }
        }
        if (is_float) {
          regions.push_back({"jax", [t](ModuleBuilder& mb) { return JaxRegion(mb, {t, S32}); }});
        }
        if (!IsComplex(t)) {
          regions.push_back({"lexicographic", [t](ModuleBuilder& mb) {
                               return LexRegion(mb, t, S32);
                             }});
          regions.push_back({"by second operand", [t](ModuleBuilder& mb) {
                               return CompareRegion(mb, {t, S32}, 2, 3, ComparisonDirection::kLt);
                             }});
        }
        for (const auto& [name, region] : regions) {
          auto m = SortModule({T(t, dims), T(S32, dims)}, dim, region);
          std::vector<Literal> args = {Keys(T(t, dims), rng), RandomLiteral(T(S32, dims), rng)};
          CompareBackends(*m, args,
                          absl::StrCat(StableHloName(t), " ", T(t, dims).ToString(), " dim ",
                                       dim, " ", name));
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(CpuSort, StableNaNAndSignedZeroOrder) {
  // JAX's comparator: -0.0 ties with 0.0 (original order kept), NaNs last in
  // original order, -NaN among them.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Literal keys(T(F32, {8}));
  float k[] = {0.0f, -0.0f, nan, -nan, 1.0f, -1.0f, -INFINITY, 0.0f};
  std::memcpy(keys.mutable_data(), k, sizeof(k));
  Literal iota(T(S32, {8}));
  for (int i = 0; i < 8; ++i) iota.mutable_data_as<int32_t>()[i] = i;
  auto jax = SortModule({T(F32, {8}), T(S32, {8})}, 0,
                        [](ModuleBuilder& mb) { return JaxRegion(mb, {F32, S32}); });
  for (const char* platform : {"reference", "cpu"}) {
    auto r = RunOn(platform, *jax, {keys, iota});
    ASSERT_TRUE(r.ok()) << r.status();
    const int32_t* idx = (*r)[1].data_as<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(idx, idx + 8), (std::vector<int32_t>{6, 5, 0, 1, 7, 4, 2, 3}))
        << platform;
  }
  // TOTALORDER alone: -NaN first, -0.0 before 0.0, NaN last.
  auto total = SortModule({T(F32, {8}), T(S32, {8})}, 0, [](ModuleBuilder& mb) {
    return CompareRegion(mb, {F32, S32}, 0, 1, ComparisonDirection::kLt,
                         ComparisonType::kTotalOrder);
  });
  for (const char* platform : {"reference", "cpu"}) {
    auto r = RunOn(platform, *total, {keys, iota});
    ASSERT_TRUE(r.ok()) << r.status();
    const int32_t* idx = (*r)[1].data_as<int32_t>();
    EXPECT_EQ(std::vector<int32_t>(idx, idx + 8), (std::vector<int32_t>{3, 6, 5, 1, 0, 7, 4, 2}))
        << platform;
  }
}

TEST(CpuSort, LargeSlicesAndManySlicesInParallel) {
  std::mt19937_64 rng(11);
  // Radix (>= 1024 per slice), comparison-sort and tiny slices; 1 to 6 radix passes.
  for (const auto& dims : std::vector<std::vector<int64_t>>{{5000}, {12, 1500}, {3000, 3}, {50, 300}}) {
    for (DType t : {F32, DType::kF64, S32, DType::kU16, DType::kS64, PRED, DType::kF16,
                    DType::kBF16, DType::kU8, DType::kS8}) {
      auto m = SortModule({T(t, dims), T(S32, dims)}, -1,
                          [t](ModuleBuilder& mb) {
                            return IsFloat(t) ? JaxRegion(mb, {t, S32})
                                              : CompareRegion(mb, {t, S32}, 0, 1,
                                                              ComparisonDirection::kLt);
                          });
      std::vector<Literal> args = {Keys(T(t, dims), rng), RandomLiteral(T(S32, dims), rng)};
      CompareBackends(*m, args, absl::StrCat(StableHloName(t), " ", T(t, dims).ToString()));
    }
  }
}

TEST(CpuSort, ThreeOperandsAndEmptyDimensions) {
  std::mt19937_64 rng(5);
  auto m = SortModule({T(S32, {4, 9}), T(F32, {4, 9}), T(DType::kC64, {4, 9})}, 1,
                      [](ModuleBuilder& mb) {
                        return CompareRegion(mb, {S32, F32, DType::kC64}, 1, 0,
                                             ComparisonDirection::kLt);
                      });
  std::vector<Literal> args = {Keys(T(S32, {4, 9}), rng), RandomLiteral(T(F32, {4, 9}), rng),
                               RandomLiteral(T(DType::kC64, {4, 9}), rng)};
  CompareBackends(*m, args, "three operands");
  for (const auto& dims : std::vector<std::vector<int64_t>>{{0}, {3, 0}, {0, 5}, {1}}) {
    auto e = SortModule({T(F32, dims)}, -1, [](ModuleBuilder& mb) {
      return CompareRegion(mb, {F32}, 0, 1, ComparisonDirection::kLt);
    });
    CompareBackends(*e, {RandomLiteral(T(F32, dims), rng)}, T(F32, dims).ToString());
  }
}

TEST(CpuMap, MatchesReference) {
  std::mt19937_64 rng(3);
  ModuleBuilder mb("map");
  ComputationBuilder* fn = mb.NewComputation("fn");
  Instruction* a = fn->Parameter(T(F32, {}));
  Instruction* b = fn->Parameter(T(S32, {}));
  Instruction* bf = Must(fn->AddWithResultType(Opcode::kConvert, T(F32, {}), {b}, {}));
  Instruction* prod = Must(fn->Add(Opcode::kMultiply, {a, bf}));
  Instruction* gt = Must(fn->Add(Opcode::kCompare, {prod, a}, CompareAttrs{ComparisonDirection::kGt}));
  Instruction* sel = Must(fn->Add(Opcode::kSelect, {gt, prod, a}));
  Computation* region = *fn->Finish({sel});
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* x = main->Parameter(T(F32, {300, 257}));
  Instruction* y = main->Parameter(T(S32, {300, 257}));
  Instruction* r = Must(main->Add(Opcode::kMap, {x, y}, MapAttrs{{0, 1}}, {region}));
  auto m = *mb.Build(*main->Finish({r}));
  CompareBackends(*m, RandomArgs(*m, rng), "map");
}

TEST(CpuReducePrecision, MatchesReferenceAndJaxBits) {
  std::mt19937_64 rng(9);
  for (DType t : {DType::kF16, DType::kBF16, F32, DType::kF64}) {
    for (auto [e, m] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 0}, {2, 3}, {5, 10}, {5, 0}, {8, 7}, {8, 23}, {11, 52}, {4, 2}, {30, 60}}) {
      auto mod = OneOpModule(Opcode::kReducePrecision, {T(t, {513})}, ReducePrecisionAttrs{e, m});
      ASSERT_TRUE(mod.ok()) << mod.status();
      CompareBackends(**mod, RandomArgs(**mod, rng),
                      absl::StrCat("reduce_precision ", StableHloName(t), " ", e, " ", m));
    }
  }
  // Bits JAX 0.10.2 gives for f32 (NaNs are passed through, even signalling ones).
  const uint32_t in[] = {0x7fc00000, 0xffc00000, 0x7f800001, 0x3fc00000, 0x00000001, 0x7f7fffff,
                         0x3f800001};
  struct Case { int64_t e, m; uint32_t out[7]; };
  const Case cases[] = {
      {5, 0, {0x7fc00000, 0xffc00000, 0x7f800001, 0x40000000, 0, 0x7f800000, 0x3f800000}},
      {2, 3, {0x7fc00000, 0xffc00000, 0x7f800001, 0x3fc00000, 0, 0x7f800000, 0x3f800000}},
      {1, 0, {0x7fc00000, 0xffc00000, 0x7f800001, 0x7f800000, 0, 0x7f800000, 0}},
      {8, 23, {0x7fc00000, 0xffc00000, 0x7f800001, 0x3fc00000, 1, 0x7f7fffff, 0x3f800001}},
  };
  Literal x(T(F32, {7}));
  std::memcpy(x.mutable_data(), in, sizeof(in));
  for (const Case& c : cases) {
    auto mod = OneOpModule(Opcode::kReducePrecision, {T(F32, {7})}, ReducePrecisionAttrs{c.e, c.m});
    for (const char* platform : {"reference", "cpu"}) {
      auto r = RunOn(platform, **mod, {x});
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(std::memcmp((*r)[0].data(), c.out, sizeof(c.out)), 0)
          << platform << " e=" << c.e << " m=" << c.m << ": " << (*r)[0].ToString();
    }
  }
}

TEST(CpuBitcastConvert, EveryWidthChangeMatchesReference) {
  std::mt19937_64 rng(1);
  struct Case { Shape in, out; };
  const Case cases[] = {
      {T(F32, {3, 5}), T(S32, {3, 5})},
      {T(DType::kF64, {7}), T(DType::kF16, {7, 4})},
      {T(DType::kU8, {6, 8}), T(DType::kS64, {6})},
      {T(DType::kC128, {2}), T(DType::kC64, {2, 2})},
      {T(DType::kBF16, {3, 2}), T(F32, {3})},
  };
  for (const Case& c : cases) {
    auto m = OneOpModule(Opcode::kBitcastConvert, {c.in}, {}, {}, c.out);
    ASSERT_TRUE(m.ok()) << m.status();
    CompareBackends(**m, RandomArgs(**m, rng),
                    absl::StrCat(c.in.ToString(), " -> ", c.out.ToString()));
  }
  // Little-endian pieces, least significant first (the spec's example).
  Literal one(T(F32, {}));
  const float v = 1.0f;
  std::memcpy(one.mutable_data(), &v, 4);
  auto m = OneOpModule(Opcode::kBitcastConvert, {T(F32, {})}, {}, {}, T(DType::kU16, {2}));
  auto r = RunOn("cpu", **m, {one});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].data_as<uint16_t>()[0], 0x0000);
  EXPECT_EQ((*r)[0].data_as<uint16_t>()[1], 0x3F80);
}

}  // namespace
}  // namespace xjit::cpu::testing
