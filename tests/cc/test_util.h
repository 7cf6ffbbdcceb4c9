// Helpers every kind of C++ test uses: short shapes, builder results that
// must succeed, printing a built module, and running a module on a backend.
// A test opens the namespace of the helpers it uses (xjit::testing, or
// xjit::cpu::testing and xjit::reference::testing for the backends' own
// helpers) instead of repeating a using-declaration for each.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/literal.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/runtime/backend.h"
#include "xjit/text/parser.h"
#include "xjit/text/printer.h"

namespace xjit::testing {

inline Shape T(DType t, std::vector<int64_t> dims) { return Shape(t, std::move(dims)); }

// The instruction, or a test failure and nullptr.
inline Instruction* Must(absl::StatusOr<Instruction*> s) {
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : nullptr;
}

// Finishes `cb` with `results` as the module's entry and prints the module;
// "" (and a test failure) when either step fails.
inline std::string BuildAndPrint(ModuleBuilder& mb, ComputationBuilder* cb,
                                 std::vector<Instruction*> results) {
  absl::StatusOr<Computation*> main = cb->Finish(std::move(results));
  EXPECT_TRUE(main.ok()) << main.status();
  if (!main.ok()) return "";
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(*main);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? PrintModule(**module) : "";
}

// Opcode name -> count, over the instructions of `c`.
inline std::map<std::string, int> Census(const Computation& c) {
  std::map<std::string, int> out;
  for (const auto& instr : c.instructions()) ++out[std::string(OpcodeName(instr->opcode()))];
  return out;
}

// The parsed module, or a test failure and nullptr.
inline std::unique_ptr<Module> ParseOrFail(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

// The module after element-wise fusion with `options`, or a test failure and
// nullptr.
inline std::unique_ptr<Module> Fuse(const Module& m, const passes::FusionOptions& options = {}) {
  auto fused = passes::FuseElementwise(m, options);
  EXPECT_TRUE(fused.ok()) << fused.status();
  return fused.ok() ? *std::move(fused) : nullptr;
}

// Compiles `module` with the compiler registered as `platform` and runs it.
inline absl::StatusOr<std::vector<Literal>> RunOn(const std::string& platform, const Module& module,
                                                 const std::vector<Literal>& args) {
  absl::StatusOr<Compiler*> compiler = GetCompiler(platform);
  if (!compiler.ok()) return compiler.status();
  absl::StatusOr<std::unique_ptr<CompiledProgram>> program = (*compiler)->Compile(module);
  if (!program.ok()) return program.status();
  std::vector<Literal> results;
  for (const Shape& s : module.ResultShapes()) results.emplace_back(s);
  std::vector<const void*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(a.data());
  std::vector<void*> result_ptrs;
  for (Literal& r : results) result_ptrs.push_back(r.mutable_data());
  if (absl::Status s = (*program)->Run(arg_ptrs, result_ptrs); !s.ok()) return s;
  return results;
}

}  // namespace xjit::testing
