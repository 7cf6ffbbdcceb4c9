// A compiled module bound to a device. Execute is asynchronous: it allocates
// the results, enqueues the program on the device's stream (which first waits
// for the arguments' ready events) and returns at once. A cheap program
// (CompiledProgram::PrefersInlineExecution) whose arguments are ready runs
// on the caller's thread instead when the device is idle: a thread handoff
// would cost more than the run. Its results are then ready on return.
//
// Donation (JAX's donate_argnums): a donated argument is consumed. It is
// deleted, and its memory becomes a result's of the same shape where the
// program allows that alias (CompiledProgram::ResultMayReuseParameter) and
// nobody else can read the memory (no other argument is the same buffer, no
// external view of it); otherwise the result gets fresh memory.
#pragma once

#include <memory>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/buffer.h"
#include "xjit/runtime/device.h"

namespace xjit {

// Execute's results: inline storage, so a call with few results allocates
// nothing besides the buffers.
using ResultBuffers = absl::InlinedVector<std::shared_ptr<Buffer>, 4>;

class Executable {
 public:
  // Compiles `module` (which must verify) with the device's platform compiler.
  static absl::StatusOr<std::shared_ptr<Executable>> Compile(std::shared_ptr<const Module> module,
                                                            Device* device);

  // Checks argument count, shapes and devices synchronously (InvalidArgument;
  // FailedPrecondition for a deleted argument), then dispatches without
  // waiting. `donated` is empty (nothing donated) or one flag per argument.
  absl::StatusOr<ResultBuffers> Execute(
      absl::Span<const std::shared_ptr<Buffer>> args, absl::Span<const bool> donated = {});

  const Module& module() const { return *module_; }
  Device* device() const { return device_; }
  const std::vector<Shape>& parameter_shapes() const { return parameter_shapes_; }
  const std::vector<Shape>& result_shapes() const { return result_shapes_; }

 private:
  Executable(std::shared_ptr<const Module> module, Device* device,
             std::shared_ptr<CompiledProgram> program);
  // Result buffers, taking over donated arguments' memory where allowed;
  // marks the donated arguments deleted.
  absl::Status AllocateResultsWithDonation(absl::Span<const std::shared_ptr<Buffer>> args,
                                           absl::Span<const bool> donated,
                                           ResultBuffers& results);
  std::shared_ptr<const Module> module_;
  Device* device_;
  std::shared_ptr<CompiledProgram> program_;
  std::vector<Shape> parameter_shapes_;
  std::vector<Shape> result_shapes_;
  bool prefers_inline_;  // program_->PrefersInlineExecution(), cached
  // Per result: the parameters of its shape the program lets it reuse.
  std::vector<std::vector<int>> reusable_parameters_;
};

}  // namespace xjit
