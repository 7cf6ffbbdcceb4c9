#include "xjit/backends/cuda/cuda_program.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/cuda_status.h"
#include "xjit/backends/cuda/nvrtc_compile.h"

namespace xjit::cuda {

absl::StatusOr<std::unique_ptr<CudaProgram>> CudaProgram::Create(LoweredProgram lowered,
                                                                  DeviceContext* context) {
  std::unique_ptr<CudaProgram> program(new CudaProgram());
  program->context_ = context;
  for (LoweredProgram& region : lowered.regions) {
    absl::StatusOr<std::unique_ptr<CudaProgram>> loaded = Create(std::move(region), context);
    if (!loaded.ok()) return loaded.status();
    program->regions_.push_back(*std::move(loaded));
  }
  lowered.regions.clear();
  program->lowered_ = std::move(lowered);
  absl::StatusOr<std::string> device_code =
      CompileCudaSource(program->lowered_.source, context->capability(), DeviceCodeKind::kCubin);
  if (!device_code.ok()) return device_code.status();
  XJIT_CUDA_RETURN_IF_ERROR(context->Activate());
  XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
      cudaLibraryLoadData(&program->library_, device_code->data(), nullptr, nullptr, 0, nullptr,
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
  const std::vector<void*> address = BindSlots(p, args, results, arena, constants_);
  absl::Status status;
  std::vector<void*> pointers;
  std::vector<void*> argv;
  for (size_t s = 0; s < p.steps.size() && status.ok(); ++s) {
    const Step& step = p.steps[s];
    switch (step.kind) {
      case Step::Kind::kKernel: {
        const int64_t threads = step.launch.threads;
        if (threads == 0) break;
        int64_t n = step.launch.argument >= 0 ? step.launch.argument : threads;
        pointers.clear();
        for (int32_t slot : step.slots) pointers.push_back(address[slot]);
        argv.clear();
        for (void*& pointer : pointers) argv.push_back(&pointer);
        argv.push_back(&n);
        const int64_t block = step.launch.block;
        const int64_t blocks = std::min<int64_t>((threads + block - 1) / block, int64_t{1} << 20);
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
      case Step::Kind::kWhile:
        status = RunWhile(step, address);
        break;
      case Step::Kind::kBranch:
        status = RunBranch(step, address);
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

// A few bytes the steps queued so far computed (on the program's stream:
// cudaMemcpy would use the legacy stream, which a non-blocking one does not
// wait for).
absl::Status CudaProgram::ReadToHost(void* host, const void* device, size_t bytes,
                                     absl::string_view what) {
  XJIT_CUDA_RETURN_IF_ERROR(CudaStatus(
      cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, context_->stream()), what));
  return context_->Synchronize();
}

absl::Status CudaProgram::RunWhile(const Step& step, const std::vector<void*>& address) {
  CudaProgram& cond = *regions_[step.regions[0]];
  CudaProgram& body = *regions_[step.regions[1]];
  const int64_t num_in = step.num_operand_leaves;
  const int64_t carried = static_cast<int64_t>(step.slots.size()) - num_in;
  cudaStream_t stream = context_->stream();
  // The carry lives in the result buffers and a second set: each iteration
  // reads one set and writes the other.
  std::vector<void*> current, other;
  std::vector<void*> owned;
  absl::Status status;
  auto release = [&]() {
    for (void* memory : owned) context_->Free(memory);
    return status;
  };
  for (int64_t k = 0; k < carried; ++k) {
    void* result = address[step.slots[num_in + k]];
    const int64_t bytes = body.lowered_.result_bytes[k];
    if (bytes > 0 && result != address[step.slots[k]]) {
      status = CudaStatus(cudaMemcpyAsync(result, address[step.slots[k]], bytes,
                                          cudaMemcpyDeviceToDevice, stream),
                          "while: copying the initial carry");
      if (!status.ok()) return release();
    }
    current.push_back(result);
    absl::StatusOr<void*> memory = context_->Allocate(bytes);
    if (!memory.ok()) {
      status = memory.status();
      return release();
    }
    owned.push_back(*memory);
    other.push_back(*memory);
  }
  absl::StatusOr<void*> pred = context_->Allocate(1);
  if (!pred.ok()) {
    status = pred.status();
    return release();
  }
  owned.push_back(*pred);
  std::vector<const void*> args(num_in);
  for (int64_t k = carried; k < num_in; ++k) args[k] = address[step.slots[k]];
  while (true) {
    for (int64_t k = 0; k < carried; ++k) args[k] = current[k];
    std::vector<void*> cond_out = {*pred};
    status = cond.Run(args, cond_out);
    if (!status.ok()) return release();
    bool go = false;
    status = ReadToHost(&go, *pred, 1, "while: reading the condition");
    if (!status.ok() || !go) break;
    status = body.Run(args, other);
    if (!status.ok()) return release();
    std::swap(current, other);
  }
  if (!status.ok()) return release();
  for (int64_t k = 0; k < carried; ++k) {
    void* result = address[step.slots[num_in + k]];
    const int64_t bytes = body.lowered_.result_bytes[k];
    if (bytes > 0 && current[k] != result) {
      status = CudaStatus(cudaMemcpyAsync(result, current[k], bytes, cudaMemcpyDeviceToDevice, stream),
                          "while: copying the final carry");
      if (!status.ok()) return release();
    }
  }
  status = context_->Synchronize();  // before the second set is freed and reused
  return release();
}

absl::Status CudaProgram::RunBranch(const Step& step, const std::vector<void*>& address) {
  const int64_t num_in = step.num_operand_leaves;
  bool predicate = false;
  int32_t index = 0;
  XJIT_CUDA_RETURN_IF_ERROR(step.is_if ? ReadToHost(&predicate, address[step.slots[0]], 1,
                                                    "if: reading the predicate")
                                       : ReadToHost(&index, address[step.slots[0]], sizeof(index),
                                                    "case: reading the index"));
  const size_t branch = ChooseBranch(step, predicate, index);
  std::vector<const void*> args;
  for (int64_t k = 1; k < num_in; ++k) args.push_back(address[step.slots[k]]);
  std::vector<void*> results;
  for (size_t k = num_in; k < step.slots.size(); ++k) results.push_back(address[step.slots[k]]);
  return regions_[step.regions[branch]]->Run(args, results);
}

}  // namespace xjit::cuda
