// rng_bit_generator: shape inference (valid states and outputs, the errors),
// the text form, and both backends against values XLA computes for the same
// states (recorded with JAX's lax.rng_bit_generator on CPU; the three-word
// Philox state, which JAX cannot pass, follows the XLA expander).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/shape_inference.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit {
namespace {

using xjit::testing::RunOn;

absl::StatusOr<Shape> Infer(const Shape& state, RngAlgorithm alg, const Shape& out) {
  const Shape* ops[] = {&state};
  return InferShape(Opcode::kRngBitGenerator, ops, RngBitGeneratorAttrs{alg}, {}, &out);
}

TEST(RngBitGeneratorShapeTest, AcceptsStatesAndOutputs) {
  auto r = Infer(Shape(DType::kU64, {2}), RngAlgorithm::kThreeFry, Shape(DType::kF32, {3, 4}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Shape::Tuple({Shape(DType::kU64, {2}), Shape(DType::kF32, {3, 4})}));
  EXPECT_TRUE(Infer(Shape(DType::kU64, {3}), RngAlgorithm::kPhilox, Shape(DType::kS8, {})).ok());
  EXPECT_TRUE(Infer(Shape(DType::kU32, {4}), RngAlgorithm::kDefault, Shape(DType::kU16, {5})).ok());
}

TEST(RngBitGeneratorShapeTest, RejectsBadStatesAndOutputs) {
  struct Case {
    Shape state;
    RngAlgorithm alg;
    Shape out;
    const char* message;
  } cases[] = {
      {Shape(DType::kU64, {3}), RngAlgorithm::kThreeFry, Shape(DType::kU32, {2}),
       "THREE_FRY algorithm takes a state of 2 64-bit words"},
      {Shape(DType::kU64, {4}), RngAlgorithm::kPhilox, Shape(DType::kU32, {2}),
       "takes a state of 2 or 3"},
      {Shape(DType::kU32, {3}), RngAlgorithm::kPhilox, Shape(DType::kU32, {2}), "even size"},
      {Shape(DType::kS64, {2}), RngAlgorithm::kPhilox, Shape(DType::kU32, {2}),
       "1-D ui64 (or ui32)"},
      {Shape(DType::kU64, {2, 1}), RngAlgorithm::kPhilox, Shape(DType::kU32, {2}), "1-D"},
      {Shape(DType::kU64, {2}), RngAlgorithm::kPhilox, Shape(DType::kPred, {2}),
       "integer or floating-point"},
      {Shape(DType::kU64, {2}), RngAlgorithm::kPhilox, Shape(DType::kC64, {2}),
       "integer or floating-point"},
  };
  for (const Case& c : cases) {
    auto r = Infer(c.state, c.alg, c.out);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status();
    EXPECT_NE(r.status().message().find("rng_bit_generator"), std::string::npos);
  }
}

std::unique_ptr<Module> RngModule(const Shape& state, RngAlgorithm alg, const Shape& out) {
  ModuleBuilder mb("rng");
  ComputationBuilder* main = mb.NewComputation("main");
  Instruction* s = main->Parameter(state);
  auto rbg = main->AddWithResultType(Opcode::kRngBitGenerator, out, {s},
                                     RngBitGeneratorAttrs{alg});
  EXPECT_TRUE(rbg.ok()) << rbg.status();
  auto g0 = main->Add(Opcode::kGetTupleElement, {*rbg}, GetTupleElementAttrs{0});
  auto g1 = main->Add(Opcode::kGetTupleElement, {*rbg}, GetTupleElementAttrs{1});
  auto entry = main->Finish({*g0, *g1});
  EXPECT_TRUE(entry.ok()) << entry.status();
  auto m = mb.Build(*entry);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

template <typename T>
Literal Vector(DType t, std::vector<T> v) {
  return Literal(Shape(t, {static_cast<int64_t>(v.size())}), v.data());
}

struct XlaCase {
  std::vector<uint64_t> state;
  RngAlgorithm alg;
  Shape out;
  std::vector<uint64_t> next_state;
  std::vector<uint64_t> values;  // row-major, zero-extended
};

template <typename T>
std::vector<uint64_t> Widen(const Literal& l) {
  std::vector<uint64_t> v;
  for (int64_t i = 0; i < l.shape().num_elements(); ++i) v.push_back(l.data_as<T>()[i]);
  return v;
}

std::vector<uint64_t> Values(const Literal& l) {
  switch (BitWidth(l.shape().dtype)) {
    case 8: return Widen<uint8_t>(l);
    case 16: return Widen<uint16_t>(l);
    case 32: return Widen<uint32_t>(l);
    default: return Widen<uint64_t>(l);
  }
}

TEST(RngBitGeneratorTest, BothBackendsMatchXla) {
  const XlaCase cases[] = {
      {{1, 2}, RngAlgorithm::kThreeFry, Shape(DType::kU64, {2, 2}), {1, 6},
       {9236835810183407956ull, 16087790271692313299ull, 18212823393184779219ull,
        2658481902456610144ull}},
      {{0x0123456789abcdefull, 7}, RngAlgorithm::kThreeFry, Shape(DType::kU32, {3, 5}),
       {0x0123456789abcdefull, 16},
       {3356640791, 544688494, 3039885333, 3989734403, 2516300363, 3933500718, 721802571,
        3928695743, 741696269, 957681320, 1817843789, 574870511, 1680641309, 2401006489,
        461581520}},
      {{5, ~uint64_t{0}}, RngAlgorithm::kThreeFry, Shape(DType::kU8, {2, 3}), {5, 2},
       {25, 99, 94, 143, 219, 67}},
      {{1, 2}, RngAlgorithm::kPhilox, Shape(DType::kU32, {8}), {1, 4},
       {2100602697, 2847456232, 2074354647, 800269529, 1828267006, 3135207875, 3972719319,
        2171987788}},
      {{1, 2}, RngAlgorithm::kDefault, Shape(DType::kU16, {3}), {1, 3}, {42825, 48104, 9175}},
      {{3, ~uint64_t{0}, 9}, RngAlgorithm::kPhilox, Shape(DType::kU64, {3}), {3, 1, 10},
       {6923674670741751602ull, 15174361138560162614ull, 12555576926973074565ull}},
  };
  for (const XlaCase& c : cases) {
    const Shape state(DType::kU64, {static_cast<int64_t>(c.state.size())});
    auto module = RngModule(state, c.alg, c.out);
    for (const char* platform : {"reference", "cpu"}) {
      auto r = RunOn(platform, *module, {Vector(DType::kU64, c.state)});
      ASSERT_TRUE(r.ok()) << platform << ": " << r.status();
      EXPECT_EQ(Widen<uint64_t>((*r)[0]), c.next_state) << platform;
      EXPECT_EQ(Values((*r)[1]), c.values) << platform << " " << c.out.ToString();
    }
  }
}

TEST(RngBitGeneratorTest, U32StateIsLittleEndianWordPairs) {
  auto m64 = RngModule(Shape(DType::kU64, {2}), RngAlgorithm::kThreeFry, Shape(DType::kF32, {7}));
  auto m32 = RngModule(Shape(DType::kU32, {4}), RngAlgorithm::kThreeFry, Shape(DType::kF32, {7}));
  auto a = RunOn("cpu", *m64, {Vector<uint64_t>(DType::kU64, {0x100000002ull, 0x300000004ull})});
  auto b = RunOn("cpu", *m32, {Vector<uint32_t>(DType::kU32, {2, 1, 4, 3})});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)[1], (*b)[1]);
  // 7 outputs use 4 half-shape counters: 4 + 4 = 8.
  EXPECT_EQ(Widen<uint32_t>((*b)[0]), (std::vector<uint64_t>{2, 1, 8, 3}));
}

TEST(RngBitGeneratorTest, LargeOutputsAgreeAcrossBackends) {
  // Big enough for the cpu kernel to split the blocks over threads.
  for (RngAlgorithm alg : {RngAlgorithm::kThreeFry, RngAlgorithm::kPhilox}) {
    for (DType t : {DType::kU8, DType::kU32, DType::kF64}) {
      auto m = RngModule(Shape(DType::kU64, {2}), alg, Shape(t, {301, 257}));
      std::vector<Literal> args = {Vector<uint64_t>(DType::kU64, {42, 1ull << 40})};
      auto ref = RunOn("reference", *m, args);
      auto cpu = RunOn("cpu", *m, args);
      ASSERT_TRUE(ref.ok() && cpu.ok());
      EXPECT_EQ((*ref)[0], (*cpu)[0]);
      EXPECT_EQ((*ref)[1], (*cpu)[1]);
    }
  }
}

TEST(RngBitGeneratorTest, TextRoundTrip) {
  const char* text = R"(
func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xf32>) {
  %a, %b = "stablehlo.rng_bit_generator"(%s) {
    rng_algorithm = #stablehlo<rng_algorithm PHILOX>
  } : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xf32>)
  return %a, %b : tensor<2xui64>, tensor<3x2xf32>
})";
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string printed = PrintModule(**m);
  EXPECT_NE(printed.find("rng_algorithm PHILOX"), std::string::npos) << printed;
  auto again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(PrintModule(**again), printed);
}

}  // namespace
}  // namespace xjit
