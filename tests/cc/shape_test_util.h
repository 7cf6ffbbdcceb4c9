// Shape inference from value shapes, and its expected failures, for the op
// tests (gather, sort, windows).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xjit/ir/shape_inference.h"

namespace xjit::testing {

inline absl::StatusOr<Shape> Infer(Opcode op, std::vector<Shape> operands, Attributes attrs,
                                   std::vector<const Computation*> called = {},
                                   const Shape* declared = nullptr) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : operands) ptrs.push_back(&s);
  return InferShape(op, ptrs, attrs, called, declared);
}

// Inference failed with a message containing `text`.
inline void ExpectError(const absl::StatusOr<Shape>& got, absl::string_view text) {
  ASSERT_FALSE(got.ok()) << got->ToString();
  EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr(std::string(text)));
}

}  // namespace xjit::testing
