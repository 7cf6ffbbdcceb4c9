// Helpers for the passes' tests: parse a small module from StableHLO text,
// run a pass on it, print it, and check with the reference backend that a
// rewritten module computes what the original did.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/verifier.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {

// The parsed module, or a test failure and nullptr.
inline std::unique_ptr<Module> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

// Runs `pass` on a copy of the module parsed from `text`; returns the printed
// result ("" and a failure when the pass fails or the result does not
// verify) and whether the pass said it changed something.
template <typename Pass>
std::string RunPass(Pass pass, const std::string& text, bool* changed = nullptr) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return "";
  absl::StatusOr<bool> c = pass(*m);
  EXPECT_TRUE(c.ok()) << c.status();
  if (!c.ok()) return "";
  if (changed != nullptr) *changed = *c;
  absl::Status v = VerifyModule(*m);
  EXPECT_TRUE(v.ok()) << v;
  return v.ok() ? PrintModule(*m) : "";
}

// A literal of `shape` filled with a deterministic pattern of small values
// (integers 0..6 - 3; floats the same, halved), for value checks.
inline Literal Pattern(const Shape& shape, int seed = 0) {
  Literal lit(shape);
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      int v = static_cast<int>((i * 7 + seed * 3) % 7) - 3;
      if constexpr (std::is_same_v<T, bool>) {
        out[i] = v > 0;
      } else if constexpr (is_half_v<T>) {
        out[i] = T(v * 0.5f);
      } else if constexpr (is_complex_v<T>) {
        out[i] = T(v * 0.5, -v);
      } else if constexpr (std::is_floating_point_v<T>) {
        out[i] = T(v * 0.5);
      } else {
        out[i] = static_cast<T>(v);
      }
    }
  });
  return lit;
}

// Runs `before` and `after` on the reference backend with the same patterned
// arguments and expects bit-identical results.
inline void ExpectSameValues(const Module& before, const Module& after) {
  std::vector<Literal> args;
  int seed = 0;
  for (const Shape& s : before.ParameterShapes()) args.push_back(Pattern(s, seed++));
  absl::StatusOr<std::vector<Literal>> want = RunOn("reference", before, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::vector<Literal>> got = RunOn("reference", after, args);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(want->size(), got->size());
  for (size_t i = 0; i < want->size(); ++i) {
    EXPECT_EQ((*want)[i], (*got)[i]) << "result " << i << ": want " << (*want)[i].ToString()
                                     << ", got " << (*got)[i].ToString();
  }
}

// Parses `text`, runs `pass` on a copy and checks values are unchanged.
template <typename Pass>
void ExpectPassKeepsValues(Pass pass, const std::string& text) {
  std::unique_ptr<Module> before = Parse(text);
  std::unique_ptr<Module> after = Parse(text);
  ASSERT_NE(before, nullptr);
  absl::StatusOr<bool> c = pass(*after);
  ASSERT_TRUE(c.ok()) << c.status();
  ExpectSameValues(*before, *after);
}

}  // namespace xjit::testing
