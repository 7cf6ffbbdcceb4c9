// The cuda backend's lowered programs run on the host, for checking the
// generated code on machines without a GPU (CI): every kernel source is
// compiled by the host compiler (g++, with a few lines standing in for CUDA's
// built-ins) into one shared library and run with a grid and a block of one
// thread, which each kernel's loops cover (grid-stride loops, block
// reductions whose tree is then empty). Matmuls are a host loop over the
// MatmulPlan's strided layout, copies memcpy, while/if/case as on the GPU.
// What this cannot show: races between threads, atomics under contention,
// NVRTC's own code generation and libdevice's rounding (the host's libm
// computes the transcendentals). Not for production use.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/backends/cuda/lowering.h"

namespace xjit::cuda {

class HostEmulation {
 public:
  // Compiles every kernel of `program` and its regions ($CXX or g++, the
  // CUDA toolkit's headers for cuda_fp16.h).
  static absl::StatusOr<std::unique_ptr<HostEmulation>> Create(LoweredProgram program);
  ~HostEmulation();

  // args[i], results[i]: host memory of parameter i and result i.
  absl::Status Run(absl::Span<const void* const> args, absl::Span<void* const> results);

 private:
  struct Program;
  HostEmulation() = default;
  absl::Status RunProgram(const Program& p, absl::Span<const void* const> args,
                          absl::Span<void* const> results);

  void* library_ = nullptr;
  std::unique_ptr<Program> root_;
};

}  // namespace xjit::cuda
