// The cuda backend's compile step that needs no GPU: the passes (calls
// inlined, dots in [B,M,K]x[B,K,N] form, element-wise clusters fused), buffer
// assignment, and each instruction turned into a step: a generated kernel
// (kernel_source.h), a cuBLASLt matmul (cublaslt_matmul.h), or a copy. Its
// output is plain data that cuda_program.h loads onto a device; tests compile
// its source with NVRTC on machines without a GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/backends/cuda/cublaslt_matmul.h"
#include "xjit/backends/cuda/kernel_source.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/literal.h"

namespace xjit::cuda {

// Where a buffer of the program lives during a run.
struct BufferSlot {
  enum class Kind { kParameter, kResult, kArena, kConstant };
  Kind kind = Kind::kArena;
  int64_t number = 0;  // parameter or result number; constant index
  int64_t bytes = 0;
  int64_t offset = 0;  // in the arena
};

struct LoweredProgram;

struct Step {
  // kWhile, kBranch: while, and if/case, whose regions are programs of their
  // own (LoweredProgram::regions); the condition, predicate or index is
  // read back on the host.
  enum class Kind { kKernel, kMatmul, kCopy, kWhile, kBranch };
  Kind kind = Kind::kKernel;
  KernelLaunch launch;          // kKernel
  MatmulPlan matmul;            // kMatmul
  // kKernel: operand slots then result slots (the kernel's pointer
  // parameters in order); kMatmul: lhs, rhs, result, workspace;
  // kCopy: source, destination; kWhile, kBranch: operand leaves, then
  // result leaves.
  std::vector<int32_t> slots;
  int64_t bytes = 0;            // kCopy
  // kWhile: {condition, body}; kBranch: the branches in order (if: true,
  // false); indices into LoweredProgram::regions.
  std::vector<int> regions;
  int64_t num_operand_leaves = 0;  // kWhile, kBranch
  bool is_if = false;              // kBranch
};

struct LoweredProgram {
  std::string source;  // every kernel, one NVRTC program
  std::vector<Step> steps;
  std::vector<BufferSlot> slots;
  std::vector<Literal> constants;
  int64_t arena_bytes = 0;
  int64_t num_parameters = 0, num_results = 0;
  // Result leaf sizes in bytes (while keeps a second set of carried buffers).
  std::vector<int64_t> result_bytes;
  std::vector<LoweredProgram> regions;  // programs of while/if/case regions
};

// Unimplemented naming the first op the backend cannot run yet.
absl::StatusOr<LoweredProgram> LowerForCuda(const Module& module);

// The address of every slot of `program` for one run: parameters and
// results bound to `args` and `results`, arena slots at their offsets from
// `arena`, constants at `constants[i]` (the GPU's copies or the host's).
std::vector<void*> BindSlots(const LoweredProgram& program, absl::Span<const void* const> args,
                             absl::Span<void* const> results, char* arena,
                             absl::Span<void* const> constants);

// The region a kBranch step runs: an if's predicate (true: region 0), or a
// case's index, out of range selecting the last branch (the spec's rule).
size_t ChooseBranch(const Step& step, bool predicate, int32_t index);

}  // namespace xjit::cuda
