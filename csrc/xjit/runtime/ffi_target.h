// custom_call targets made from foreign functions (xjit.ffi.register_ffi_target):
// XLA FFI handlers (api_version 1: the typed FFI, XLA's C ABI of
// xla_ffi_abi.h) and legacy CPU custom calls (api_version 0:
// `void fn(void* out, const void** in)`, JAX's old
// xla_client.register_custom_call_target convention).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "xjit/runtime/custom_call_registry.h"
#include "xjit/runtime/xla_ffi_abi.h"

namespace xjit::ffi {

// A handler per execution stage; execute is required. XLA runs instantiate,
// prepare and initialize before execute when given; xjit runs them before
// each execute (it keeps no per-handler state: XLA_FFI_State_Set fails).
struct HandlerBundle {
  XLA_FFI_Handler* instantiate = nullptr;
  XLA_FFI_Handler* prepare = nullptr;
  XLA_FFI_Handler* initialize = nullptr;
  XLA_FFI_Handler* execute = nullptr;
};

// Asks the execute handler for its metadata (the FFI API version it was
// built with), as XLA does when a handler is registered, and fails unless
// it is one xjit speaks (major version 0); then wraps the bundle.
absl::StatusOr<CustomCallTarget> MakeFfiTarget(const std::string& name, HandlerBundle bundle);

// out: the result's buffer, or an array of result buffers when there are
// several (XLA's tuple convention); in: the operand buffers.
using LegacyCpuFunction = void (*)(void* out, const void** in);
CustomCallTarget MakeLegacyTarget(LegacyCpuFunction fn);

}  // namespace xjit::ffi
