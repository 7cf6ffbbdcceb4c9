// BroadcastReader (cpu/broadcast_reader.h) against the definition: every
// range of a broadcast's flat result read from the operand equals the element
// a naive index walk finds, for spreads of rows, columns, short repeated runs
// (x[:, None, :] of 3-d points: filled by doubling copies) and scalars, in
// each element width.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xjit/backends/cpu/broadcast_reader.h"
#include "xjit/text/parser.h"

namespace xjit::testing {
namespace {

std::string Tensor(const std::vector<int64_t>& dims, const std::string& type) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + type + ">";
}

std::string List(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// Element i of the result, by the definition: result index -> operand index.
int64_t SourceOf(int64_t i, const std::vector<int64_t>& out, const std::vector<int64_t>& in,
                 const std::vector<int64_t>& bdims) {
  std::vector<int64_t> idx(out.size());
  for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
    idx[d] = i % out[d];
    i /= out[d];
  }
  int64_t flat = 0;
  for (size_t k = 0; k < in.size(); ++k) flat = flat * in[k] + (in[k] == 1 ? 0 : idx[bdims[k]]);
  return flat;
}

template <typename T>
void Check(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
           const std::vector<int64_t>& bdims, const std::string& type, std::mt19937& rng) {
  auto m = ParseModule("func.func @main(%x: " + Tensor(in, type) + ") -> " + Tensor(out, type) +
                       " {\n  %b = stablehlo.broadcast_in_dim %x, dims = [" + List(bdims) +
                       "] : (" + Tensor(in, type) + ") -> " + Tensor(out, type) +
                       "\n  return %b : " + Tensor(out, type) + "\n}");
  ASSERT_TRUE(m.ok()) << m.status();
  const cpu::BroadcastReader reader(*(*m)->entry()->results()[0]);
  int64_t n_in = 1, n_out = 1;
  for (int64_t d : in) n_in *= d;
  for (int64_t d : out) n_out *= d;
  std::vector<T> operand(n_in);
  for (int64_t i = 0; i < n_in; ++i) operand[i] = static_cast<T>(i * 7 + 1);
  std::vector<T> got(n_out);
  for (int trial = 0; trial < 40; ++trial) {
    int64_t begin = std::uniform_int_distribution<int64_t>(0, n_out - 1)(rng);
    int64_t count = std::uniform_int_distribution<int64_t>(1, n_out - begin)(rng);
    if (trial == 0) begin = 0, count = n_out;
    reader.Read(operand.data(), got.data(), begin, count);
    for (int64_t j = 0; j < count; ++j) {
      const T want = operand[SourceOf(begin + j, out, in, bdims)];
      ASSERT_EQ(got[j], want) << "element " << begin + j << " of " << Tensor(out, type)
                              << " from " << Tensor(in, type) << " dims [" << List(bdims)
                              << "], range from " << begin;
    }
  }
}

TEST(BroadcastReader, EveryRangeMatchesTheDefinition) {
  std::mt19937 rng(41);
  struct Case {
    std::vector<int64_t> in, out, bdims;
  };
  const Case cases[] = {
      {{100, 3}, {100, 90, 3}, {0, 2}},      // x[:, None, :]: runs of 3 repeated
      {{90, 3}, {100, 90, 3}, {1, 2}},       // y[None, :, :]: one long run
      {{37, 16}, {37, 50, 16}, {0, 2}},      // runs of 16
      {{5, 300}, {5, 7, 300}, {0, 2}},       // runs past the repeat threshold
      {{4, 1, 5}, {4, 6, 5}, {0, 1, 2}},     // a dim of one spread
      {{6}, {6, 9}, {0}},                    // a column spread over rows
      {{9}, {6, 9}, {1}},                    // a row repeated
      {{}, {4, 5}, {}},                      // a scalar
      {{3, 2}, {2, 5, 3, 7, 2}, {2, 4}},     // repeats inside outer dims
      {{8, 1}, {8, 3, 1}, {0, 2}},           // runs of one
  };
  for (const Case& c : cases) {
    Check<float>(c.in, c.out, c.bdims, "f32", rng);
    Check<uint16_t>(c.in, c.out, c.bdims, "bf16", rng);
    Check<double>(c.in, c.out, c.bdims, "f64", rng);
    Check<int8_t>(c.in, c.out, c.bdims, "i8", rng);
  }
}

}  // namespace
}  // namespace xjit::testing
