#include "xjit/backends/cuda/device_context.h"

#include <cstdint>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xjit/backends/cuda/cuda_status.h"

namespace xjit::cuda {

int VisibleDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return count;
}

absl::StatusOr<DeviceContext*> DeviceContext::Get() {
  static std::once_flag once;
  static absl::StatusOr<DeviceContext*>* made = nullptr;
  std::call_once(once, [] {
    auto make = []() -> absl::StatusOr<DeviceContext*> {
      if (VisibleDeviceCount() == 0) {
        int count = 0;
        cudaError_t error = cudaGetDeviceCount(&count);
        cudaGetLastError();
        return absl::FailedPreconditionError(absl::StrCat(
            "No usable CUDA GPU: ",
            error == cudaSuccess ? std::string("the CUDA runtime sees no device")
                                 : absl::StrCat(cudaGetErrorName(error), " (",
                                                cudaGetErrorString(error), ")")));
      }
      auto* context = new DeviceContext();  // kept for the process (buffers outlive modules)
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(context->device_), "cudaSetDevice"));
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
          cudaStreamCreateWithFlags(&context->stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
      XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(cublasLtCreate(&context->cublaslt_), "cublasLtCreate"));
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
          cudaDeviceGetAttribute(&context->capability_.major, cudaDevAttrComputeCapabilityMajor,
                                 context->device_),
          "cudaDeviceGetAttribute"));
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
          cudaDeviceGetAttribute(&context->capability_.minor, cudaDevAttrComputeCapabilityMinor,
                                 context->device_),
          "cudaDeviceGetAttribute"));
      // Keep freed memory in the pool: a steady-state call allocates nothing
      // from the driver (as a caching allocator would).
      cudaMemPool_t pool;
      if (cudaDeviceGetDefaultMemPool(&pool, context->device_) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      }
      return context;
    };
    made = new absl::StatusOr<DeviceContext*>(make());
  });
  return *made;
}

absl::Status DeviceContext::Activate() const {
  return CudaStatus(cudaSetDevice(device_), "cudaSetDevice");
}

absl::StatusOr<void*> DeviceContext::Allocate(size_t bytes) {
  XJIT_CUDA_RETURN_IF_ERROR(Activate());
  void* memory = nullptr;
  cudaError_t error = cudaMallocAsync(&memory, bytes == 0 ? 1 : bytes, stream_);
  if (error == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    return absl::ResourceExhaustedError(absl::StrFormat(
        "Out of memory on CudaDevice(id=%d) allocating %d bytes (%.1f MiB); %.1f MiB of %.1f MiB "
        "are free",
        device_, bytes, bytes / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0));
  }
  XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(error, "cudaMallocAsync"));
  return memory;
}

void DeviceContext::Free(void* memory) {
  if (memory == nullptr) return;
  cudaSetDevice(device_);
  cudaFreeAsync(memory, stream_);
}

absl::Status DeviceContext::Synchronize() {
  XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"));
  return CudaStatus(cudaGetLastError(), "a kernel launch");
}

}  // namespace xjit::cuda
