// The "reference" platform: Compile keeps a pointer to the module (the
// runtime keeps it alive as long as the program) and Run interprets it.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "xjit/backends/reference/evaluator.h"
#include "xjit/passes/pipeline.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/custom_call_runner.h"
#include "xjit/runtime/host_platform.h"

namespace xjit::reference {
namespace {

// The interpreter spends on the order of 100 ns per element and some
// microseconds per instruction; a program under these limits and without
// regions (loops, reductions with bodies) runs in microseconds.
constexpr int64_t kInlineElementLimit = 1024;
constexpr int64_t kInlineInstructionLimit = 32;

bool IsTinyProgram(const Computation& entry) {
  if (static_cast<int64_t>(entry.instructions().size()) > kInlineInstructionLimit) return false;
  int64_t elements = 0;
  for (const auto& instr : entry.instructions()) {
    if (!instr->called_computations().empty()) return false;
    elements += instr->shape().total_elements();
  }
  return elements <= kInlineElementLimit;
}

class ReferenceProgram : public CompiledProgram {
 public:
  explicit ReferenceProgram(const Module* module)
      : module_(module), tiny_(IsTinyProgram(*module->entry())) {}

  bool PrefersInlineExecution() const override { return tiny_; }
  void Own(std::unique_ptr<Module> module) { owned_ = std::move(module); }
  // Run copies every argument into a Literal before evaluating and writes
  // the results only at the end, so any result may reuse a donated argument.
  bool ResultMayReuseParameter(int, int) const override { return true; }

  absl::Status Run(absl::Span<const void* const> args, absl::Span<void* const> results) override {
    const Computation& entry = *module_->entry();
    const auto& params = entry.parameters();
    if (args.size() != params.size() || results.size() != entry.results().size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "reference backend: program takes ", params.size(), " arguments and ",
          entry.results().size(), " results, got ", args.size(), " and ", results.size()));
    }
    std::vector<Value> inputs;
    inputs.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      inputs.emplace_back(Literal(params[i]->shape(), args[i]));
    }
    absl::StatusOr<std::vector<Value>> out = EvaluateComputation(entry, inputs);
    if (!out.ok()) return out.status();
    for (size_t i = 0; i < results.size(); ++i) {
      const Value& v = (*out)[i];
      if (v.is_tuple) {
        return absl::InvalidArgumentError("reference backend: entry results must be arrays");
      }
      if (v.array.size_bytes() > 0) std::memcpy(results[i], v.array.data(), v.array.size_bytes());
    }
    return absl::OkStatus();
  }

 private:
  const Module* module_;
  std::unique_ptr<Module> owned_;  // a lowered copy, when Compile made one
  bool tiny_;
};

class ReferenceCompiler : public Compiler {
 public:
  absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const Module& module) override {
    if (module.entry() == nullptr) {
      return absl::InvalidArgumentError("reference backend: module has no entry computation");
    }
    for (const Instruction* p : module.entry()->parameters()) {
      if (p == nullptr) return absl::InvalidArgumentError("reference backend: parameter numbers have gaps");
      if (p->shape().is_tuple) return absl::InvalidArgumentError("reference backend: tuple parameters");
    }
    // An unknown custom_call target fails here, not in the middle of a run.
    for (const auto& c : module.computations()) {
      for (const auto& instr : c->instructions()) {
        if (instr->opcode() != Opcode::kCustomCall) continue;
        if (absl::StatusOr<CustomCallRunner> r = CustomCallRunner::Create(*instr); !r.ok()) {
          return r.status();
        }
      }
    }
    // Dynamic shapes, quantized and narrow types lowered first (issues 10,
    // 11); the program then owns the lowered copy.
    absl::StatusOr<std::unique_ptr<Module>> lowered = passes::LowerForBackends(module);
    if (!lowered.ok()) return lowered.status();
    if (*lowered != nullptr) {
      auto program = std::make_unique<ReferenceProgram>(lowered->get());
      program->Own(*std::move(lowered));
      return std::unique_ptr<CompiledProgram>(std::move(program));
    }
    return std::unique_ptr<CompiledProgram>(new ReferenceProgram(&module));
  }
};

const bool kRegistered = [] {
  RegisterPlatform("reference", [] {
    return MakeHostPlatform("reference", std::make_unique<ReferenceCompiler>());
  });
  return true;
}();

}  // namespace
}  // namespace xjit::reference
