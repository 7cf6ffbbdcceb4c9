// CUDA C++ source -> device code through NVRTC, for one compute capability.
// Works without a GPU or driver (NVRTC is a library), which is how the
// generated kernels are tested on machines that have only the toolkit.
// Results are cached in memory and on disk ($XJIT_CUDA_CACHE_DIR, else
// $XDG_CACHE_HOME/xjit/cuda, else ~/.cache/xjit/cuda; XJIT_CUDA_CACHE_DIR=""
// turns the disk cache off), keyed by the source, the options and the
// target, so a kernel is compiled once per machine.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace xjit::cuda {

struct ComputeCapability {
  int major = 8;
  int minor = 0;
};

enum class DeviceCodeKind { kPtx, kCubin };

// Compiles `source` (whose kernels are extern "C") for `target`. A compile
// error is InvalidArgument carrying NVRTC's log and the numbered source lines
// it names (a generator bug, shown to whoever reports it).
absl::StatusOr<std::string> CompileCudaSource(const std::string& source, ComputeCapability target,
                                              DeviceCodeKind kind = DeviceCodeKind::kCubin);

// Where cuda_fp16.h and cuda_bf16.h are ($XJIT_CUDA_INCLUDE_DIR, else the
// toolkit CMake found): NVRTC has no built-in copies.
std::string CudaIncludeDir();

// The NVRTC version, "13.0" (tests, version_info).
std::string NvrtcVersion();

}  // namespace xjit::cuda
