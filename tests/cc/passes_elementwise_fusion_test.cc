// Element-wise fusion on small graphs: which instructions end up in which
// region, what stays outside, and that the fused graph computes what the
// original does (on the reference backend, which evaluates the regions, and
// on cpu, which runs them as tiled chains).
#include "xjit/passes/elementwise_fusion.h"

#include <map>
#include <random>

#include "absl/strings/match.h"
#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
using passes::FuseElementwise;
namespace {

using cpu::testing::ExpectLiteralsMatch;
using cpu::testing::RandomLiteral;

std::unique_ptr<Module> Build(ModuleBuilder& mb, ComputationBuilder* cb,
                              std::vector<Instruction*> results) {
  auto main = cb->Finish(std::move(results));
  EXPECT_TRUE(main.ok()) << main.status();
  auto module = mb.Build(*main);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}


std::vector<const Instruction*> Fusions(const Computation& c) {
  std::vector<const Instruction*> out;
  for (const auto& instr : c.instructions()) {
    if (instr->opcode() == Opcode::kFusion) out.push_back(instr.get());
  }
  return out;
}

Instruction* Scalar(ComputationBuilder* cb, float v, std::vector<int64_t> dims) {
  Instruction* c = cb->Constant(Literal::Scalar<float>(DType::kF32, v));
  return Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kF32, std::move(dims)), {c},
                                    BroadcastInDimAttrs{}));
}

// Runs `original` and its fused copy on `platform` with the same random
// arguments; the results must agree.
void ExpectSameResults(const Module& original, const Module& fused, const std::string& platform) {
  std::mt19937_64 rng(7);
  std::vector<Literal> args;
  for (const Shape& s : original.ParameterShapes()) args.push_back(RandomLiteral(s, rng, false));
  auto want = RunOn("reference", original, args);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = RunOn(platform, fused, args);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    ExpectLiteralsMatch((*got)[i], (*want)[i], 1e-5, absl::StrCat(platform, " result ", i));
  }
}

// tanh(a * 2 + 1) * exp(-a * a), as benchmarks/workloads.py traces it.
std::unique_ptr<Module> ChainModule(int64_t n = 1000) {
  ModuleBuilder mb("chain");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {n}));
  Instruction* t = Must(cb->Add(Opcode::kMultiply, {a, Scalar(cb, 2, {n})}));
  t = Must(cb->Add(Opcode::kAdd, {t, Scalar(cb, 1, {n})}));
  t = Must(cb->Add(Opcode::kTanh, {t}));
  Instruction* na = Must(cb->Add(Opcode::kNegate, {a}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {Must(cb->Add(Opcode::kMultiply, {na, a}))}));
  return Build(mb, cb, {Must(cb->Add(Opcode::kMultiply, {t, e}))});
}

TEST(ElementwiseFusion, AChainBecomesOneFusionWithItsSplatsInside) {
  auto m = ChainModule();
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  std::map<std::string, int> outside = Census(*fused->entry());
  EXPECT_EQ(outside["fusion"], 1);
  EXPECT_EQ(outside["broadcast_in_dim"], 0) << PrintModule(*fused);
  EXPECT_EQ(outside["multiply"] + outside["add"] + outside["tanh"], 0);
  const Instruction* f = Fusions(*fused->entry())[0];
  std::map<std::string, int> inside = Census(*f->called_computations()[0]);
  EXPECT_EQ(inside["broadcast_in_dim"], 2);
  EXPECT_EQ(inside["multiply"], 3);
  EXPECT_EQ(inside["exponential"], 1);
  EXPECT_FALSE(f->shape().is_tuple);  // only the last value leaves the region
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, ValuesUsedOutsideAreReturnedAsATuple) {
  ModuleBuilder mb("two_out");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {8, 8}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* s = Must(cb->Add(Opcode::kSine, {e}));
  Instruction* p = Must(cb->Add(Opcode::kMultiply, {s, e}));
  DotGeneralAttrs dot;
  dot.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  dot.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  Instruction* d = Must(cb->Add(Opcode::kDotGeneral, {e, a}, dot));  // uses e outside
  auto m = Build(mb, cb, {p, d});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*fused);
  EXPECT_TRUE(fusions[0]->shape().is_tuple);
  EXPECT_EQ(fusions[0]->called_computations()[0]->results().size(), 2u);
  EXPECT_EQ(Census(*fused->entry())["get_tuple_element"], 2);
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, AnOpBetweenThatUsesTheClusterSplitsIt) {
  ModuleBuilder mb("split");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {4, 4}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* n = Must(cb->Add(Opcode::kNegate, {e}));
  TransposeAttrs perm{{1, 0}};
  Instruction* t = Must(cb->Add(Opcode::kTranspose, {n}, perm));
  Instruction* s = Must(cb->Add(Opcode::kSine, {t}));
  Instruction* c = Must(cb->Add(Opcode::kCosine, {s}));
  auto m = Build(mb, cb, {c});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 2u) << PrintModule(*fused);
  // In SSA order: exp+neg, the transpose, then sin+cos.
  EXPECT_LT(fusions[0]->id(), fusions[1]->id());
  EXPECT_EQ(Census(*fused->entry())["transpose"], 1);
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, IndependentOpsInBetweenDoNotSplit) {
  ModuleBuilder mb("skip");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {16}));
  Instruction* b = cb->Parameter(T(DType::kF32, {4, 4}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  TransposeAttrs perm{{1, 0}};
  Instruction* t = Must(cb->Add(Opcode::kTranspose, {b}, perm));  // no cluster value
  Instruction* r = Must(cb->AddWithResultType(Opcode::kReshape, T(DType::kF32, {16}), {t}));
  Instruction* x = Must(cb->Add(Opcode::kAdd, {e, r}));
  Instruction* y = Must(cb->Add(Opcode::kLog, {x}));
  auto m = Build(mb, cb, {y});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*fused);
  EXPECT_EQ(Census(*fusions[0]->called_computations()[0])["exponential"], 1);
  EXPECT_EQ(Census(*fusions[0]->called_computations()[0])["log"], 1);
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, ClustersOfDifferentSizesInterleave) {
  ModuleBuilder mb("sizes");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {6}));
  Instruction* b = cb->Parameter(T(DType::kF32, {10}));
  Instruction* a1 = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* b1 = Must(cb->Add(Opcode::kExponential, {b}));
  Instruction* a2 = Must(cb->Add(Opcode::kNegate, {a1}));
  Instruction* b2 = Must(cb->Add(Opcode::kNegate, {b1}));
  auto m = Build(mb, cb, {a2, b2});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 2u) << PrintModule(*fused);
  for (const Instruction* f : fusions) {
    EXPECT_EQ(Census(*f->called_computations()[0])["negate"], 1);
  }
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, ReshapesInsideAClusterAndReshapedResults) {
  ModuleBuilder mb("reshape");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* r = Must(cb->AddWithResultType(Opcode::kReshape, T(DType::kF32, {6}), {e}));
  Instruction* n = Must(cb->Add(Opcode::kNegate, {r}));
  auto m = Build(mb, cb, {n, r});  // the reshape is also a result
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*fused);
  const Computation& region = *fusions[0]->called_computations()[0];
  EXPECT_EQ(Census(region)["reshape"], 1);
  for (const Instruction* res : region.results()) EXPECT_NE(res->opcode(), Opcode::kReshape);
  EXPECT_EQ(Census(*fused->entry())["reshape"], 1);  // re-applied outside for the result
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

// A bitcast_convert between types of one width is an alias like a reshape:
// inside the cluster, and re-applied outside (with the reshape after it, each
// with its own type) when the chain is a result.
TEST(ElementwiseFusion, SameWidthBitcastsAreAliases) {
  ModuleBuilder mb("bitcast");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 3}));
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* bits = Must(cb->AddWithResultType(Opcode::kBitcastConvert, T(DType::kU32, {2, 3}), {e}));
  Instruction* flat = Must(cb->AddWithResultType(Opcode::kReshape, T(DType::kU32, {6}), {bits}));
  Instruction* mask = cb->Constant(Literal::Scalar<uint32_t>(DType::kU32, 0xFFFFF000u));
  Instruction* splat = Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kU32, {6}),
                                                  {mask}, BroadcastInDimAttrs{}));
  Instruction* masked = Must(cb->Add(Opcode::kAnd, {flat, splat}));
  Instruction* back = Must(cb->AddWithResultType(Opcode::kBitcastConvert, T(DType::kF32, {6}), {masked}));
  Instruction* n = Must(cb->Add(Opcode::kNegate, {back}));
  auto m = Build(mb, cb, {n, flat});  // the bitcast-then-reshape is also a result
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*fused);
  const Computation& region = *fusions[0]->called_computations()[0];
  EXPECT_EQ(Census(region)["bitcast_convert"], 2) << PrintModule(*fused);
  for (const Instruction* res : region.results()) {
    EXPECT_NE(res->opcode(), Opcode::kBitcastConvert);
    EXPECT_NE(res->opcode(), Opcode::kReshape);
  }
  std::map<std::string, int> outside = Census(*fused->entry());
  EXPECT_EQ(outside["bitcast_convert"], 1) << PrintModule(*fused);
  EXPECT_EQ(outside["reshape"], 1);
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, ASplatAlsoUsedOutsideStaysOutsideToo) {
  ModuleBuilder mb("splat");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {5}));
  Instruction* two = Scalar(cb, 2, {5});
  Instruction* x = Must(cb->Add(Opcode::kMultiply, {a, two}));
  Instruction* y = Must(cb->Add(Opcode::kSqrt, {two}));  // a unary op reading the splat
  Instruction* z = Must(cb->Add(Opcode::kAdd, {x, y}));
  auto m = Build(mb, cb, {z, two});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["broadcast_in_dim"], 1) << PrintModule(*fused);
  auto fusions = Fusions(*fused->entry());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(Census(*fusions[0]->called_computations()[0])["broadcast_in_dim"], 1);
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, OneOpAloneIsLeftAloneButOneOpWithASplatIsFused) {
  ModuleBuilder mb("single");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {3}));
  Instruction* b = cb->Parameter(T(DType::kF32, {7}));
  Instruction* x = Must(cb->Add(Opcode::kAdd, {a, a}));
  Instruction* y = Must(cb->Add(Opcode::kAdd, {b, Scalar(cb, 1, {7})}));
  auto m = Build(mb, cb, {x, y});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  std::map<std::string, int> outside = Census(*fused->entry());
  EXPECT_EQ(outside["add"], 1);
  EXPECT_EQ(outside["fusion"], 1);
  EXPECT_EQ(outside["broadcast_in_dim"], 0);
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, DeadCodeIsDroppedAndOtherComputationsAreCopied) {
  ModuleBuilder mb("dead");
  ComputationBuilder* body = mb.NewComputation("sum");
  Instruction* p = body->Parameter(T(DType::kF32, {}));
  Instruction* q = body->Parameter(T(DType::kF32, {}));
  Computation* sum = *body->Finish({Must(body->Add(Opcode::kAdd, {p, q}))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {4, 4}));
  Must(cb->Add(Opcode::kCosine, {a}));  // dead
  Instruction* e = Must(cb->Add(Opcode::kExponential, {a}));
  Instruction* l = Must(cb->Add(Opcode::kLog, {e}));
  ReduceAttrs dims{{1}};
  Instruction* zero = cb->Constant(Literal::Scalar<float>(DType::kF32, 0));
  Instruction* r = Must(cb->Add(Opcode::kReduce, {l, zero}, dims, {sum}));
  auto m = Build(mb, cb, {r});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["cosine"], 0);
  EXPECT_EQ(Census(*fused->entry())["fusion"], 1);
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

TEST(ElementwiseFusion, RunReplacesTheModuleOnlyWhenSomethingFuses) {
  auto m = ChainModule(8);
  auto changed = passes::RunElementwiseFusion(*m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(Fusions(*m->entry()).size(), 1u);

  ModuleBuilder mb("nothing");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {3}));
  auto single = Build(mb, cb, {Must(cb->Add(Opcode::kAdd, {a, a}))});
  const Computation* before = single->entry();
  changed = passes::RunElementwiseFusion(*single);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(single->entry(), before);  // not copied
}

TEST(ElementwiseFusion, PrintsAndParsesBack) {
  auto fused = Fuse(*ChainModule(16));
  ASSERT_NE(fused, nullptr);
  std::string text = PrintModule(*fused);
  EXPECT_TRUE(absl::StrContains(text, "\"xjit.fusion\"")) << text;
  auto parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(PrintModule(**parsed), text);
}

TEST(ElementwiseFusion, TheVerifierRejectsARegionWithOtherOps) {
  ModuleBuilder mb("bad");
  ComputationBuilder* rb = mb.NewComputation("region");
  Instruction* p = rb->Parameter(T(DType::kF32, {2, 2}));
  TransposeAttrs perm{{1, 0}};
  Computation* region = *rb->Finish({Must(rb->Add(Opcode::kTranspose, {p}, perm))});
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* a = cb->Parameter(T(DType::kF32, {2, 2}));
  auto f = cb->Add(Opcode::kFusion, {a}, {}, {region});
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(absl::StrContains(f.status().message(), "fusion: transpose")) << f.status();

  ComputationBuilder* sb = mb.NewComputation("sizes");
  Instruction* x = sb->Parameter(T(DType::kF32, {2}));
  Instruction* y = sb->Parameter(T(DType::kF32, {3}));
  Computation* sizes =
      *sb->Finish({Must(sb->Add(Opcode::kNegate, {x})), Must(sb->Add(Opcode::kNegate, {y}))});
  Instruction* b = cb->Parameter(T(DType::kF32, {2}));
  Instruction* c = cb->Parameter(T(DType::kF32, {3}));
  auto g = cb->Add(Opcode::kFusion, {b, c}, {}, {sizes});
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(absl::StrContains(g.status().message(), "elements")) << g.status();
  auto h = cb->Add(Opcode::kFusion, {c, b}, {}, {sizes});  // operands do not match
  EXPECT_FALSE(h.ok());
}

}  // namespace
}  // namespace xjit::testing

namespace xjit::testing {
namespace {

// x (rows x cols) combined with a broadcast of a vector or a smaller matrix:
// the broadcast is read in place inside the fusion on every layout.
TEST(ElementwiseFusion, BroadcastsOfInputsAreReadInPlace) {
  struct Case {
    std::vector<int64_t> operand, dims;
  };
  const int64_t rows = 37, cols = 300;  // several tiles, a row not a tile multiple
  for (const Case& c : {Case{{rows}, {0}}, Case{{cols}, {1}}, Case{{rows, 1}, {0, 1}},
                        Case{{1, cols}, {0, 1}}, Case{{cols, 1}, {1, 0}}}) {
    ModuleBuilder mb("bcast");
    ComputationBuilder* cb = mb.NewComputation("main");
    Instruction* x = cb->Parameter(T(DType::kF32, {rows, cols}));
    Instruction* v = cb->Parameter(T(DType::kF32, c.operand));
    Instruction* b = Must(cb->AddWithResultType(Opcode::kBroadcastInDim,
                                                T(DType::kF32, {rows, cols}), {v},
                                                BroadcastInDimAttrs{c.dims}));
    Instruction* d = Must(cb->Add(Opcode::kSubtract, {x, b}));
    Instruction* e = Must(cb->Add(Opcode::kExponential, {d}));
    auto m = Build(mb, cb, {e});
    auto fused = Fuse(*m);
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(Census(*fused->entry())["broadcast_in_dim"], 0) << PrintModule(*fused);
    auto fusions = Fusions(*fused->entry());
    ASSERT_EQ(fusions.size(), 1u);
    EXPECT_EQ(Census(*fusions[0]->called_computations()[0])["broadcast_in_dim"], 1);
    ExpectSameResults(*m, *fused, "reference");
    ExpectSameResults(*m, *fused, "cpu");
  }
}

// A broadcast used by the fusion and returned too: it is still written out
// (outside) for the result, and read in place inside.
TEST(ElementwiseFusion, ABroadcastAlsoReturnedIsMaterialisedForTheResult) {
  ModuleBuilder mb("bcast_out");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(T(DType::kF32, {8, 700}));
  Instruction* v = cb->Parameter(T(DType::kF32, {8}));
  Instruction* b = Must(cb->AddWithResultType(Opcode::kBroadcastInDim, T(DType::kF32, {8, 700}),
                                              {v}, BroadcastInDimAttrs{{0}}));
  Instruction* y = Must(cb->Add(Opcode::kMultiply, {x, b}));
  auto m = Build(mb, cb, {y, b});
  auto fused = Fuse(*m);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Census(*fused->entry())["broadcast_in_dim"], 1) << PrintModule(*fused);
  ExpectSameResults(*m, *fused, "reference");
  ExpectSameResults(*m, *fused, "cpu");
}

}  // namespace
}  // namespace xjit::testing
