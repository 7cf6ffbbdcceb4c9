// The cpu backend's inline-execution hint: tiny programs prefer to run on the
// caller's thread; anything big enough to fork an OpenMP team does not.
#include <memory>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "xjit/backends/cpu/program.h"

namespace xjit::cpu::testing {
namespace {

bool PrefersInline(const Module& m) {
  auto program = (*GetCompiler("cpu"))->Compile(m);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() && (*program)->PrefersInlineExecution();
}

TEST(CpuWorkEstimate, SmallProgramsRunInline) {
  auto add = OneOpModule(Opcode::kAdd, {Shape(DType::kF32, {16}), Shape(DType::kF32, {16})});
  ASSERT_TRUE(add.ok());
  EXPECT_TRUE(PrefersInline(**add));
  DotGeneralAttrs dot;
  dot.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  dot.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  auto small_dot =
      OneOpModule(Opcode::kDotGeneral, {Shape(DType::kF32, {8, 8}), Shape(DType::kF32, {8, 8})}, dot);
  ASSERT_TRUE(small_dot.ok());
  EXPECT_TRUE(PrefersInline(**small_dot));
}

TEST(CpuWorkEstimate, BigProgramsGoToTheWorker) {
  auto add =
      OneOpModule(Opcode::kAdd, {Shape(DType::kF32, {1 << 22}), Shape(DType::kF32, {1 << 22})});
  ASSERT_TRUE(add.ok());
  EXPECT_FALSE(PrefersInline(**add));
  // Few elements, many multiply-adds: a 512^3 float32 product (2 ms) goes to
  // the worker; a 256^3 one (0.2 ms: oneDNN's multiply-adds count a twentieth
  // of an element each) runs inline; an int32 one of that size does not (our
  // own loop: a multiply-add counts as an element).
  DotGeneralAttrs dot;
  dot.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  dot.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  auto square = [&](DType t, int64_t n) {
    return OneOpModule(Opcode::kDotGeneral, {Shape(t, {n, n}), Shape(t, {n, n})}, dot);
  };
  auto big_dot = square(DType::kF32, 512), dot_256 = square(DType::kF32, 256),
       int_dot_256 = square(DType::kS32, 256);
  ASSERT_TRUE(big_dot.ok() && dot_256.ok() && int_dot_256.ok());
  EXPECT_FALSE(PrefersInline(**big_dot));
  EXPECT_TRUE(PrefersInline(**dot_256));
  EXPECT_FALSE(PrefersInline(**int_dot_256));
  // Transcendentals count as several elements each.
  auto sin = OneOpModule(Opcode::kSine, {Shape(DType::kF32, {1 << 19})});
  ASSERT_TRUE(sin.ok());
  EXPECT_FALSE(PrefersInline(**sin));
  auto add_8192 = OneOpModule(Opcode::kAdd, {Shape(DType::kF32, {8192}), Shape(DType::kF32, {8192})});
  ASSERT_TRUE(add_8192.ok());
  EXPECT_TRUE(PrefersInline(**add_8192));
  // Mid-size work (tens of microseconds) runs inline too: a handoff to the
  // device thread and back would cost as much.
  auto add_64k = OneOpModule(Opcode::kAdd, {Shape(DType::kF32, {1 << 16}), Shape(DType::kF32, {1 << 16})});
  ASSERT_TRUE(add_64k.ok());
  EXPECT_TRUE(PrefersInline(**add_64k));
}

}  // namespace
}  // namespace xjit::cpu::testing
