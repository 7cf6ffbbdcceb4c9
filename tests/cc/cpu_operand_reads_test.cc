// Slices and reverses read in place by their consumer's generated kernel
// (cpu/operand_reads.h): where a slice's elements lie in the sliced array,
// and fusions and lone element-wise ops reading slices, against the
// interpreter (bit for bit) and the reference backend, with each generator.
#include <string>

#include "cpu_test_util.h"
#include "gtest/gtest.h"
#include "jit_test_util.h"
#include "test_util.h"
#include "xjit/backends/cpu/operand_reads.h"
#include "xjit/text/parser.h"

namespace xjit::testing {
namespace {

std::string List(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string Slice(const std::string& name, const std::string& of, const std::vector<int64_t>& in,
                  const std::vector<int64_t>& start, const std::vector<int64_t>& limit) {
  std::vector<int64_t> out, ones(in.size(), 1);
  for (size_t k = 0; k < in.size(); ++k) out.push_back(limit[k] - start[k]);
  return "  %" + name + " = \"stablehlo.slice\"(%" + of + ") {start_indices = array<i64: " +
         List(start) + ">, limit_indices = array<i64: " + List(limit) +
         ">, strides = array<i64: " + List(ones) + ">} : (" + F32Tensor(in) + ") -> " + F32Tensor(out) +
         "\n";
}

std::optional<cpu::OperandRead> ReadOf(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& start,
                                       const std::vector<int64_t>& limit) {
  std::vector<int64_t> out;
  for (size_t k = 0; k < in.size(); ++k) out.push_back(limit[k] - start[k]);
  auto m = ParseModule("func.func @main(%x: " + F32Tensor(in) + ") -> " + F32Tensor(out) + " {\n" +
                       Slice("s", "x", in, start, limit) + "  return %s : " + F32Tensor(out) + "\n}");
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return std::nullopt;
  return cpu::SliceRead(*(*m)->entry()->results()[0]);
}

TEST(OperandReads, WhereASlicesElementsLie) {
  // Columns 1.. of each row: rows of 7 at a pitch of 8, from element 1.
  auto r = ReadOf({5, 8}, {0, 1}, {5, 8});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->offset, 1);
  EXPECT_EQ(r->pitch, 8);
  EXPECT_EQ(r->row, 7);
  // Rows 1..: one run from element 8.
  r = ReadOf({5, 8}, {1, 0}, {5, 8});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->offset, 8);
  EXPECT_EQ(r->pitch, 0);
  EXPECT_EQ(r->row, 32);
  // Leading and last dims sliced, the middle whole: rows of 3 at a pitch of 5.
  r = ReadOf({4, 6, 5}, {1, 0, 2}, {3, 6, 5});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->offset, 30 + 2);
  EXPECT_EQ(r->pitch, 5);
  EXPECT_EQ(r->row, 3);
  // A middle dim sliced with the last whole: rows of 2 x 5 at a pitch of 30.
  r = ReadOf({4, 6, 5}, {0, 1, 0}, {4, 3, 5});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->offset, 5);
  EXPECT_EQ(r->pitch, 30);
  EXPECT_EQ(r->row, 10);
  // One element of the last dim (a dim of one): rows of 6 at stride 5 are
  // not contiguous.
  EXPECT_FALSE(ReadOf({4, 6, 5}, {0, 0, 2}, {4, 6, 3}).has_value());
  // A middle and the last dim sliced: two pitches.
  EXPECT_FALSE(ReadOf({4, 6, 5}, {0, 1, 1}, {4, 3, 5}).has_value());
  // A dim of one in the middle is no pitch of its own.
  r = ReadOf({4, 6, 5}, {0, 2, 1}, {4, 3, 5});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->offset, 10 + 1);
  EXPECT_EQ(r->pitch, 30);
  EXPECT_EQ(r->row, 4);
}

// x[:, 1:] - x[:, :-1] (jnp.diff along rows of 300): a lone subtract reading
// both slices in place; rows of 200 are too short for a call a row and copy.
TEST(OperandReads, ALoneOpReadsSlicesInPlace) {
  for (auto [rows, cols, kernels] : {std::tuple<int64_t, int64_t, int64_t>{40, 301, 1},
                                     {40, 201, 0}}) {
    const std::vector<int64_t> in = {rows, cols}, out = {rows, cols - 1};
    const std::string body = Slice("a", "x", in, {0, 1}, {rows, cols}) +
                             Slice("b", "x", in, {0, 0}, {rows, cols - 1}) +
                             "  %d = stablehlo.subtract %a, %b : " + F32Tensor(out) + "\n";
    CheckModule("func.func @main(%x: " + F32Tensor(in) + ") -> " + F32Tensor(out) + " {\n" + body +
                    "  return %d : " + F32Tensor(out) + "\n}",
                0, kernels);
  }
  // Along the leading dim, and flat: one run each.
  const int64_t n = 3 * 16 * 1024 + 5;
  const std::string body = Slice("a", "x", {n}, {1}, {n}) + Slice("b", "x", {n}, {0}, {n - 1}) +
                           "  %d = stablehlo.multiply %a, %b : " + F32Tensor({n - 1}) + "\n";
  CheckModule("func.func @main(%x: " + F32Tensor({n}) + ") -> " + F32Tensor({n - 1}) + " {\n" + body +
                  "  return %d : " + F32Tensor({n - 1}) + "\n}",
              0, 1);
  const std::vector<int64_t> in = {300, 64}, out = {299, 64};
  const std::string rows = Slice("a", "x", in, {1, 0}, {300, 64}) +
                           Slice("b", "x", in, {0, 0}, {299, 64}) +
                           "  %d = stablehlo.subtract %a, %b : " + F32Tensor(out) + "\n";
  CheckModule("func.func @main(%x: " + F32Tensor(in) + ") -> " + F32Tensor(out) + " {\n" + rows +
                  "  return %d : " + F32Tensor(out) + "\n}",
              0, 1);
}

// A stencil's fusion, x[1:-1, 1:-1] * 2 + x[:-2, 1:-1] - y, and a slice that
// is also a result (written anyway, so copied), and one used twice.
TEST(OperandReads, FusionsReadSlicesInPlace) {
  const std::vector<int64_t> in = {50, 400}, out = {48, 398};
  const std::string t = F32Tensor(out);
  const std::string head = "func.func @main(%x: " + F32Tensor(in) + ", %y: " + t + ") -> ";
  const std::string two = "  %c = stablehlo.constant dense<2.0> : tensor<f32>\n"
                          "  %two = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> " +
                          t + "\n";
  const std::string slices = Slice("a", "x", in, {1, 1}, {49, 399}) +
                             Slice("b", "x", in, {0, 1}, {48, 399});
  const std::string math = "  %m = stablehlo.multiply %a, %two : " + t + "\n" +
                           "  %s = stablehlo.add %m, %b : " + t + "\n" +
                           "  %d = stablehlo.subtract %s, %y : " + t + "\n";
  CheckModule(head + t + " {\n" + two + slices + math + "  return %d : " + t + "\n}", 0, 1);
  CheckModule(head + "(" + t + ", " + t + ") {\n" + two + slices + math + "  return %d, %b : " +
                  t + ", " + t + "\n}",
              0, 1);
  const std::string twice = "  %m = stablehlo.multiply %a, %a : " + t + "\n" +
                            "  %d = stablehlo.subtract %m, %a : " + t + "\n";
  CheckModule(head + t + " {\n" + Slice("a", "x", in, {1, 1}, {49, 399}) + twice +
                  "  return %d : " + t + "\n}",
              0, 1);
}

}  // namespace
}  // namespace xjit::testing
