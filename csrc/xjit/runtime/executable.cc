#include "xjit/runtime/executable.h"

#include <exception>
#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "xjit/ir/verifier.h"
#include "xjit/ir/walk.h"
#include "xjit/runtime/host_transfers.h"
#include "xjit/runtime/platform.h"

namespace xjit {
namespace {

absl::Status CheckArrayShapes(const std::vector<Shape>& shapes, const char* what) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].is_tuple) {
      return absl::UnimplementedError(absl::StrCat("Entry computation ", what, " ", i,
                                                   " is a tuple (", shapes[i].ToString(),
                                                   "); only array ", what, "s can be executed"));
    }
  }
  return absl::OkStatus();
}

// Error path only: formatting lives here so Execute's hot path has none.
absl::Status ArgumentError(size_t index, const Buffer* arg, const Shape& expected,
                           const Device* device) {
  if (arg == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("Argument ", index, " is null"));
  }
  if (arg->is_deleted()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Argument ", index, " has been deleted (donated or deleted) with shape=",
        arg->shape().ToString()));
  }
  if (arg->shape() != expected) {
    return absl::InvalidArgumentError(absl::StrCat("Argument ", index, " has type ",
                                                   arg->shape().ToString(), " but the executable expects ",
                                                   expected.ToString()));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Argument ", index, " lives on ",
                   arg->device() ? arg->device()->ToString() : std::string("no device"),
                   " but the executable was compiled for ", device->ToString()));
}

// Runs the program on buffers whose arguments are ready, then marks the
// results ready with the outcome (an argument's error, or the run's).
// `device` (queued runs only) is told when the program is done, before the
// results are published.
template <typename ArgList, typename ResultList>
void RunAndMarkReady(CompiledProgram& program, const ArgList& args, const ResultList& results,
                     absl::Status status, Device* running_on, Device* device = nullptr) {
  if (status.ok()) {
    // Host transfer ops (infeed, outfeed) find their device's queues by it.
    RunningDeviceScope scope(&running_on->platform(), running_on->id());
    absl::InlinedVector<const void*, 8> arg_ptrs;
    absl::InlinedVector<void*, 4> result_ptrs;
    arg_ptrs.reserve(args.size());
    result_ptrs.reserve(results.size());
    for (const auto& a : args) arg_ptrs.push_back(a->data());
    for (const auto& r : results) result_ptrs.push_back(r->data());
    try {
      status = program.Run(arg_ptrs, result_ptrs);
    } catch (const std::exception& e) {
      status = absl::InternalError(absl::StrCat("Execution failed: ", e.what()));
    }
  }
  if (device != nullptr) device->ReleaseRunningTask();
  for (const auto& r : results) r->ready()->SetReady(status);
}

// A program with side effects (host transfers, callbacks) always runs on the
// device's thread: an infeed may wait for the host, and the caller's thread
// holding the GIL must not be the one waiting.
bool HasSideEffectOps(const Module& module) {
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) {
      if (HasSideEffects(*instr)) return true;
    }
  }
  return false;
}

// OK when every argument is ready and fine, an argument's error when one
// failed, nullopt while some producer has not finished.
std::optional<absl::Status> ReadyArgumentsStatus(absl::Span<const std::shared_ptr<Buffer>> args) {
  for (const auto& a : args) {
    if (!a->ready()->IsReady()) return std::nullopt;
  }
  for (const auto& a : args) {
    absl::Status s = a->ready()->Await();  // ready: returns at once
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

Executable::Executable(std::shared_ptr<const Module> module, Device* device,
                       std::shared_ptr<CompiledProgram> program)
    : module_(std::move(module)), device_(device), program_(std::move(program)),
      prefers_inline_(program_->PrefersInlineExecution() && !HasSideEffectOps(*module_)) {
  // Buffers hold a quantized value as its storage type.
  for (const Shape& s : module_->ParameterShapes()) parameter_shapes_.push_back(StorageShape(s));
  for (const Shape& s : module_->ResultShapes()) result_shapes_.push_back(StorageShape(s));
  reusable_parameters_.resize(result_shapes_.size());
  for (size_t r = 0; r < result_shapes_.size(); ++r) {
    for (size_t p = 0; p < parameter_shapes_.size(); ++p) {
      if (parameter_shapes_[p] == result_shapes_[r] &&
          program_->ResultMayReuseParameter(static_cast<int>(r), static_cast<int>(p))) {
        reusable_parameters_[r].push_back(static_cast<int>(p));
      }
    }
  }
}

absl::StatusOr<std::shared_ptr<Executable>> Executable::Compile(
    std::shared_ptr<const Module> module, Device* device) {
  if (module == nullptr) return absl::InvalidArgumentError("Compile: module is null");
  if (device == nullptr) return absl::InvalidArgumentError("Compile: device is null");
  if (module->entry() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Module '", module->name(), "' has no entry computation"));
  }
  for (const Instruction* p : module->entry()->parameters()) {
    if (p == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("Module '", module->name(), "' has a gap in its parameter numbers"));
    }
  }
  // Modules come from ModuleBuilder, which inferred and checked every
  // instruction as it was appended: re-inferring 10,000 shapes here would
  // cost more than parsing them. What only the whole module shows is checked.
  absl::Status verified = VerifyModuleStructure(*module);
  if (!verified.ok()) return verified;
  absl::Status st = CheckArrayShapes(module->ParameterShapes(), "parameter");
  if (!st.ok()) return st;
  st = CheckArrayShapes(module->ResultShapes(), "result");
  if (!st.ok()) return st;

  absl::StatusOr<std::unique_ptr<CompiledProgram>> program =
      device->platform_impl().compiler().Compile(*module);
  if (!program.ok()) return program.status();
  if (*program == nullptr) {
    return absl::InternalError(
        absl::StrCat("The ", device->platform(), " compiler returned no program"));
  }
  // Programs may borrow the module (the reference backend walks it), and a
  // queued task can outlive the Executable: one shared_ptr owns both, so the
  // task captures a single pointer.
  struct ProgramWithModule {
    std::shared_ptr<const Module> module;
    std::unique_ptr<CompiledProgram> program;
  };
  auto owner = std::make_shared<ProgramWithModule>(ProgramWithModule{module, *std::move(program)});
  std::shared_ptr<CompiledProgram> shared(owner, owner->program.get());
  return std::shared_ptr<Executable>(new Executable(std::move(module), device, std::move(shared)));
}

absl::Status Executable::AllocateResultsWithDonation(
    absl::Span<const std::shared_ptr<Buffer>> args, absl::Span<const bool> donated,
    ResultBuffers& results) {
  if (donated.size() != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Executable for '", module_->name(), "': ",
                                                   donated.size(), " donation flags for ",
                                                   args.size(), " arguments"));
  }
  // A donated buffer's memory may be reused only when this call is its one
  // reader: not passed at another position too, no numpy view of it.
  absl::InlinedVector<bool, 8> reusable(args.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!donated[i] || args[i]->has_external_references()) continue;
    reusable[i] = true;
    for (size_t j = 0; j < args.size(); ++j) {
      if (j != i && args[j] == args[i]) reusable[i] = false;
    }
  }
  for (size_t r = 0; r < result_shapes_.size(); ++r) {
    std::shared_ptr<Buffer> result;
    for (int p : reusable_parameters_[r]) {
      if (!reusable[p]) continue;
      reusable[p] = false;  // one result per donated buffer
      result = Buffer::TakeOverMemory(*args[p]);
      if (result != nullptr) break;
    }
    if (result == nullptr) {
      absl::StatusOr<std::shared_ptr<Buffer>> b = Buffer::Allocate(result_shapes_[r], device_);
      if (!b.ok()) return b.status();
      result = *std::move(b);
    }
    results.push_back(std::move(result));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (donated[i]) args[i]->Delete();
  }
  return absl::OkStatus();
}

absl::StatusOr<ResultBuffers> Executable::Execute(
    absl::Span<const std::shared_ptr<Buffer>> args, absl::Span<const bool> donated) {
  if (args.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Executable for '", module_->name(),
                                                   "' takes ", parameter_shapes_.size(),
                                                   " arguments but got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const Buffer* a = args[i].get();
    if (a == nullptr || a->device() != device_ || a->shape() != parameter_shapes_[i] ||
        a->is_deleted()) {
      return ArgumentError(i, a, parameter_shapes_[i], device_);
    }
  }

  ResultBuffers results;
  results.reserve(result_shapes_.size());
  if (donated.empty()) {
    for (const Shape& s : result_shapes_) {
      absl::StatusOr<std::shared_ptr<Buffer>> b = Buffer::Allocate(s, device_);
      if (!b.ok()) return b.status();
      results.push_back(*std::move(b));
    }
  } else {
    absl::Status st = AllocateResultsWithDonation(args, donated, results);
    if (!st.ok()) return st;
  }

  if (prefers_inline_) {
    // Only with every argument ready: waiting on a producer here would block
    // the caller on queued work. TryRunInline keeps the device's order.
    if (std::optional<absl::Status> ready = ReadyArgumentsStatus(args)) {
      CompiledProgram& program = *program_;
      if (device_->TryRunInline([&] { RunAndMarkReady(program, args, results, *ready, device_); })) {
        return results;
      }
    }
  }

  // The task owns what it touches: the arguments (kept alive until the
  // program ran), the results, and the program (the Executable may die first).
  using BufferList = absl::InlinedVector<std::shared_ptr<Buffer>, 4>;
  BufferList task_args(args.begin(), args.end());
  BufferList task_results(results.begin(), results.end());
  device_->Enqueue([program = program_, device = device_, task_args = std::move(task_args),
                    task_results = std::move(task_results)]() {
    absl::Status status;
    for (const auto& a : task_args) {
      status = a->ready()->Await();
      if (!status.ok()) break;
    }
    RunAndMarkReady(*program, task_args, task_results, std::move(status), device, device);
  });
  return results;
}

}  // namespace xjit
