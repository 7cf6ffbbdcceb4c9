// One StableHLO dot_general on the GPU through cuBLASLt. The compiler runs
// passes::RunDotCanonicalization (transpose_operands = true) first, so each
// operand has at most one batch, one free and one contracting dimension; a
// dot the pass leaves alone may still have them in any order (lhs [K, B, M]),
// which is a strided matrix per batch as long as some matrix dimension is the
// operand's innermost. PlanMatmul reads the dot (no CUDA calls, testable
// without a GPU); CublasLtMatmul holds the descriptors and the algorithm.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

// Per batch, result[M, N] = lhs[M, K] . rhs[K, N] (row-major result, dense,
// [B?, M?, N?]). Operands are read strided: element (b, m, k) of the lhs is
// at b * lhs_batch_stride + (lhs_transposed ? k * lhs_ld + m : m * lhs_ld + k),
// element (b, k, n) of the rhs at
// b * rhs_batch_stride + (rhs_transposed ? n * rhs_ld + k : k * rhs_ld + n).
// Dense operands give the usual values: lhs [M, K] has lhs_ld = K, [K, M] is
// transposed with lhs_ld = M. Strides and leading dimensions are in elements.
struct MatmulPlan {
  DType dtype;  // element type of both operands and the result
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool lhs_transposed = false;  // lhs stored [K, M] (per batch) instead of [M, K]
  bool rhs_transposed = false;  // rhs stored [N, K] instead of [K, N]
  int64_t lhs_ld = 1, rhs_ld = 1;
  int64_t lhs_batch_stride = 0, rhs_batch_stride = 0;
  // cuBLASLt types for dtype. f32 computes in full f32 (CUBLAS_COMPUTE_32F,
  // never TF32): the IR does not keep precision_config and xjit computes at
  // the operands' full precision (docs/semantics.md), which every setting
  // allows. f16/bf16 accumulate in f32.
  cudaDataType_t data_type;
  cublasComputeType_t compute_type;
  cudaDataType_t scale_type;
};

// The plan for a canonicalized dot_general; UnimplementedError (naming what
// is not supported) for any other dot: integer or mixed element types, a
// group of two or more dimensions, a batch dimension innermost in an operand
// with two matrix dimensions, sizes beyond cuBLASLt's 32-bit ones.
absl::StatusOr<MatmulPlan> PlanMatmul(const Instruction& dot_general);

// What CublasLtMatmul hands cuBLASLt, which is column-major: the row-major
// out[M, N] = lhs[M, K] . rhs[K, N] is the column-major
// out^T[N, M] = op(a)[N, K] . op(b)[K, M] with a = rhs, b = lhs. Each matrix
// as stored: rows x cols column-major with leading dimension ld, op T when
// `transposed`. No CUDA calls (tests check it against a host emulation).
struct LtMatrix {
  uint64_t rows = 1, cols = 1;
  int64_t ld = 1, batch_stride = 0;
  bool transposed = false;
};
struct LtProblem {
  LtMatrix a, b, c;  // c is also the output d
  int32_t batch = 1;
};
LtProblem ColumnMajorProblem(const MatmulPlan& plan);

// cuBLASLt descriptors and the algorithm, chosen once (needs a device: the
// heuristic asks the handle's device); Run only enqueues.
class CublasLtMatmul {
 public:
  // The workspace the algorithm may use at most.
  static constexpr size_t kMaxWorkspaceBytes = size_t{32} << 20;

  static absl::StatusOr<std::unique_ptr<CublasLtMatmul>> Create(const MatmulPlan& plan,
                                                                cublasLtHandle_t handle);
  ~CublasLtMatmul();
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;

  size_t workspace_bytes() const { return workspace_bytes_; }

  // lhs, rhs, out: device pointers of the dot's operands and result (laid
  // out as in the IR, see MatmulPlan). workspace: workspace_bytes() of
  // device memory (may be null when that is 0). Enqueued on `stream`.
  absl::Status Run(const void* lhs, const void* rhs, void* out, void* workspace,
                   cudaStream_t stream) const;

 private:
  // A heuristic's algorithm for operands aligned to at least `alignment` bytes.
  struct Algo {
    cublasLtMatmulAlgo_t algo;
    size_t workspace_bytes = 0;
    bool found = false;
  };

  explicit CublasLtMatmul(const MatmulPlan& plan) : plan_(plan) {}
  absl::Status Init(cublasLtHandle_t handle);
  absl::StatusOr<Algo> Heuristic(uint32_t alignment) const;

  MatmulPlan plan_;
  // What Run does: nothing (no output elements), zero the output (k == 0:
  // an empty sum; cuBLASLt does not take k = 0), or a cuBLASLt matmul.
  enum class Mode { kNothing, kZero, kMatmul } mode_ = Mode::kNothing;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  Algo aligned_;    // for 16-byte aligned pointers: the usual case
  Algo unaligned_;  // for pointers aligned only to the element (sub-buffers)
  size_t workspace_bytes_ = 0;
  alignas(16) unsigned char alpha_[16] = {}, beta_[16] = {};  // of the scale type
};

}  // namespace xjit::cuda
