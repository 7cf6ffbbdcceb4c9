#include "xjit/backends/cuda/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace xjit::cuda {

absl::Status CudaStatus(cudaError_t error, absl::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": CUDA error ", cudaGetErrorName(error), " (",
                                     cudaGetErrorString(error), ")");
  switch (error) {
    case cudaErrorMemoryAllocation:
      return absl::ResourceExhaustedError(message);
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return absl::FailedPreconditionError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status NvrtcStatus(nvrtcResult result, absl::string_view what) {
  if (result == NVRTC_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": NVRTC error ", nvrtcGetErrorString(result)));
}

absl::Status CublasStatus(cublasStatus_t status, absl::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": cuBLAS error ", cublasLtGetStatusName(status), " (",
                                     cublasLtGetStatusString(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(message);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return absl::UnimplementedError(message);
  return absl::InternalError(message);
}

}  // namespace xjit::cuda
