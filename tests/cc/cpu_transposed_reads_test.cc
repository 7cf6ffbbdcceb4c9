// Transposes read in place by their consumer's generated kernel
// (cpu/operand_reads.h, TransposeRead; the thunk stages blocks of rows,
// transpose_tiles.h TransposedRows): which permutations qualify, and lone
// ops and fusions reading them (ragged blocks, batches whose rows are no
// multiple of a block, two transposed inputs) against the interpreter (bit
// for bit) and the reference backend, with each generator.
#include <string>

#include "gtest/gtest.h"
#include "jit_test_util.h"
#include "test_util.h"
#include "xjit/backends/cpu/operand_reads.h"
#include "xjit/text/parser.h"

namespace xjit::testing {
namespace {

std::vector<int64_t> Permuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  std::vector<int64_t> out;
  for (int64_t d : perm) out.push_back(dims[d]);
  return out;
}

std::string Transpose(const std::string& name, const std::string& of,
                      const std::vector<int64_t>& in, const std::vector<int64_t>& perm) {
  std::string p;
  for (size_t i = 0; i < perm.size(); ++i) p += (i ? ", " : "") + std::to_string(perm[i]);
  return "  %" + name + " = stablehlo.transpose %" + of + ", dims = [" + p + "] : (" +
         F32Tensor(in) + ") -> " + F32Tensor(Permuted(in, perm)) + "\n";
}

std::optional<cpu::OperandRead> ReadOf(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& perm) {
  const std::string out = F32Tensor(Permuted(in, perm));
  auto m = ParseModule("func.func @main(%x: " + F32Tensor(in) + ") -> " + out + " {\n" +
                       Transpose("t", "x", in, perm) + "  return %t : " + out + "\n}");
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return std::nullopt;
  return cpu::TransposeRead(*(*m)->entry()->results()[0]);
}

void ExpectRead(const std::vector<int64_t>& in, const std::vector<int64_t>& perm, int64_t pitch,
                int64_t row) {
  auto r = ReadOf(in, perm);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->kind, cpu::OperandRead::Kind::kTransposed);
  EXPECT_EQ(r->pitch, pitch);
  EXPECT_EQ(r->row, row);
}

TEST(TransposedReads, WhichPermutationsQualify) {
  ExpectRead({300, 500}, {1, 0}, 500, 300);              // x.T
  ExpectRead({4, 300, 500}, {0, 2, 1}, 500, 300);        // batched
  ExpectRead({2, 300, 32, 32}, {0, 2, 3, 1}, 1024, 300);  // NCHW -> NHWC
  ExpectRead({8, 32, 32, 64}, {0, 3, 1, 2}, 64, 1024);   // NHWC -> NCHW
  ExpectRead({16, 20, 300}, {2, 0, 1}, 300, 320);        // [C1, C2, R] -> [R, C1, C2]
  ExpectRead({1, 300, 1, 500}, {3, 2, 0, 1}, 500, 300);  // unit dims aside
  ExpectRead({300, 1, 500}, {2, 0, 1}, 500, 300);
  EXPECT_FALSE(ReadOf({8, 256, 8, 64}, {0, 2, 1, 3}).has_value());  // the minor dim stays
  EXPECT_FALSE(ReadOf({5, 6, 7}, {2, 1, 0}).has_value());           // a reversal of three
  EXPECT_FALSE(ReadOf({5, 1, 7}, {1, 0, 2}).has_value());           // only a unit dim moves
  EXPECT_FALSE(ReadOf({100, 1000}, {1, 0}).has_value());  // rows of 100: copied
  EXPECT_FALSE(ReadOf({300, 8}, {1, 0}).has_value());     // 8 rows: under a block
  EXPECT_FALSE(ReadOf({20, 9000}, {1, 0}).has_value());   // rows past kMaxTransposedRow
}

// x.T + y as a lone add: whole blocks, a ragged last block, and rows under
// kMinTransposedRow (256: the transpose is copied and the add interpreted).
TEST(TransposedReads, ALoneOpReadsATranspose) {
  for (auto [rows, cols, kernels] : {std::tuple<int64_t, int64_t, int64_t>{512, 256, 1},
                                     {301, 259, 1},
                                     {100, 1000, 0}}) {
    const std::vector<int64_t> in = {rows, cols}, out = {cols, rows};
    CheckModule("func.func @main(%x: " + F32Tensor(in) + ", %y: " + F32Tensor(out) + ") -> " +
                    F32Tensor(out) + " {\n" + Transpose("t", "x", in, {1, 0}) +
                    "  %d = stablehlo.add %t, %y : " + F32Tensor(out) + "\n  return %d : " +
                    F32Tensor(out) + "\n}",
                0, kernels);
  }
}

// A fusion over batches whose rows (50) are no multiple of a block (16):
// blocks cross batches. Two transposed inputs of one row length; a transpose
// of another row length (the region declines); a transpose also returned
// (written anyway, so not read in place).
TEST(TransposedReads, FusionsReadTransposes) {
  const std::vector<int64_t> in = {3, 300, 50}, out = {3, 50, 300};
  const std::string t = F32Tensor(out);
  const std::string head = "func.func @main(%x: " + F32Tensor(in) + ", %z: " + F32Tensor(in) +
                           ", %y: " + t + ") -> ";
  const std::string math = "  %e = stablehlo.exponential %a : " + t + "\n" +
                           "  %m = stablehlo.multiply %e, %y : " + t + "\n" +
                           "  %d = stablehlo.subtract %m, %b : " + t + "\n";
  const std::string both = Transpose("a", "x", in, {0, 2, 1}) + Transpose("b", "z", in, {0, 2, 1});
  CheckModule(head + t + " {\n" + both + math + "  return %d : " + t + "\n}", 1e-5, 1);
  CheckModule(head + "(" + t + ", " + t + ") {\n" + both + math + "  return %d, %a : " + t +
                  ", " + t + "\n}",
              1e-5, 1);
  // [300, 3, 50] -> [3, 50, 300]: one batch, rows of 300 (50 rows of x's
  // 150); with the other's rows of 300 too, but a pitch of 150.
  const std::vector<int64_t> flat = {300, 3, 50};
  CheckModule("func.func @main(%x: " + F32Tensor(in) + ", %z: " + F32Tensor(flat) + ", %y: " + t +
                  ") -> " + t + " {\n" + Transpose("a", "x", in, {0, 2, 1}) +
                  Transpose("b", "z", flat, {1, 2, 0}) + math + "  return %d : " + t + "\n}",
              1e-5, 1);
  // Rows of 300 and of 4800 (16 x 300): the second transpose is copied.
  const std::vector<int64_t> a_in = {32, 300, 16}, b_in = {16, 300, 32}, o = {32, 16, 300};
  CheckModule("func.func @main(%x: " + F32Tensor(a_in) + ", %z: " + F32Tensor(b_in) + ") -> " +
                  F32Tensor(o) + " {\n" + Transpose("a", "x", a_in, {0, 2, 1}) +
                  Transpose("b", "z", b_in, {2, 0, 1}) + "  %d = stablehlo.multiply %a, %b : " +
                  F32Tensor(o) + "\n  return %d : " + F32Tensor(o) + "\n}",
              0, 1);
}

}  // namespace
}  // namespace xjit::testing
