// StableHLO text -> Module. Accepts the generic syntax the printer emits
// (module @m { func.func @main(...) -> (...) { ... "func.return"(...) } }),
// regions (reduce bodies), multi-result ops (%3:2 / %3#0, %a, %b = ...),
// func.call to other func.func of the module (defined before or after), and
// the MLIR pretty forms the spec's examples use for constant, element-wise
// ops, call and return. Every op goes through ComputationBuilder::Add, so
// shape inference and the verifier check the program; the types the text
// states must agree with what inference gives.
//
// Errors are InvalidArgument (malformed text, wrong types), OutOfRange (bad
// attribute values, from shape inference) or Unimplemented (an op, type or
// feature xjit does not have), each starting with "line:column: ".
#pragma once

#include <memory>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"

namespace xjit {

absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text);
// With `entry` naming the function the module's entry is (StableHLO's test
// files hold several functions and no @main); NotFound when there is none.
absl::StatusOr<std::unique_ptr<Module>> ParseModule(absl::string_view text,
                                                    const std::string& entry);

// One function of a StableHLO interpreter test file and the check-dialect
// ops in its body (check.expect_eq, check.expect_eq_const,
// check.expect_almost_eq[_const], check.expect_close). The entry returns the
// function's own results, then for each check its actual and its expected
// value; the caller compares them.
struct ParsedCheck {
  std::string kind;      // "expect_eq", "expect_close", ...
  std::string location;  // "line:column" of the check
  std::vector<std::pair<std::string, double>> options;  // max_ulp_difference = 3, tolerance = 0.1
};
struct ParsedTest {
  std::unique_ptr<Module> module;
  int64_t num_results = 0;
  std::vector<ParsedCheck> checks;
};
absl::StatusOr<ParsedTest> ParseTestFunction(absl::string_view text, const std::string& entry);

// A sequence of ops outside any function, as in the spec's examples:
//   %result = "stablehlo.add"(%lhs, %rhs) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// Values used but never defined become parameters of the entry computation,
// typed by the signature of the op that first uses them. The entry returns
// the results of the last op.
struct ParsedOps {
  std::unique_ptr<Module> module;
  std::vector<std::string> parameter_names;  // "lhs", "rhs": free values in order of first use
  std::vector<std::string> result_names;     // "result", or "result#0", "result#1" for %result:2
};
absl::StatusOr<ParsedOps> ParseOps(absl::string_view text);

}  // namespace xjit
