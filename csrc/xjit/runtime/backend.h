// What a backend's compiler makes of a verified Module: a program that runs
// synchronously on device memory owned by the runtime. The runtime adds
// asynchrony, buffers and events on top (see executable.h); a backend
// registers its compiler as part of its Platform (platform.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"

namespace xjit {

class CompiledProgram {
 public:
  virtual ~CompiledProgram() = default;
  // args[i] points at parameter i (row-major, shape from the module);
  // results[i] at preallocated storage for result i. A result aliases an
  // argument only where ResultMayReuseParameter said it may (donation).
  virtual absl::Status Run(absl::Span<const void* const> args,
                           absl::Span<void* const> results) = 0;
  // True when Run stays correct if results[result] is the same storage as
  // args[parameter] (same shape): the program never reads the parameter
  // after it starts writing that result. The runtime then hands a donated
  // argument's storage over to the result instead of allocating.
  virtual bool ResultMayReuseParameter(int result, int parameter) const { return false; }
  // True when a run is so cheap (a few microseconds at most, single-threaded)
  // that handing it to the device's worker thread costs more than running it:
  // Execute then runs it on the caller's thread when the device is idle, as
  // PJRT's CPU client does for cheap computations. Decided at compile time.
  virtual bool PrefersInlineExecution() const { return false; }
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const Module& module) = 0;
};

// The compiler of a registered platform (GetPlatform(name)->compiler()), or NotFound.
absl::StatusOr<Compiler*> GetCompiler(const std::string& platform);

}  // namespace xjit
