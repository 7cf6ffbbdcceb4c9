#include "xjit/backends/cuda/cuda_program.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/cuda_status.h"

namespace xjit::cuda {

absl::StatusOr<std::unique_ptr<CudaProgram>> CudaProgram::Create(LoweredProgram lowered,
                                                                  const std::string& device_code,
                                                                  DeviceContext* context) {
  std::unique_ptr<CudaProgram> program(new CudaProgram());
  program->context_ = context;
  program->lowered_ = std::move(lowered);
  XJIT_CUDA_RETURN_IF_ERROR(context->Activate());
  XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
      cudaLibraryLoadData(&program->library_, device_code.data(), nullptr, nullptr, 0, nullptr,
                          nullptr, 0),
      "cudaLibraryLoadData"));
  const LoweredProgram& p = program->lowered_;
  program->kernels_.resize(p.steps.size(), nullptr);
  program->matmuls_.resize(p.steps.size());
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const Step& step = p.steps[s];
    if (step.kind == Step::Kind::kKernel) {
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
          cudaLibraryGetKernel(&program->kernels_[s], program->library_, step.launch.name.c_str()),
          absl::StrCat("cudaLibraryGetKernel(", step.launch.name, ")")));
    } else if (step.kind == Step::Kind::kMatmul) {
      absl::StatusOr<std::unique_ptr<CublasLtMatmul>> matmul =
          CublasLtMatmul::Create(step.matmul, context->cublaslt());
      if (!matmul.ok()) return matmul.status();
      const BufferSlot& workspace = p.slots[step.slots[3]];
      if (static_cast<int64_t>((*matmul)->workspace_bytes()) > workspace.bytes) {
        return absl::InternalError("cuBLASLt chose an algorithm needing more workspace than planned");
      }
      program->matmuls_[s] = *std::move(matmul);
    }
  }
  for (const Literal& constant : p.constants) {
    const size_t bytes = static_cast<size_t>(constant.size_bytes());
    absl::StatusOr<void*> memory = context->Allocate(bytes);
    if (!memory.ok()) return memory.status();
    program->constants_.push_back(*memory);
    if (bytes > 0) {
      XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
          cudaMemcpyAsync(*memory, constant.data(), bytes, cudaMemcpyHostToDevice,
                          context->stream()),
          "uploading a constant"));
    }
  }
  XJIT_CUDA_RETURN_IF_ERROR(context->Synchronize());
  return program;
}

CudaProgram::~CudaProgram() {
  if (context_ == nullptr) return;
  for (void* memory : constants_) context_->Free(memory);
  matmuls_.clear();
  if (library_ != nullptr) {
    // Steps still queued hold the program alive; none can be using it now.
    context_->Synchronize().IgnoreError();
    cudaLibraryUnload(library_);
  }
}

absl::Status CudaProgram::Run(absl::Span<const void* const> args,
                              absl::Span<void* const> results) {
  const LoweredProgram& p = lowered_;
  if (static_cast<int64_t>(args.size()) != p.num_parameters ||
      static_cast<int64_t>(results.size()) != p.num_results) {
    return absl::InvalidArgumentError("cuda program: wrong number of arguments or results");
  }
  XJIT_CUDA_RETURN_IF_ERROR(context_->Activate());
  cudaStream_t stream = context_->stream();
  char* arena = nullptr;
  if (p.arena_bytes > 0) {
    absl::StatusOr<void*> memory = context_->Allocate(p.arena_bytes);
    if (!memory.ok()) return memory.status();
    arena = static_cast<char*>(*memory);
  }
  std::vector<void*> address(p.slots.size(), nullptr);
  for (size_t i = 0; i < p.slots.size(); ++i) {
    const BufferSlot& slot = p.slots[i];
    switch (slot.kind) {
      case BufferSlot::Kind::kParameter: address[i] = const_cast<void*>(args[slot.number]); break;
      case BufferSlot::Kind::kResult: address[i] = results[slot.number]; break;
      case BufferSlot::Kind::kArena: address[i] = arena + slot.offset; break;
      case BufferSlot::Kind::kConstant: address[i] = constants_[slot.number]; break;
    }
  }
  absl::Status status;
  std::vector<void*> pointers;
  std::vector<void*> argv;
  for (size_t s = 0; s < p.steps.size() && status.ok(); ++s) {
    const Step& step = p.steps[s];
    switch (step.kind) {
      case Step::Kind::kKernel: {
        int64_t n = step.launch.threads;
        if (n == 0) break;
        pointers.clear();
        for (int32_t slot : step.slots) pointers.push_back(address[slot]);
        argv.clear();
        for (void*& pointer : pointers) argv.push_back(&pointer);
        argv.push_back(&n);
        const int64_t block = step.launch.block;
        const int64_t blocks = std::min<int64_t>((n + block - 1) / block, int64_t{1} << 20);
        status = CudaStatus(cudaLaunchKernel(reinterpret_cast<const void*>(kernels_[s]),
                                             dim3(static_cast<unsigned>(blocks)),
                                             dim3(static_cast<unsigned>(block)), argv.data(), 0,
                                             stream),
                            absl::StrCat("launching ", step.launch.name));
        break;
      }
      case Step::Kind::kMatmul:
        status = matmuls_[s]->Run(address[step.slots[0]], address[step.slots[1]],
                                  address[step.slots[2]], address[step.slots[3]], stream);
        break;
      case Step::Kind::kCopy:
        if (step.bytes > 0 && address[step.slots[0]] != address[step.slots[1]]) {
          status = CudaStatus(cudaMemcpyAsync(address[step.slots[1]], address[step.slots[0]],
                                              step.bytes, cudaMemcpyDeviceToDevice, stream),
                              "copying a result");
        }
        break;
    }
  }
  if (arena != nullptr) context_->Free(arena);
  absl::Status synced = context_->Synchronize();
  return status.ok() ? synced : status;
}

}  // namespace xjit::cuda
