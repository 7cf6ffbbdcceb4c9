// The pretty forms JAX and StableHLO's printer write (text/pretty_forms.h)
// read to the same module as the generic form; locations and discardable
// attributes are ignored; test functions expose their check ops.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {
namespace {

std::string Wrap(const std::string& args, const std::string& result, const std::string& body) {
  return absl::StrCat("func.func @main(", args, ") -> ", result, " {\n", body, "\n}\n");
}

std::string Printed(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? PrintModule(**m) : "";
}

struct Pair {
  const char* pretty;
  const char* generic;
};

TEST(PrettyForms, ReadLikeTheGenericForm) {
  const std::string a = "%a: tensor<2x3xf32>, %b: tensor<2x3xf32>";
  const Pair pairs[] = {
      {"%r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
       "return %r : tensor<3x2xf32>",
       "%r = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> "
       "tensor<3x2xf32>\n\"func.return\"(%r) : (tensor<3x2xf32>) -> ()"},
      {"%r = stablehlo.slice %a [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
       "return %r : tensor<2x1xf32>",
       "%r = \"stablehlo.slice\"(%a) <{start_indices = array<i64: 0, 1>, limit_indices = "
       "array<i64: 2, 3>, strides = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> "
       "tensor<2x1xf32>\n\"func.return\"(%r) : (tensor<2x1xf32>) -> ()"},
      {"%r = stablehlo.compare GE, %a, %b, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
       "tensor<2x3xi1>\nreturn %r : tensor<2x3xi1>",
       "%r = \"stablehlo.compare\"(%a, %b) {comparison_direction = #stablehlo<comparison_direction "
       "GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, "
       "tensor<2x3xf32>) -> tensor<2x3xi1>\n\"func.return\"(%r) : (tensor<2x3xi1>) -> ()"},
      {"%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
       "%r = stablehlo.reduce(%a init: %c) applies stablehlo.maximum across dimensions = [1] : "
       "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\nreturn %r : tensor<2xf32>",
       "%c = \"stablehlo.constant\"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>\n"
       "%r = \"stablehlo.reduce\"(%a, %c) ({\n^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
       "  %m = \"stablehlo.maximum\"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
       "  \"stablehlo.return\"(%m) : (tensor<f32>) -> ()\n}) {dimensions = array<i64: 1>} : "
       "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
       "\"func.return\"(%r) : (tensor<2xf32>) -> ()"},
  };
  for (const Pair& p : pairs) {
    const std::string result = std::string(p.pretty).substr(std::string(p.pretty).rfind(": ") + 2);
    EXPECT_EQ(Printed(Wrap(a, result, p.pretty)), Printed(Wrap(a, result, p.generic)))
        << p.pretty;
  }
}

TEST(PrettyForms, LocationsAndDiscardableAttributesAreIgnored) {
  const std::string plain = Wrap("%a: tensor<2xf32>", "tensor<2xf32>",
                                 "%r = stablehlo.sine %a : tensor<2xf32>\n"
                                 "return %r : tensor<2xf32>");
  const std::string located =
      "#loc1 = loc(\"x\")\nmodule @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n"
      "sdy.mesh @mesh = <[\"x\"=1]>\n"
      "func.func public @main(%a: tensor<2xf32> {mhlo.sharding = \"{replicated}\"} loc(\"a\")) "
      "-> (tensor<2xf32> {jax.result_info = \"result\"}) {\n"
      "%r = stablehlo.sine %a : tensor<2xf32> loc(#loc3)\n"
      "return %r : tensor<2xf32> loc(#loc)\n} loc(#loc)\n} loc(#loc)\n#loc = loc(unknown)\n"
      "#loc3 = loc(\"jit(f)/sin\"(callsite(#loc1 at \"f.py\":3:4 to :9)))\n";
  std::string a = Printed(plain), b = Printed(located);
  // Only the module's name differs.
  EXPECT_EQ(a.substr(a.find('{')), b.substr(b.find('{')));
}

TEST(PrettyForms, ErrorsNameLineColumnAndExpectation) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(
      Wrap("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
           "%r = stablehlo.transpose %a, dims [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
           "return %r : tensor<3x2xf32>"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "2:35: expected '=' after dims, got '['");
  m = ParseModule(Wrap("%a: tensor<2xf32>", "tensor<2xf32>",
                       "%r = stablehlo.collective_permute %a : tensor<2xf32>\n"
                       "return %r : tensor<2xf32>"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(m.status().message(), "2:1: op 'stablehlo.collective_permute' is not supported by xjit");
}

TEST(PrettyForms, TestFunctionsExposeTheirChecks) {
  const std::string text =
      "func.func @t() {\n"
      "  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
      "  %1 = stablehlo.add %0, %0 : tensor<2xi32>\n"
      "  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>\n"
      "  check.expect_close %0, %0, max_ulp_difference = 3 : tensor<2xi32>, tensor<2xi32>\n"
      "  func.return\n}\n"
      "// -----\nfunc.func @other() {\n  func.return\n}\n";
  absl::StatusOr<ParsedTest> t = ParseTestFunction(text, "t");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->num_results, 0);
  ASSERT_EQ(t->checks.size(), 2u);
  EXPECT_EQ(t->checks[0].kind, "expect_eq");
  EXPECT_EQ(t->checks[0].location, "4:3");
  EXPECT_EQ(t->checks[1].kind, "expect_close");
  ASSERT_EQ(t->checks[1].options.size(), 1u);
  EXPECT_EQ(t->checks[1].options[0].first, "max_ulp_difference");
  EXPECT_EQ(t->checks[1].options[0].second, 3.0);
  EXPECT_EQ(t->module->ResultShapes().size(), 4u);
  // Outside test mode a check is not an op xjit runs.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "t");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ParseTestFunction(text, "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(PrettyPrinter, WritesJaxSpellingAndReadsBack) {
  const std::string text = Wrap(
      "%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "(tensor<2x4xf32>, tensor<2xf32>)",
      "%d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, "
      "tensor<3x4xf32>) -> tensor<2x4xf32>\n"
      "%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "%s = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : "
      "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
      "%e = stablehlo.exponential %s : tensor<2xf32>\n"
      "return %d, %e : tensor<2x4xf32>, tensor<2xf32>");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string pretty = PrintModule(**m, /*pretty=*/true);
  EXPECT_NE(pretty.find("%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] "
                        ": (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"),
            std::string::npos)
      << pretty;
  EXPECT_NE(pretty.find("%1 = stablehlo.constant dense<0.0> : tensor<f32>\n"),
            std::string::npos)
      << pretty;
  EXPECT_NE(pretty.find("stablehlo.reduce(%arg0 init: %1) applies stablehlo.add across "
                        "dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"),
            std::string::npos)
      << pretty;
  EXPECT_NE(pretty.find("return %0, %3 : tensor<2x4xf32>, tensor<2xf32>\n"), std::string::npos)
      << pretty;
  absl::StatusOr<std::unique_ptr<Module>> again = ParseModule(pretty);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << pretty;
  EXPECT_EQ(PrintModule(**again, true), pretty);
  EXPECT_EQ(PrintModule(**again), PrintModule(**m));
}

}  // namespace
}  // namespace xjit::testing
