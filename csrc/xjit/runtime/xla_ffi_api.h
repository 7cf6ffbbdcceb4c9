// xjit's XLA_FFI_Api: the function table FFI handlers call (xla_ffi_abi.h).
#pragma once

#include "absl/status/status.h"
#include "xjit/runtime/xla_ffi_abi.h"

namespace xjit::ffi {

const XLA_FFI_Api* Api();

// The status of a handler's returned error (null: OK); destroys the error.
absl::Status ConsumeError(XLA_FFI_Error* error);

}  // namespace xjit::ffi
