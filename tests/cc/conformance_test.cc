// Runs every worked example of the StableHLO spec whose op xjit has, through
// the parser, on the reference and cpu backends, and compares with the
// expected values in the example's comments. Ops xjit lacks are counted.
// Examples the spec gets wrong (SEEDS-GUIDE §5.4) or that need something
// xjit does not model are listed below with the reason; they still run, and
// one that starts passing fails the test so the list stays true.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <iostream>
#include <algorithm>
#include <map>

#include "conformance_examples.h"  // same directory

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/host_transfers.h"
#include "xjit/text/literal_parser.h"
#include "xjit/text/parser.h"

namespace xjit::conformance {
namespace {

// Key: op, or op#ordinal for the second and later block of an op.
const std::map<std::string, std::string>& ExpectedFailures() {
  static const auto* list = new std::map<std::string, std::string>{
      {"get_tuple_element", "spec defect: the op line is missing from the example (§5.4)"},
      {"is_finite", "spec defect: signature '(tensor<7xf64)' misses a '>' (§5.4)"},
      {"divide", "spec defect: expects 17.1/3.0 = 5.66666651 (that is 17/3); f32 gives "
                 "5.70000029 (§5.4)"},
      {"power", "spec defect: typed f64 but expects f32 results: 10000^10 = inf, but 1e40 is "
                "finite in f64 (§5.4)"},
      {"log_plus_one", "spec defect: typed f64 but expects the f32 value log1p(-0.999f) = "
                       "-6.90776825; in f64 it is -6.90775528, 1.9e-6 relative off (§5.4)"},
      {"tan", "spec defect: the input 1.57079632 is pi/2 rounded, but the expected 1.63312e+16 is "
              "tan of the f64 nearest pi/2; tan(1.57079632) = 1.4717e+08 (§5.4)"},
      {"negate#1", "spec defect: complex input written (2.5, 0.0) and result [-2.5, -0.0]; "
                   "the result is not a complex literal (§5.4)"},
      {"scatter", "spec defect: %update is typed tensor<2x2x3x2x2xi64> but its value has shape "
                  "[2, 2, 3, 2] (§5.4)"},
      {"while", "spec defect: the loop runs for i = 1..9 (cond i < 10), adding 1 to the sum "
                "each time, so %results1 is 9, not the 10 the example states (§5.4)"},
      // h-linalg
      {"cholesky", "spec defect: the operand is tensor<3x3xf32> but the result is typed "
                   "tensor<3x3xf64>; cholesky's result has the operand's type (C1) (§5.4)"},
      {"tuple", "xjit limitation: tuple-typed values cannot be entry parameters or results "
                "(the example passes tuple<tensor<i32>> in and gets a tuple out)"},
      // issue 11 (h-fft)
      {"dynamic_conv", "spec defect: its raw dimension_numbers give input_batch_dimension = 0 "
                       "and input_spatial_dimensions = [0, 1] (dimension 0 twice; the "
                       "convolution example it copies uses [b, 0, 1, f]) (§5.4)"},
      {"rng", "implementation-defined: the example's values are one implementation's random "
              "bits; xjit's lie in the same range [0, 2) (§5.4)"},
  };
  return *list;
}

std::string Key(const Example& ex) {
  return ex.ordinal == 0 ? ex.op : absl::StrCat(ex.op, "#", ex.ordinal);
}

const ValueComment* Find(const std::vector<ValueComment>& values, const std::string& name) {
  for (const ValueComment& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

// rtol/atol per SEEDS-GUIDE §5.3: the examples round their inputs
// (1.57079632 for pi/2) and print idealised results (cos(pi/2) = 0.0).
bool Close(double want, double got, DType t) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return want == got;
  // An exact zero on both sides must agree in sign: -0.0 is specified
  // (ceil, sign) and the examples print it.
  if (want == 0 && got == 0) return std::signbit(want) == std::signbit(got);
  double tol = t == DType::kF16 ? 1e-3 : t == DType::kBF16 ? 1e-2 : 1e-6;
  return std::fabs(want - got) <= tol + tol * std::fabs(want);
}

// "" when equal, else where and how they differ.
std::string Compare(const Literal& want, const Literal& got) {
  const DType t = want.shape().dtype;
  std::string diff;
  for (int64_t i = 0; i < want.shape().num_elements() && diff.empty(); ++i) {
    bool ok = true;
    DispatchDType(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T w = want.data_as<T>()[i], g = got.data_as<T>()[i];
      if constexpr (is_complex_v<T>) {
        DType c = ComplexComponent(t);
        ok = Close(w.real(), g.real(), c) && Close(w.imag(), g.imag(), c);
      } else if constexpr (std::is_integral_v<T>) {
        ok = w == g;
      } else {
        ok = Close(static_cast<double>(w), static_cast<double>(g), t);
      }
    });
    if (!ok) {
      diff = absl::StrCat("element ", i, ": expected ", want.ElementToString(i), ", got ",
                          got.ElementToString(i));
    }
  }
  return diff;
}

// The literals the example's comments give for `names`, typed by `shapes`,
// appended to `out`; "" on success, else what is missing or malformed.
// `role` ("input", "expected") says which comments they are.
std::string ReadValues(const std::vector<std::string>& names,
                       const std::vector<ValueComment>& comments, const std::vector<Shape>& shapes,
                       absl::string_view role, std::vector<Literal>& out) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (shapes[i].is_token) {  // tokens carry no value: none is written
      out.emplace_back(Shape::Token());
      continue;
    }
    const ValueComment* v = Find(comments, names[i]);
    if (v == nullptr) return absl::StrCat("no ", role, " value for %", names[i]);
    absl::StatusOr<Literal> lit = ParseLiteral(v->value, shapes[i]);
    if (!lit.ok()) return absl::StrCat(role, " %", names[i], ": ", lit.status().ToString());
    out.push_back(*std::move(lit));
  }
  return "";
}

// issue 11 (h-fft): the dynamic-shape ops and rng take their shapes as
// operands, which xjit needs at compile time (passes/dynamic_shape_lowering.h);
// their examples give them as inputs, so the harness writes those examples'
// inputs as constants, as spec_examples.mlir does.
bool InputsAsConstants(const std::string& op) {
  absl::StatusOr<Opcode> code = ParseOpcode(op);
  return code.ok() && (OpcodeFamily(*code) == OpFamily::kDynamicShape || *code == Opcode::kRng);
}

// `ex.code` with each input bound by a constant; "" when one is missing.
std::string WithConstantInputs(const Example& ex, const ParsedOps& parsed) {
  std::string code;
  std::vector<Shape> shapes = parsed.module->ParameterShapes();
  for (size_t i = 0; i < parsed.parameter_names.size(); ++i) {
    const ValueComment* v = Find(ex.inputs, parsed.parameter_names[i]);
    if (v == nullptr) return "";
    absl::StrAppend(&code, "%", parsed.parameter_names[i], " = stablehlo.constant dense<",
                    v->value, "> : ", shapes[i].ToString(), "\n");
  }
  return absl::StrCat(code, ex.code);
}

// Runs one example on one backend: "" on success, else what went wrong.
std::string RunExample(const Example& ex, const std::string& platform) {
  absl::StatusOr<ParsedOps> parsed = ParseOps(ex.code);
  if (!parsed.ok()) return absl::StrCat("parse: ", parsed.status().ToString());
  if (InputsAsConstants(ex.op) && !parsed->parameter_names.empty()) {
    std::string code = WithConstantInputs(ex, *parsed);
    if (code.empty()) return "an input has no value";
    parsed = ParseOps(code);
    if (!parsed.ok()) return absl::StrCat("parse with constant inputs: ", parsed.status().ToString());
  }
  const Module& module = *parsed->module;
  std::vector<Literal> args, want;
  if (std::string e = ReadValues(parsed->parameter_names, ex.inputs, module.ParameterShapes(),
                                 "input", args);
      !e.empty()) {
    return e;
  }
  std::vector<Shape> result_shapes = module.ResultShapes();
  if (std::string e =
          ReadValues(parsed->result_names, ex.expected, result_shapes, "expected", want);
      !e.empty()) {
    return e;
  }
  absl::StatusOr<Compiler*> compiler = GetCompiler(platform);
  if (!compiler.ok()) return compiler.status().ToString();
  if (ex.op == "infeed") {
    // The example states the infeed queue's contents (infeed_queue[k]).
    size_t k = 0;
    for (const auto& instr : module.entry()->instructions()) {
      if (instr->opcode() != Opcode::kInfeed) continue;
      const std::vector<Shape>& parts = instr->shape().tuple_shapes;
      for (size_t p = 0; p + 1 < parts.size(); ++p, ++k) {
        // "// infeed_queue[k]: [[1, 2], [3, 4]]" (one line; not a %value binding).
        const std::string key = absl::StrCat("infeed_queue[", k, "]:");
        size_t at = ex.code.find(key);
        if (at == std::string::npos) return absl::StrCat("no value for infeed_queue[", k, "]");
        at += key.size();
        const std::string text = ex.code.substr(at, ex.code.find('\n', at) - at);
        absl::StatusOr<Literal> value = ParseLiteral(text, parts[p]);
        if (!value.ok()) return absl::StrCat("infeed_queue[", k, "]: ", value.status().ToString());
        InfeedQueue("", 0).Push(*std::move(value));
      }
    }
  }
  absl::StatusOr<std::unique_ptr<CompiledProgram>> program = (*compiler)->Compile(module);
  if (!program.ok()) return absl::StrCat("compile: ", program.status().ToString());
  std::vector<const void*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(a.data());
  std::vector<Literal> got;
  std::vector<void*> result_ptrs;
  for (const Shape& s : result_shapes) got.emplace_back(s);
  for (Literal& g : got) result_ptrs.push_back(g.mutable_data());
  if (absl::Status s = (*program)->Run(arg_ptrs, result_ptrs); !s.ok()) {
    return absl::StrCat("run: ", s.ToString());
  }
  std::vector<std::string> diffs;
  for (size_t i = 0; i < want.size(); ++i) {
    std::string d = Compare(want[i], got[i]);
    if (!d.empty()) {
      std::vector<std::string> inputs;
      for (size_t j = 0; j < args.size(); ++j) {
        inputs.push_back(absl::StrCat("%", parsed->parameter_names[j], " = ", args[j].ToString()));
      }
      diffs.push_back(absl::StrCat("%", parsed->result_names[i], " ", d, " (inputs ",
                                   absl::StrJoin(inputs, ", "), "; full result ",
                                   got[i].ToString(), ")"));
    }
  }
  return absl::StrJoin(diffs, "; ");
}

TEST(Conformance, SpecExamplesPassOnReferenceAndCpu) {
  std::string error;
  std::vector<Example> examples = ReadExamples(SpecExamplesPath(), &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(examples.size(), 111u) << "the examples file changed";

  const std::vector<std::string> platforms = {"reference", "cpu"};
  std::map<std::string, int> passed;
  int supported = 0, run = 0, expected_failures = 0, without_result = 0;
  std::map<std::string, int> unsupported;  // op -> examples
  std::vector<std::string> listed_and_seen;
  for (const Example& ex : examples) {
    absl::StatusOr<Opcode> op = ParseOpcode(ex.op);
    if (!op.ok() || *op == Opcode::kParameter || *op == Opcode::kCall) {
      ++unsupported[ex.op];
      continue;
    }
    ++supported;
    if (ex.expected.empty()) {
      ++without_result;
      continue;
    }
    ++run;
    auto xfail = ExpectedFailures().find(Key(ex));
    bool listed = xfail != ExpectedFailures().end();
    if (listed) listed_and_seen.push_back(Key(ex));
    std::vector<std::string> failures;
    for (const std::string& platform : platforms) {
      std::string result = RunExample(ex, platform);
      if (result.empty()) {
        ++passed[platform];
      } else {
        failures.push_back(absl::StrCat(platform, ": ", result));
      }
    }
    std::string where = absl::StrCat(Key(ex), " (examples file line ", ex.line, ")");
    if (listed) {
      ++expected_failures;
      EXPECT_FALSE(failures.empty())
          << where << " passes on every backend now; remove it from ExpectedFailures()";
      std::cout << "expected failure " << where << ": " << xfail->second << "\n    "
                << absl::StrJoin(failures, "\n    ") << "\n";
    } else {
      EXPECT_TRUE(failures.empty()) << where << "\n  " << absl::StrJoin(failures, "\n  ");
    }
  }
  for (const auto& [key, reason] : ExpectedFailures()) {
    EXPECT_NE(std::find(listed_and_seen.begin(), listed_and_seen.end(), key),
              listed_and_seen.end())
        << key << " is listed as an expected failure but is not a runnable example";
  }
  int unsupported_examples = 0;
  std::vector<std::string> unsupported_names;
  for (const auto& [name, count] : unsupported) {
    unsupported_examples += count;
    unsupported_names.push_back(count == 1 ? name : absl::StrCat(name, " x", count));
  }
  std::cout << "conformance: " << examples.size() << " examples; " << supported
            << " of supported ops (" << run << " with expected results run, " << without_result
            << " without), " << passed["reference"] << " pass on reference, " << passed["cpu"]
            << " on cpu, " << expected_failures << " expected failures; " << unsupported_examples
            << " examples of unsupported ops (" << unsupported.size() << " ops)\n"
            << "unsupported: " << absl::StrJoin(unsupported_names, ", ") << "\n";
}

// The token and host-transfer examples (after_all, infeed, outfeed, send,
// recv) show no values the file could check, and their free values include
// tokens: here they run with token arguments and host queues filled and
// drained around them (runtime/host_transfers.h), on both backends.
Literal I64Literal(std::vector<int64_t> dims, int64_t first) {
  Literal l(Shape(DType::kS64, std::move(dims)));
  for (int64_t i = 0; i < l.shape().num_elements(); ++i) l.mutable_data_as<int64_t>()[i] = first + i;
  return l;
}

// Runs `ex` with token parameters and tensor parameters 1, 2, 3...; returns
// the results by name (or fails the test).
std::map<std::string, Literal> RunWithTokens(const Example& ex, const std::string& platform) {
  absl::StatusOr<ParsedOps> parsed = ParseOps(ex.code);
  EXPECT_TRUE(parsed.ok()) << ex.op << ": " << parsed.status();
  if (!parsed.ok()) return {};
  std::vector<Literal> args;
  for (const Shape& s : parsed->module->ParameterShapes()) {
    args.push_back(s.is_token ? Literal(Shape::Token()) : I64Literal(s.dims, 1));
  }
  absl::StatusOr<Compiler*> compiler = GetCompiler(platform);
  EXPECT_TRUE(compiler.ok());
  absl::StatusOr<std::unique_ptr<CompiledProgram>> program = (*compiler)->Compile(*parsed->module);
  EXPECT_TRUE(program.ok()) << ex.op << " on " << platform << ": " << program.status();
  if (!program.ok()) return {};
  std::vector<const void*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(a.data());
  std::vector<Literal> got;
  std::vector<void*> result_ptrs;
  for (const Shape& s : parsed->module->ResultShapes()) got.emplace_back(s);
  for (Literal& g : got) result_ptrs.push_back(g.mutable_data());
  absl::Status run = (*program)->Run(arg_ptrs, result_ptrs);
  EXPECT_TRUE(run.ok()) << ex.op << " on " << platform << ": " << run;
  std::map<std::string, Literal> out;
  for (size_t i = 0; i < got.size(); ++i) out[parsed->result_names[i]] = std::move(got[i]);
  return out;
}

TEST(Conformance, TokenExamplesRunWithHostQueues) {
  std::string error;
  std::vector<Example> examples = ReadExamples(SpecExamplesPath(), &error);
  ASSERT_TRUE(error.empty()) << error;
  // Programs run outside the runtime use the queues of platform "" device 0.
  HostTransferQueue& infeed = InfeedQueue("", 0);
  HostTransferQueue& outfeed = OutfeedQueue("", 0);
  const Shape i64_2x2(DType::kS64, {2, 2});
  int ran = 0;
  for (const std::string platform : {"reference", "cpu"}) {
    for (const Example& ex : examples) {
      const std::string where = absl::StrCat(ex.op, " on ", platform);
      if (ex.op == "after_all") {
        std::map<std::string, Literal> got = RunWithTokens(ex, platform);
        ASSERT_EQ(got.count("result"), 1u) << where;
        EXPECT_TRUE(got["result"].shape().is_token) << where;
      } else if (ex.op == "infeed") {
        // The first infeed reads [[1, 2], [3, 4]], the second (a result) the next value.
        infeed.Push(I64Literal({2, 2}, 1));
        infeed.Push(I64Literal({2, 2}, 5));
        std::map<std::string, Literal> got = RunWithTokens(ex, platform);
        ASSERT_EQ(got.count("results1#0"), 1u) << where;
        EXPECT_EQ(got["results1#0"].ToString(), I64Literal({2, 2}, 5).ToString()) << where;
        EXPECT_TRUE(got["results1#1"].shape().is_token) << where;
        EXPECT_EQ(infeed.size(), 0u) << where;  // both infeeds ran
      } else if (ex.op == "outfeed") {
        RunWithTokens(ex, platform);
        absl::StatusOr<Literal> v = outfeed.Pop(Shape(DType::kS64, {2, 2, 2}), absl::Seconds(1));
        ASSERT_TRUE(v.ok()) << where << ": " << v.status();
        EXPECT_EQ(v->ToString(), I64Literal({2, 2, 2}, 1).ToString()) << where;
      } else if (ex.op == "send") {
        RunWithTokens(ex, platform);
        absl::StatusOr<Literal> v = ChannelQueue("", 1).Pop(i64_2x2, absl::Seconds(1));
        ASSERT_TRUE(v.ok()) << where << ": " << v.status();
        EXPECT_EQ(v->ToString(), I64Literal({2, 2}, 1).ToString()) << where;
      } else if (ex.op == "recv") {
        ChannelQueue("", 1).Push(I64Literal({2, 2}, 9));
        std::map<std::string, Literal> got = RunWithTokens(ex, platform);
        ASSERT_EQ(got.count("results0"), 1u) << where;
        EXPECT_EQ(got["results0"].ToString(), I64Literal({2, 2}, 9).ToString()) << where;
      } else {
        continue;
      }
      ++ran;
    }
  }
  EXPECT_EQ(ran, 10);  // five examples, two backends
  EXPECT_EQ(outfeed.size(), 0u);
}

}  // namespace
}  // namespace xjit::conformance
