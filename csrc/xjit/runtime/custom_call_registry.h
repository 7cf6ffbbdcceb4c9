// The host functions custom_call runs, by target name. Targets register
// from static initializers (the LAPACK factorizations) or at run time
// (xjit.ffi.register_ffi_target, host callbacks); both backends look the
// target up when they compile the call and run it on host memory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/ir/dtype.h"

namespace xjit {

// One operand or result as the target sees it: `data` points at the
// elements in the layout the call declares (row-major unless its
// operand_layouts / result_layouts say otherwise; the backend converts).
// Operands are read-only; results are allocated, uninitialised, and the
// target writes every element.
struct CustomCallBuffer {
  DType dtype;
  absl::Span<const int64_t> dims;
  void* data;
  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

struct CustomCallContext {
  absl::string_view target_name;
  absl::Span<const CustomCallBuffer> operands;
  absl::Span<const CustomCallBuffer> results;
  const CustomCallConfig& config;
  int64_t api_version = 0;
};

// Fails with a message the user sees at the call (or when reading its results).
using CustomCallTarget = std::function<absl::Status(const CustomCallContext&)>;

// Registers (or replaces) the target `name`. Thread-safe.
void RegisterCustomCallTarget(std::string name, CustomCallTarget target);
// The target `name`, or null. The returned function stays valid while the
// program that looked it up holds it (a copy is shared).
std::shared_ptr<const CustomCallTarget> FindCustomCallTarget(absl::string_view name);
// Every registered name, sorted (for error messages and tests).
std::vector<std::string> CustomCallTargetNames();

}  // namespace xjit
