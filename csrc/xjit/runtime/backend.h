// What a backend provides to the runtime: a compiler from a verified Module to
// a program that runs synchronously on memory owned by the runtime. The
// runtime adds asynchrony, buffers and events on top (see executable.h).
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
  // results[i] at preallocated storage for result i. Results never alias args.
  virtual absl::Status Run(absl::Span<const void* const> args,
                           absl::Span<void* const> results) = 0;
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

// Backends register themselves by platform name ("reference", "cpu", "cuda").
using CompilerFactory = std::function<std::unique_ptr<Compiler>()>;
void RegisterCompiler(const std::string& platform, CompilerFactory factory);
// Returns a shared compiler instance, or NotFound.
absl::StatusOr<Compiler*> GetCompiler(const std::string& platform);
std::vector<std::string> RegisteredPlatforms();

}  // namespace xjit
