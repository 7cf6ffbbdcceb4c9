// Turns absl::Status into Python exceptions at the binding edge
// (mapping in docs/bindings.md).
#pragma once

#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xjit::python {

// Throws the mapped Python exception (as pybind11::error_already_set) if !ok.
void ThrowIfError(const absl::Status& status);

template <typename T>
T ValueOrThrow(absl::StatusOr<T> v) {
  ThrowIfError(v.status());
  return *std::move(v);
}

}  // namespace xjit::python
