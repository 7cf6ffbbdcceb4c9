// A lowered program (lowering.h) loaded onto the GPU: its kernels compiled
// by NVRTC for the device, its constants uploaded, one cuBLASLt matmul per
// dot, a program of its own per while/if/case region. Run enqueues every
// step on the device's stream and waits for them; the runtime's device
// thread makes that asynchronous to the caller. A loop's condition (an if's
// predicate, a case's index) is read back on the host.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cuda/cublaslt_matmul.h"
#include "xjit/backends/cuda/device_context.h"
#include "xjit/backends/cuda/lowering.h"
#include "xjit/runtime/backend.h"

namespace xjit::cuda {

class CudaProgram : public CompiledProgram {
 public:
  static absl::StatusOr<std::unique_ptr<CudaProgram>> Create(LoweredProgram lowered,
                                                             DeviceContext* context);
  ~CudaProgram() override;

  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results) override;

 private:
  CudaProgram() = default;
  absl::Status RunWhile(const Step& step, const std::vector<void*>& address);
  absl::Status RunBranch(const Step& step, const std::vector<void*>& address);
  absl::Status ReadToHost(void* host, const void* device, size_t bytes, absl::string_view what);

  DeviceContext* context_ = nullptr;
  LoweredProgram lowered_;
  cudaLibrary_t library_ = nullptr;
  std::vector<cudaKernel_t> kernels_;  // per step (null for other steps)
  std::vector<std::unique_ptr<CublasLtMatmul>> matmuls_;  // per step
  std::vector<void*> constants_;  // device copies of lowered_.constants
  std::vector<std::unique_ptr<CudaProgram>> regions_;  // lowered_.regions, loaded
};

}  // namespace xjit::cuda
