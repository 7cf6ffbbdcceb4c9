#include "xjit/backends/cuda/cublaslt_matmul.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/cuda_status.h"

namespace xjit::cuda {
namespace {

// Operands must be at least this aligned for the usual algorithm (cudaMalloc
// gives 256; 16 is what vectorized and TMA loads need).
constexpr uint32_t kAlignment = 16;

struct Types {
  cudaDataType_t data;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

absl::StatusOr<Types> TypesFor(DType t) {
  switch (t) {
    case DType::kF32:
      return Types{CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kF16:
      return Types{CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kBF16:
      return Types{CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F};
    case DType::kF64:
      return Types{CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F};
    case DType::kC64:
      return Types{CUDA_C_32F, CUBLAS_COMPUTE_32F, CUDA_C_32F};
    case DType::kC128:
      return Types{CUDA_C_64F, CUBLAS_COMPUTE_64F, CUDA_C_64F};
    default:
      return absl::UnimplementedError(
          absl::StrCat("dot_general on cuda: element type ", StableHloName(t),
                       " is not supported (cuBLASLt matmuls take f16, bf16, f32, f64, "
                       "complex<f32> and complex<f64>)"));
  }
}

// One dimension group of an operand: its size and element stride (size 1
// when the group is absent).
struct Dim {
  int64_t size = 1, stride = 0;
};

// Row-major strides; a zero-size dimension counts as 1 so that strides stay
// positive (such an operand has no elements to read).
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> strides(s.rank());
  int64_t n = 1;
  for (int64_t i = s.rank() - 1; i >= 0; --i) {
    strides[i] = n;
    n *= std::max<int64_t>(s.dims[i], 1);
  }
  return strides;
}

Dim Group(const Shape& s, const std::vector<int64_t>& strides, const std::vector<int64_t>& dims) {
  if (dims.empty()) return Dim{};
  return Dim{s.dims[dims[0]], strides[dims[0]]};
}

// Whether a matrix [outer, inner] can be read row-major with a leading
// dimension: `inner` unit-stride (or of size 1) and rows not overlapping.
bool RowMajor(Dim outer, Dim inner, int64_t& ld) {
  if (inner.size > 1 && inner.stride != 1) return false;
  ld = outer.size > 1 ? outer.stride : inner.size;
  return ld >= inner.size;
}

// How one operand is read: as [outer, inner] (transposed = false) or
// [inner, outer]. A vector is read as a column (its elements unit-stride along
// the matrix's rows), the layout GEMM kernels expect for a matrix-vector product.
absl::Status Orient(Dim outer, Dim inner, const char* operand, bool& transposed, int64_t& ld) {
  int64_t straight_ld = 0, transposed_ld = 0;
  bool straight = RowMajor(outer, inner, straight_ld);
  bool flipped = RowMajor(inner, outer, transposed_ld);
  transposed = flipped && (!straight || (inner.size == 1 && outer.size > 1));
  if (!straight && !flipped) {
    return absl::UnimplementedError(absl::StrCat(
        "dot_general on cuda: the ", operand,
        "'s batch dimension is its innermost one; cuBLASLt needs a unit-stride "
        "matrix dimension (transpose the operand first)"));
  }
  ld = transposed ? transposed_ld : straight_ld;
  return absl::OkStatus();
}

std::string Describe(const Instruction& dot) {
  return absl::StrCat(dot.operand(0)->shape().ToString(), " x ", dot.operand(1)->shape().ToString());
}

}  // namespace

absl::StatusOr<MatmulPlan> PlanMatmul(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDotGeneral) {
    return absl::InvalidArgumentError(
        absl::StrCat("PlanMatmul: expected a dot_general, got ", OpcodeName(dot.opcode())));
  }
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const Shape& out = dot.shape();
  if (lhs.dtype != rhs.dtype || lhs.dtype != out.dtype) {
    return absl::UnimplementedError(absl::StrCat("dot_general on cuda: mixed element types ",
                                                 Describe(dot), " -> ", out.ToString()));
  }
  absl::StatusOr<Types> types = TypesFor(out.dtype);
  if (!types.ok()) return types.status();

  const DotDimensionNumbers& dn = dot.attrs<DotGeneralAttrs>().dot_dimension_numbers;
  std::vector<int64_t> lhs_free = dn.LhsFreeDimensions(lhs.rank());
  std::vector<int64_t> rhs_free = dn.RhsFreeDimensions(rhs.rank());
  if (dn.lhs_batching_dimensions.size() > 1 || dn.lhs_contracting_dimensions.size() > 1 ||
      lhs_free.size() > 1 || rhs_free.size() > 1) {
    return absl::UnimplementedError(absl::StrCat(
        "dot_general on cuda: ", Describe(dot),
        " has a group of several batch, free or contracting dimensions; "
        "RunDotCanonicalization collapses them first"));
  }
  std::vector<int64_t> lhs_strides = Strides(lhs), rhs_strides = Strides(rhs);
  Dim lb = Group(lhs, lhs_strides, dn.lhs_batching_dimensions);
  Dim lf = Group(lhs, lhs_strides, lhs_free);
  Dim lc = Group(lhs, lhs_strides, dn.lhs_contracting_dimensions);
  Dim rb = Group(rhs, rhs_strides, dn.rhs_batching_dimensions);
  Dim rf = Group(rhs, rhs_strides, rhs_free);
  Dim rc = Group(rhs, rhs_strides, dn.rhs_contracting_dimensions);

  MatmulPlan plan;
  plan.dtype = out.dtype;
  plan.data_type = types->data;
  plan.compute_type = types->compute;
  plan.scale_type = types->scale;
  plan.batch = lb.size;
  plan.m = lf.size;
  plan.n = rf.size;
  plan.k = lc.size;
  if (rb.size != lb.size || rc.size != lc.size || out.num_elements() != plan.batch * plan.m * plan.n) {
    return absl::InvalidArgumentError(absl::StrCat("dot_general on cuda: inconsistent shapes ",
                                                   Describe(dot), " -> ", out.ToString()));
  }
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (plan.batch > kMaxInt32 || plan.m > kMaxInt32 || plan.n > kMaxInt32 || plan.k > kMaxInt32) {
    return absl::UnimplementedError(absl::StrCat(
        "dot_general on cuda: ", Describe(dot),
        " has a batch, free or contracting size beyond cuBLASLt's 32-bit sizes"));
  }
  // lhs read as [M, K] (or [K, M] transposed), rhs as [K, N] (or [N, K]).
  if (absl::Status s = Orient(lf, lc, "lhs", plan.lhs_transposed, plan.lhs_ld); !s.ok()) return s;
  if (absl::Status s = Orient(rc, rf, "rhs", plan.rhs_transposed, plan.rhs_ld); !s.ok()) return s;
  plan.lhs_batch_stride = lb.stride;
  plan.rhs_batch_stride = rb.stride;
  return plan;
}

LtProblem ColumnMajorProblem(const MatmulPlan& p) {
  // A row-major [R, C] with leading dimension ld is a column-major [C, R]
  // with the same ld, so each operand's row-major reading is flipped, and op
  // T undoes a transposed one: rhs [K, N] (N unit-stride) is op(a) = a as is.
  LtProblem lt;
  lt.batch = static_cast<int32_t>(p.batch);
  lt.a = p.rhs_transposed ? LtMatrix{uint64_t(p.k), uint64_t(p.n), p.rhs_ld, p.rhs_batch_stride, true}
                          : LtMatrix{uint64_t(p.n), uint64_t(p.k), p.rhs_ld, p.rhs_batch_stride, false};
  lt.b = p.lhs_transposed ? LtMatrix{uint64_t(p.m), uint64_t(p.k), p.lhs_ld, p.lhs_batch_stride, true}
                          : LtMatrix{uint64_t(p.k), uint64_t(p.m), p.lhs_ld, p.lhs_batch_stride, false};
  lt.c = LtMatrix{uint64_t(p.n), uint64_t(p.m), p.n, p.m * p.n, false};
  return lt;
}

CublasLtMatmul::~CublasLtMatmul() {
  // Destroy results are ignored: nothing to do about them in a destructor.
  if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
  if (b_ != nullptr) cublasLtMatrixLayoutDestroy(b_);
  if (c_ != nullptr) cublasLtMatrixLayoutDestroy(c_);
  if (op_ != nullptr) cublasLtMatmulDescDestroy(op_);
}

absl::StatusOr<std::unique_ptr<CublasLtMatmul>> CublasLtMatmul::Create(const MatmulPlan& plan,
                                                                       cublasLtHandle_t handle) {
  std::unique_ptr<CublasLtMatmul> matmul(new CublasLtMatmul(plan));
  if (absl::Status s = matmul->Init(handle); !s.ok()) return s;
  return matmul;
}

absl::Status CublasLtMatmul::Init(cublasLtHandle_t handle) {
  const MatmulPlan& p = plan_;
  handle_ = handle;
  if (p.batch == 0 || p.m == 0 || p.n == 0) {
    mode_ = Mode::kNothing;
    return absl::OkStatus();
  }
  if (p.k == 0) {
    mode_ = Mode::kZero;
    return absl::OkStatus();
  }
  mode_ = Mode::kMatmul;

  // alpha = 1, beta = 0 in the scale type; a complex one is a (re, im) pair.
  switch (p.scale_type) {
    case CUDA_R_32F:
    case CUDA_C_32F: {
      float one = 1.0f;
      std::memcpy(alpha_, &one, sizeof(one));
      break;
    }
    case CUDA_R_64F:
    case CUDA_C_64F: {
      double one = 1.0;
      std::memcpy(alpha_, &one, sizeof(one));
      break;
    }
    default:
      return absl::InternalError("CublasLtMatmul: unexpected scale type");
  }

  const LtProblem lt = ColumnMajorProblem(p);
  XJIT_CUDA_RETURN_IF_ERROR(
      CublasStatus(cublasLtMatmulDescCreate(&op_, p.compute_type, p.scale_type), "cublasLtMatmulDescCreate"));
  int32_t trans_a = lt.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t trans_b = lt.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)),
      "cublasLtMatmulDescSetAttribute(TRANSA)"));
  XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)),
      "cublasLtMatmulDescSetAttribute(TRANSB)"));
  const std::pair<cublasLtMatrixLayout_t*, const LtMatrix*> layouts[] = {
      {&a_, &lt.a}, {&b_, &lt.b}, {&c_, &lt.c}};
  for (const auto& [layout, m] : layouts) {
    XJIT_CUDA_RETURN_IF_ERROR(
        CublasStatus(cublasLtMatrixLayoutCreate(layout, p.data_type, m->rows, m->cols, m->ld),
                     "cublasLtMatrixLayoutCreate"));
    if (lt.batch == 1) continue;
    XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(
        cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &lt.batch,
                                         sizeof(lt.batch)),
        "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
    XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(
        cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                         &m->batch_stride, sizeof(m->batch_stride)),
        "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)"));
  }

  // The heuristic assumes 256-byte aligned pointers unless told otherwise;
  // operands inside a larger allocation may be aligned only to their
  // element, so an algorithm for that too (Run picks by the pointers).
  absl::StatusOr<Algo> aligned = Heuristic(kAlignment);
  if (!aligned.ok()) return aligned.status();
  aligned_ = *aligned;
  uint32_t element = static_cast<uint32_t>(ByteWidth(p.dtype));
  if (element < kAlignment) {
    // Only a fallback: if cuBLASLt rejects the query, aligned pointers still run.
    absl::StatusOr<Algo> unaligned = Heuristic(element);
    if (unaligned.ok()) unaligned_ = *unaligned;
  } else {
    unaligned_ = aligned_;
  }
  if (!aligned_.found && !unaligned_.found) {
    return absl::UnimplementedError(absl::StrCat(
        "dot_general on cuda: cuBLASLt has no algorithm for a ", StableHloName(p.dtype), " matmul of batch ",
        p.batch, ", m ", p.m, ", n ", p.n, ", k ", p.k));
  }
  workspace_bytes_ = std::max(aligned_.workspace_bytes, unaligned_.workspace_bytes);
  return absl::OkStatus();
}

absl::StatusOr<CublasLtMatmul::Algo> CublasLtMatmul::Heuristic(uint32_t alignment) const {
  cublasLtMatmulPreference_t pref = nullptr;
  XJIT_CUDA_RETURN_IF_ERROR(
      CublasStatus(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate"));
  struct Destroy {
    cublasLtMatmulPreference_t pref;
    ~Destroy() { cublasLtMatmulPreferenceDestroy(pref); }
  } destroy{pref};
  uint64_t max_workspace = kMaxWorkspaceBytes;
  XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &max_workspace, sizeof(max_workspace)),
      "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)"));
  for (cublasLtMatmulPreferenceAttributes_t attr :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    XJIT_CUDA_RETURN_IF_ERROR(
        CublasStatus(cublasLtMatmulPreferenceSetAttribute(pref, attr, &alignment, sizeof(alignment)),
                     "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)"));
  }
  cublasLtMatmulHeuristicResult_t result = {};
  int count = 0;
  cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle_, op_, a_, b_, c_, c_, pref, 1,
                                                         &result, &count);
  Algo algo;
  // NOT_SUPPORTED: no heuristic for this configuration, i.e. no algorithm.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return algo;
  XJIT_CUDA_RETURN_IF_ERROR(CublasStatus(status, "cublasLtMatmulAlgoGetHeuristic"));
  if (count > 0 && result.state == CUBLAS_STATUS_SUCCESS) {
    algo.algo = result.algo;
    algo.workspace_bytes = result.workspaceSize;
    algo.found = true;
  }
  return algo;
}

absl::Status CublasLtMatmul::Run(const void* lhs, const void* rhs, void* out, void* workspace,
                                 cudaStream_t stream) const {
  const MatmulPlan& p = plan_;
  switch (mode_) {
    case Mode::kNothing:
      return absl::OkStatus();
    case Mode::kZero:
      return CudaStatus(
          cudaMemsetAsync(out, 0, static_cast<size_t>(p.batch * p.m * p.n * ByteWidth(p.dtype)), stream),
          "cudaMemsetAsync(dot_general with an empty contraction)");
    case Mode::kMatmul:
      break;
  }
  auto is_aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % kAlignment == 0; };
  const Algo& algo = aligned_.found && is_aligned(lhs) && is_aligned(rhs) && is_aligned(out)
                         ? aligned_
                         : unaligned_;
  if (!algo.found) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dot_general on cuda: cuBLASLt's algorithm needs ", kAlignment,
        "-byte aligned operands and none was found for less"));
  }
  if (workspace == nullptr && workspace_bytes_ > 0) {
    return absl::InvalidArgumentError("CublasLtMatmul::Run: no workspace given");
  }
  // beta = 0: C is not read; it is `out` with out's layout (in place is allowed).
  return CublasStatus(cublasLtMatmul(handle_, op_, alpha_, rhs, a_, lhs, b_, beta_, out, c_, out, c_,
                                     &algo.algo, workspace, workspace_bytes_, stream),
                      "cublasLtMatmul");
}

}  // namespace xjit::cuda
