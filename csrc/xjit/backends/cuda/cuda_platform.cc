// The "cuda" platform: registered on every build with the toolkit, with as
// many devices as the CUDA runtime sees (none without a GPU or driver, so
// nothing changes there; at most one for now, see device_context.h). Its
// compiler lowers a module (lowering.h), compiles the kernels with NVRTC for
// the GPU present, and loads them (cuda_program.h).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/cuda_program.h"
#include "xjit/backends/cuda/cuda_status.h"
#include "xjit/backends/cuda/device_context.h"
#include "xjit/backends/cuda/lowering.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#include "xjit/runtime/platform.h"

namespace xjit::cuda {
namespace {

class CudaCompiler : public Compiler {
 public:
  absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const Module& module) override {
    absl::StatusOr<DeviceContext*> context = DeviceContext::Get();
    if (!context.ok()) return context.status();
    absl::StatusOr<LoweredProgram> lowered = LowerForCuda(module);
    if (!lowered.ok()) return lowered.status();
    absl::StatusOr<std::unique_ptr<CudaProgram>> program =
        CudaProgram::Create(*std::move(lowered), *context);
    if (!program.ok()) return program.status();
    return std::unique_ptr<CompiledProgram>(std::move(*program));
  }
};

class CudaPlatform : public Platform {
 public:
  CudaPlatform() : device_count_(VisibleDeviceCount() > 0 ? 1 : 0) {}

  const std::string& name() const override { return name_; }
  int DeviceCount() const override { return device_count_; }
  Compiler& compiler() override { return compiler_; }

  absl::StatusOr<void*> Allocate(int device, size_t bytes) override {
    absl::StatusOr<DeviceContext*> context = Context(device);
    if (!context.ok()) return context.status();
    return (*context)->Allocate(bytes);
  }
  void Deallocate(int device, void* memory) override {
    absl::StatusOr<DeviceContext*> context = Context(device);
    if (context.ok()) (*context)->Free(memory);
  }

  // Copies on the device's stream, waited for before `done` is set: the
  // caller's host memory may be pageable, and the runtime keeps it alive
  // only until then.
  void CopyToDevice(int device, const void* host, void* memory, size_t bytes,
                    Event* done) override {
    done->SetReady(Copy(device, memory, host, bytes, cudaMemcpyHostToDevice));
  }
  void CopyToHost(int device, const void* memory, void* host, size_t bytes,
                  Event* done) override {
    done->SetReady(Copy(device, host, memory, bytes, cudaMemcpyDeviceToHost));
  }

 private:
  absl::StatusOr<DeviceContext*> Context(int device) const {
    if (device != 0) return absl::InvalidArgumentError(absl::StrCat("no CUDA device ", device));
    return DeviceContext::Get();
  }
  absl::Status Copy(int device, void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
    absl::StatusOr<DeviceContext*> context = Context(device);
    if (!context.ok()) return context.status();
    if (bytes == 0) return absl::OkStatus();
    XJIT_CUDA_RETURN_IF_ERROR((*context)->Activate());
    XJIT_CUDA_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpyAsync(to, from, bytes, kind, (*context)->stream()), "cudaMemcpyAsync"));
    return (*context)->Synchronize();
  }

  std::string name_ = "cuda";
  int device_count_;
  CudaCompiler compiler_;
};

const bool kRegistered = [] {
  RegisterPlatform("cuda", [] { return std::make_unique<CudaPlatform>(); });
  return true;
}();

}  // namespace
}  // namespace xjit::cuda
