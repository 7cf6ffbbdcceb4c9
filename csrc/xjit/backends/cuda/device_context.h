// What the cuda platform keeps per GPU: the stream every transfer and
// program of the device runs on (in order, so buffers need no events of
// their own yet), the cuBLASLt handle, and the device's compute capability.
// Device memory comes from the stream-ordered allocator (cudaMallocAsync)
// whose pool keeps freed memory for reuse instead of returning it.
//
// One GPU for now: CompiledProgram::Run is not told its device, so the
// platform reports at most one device (device 0).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include "absl/status/statusor.h"
#include "xjit/backends/cuda/nvrtc_compile.h"

namespace xjit::cuda {

// GPUs the CUDA runtime sees (0 without a driver or a GPU; never fails).
int VisibleDeviceCount();

class DeviceContext {
 public:
  // The context of device 0, made on first use: FailedPrecondition without
  // a usable GPU.
  static absl::StatusOr<DeviceContext*> Get();

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  cublasLtHandle_t cublaslt() const { return cublaslt_; }
  ComputeCapability capability() const { return capability_; }

  // Makes this device current on the calling thread.
  absl::Status Activate() const;
  // `bytes` (at least 1) of device memory, ordered on the stream;
  // ResourceExhausted naming the size asked and the memory free.
  absl::StatusOr<void*> Allocate(size_t bytes);
  void Free(void* memory);
  // Waits for everything queued on the stream; the first error since.
  absl::Status Synchronize();

 private:
  DeviceContext() = default;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t cublaslt_ = nullptr;
  ComputeCapability capability_;
};

}  // namespace xjit::cuda
