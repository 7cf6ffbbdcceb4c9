// A compiled module bound to a device. Execute is asynchronous: it allocates
// the results, enqueues the program on the device's stream (which first waits
// for the arguments' ready events) and returns at once. A cheap program
// (CompiledProgram::PrefersInlineExecution) whose arguments are ready runs
// on the caller's thread instead when the device is idle: a thread handoff
// would cost more than the run. Its results are then ready on return.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/buffer.h"
#include "xjit/runtime/device.h"

namespace xjit {

class Executable {
 public:
  // Compiles `module` (which must verify) with the device's platform compiler.
  static absl::StatusOr<std::shared_ptr<Executable>> Compile(std::shared_ptr<const Module> module,
                                                            Device* device);

  // Checks argument count, shapes and devices synchronously (InvalidArgument),
  // then dispatches without waiting.
  absl::StatusOr<std::vector<std::shared_ptr<Buffer>>> Execute(
      absl::Span<const std::shared_ptr<Buffer>> args);

  const Module& module() const { return *module_; }
  Device* device() const { return device_; }
  const std::vector<Shape>& parameter_shapes() const { return parameter_shapes_; }
  const std::vector<Shape>& result_shapes() const { return result_shapes_; }

 private:
  Executable(std::shared_ptr<const Module> module, Device* device,
             std::shared_ptr<CompiledProgram> program);
  std::shared_ptr<const Module> module_;
  Device* device_;
  std::shared_ptr<CompiledProgram> program_;
  std::vector<Shape> parameter_shapes_;
  std::vector<Shape> result_shapes_;
  bool prefers_inline_;  // program_->PrefersInlineExecution(), cached
};

}  // namespace xjit
