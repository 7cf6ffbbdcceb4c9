// cuBLASLt dot_general: PlanMatmul on the dots RunDotCanonicalization
// (transpose_operands) leaves, the column-major problem handed to cuBLASLt
// checked by a host emulation of its semantics against the reference
// backend, and one run on a GPU (skipped without one).
#include "xjit/backends/cuda/cublaslt_matmul.h"

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "../pass_test_util.h"
#include "xjit/passes/dot_canonicalization.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using cuda::ColumnMajorProblem;
using cuda::LtMatrix;
using cuda::LtProblem;
using cuda::MatmulPlan;
using cuda::PlanMatmul;

struct DotCase {
  std::string name;
  std::vector<int64_t> lhs, rhs;
  std::vector<int64_t> lb, rb, lc, rc;
};

std::unique_ptr<Module> DotModule(DType t, const DotCase& c) {
  ModuleBuilder mb("dot");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* lhs = cb->Parameter(T(t, c.lhs));
  Instruction* rhs = cb->Parameter(T(t, c.rhs));
  Instruction* dot = Must(cb->Add(Opcode::kDotGeneral, {lhs, rhs},
                                  DotGeneralAttrs{DotDimensionNumbers{c.lb, c.rb, c.lc, c.rc}}));
  if (dot == nullptr) return nullptr;
  absl::StatusOr<Computation*> main = cb->Finish({dot});
  EXPECT_TRUE(main.ok()) << main.status();
  if (!main.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Module>> m = mb.Build(*main);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// What the CUDA compiler does before lowering a dot.
void Canonicalize(Module& m) {
  passes::DotCanonicalizationOptions options;
  options.transpose_operands = true;
  absl::StatusOr<bool> changed = passes::RunDotCanonicalization(m, options);
  ASSERT_TRUE(changed.ok()) << changed.status();
}

// The entry's only dot_general.
const Instruction* TheDot(const Module& m) {
  const Instruction* dot = nullptr;
  for (const auto& instr : m.entry()->instructions()) {
    if (instr->opcode() != Opcode::kDotGeneral) continue;
    EXPECT_EQ(dot, nullptr) << "more than one dot_general";
    dot = instr.get();
  }
  EXPECT_NE(dot, nullptr);
  return dot;
}

// The plan of the case's dot after canonicalization.
absl::StatusOr<MatmulPlan> PlanFor(DType t, const DotCase& c) {
  std::unique_ptr<Module> m = DotModule(t, c);
  if (m == nullptr) return absl::InternalError("building the module failed");
  Canonicalize(*m);
  return PlanMatmul(*TheDot(*m));
}

MatmulPlan MustPlan(DType t, const DotCase& c) {
  absl::StatusOr<MatmulPlan> plan = PlanFor(t, c);
  EXPECT_TRUE(plan.ok()) << c.name << ": " << plan.status();
  return plan.ok() ? *plan : MatmulPlan{};
}

void ExpectSizes(const MatmulPlan& p, int64_t batch, int64_t m, int64_t n, int64_t k) {
  EXPECT_EQ(p.batch, batch);
  EXPECT_EQ(p.m, m);
  EXPECT_EQ(p.n, n);
  EXPECT_EQ(p.k, k);
}

TEST(CublasLtMatmulPlan, Plain) {
  MatmulPlan p = MustPlan(DType::kF32, {"mk_kn", {4, 3}, {3, 5}, {}, {}, {1}, {0}});
  ExpectSizes(p, 1, 4, 5, 3);
  EXPECT_FALSE(p.lhs_transposed);
  EXPECT_FALSE(p.rhs_transposed);
  EXPECT_EQ(p.lhs_ld, 3);
  EXPECT_EQ(p.rhs_ld, 5);
  EXPECT_EQ(p.data_type, CUDA_R_32F);
  EXPECT_EQ(p.compute_type, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(p.scale_type, CUDA_R_32F);
  // cuBLASLt's view: out^T[5, 4] = rhs^T[5, 3] . lhs^T[3, 4], no ops.
  LtProblem lt = ColumnMajorProblem(p);
  EXPECT_EQ(lt.a.rows, 5u);
  EXPECT_EQ(lt.a.cols, 3u);
  EXPECT_EQ(lt.a.ld, 5);
  EXPECT_FALSE(lt.a.transposed);
  EXPECT_EQ(lt.b.rows, 3u);
  EXPECT_EQ(lt.b.cols, 4u);
  EXPECT_EQ(lt.b.ld, 3);
  EXPECT_FALSE(lt.b.transposed);
  EXPECT_EQ(lt.c.rows, 5u);
  EXPECT_EQ(lt.c.cols, 4u);
  EXPECT_EQ(lt.c.ld, 5);
  EXPECT_EQ(lt.batch, 1);
}

TEST(CublasLtMatmulPlan, TransposedOperands) {
  MatmulPlan lhs_t = MustPlan(DType::kF32, {"km_kn", {3, 4}, {3, 5}, {}, {}, {0}, {0}});
  ExpectSizes(lhs_t, 1, 4, 5, 3);
  EXPECT_TRUE(lhs_t.lhs_transposed);
  EXPECT_FALSE(lhs_t.rhs_transposed);
  EXPECT_EQ(lhs_t.lhs_ld, 4);
  EXPECT_TRUE(ColumnMajorProblem(lhs_t).b.transposed);

  MatmulPlan rhs_t = MustPlan(DType::kF32, {"mk_nk", {4, 3}, {5, 3}, {}, {}, {1}, {1}});
  ExpectSizes(rhs_t, 1, 4, 5, 3);
  EXPECT_FALSE(rhs_t.lhs_transposed);
  EXPECT_TRUE(rhs_t.rhs_transposed);
  EXPECT_EQ(rhs_t.rhs_ld, 3);
  LtProblem lt = ColumnMajorProblem(rhs_t);
  EXPECT_TRUE(lt.a.transposed);
  EXPECT_EQ(lt.a.rows, 3u);  // stored column-major [K, N]
  EXPECT_EQ(lt.a.cols, 5u);
}

TEST(CublasLtMatmulPlan, Batched) {
  MatmulPlan p = MustPlan(DType::kF32, {"bmk_bkn", {2, 4, 3}, {2, 3, 5}, {0}, {0}, {2}, {1}});
  ExpectSizes(p, 2, 4, 5, 3);
  EXPECT_FALSE(p.lhs_transposed);
  EXPECT_FALSE(p.rhs_transposed);
  EXPECT_EQ(p.lhs_batch_stride, 12);
  EXPECT_EQ(p.rhs_batch_stride, 15);
  LtProblem lt = ColumnMajorProblem(p);
  EXPECT_EQ(lt.batch, 2);
  EXPECT_EQ(lt.a.batch_stride, 15);
  EXPECT_EQ(lt.b.batch_stride, 12);
  EXPECT_EQ(lt.c.batch_stride, 20);
}

TEST(CublasLtMatmulPlan, BatchNotLeadingIsStrided) {
  // One dimension per group: the pass leaves it alone, batch in the middle.
  DotCase c{"kbm_bnk", {3, 2, 4}, {2, 5, 3}, {1}, {0}, {0}, {2}};
  std::unique_ptr<Module> m = DotModule(DType::kF32, c);
  ASSERT_NE(m, nullptr);
  Canonicalize(*m);
  EXPECT_EQ(TheDot(*m)->operand(0)->opcode(), Opcode::kParameter);
  MatmulPlan p = MustPlan(DType::kF32, c);
  ExpectSizes(p, 2, 4, 5, 3);
  EXPECT_TRUE(p.lhs_transposed);
  EXPECT_EQ(p.lhs_ld, 8);  // k steps over [B, M]
  EXPECT_EQ(p.lhs_batch_stride, 4);
  EXPECT_TRUE(p.rhs_transposed);
  EXPECT_EQ(p.rhs_ld, 3);
  EXPECT_EQ(p.rhs_batch_stride, 15);
}

TEST(CublasLtMatmulPlan, BatchInnermostIsUnimplemented) {
  absl::StatusOr<MatmulPlan> p =
      PlanFor(DType::kF32, {"mkb_bkn", {4, 3, 2}, {2, 3, 5}, {2}, {0}, {1}, {1}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(p.status().message(), HasSubstr("lhs's batch dimension is its innermost"));
}

TEST(CublasLtMatmulPlan, VectorsAndEmptyContraction) {
  MatmulPlan matvec = MustPlan(DType::kF32, {"matvec", {4, 3}, {3}, {}, {}, {1}, {0}});
  ExpectSizes(matvec, 1, 4, 1, 3);
  EXPECT_FALSE(matvec.lhs_transposed);
  MatmulPlan vecmat = MustPlan(DType::kF32, {"vecmat", {3}, {3, 5}, {}, {}, {0}, {0}});
  ExpectSizes(vecmat, 1, 1, 5, 3);
  EXPECT_FALSE(vecmat.rhs_transposed);
  MatmulPlan dot = MustPlan(DType::kF32, {"vecvec", {3}, {3}, {}, {}, {0}, {0}});
  ExpectSizes(dot, 1, 1, 1, 3);
  MatmulPlan outer = MustPlan(DType::kF32, {"outer", {4}, {5}, {}, {}, {}, {}});
  ExpectSizes(outer, 1, 4, 5, 1);
  MatmulPlan empty = MustPlan(DType::kF32, {"k0", {4, 0}, {0, 5}, {}, {}, {1}, {0}});
  ExpectSizes(empty, 1, 4, 5, 0);
  MatmulPlan no_rows = MustPlan(DType::kF32, {"m0", {0, 3}, {3, 5}, {}, {}, {1}, {0}});
  ExpectSizes(no_rows, 1, 0, 5, 3);
}

TEST(CublasLtMatmulPlan, GroupsCollapsedByTheCanonicalization) {
  // lhs [B, M1, M2, K], rhs [B, K, N1, N2]: [2, 12, 5] x [2, 5, 42].
  MatmulPlan groups =
      MustPlan(DType::kF32, {"groups", {2, 3, 4, 5}, {2, 5, 6, 7}, {0}, {0}, {3}, {1}});
  ExpectSizes(groups, 2, 12, 42, 5);
  EXPECT_FALSE(groups.lhs_transposed);
  EXPECT_FALSE(groups.rhs_transposed);
  // Out of group order: lhs [K1, M, K2], rhs [N, K1, K2] are transposed by the pass.
  MatmulPlan transposed =
      MustPlan(DType::kF32, {"two_contracting", {3, 4, 5}, {6, 3, 5}, {}, {}, {0, 2}, {1, 2}});
  ExpectSizes(transposed, 1, 4, 6, 15);
  EXPECT_FALSE(transposed.lhs_transposed);
  EXPECT_FALSE(transposed.rhs_transposed);
  MatmulPlan batches = MustPlan(
      DType::kF32, {"two_batch", {2, 3, 4, 5}, {2, 3, 4, 5, 6}, {0, 1}, {0, 1}, {2, 3}, {2, 3}});
  ExpectSizes(batches, 6, 1, 6, 20);

  // Without the pass: Unimplemented, naming it.
  std::unique_ptr<Module> m = DotModule(
      DType::kF32, {"raw", {2, 3, 4, 5}, {2, 5, 6, 7}, {0}, {0}, {3}, {1}});
  ASSERT_NE(m, nullptr);
  absl::StatusOr<MatmulPlan> raw = PlanMatmul(*TheDot(*m));
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(raw.status().message(), HasSubstr("RunDotCanonicalization"));
}

TEST(CublasLtMatmulPlan, PrecisionConfigKeepsFullF32) {
  // precision_config is not kept in the IR; xjit computes at full precision
  // (docs/semantics.md), so f32 never runs as TF32 whatever it says.
  for (const char* precision : {"DEFAULT", "HIGH", "HIGHEST"}) {
    std::string text = absl::StrCat(R"(module @m {
  func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<3x5xf32>) -> (tensor<4x5xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision )",
                                     precision, ">, #stablehlo<precision ", precision, R"(>]} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    "func.return"(%0) : (tensor<4x5xf32>) -> ()
  }
}
)");
    std::unique_ptr<Module> m = Parse(text);
    ASSERT_NE(m, nullptr);
    absl::StatusOr<MatmulPlan> p = PlanMatmul(*TheDot(*m));
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->compute_type, CUBLAS_COMPUTE_32F) << precision;
  }
}

TEST(CublasLtMatmulPlan, ElementTypes) {
  DotCase c{"mk_kn", {4, 3}, {3, 5}, {}, {}, {1}, {0}};
  struct Want {
    DType t;
    cudaDataType_t data;
    cublasComputeType_t compute;
    cudaDataType_t scale;
  };
  for (const Want& w : {Want{DType::kF16, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
                        Want{DType::kBF16, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F},
                        Want{DType::kF64, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F},
                        Want{DType::kC64, CUDA_C_32F, CUBLAS_COMPUTE_32F, CUDA_C_32F},
                        Want{DType::kC128, CUDA_C_64F, CUBLAS_COMPUTE_64F, CUDA_C_64F}}) {
    MatmulPlan p = MustPlan(w.t, c);
    EXPECT_EQ(p.dtype, w.t);
    EXPECT_EQ(p.data_type, w.data) << StableHloName(w.t);
    EXPECT_EQ(p.compute_type, w.compute) << StableHloName(w.t);
    EXPECT_EQ(p.scale_type, w.scale) << StableHloName(w.t);
  }
  for (DType t : {DType::kS32, DType::kS8, DType::kU16, DType::kS64, DType::kPred}) {
    absl::StatusOr<MatmulPlan> p = PlanFor(t, c);
    ASSERT_FALSE(p.ok()) << StableHloName(t);
    EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(p.status().message(), HasSubstr(std::string(StableHloName(t))));
  }
}

// What cuBLASLt requires of the layouts: op(a) is [rows of c, inner], op(b)
// [inner, cols of c], and each leading dimension at least its rows.
void ExpectValidLt(const LtProblem& lt) {
  uint64_t a_rows = lt.a.transposed ? lt.a.cols : lt.a.rows;
  uint64_t a_inner = lt.a.transposed ? lt.a.rows : lt.a.cols;
  uint64_t b_inner = lt.b.transposed ? lt.b.cols : lt.b.rows;
  uint64_t b_cols = lt.b.transposed ? lt.b.rows : lt.b.cols;
  EXPECT_EQ(a_rows, lt.c.rows);
  EXPECT_EQ(b_cols, lt.c.cols);
  EXPECT_EQ(a_inner, b_inner);
  for (const LtMatrix* x : {&lt.a, &lt.b, &lt.c}) {
    EXPECT_GE(x->ld, static_cast<int64_t>(std::max<uint64_t>(x->rows, 1)));
  }
  EXPECT_GE(lt.batch, 1);
}

// cuBLASLt's semantics on the host: per batch, column-major
// d[i, j] = sum_p op(a)[i, p] op(b)[p, j], with each matrix as LtMatrix says.
template <typename T>
std::vector<T> EmulateLt(const LtProblem& lt, const T* a, const T* b) {
  auto at = [](const LtMatrix& x, const T* data, int64_t batch, int64_t i, int64_t j) {
    int64_t row = x.transposed ? j : i, col = x.transposed ? i : j;
    return data[batch * x.batch_stride + row + col * x.ld];
  };
  int64_t rows = lt.c.rows, cols = lt.c.cols;
  int64_t inner = lt.a.transposed ? lt.a.rows : lt.a.cols;
  std::vector<T> d(lt.batch * rows * cols);
  for (int64_t batch = 0; batch < lt.batch; ++batch) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        T sum = 0;
        for (int64_t p = 0; p < inner; ++p) sum += at(lt.a, a, batch, i, p) * at(lt.b, b, batch, p, j);
        d[batch * lt.c.batch_stride + i + j * lt.c.ld] = sum;
      }
    }
  }
  return d;
}

std::vector<DotCase> LayoutCases() {
  return {
      {"mk_kn", {4, 3}, {3, 5}, {}, {}, {1}, {0}},
      {"km_kn", {3, 4}, {3, 5}, {}, {}, {0}, {0}},
      {"mk_nk", {4, 3}, {5, 3}, {}, {}, {1}, {1}},
      {"km_nk", {3, 4}, {5, 3}, {}, {}, {0}, {1}},
      {"batched", {2, 4, 3}, {2, 3, 5}, {0}, {0}, {2}, {1}},
      {"batched_transposed", {2, 3, 4}, {2, 5, 3}, {0}, {0}, {1}, {2}},
      {"batch_in_middle", {3, 2, 4}, {5, 2, 3}, {1}, {1}, {0}, {2}},
      {"batch_last_vector", {3, 2}, {2, 3, 5}, {1}, {0}, {0}, {1}},
      {"groups", {2, 3, 4, 5}, {2, 5, 6, 7}, {0}, {0}, {3}, {1}},
      {"two_contracting", {3, 4, 5}, {6, 3, 5}, {}, {}, {0, 2}, {1, 2}},
      {"two_batch", {2, 3, 5, 7}, {3, 2, 7, 4}, {0, 1}, {1, 0}, {3}, {2}},
      {"matvec", {4, 3}, {3}, {}, {}, {1}, {0}},
      {"vecmat", {3}, {3, 5}, {}, {}, {0}, {0}},
      {"vecvec", {7}, {7}, {}, {}, {0}, {0}},
      {"outer", {4}, {5}, {}, {}, {}, {}},
      {"batched_matvec", {2, 4, 3}, {2, 3}, {0}, {0}, {2}, {1}},
      {"k0", {4, 0}, {0, 5}, {}, {}, {1}, {0}},
  };
}

// The problem handed to cuBLASLt computes what the reference backend does,
// for every layout the canonicalization leaves.
TEST(CublasLtMatmulPlan, ColumnMajorProblemMatchesReference) {
  for (const DotCase& c : LayoutCases()) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<Module> m = DotModule(DType::kF32, c);
    ASSERT_NE(m, nullptr);
    Canonicalize(*m);
    const Instruction* dot = TheDot(*m);
    absl::StatusOr<MatmulPlan> plan = PlanMatmul(*dot);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // Feed the dot's own operands (after the pass's transposes and reshapes).
    Literal lhs = Pattern(dot->operand(0)->shape(), 1);
    Literal rhs = Pattern(dot->operand(1)->shape(), 2);
    std::unique_ptr<Module> alone = DotModule(
        DType::kF32, {c.name, dot->operand(0)->shape().dims, dot->operand(1)->shape().dims,
                      dot->attrs<DotGeneralAttrs>().dot_dimension_numbers.lhs_batching_dimensions,
                      dot->attrs<DotGeneralAttrs>().dot_dimension_numbers.rhs_batching_dimensions,
                      dot->attrs<DotGeneralAttrs>().dot_dimension_numbers.lhs_contracting_dimensions,
                      dot->attrs<DotGeneralAttrs>().dot_dimension_numbers.rhs_contracting_dimensions});
    ASSERT_NE(alone, nullptr);
    absl::StatusOr<std::vector<Literal>> want = RunOn("reference", *alone, {lhs, rhs});
    ASSERT_TRUE(want.ok()) << want.status();
    // cuBLASLt's a is the rhs, its b the lhs; its column-major d is the
    // row-major result.
    LtProblem lt = ColumnMajorProblem(*plan);
    if (plan->k > 0) ExpectValidLt(lt);  // k = 0 never reaches cuBLASLt
    std::vector<float> got = EmulateLt(lt, rhs.data_as<float>(), lhs.data_as<float>());
    ASSERT_EQ(static_cast<int64_t>(got.size()), (*want)[0].shape().num_elements());
    const float* w = (*want)[0].data_as<float>();
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], w[i]) << "element " << i;
  }
}

// ---- On a GPU ----

bool HaveGpu() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (bytes > 0 && cudaMalloc(&ptr, bytes) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
};

std::complex<double> ElementAt(const Literal& l, int64_t i) {
  std::complex<double> out;
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E& v = l.data_as<E>()[i];
    if constexpr (is_complex_v<E>) {
      out = {static_cast<double>(v.real()), static_cast<double>(v.imag())};
    } else if constexpr (is_half_v<E>) {
      out = static_cast<float>(v);
    } else {
      out = static_cast<double>(v);
    }
  });
  return out;
}

// Runs the (canonical) dot of `c` on the GPU and compares with the reference
// backend; the patterned operands (multiples of 1/2) make f32 and f64 sums exact.
void ExpectGpuMatchesReference(cublasLtHandle_t handle, DType t, const DotCase& c, double tol) {
  SCOPED_TRACE(absl::StrCat(c.name, " ", StableHloName(t)));
  std::unique_ptr<Module> m = DotModule(t, c);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<MatmulPlan> plan = PlanMatmul(*TheDot(*m));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::unique_ptr<cuda::CublasLtMatmul>> matmul =
      cuda::CublasLtMatmul::Create(*plan, handle);
  ASSERT_TRUE(matmul.ok()) << matmul.status();

  Literal lhs = Pattern(T(t, c.lhs), 1), rhs = Pattern(T(t, c.rhs), 2);
  absl::StatusOr<std::vector<Literal>> want = RunOn("reference", *m, {lhs, rhs});
  ASSERT_TRUE(want.ok()) << want.status();
  const Literal& expected = (*want)[0];
  size_t out_bytes = expected.shape().num_elements() * ByteWidth(t);

  DeviceBuffer d_lhs(lhs.shape().num_elements() * ByteWidth(t) + 1);
  DeviceBuffer d_rhs(rhs.shape().num_elements() * ByteWidth(t) + 1);
  DeviceBuffer d_out(out_bytes + 1);
  DeviceBuffer d_workspace((*matmul)->workspace_bytes());
  ASSERT_NE(d_lhs.ptr, nullptr);
  ASSERT_NE(d_rhs.ptr, nullptr);
  ASSERT_NE(d_out.ptr, nullptr);
  ASSERT_TRUE((*matmul)->workspace_bytes() == 0 || d_workspace.ptr != nullptr);
  ASSERT_EQ(cudaMemcpy(d_lhs.ptr, lhs.data(), lhs.shape().num_elements() * ByteWidth(t),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_rhs.ptr, rhs.data(), rhs.shape().num_elements() * ByteWidth(t),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  // NaN bytes, so that an output left unwritten (k = 0) shows.
  ASSERT_EQ(cudaMemset(d_out.ptr, 0xff, out_bytes + 1), cudaSuccess);

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  absl::Status run = (*matmul)->Run(d_lhs.ptr, d_rhs.ptr, d_out.ptr, d_workspace.ptr, stream);
  EXPECT_TRUE(run.ok()) << run;
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);

  Literal got(expected.shape());
  ASSERT_EQ(cudaMemcpy(got.mutable_data(), d_out.ptr, out_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int64_t i = 0; i < expected.shape().num_elements(); ++i) {
    std::complex<double> g = ElementAt(got, i), w = ElementAt(expected, i);
    ASSERT_LE(std::abs(g - w), tol * (1 + std::abs(w))) << "element " << i << ": " << g << " vs " << w;
  }
}

TEST(CublasLtMatmulGpu, MatchesReference) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  cublasLtHandle_t handle = nullptr;
  ASSERT_EQ(cublasLtCreate(&handle), CUBLAS_STATUS_SUCCESS);
  std::vector<DotCase> cases = {
      {"mk_kn", {33, 17}, {17, 9}, {}, {}, {1}, {0}},
      {"km_nk", {17, 33}, {9, 17}, {}, {}, {0}, {1}},
      {"batched_transposed", {3, 17, 20}, {3, 6, 17}, {0}, {0}, {1}, {2}},
      {"batch_in_middle", {17, 3, 20}, {6, 3, 17}, {1}, {1}, {0}, {2}},
      {"matvec", {12, 50}, {50}, {}, {}, {1}, {0}},
      {"vecvec", {50}, {50}, {}, {}, {0}, {0}},
      {"outer", {7}, {5}, {}, {}, {}, {}},
      {"k0", {4, 0}, {0, 3}, {}, {}, {1}, {0}},
      {"m0", {0, 3}, {3, 5}, {}, {}, {1}, {0}},
  };
  for (const DotCase& c : cases) {
    ExpectGpuMatchesReference(handle, DType::kF32, c, 1e-6);
    ExpectGpuMatchesReference(handle, DType::kF64, c, 1e-12);
  }
  // Half types round the f32 sums once at the end.
  ExpectGpuMatchesReference(handle, DType::kF16, cases[2], 1e-3);
  ExpectGpuMatchesReference(handle, DType::kBF16, cases[2], 1e-2);
  ExpectGpuMatchesReference(handle, DType::kC64, cases[2], 1e-6);
  ExpectGpuMatchesReference(handle, DType::kC128, cases[2], 1e-12);
  cublasLtDestroy(handle);
}

}  // namespace
}  // namespace xjit::testing
