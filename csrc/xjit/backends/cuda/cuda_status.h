// CUDA runtime, NVRTC and cuBLASLt results as absl::Status, naming the call
// that failed. Out-of-memory becomes ResourceExhausted (Python MemoryError
// at the binding edge would hide which device; the caller adds sizes).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace xjit::cuda {

absl::Status CudaStatus(cudaError_t error, absl::string_view what);
absl::Status NvrtcStatus(nvrtcResult result, absl::string_view what);
absl::Status CublasStatus(cublasStatus_t status, absl::string_view what);

}  // namespace xjit::cuda

#define XJIT_CUDA_RETURN_IF_ERROR(expr)            \
  do {                                             \
    absl::Status _xjit_cuda_status = (expr);       \
    if (!_xjit_cuda_status.ok()) return _xjit_cuda_status; \
  } while (0)
