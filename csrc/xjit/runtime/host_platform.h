// The platform implementation shared by the backends whose devices are the
// host CPU (cpu, reference): device memory is 64-byte aligned host memory
// (oneDNN and the vectorized kernels want cache lines), transfers are
// memcpy and complete their event before returning.
#pragma once

#include <memory>
#include <string>

#include "xjit/runtime/platform.h"

namespace xjit {

// A host platform named `name` with `device_count` devices compiling with
// `compiler`.
std::unique_ptr<Platform> MakeHostPlatform(std::string name, std::unique_ptr<Compiler> compiler,
                                           int device_count = 1);

// JAX's way to get several host devices: N from
// `--xla_force_host_platform_device_count=N` in `xla_flags` (the XLA_FLAGS
// environment variable's value; null or absent: 1). A malformed or
// non-positive N counts as absent.
int ForcedHostDeviceCount(const char* xla_flags);
// The same, read from the XLA_FLAGS environment variable.
int ForcedHostDeviceCountFromEnvironment();

}  // namespace xjit
