// What the LAPACK custom_call targets share: the geometry of a batch of
// matrices, checks of the buffers a call received (with messages naming the
// target), the character attributes of JAX's mhlo.backend_config
// (uplo = 76 : ui8 is 'L') and a loop over the batch.
//
// The targets follow JAX's CPU kernels on physical buffers: JAX's lowering
// declares every matrix column-major (operand_layouts / result_layouts
// {rank-2, rank-1, rank-3, ..., 0}) and the custom_call runner hands the
// target the bytes in the declared layout, so matrices arrive column-major,
// as LAPACK wants them; vectors and scalars are row-major.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/backends/lapack/lapack_api.h"
#include "xjit/ir/dtype.h"
#include "xjit/runtime/custom_call_registry.h"

namespace xjit::lapack {

template <typename T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, double>) return DType::kF64;
  if constexpr (std::is_same_v<T, c64>) return DType::kC64;
  if constexpr (std::is_same_v<T, c128>) return DType::kC128;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kS32;
}

// A buffer seen as `batch` matrices of rows x cols (its two innermost dims).
struct Matrices {
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t size() const { return rows * cols; }
};

// The checks every target makes, with its name in each message.
class TargetArgs {
 public:
  explicit TargetArgs(const CustomCallContext& ctx) : ctx_(ctx) {}
  absl::string_view name() const { return ctx_.target_name; }
  absl::Status Error(absl::string_view what) const;
  // Exactly `operands` operands and `results` results.
  absl::Status CheckCounts(size_t operands, size_t results) const;
  // Operand/result i of element type `dtype`, rank >= 2: its matrices.
  absl::StatusOr<Matrices> MatrixOperand(size_t i, DType dtype) const;
  absl::StatusOr<Matrices> MatrixResult(size_t i, DType dtype) const;
  // Result i of `dtype` with exactly `dims`.
  absl::Status CheckResult(size_t i, DType dtype, absl::Span<const int64_t> dims) const;
  // A character attribute (JAX writes them as ui8 codes) among `allowed`.
  absl::StatusOr<char> CharAttr(absl::string_view attr, absl::string_view allowed) const;

  template <typename T>
  const T* operand(size_t i) const {
    return static_cast<const T*>(ctx_.operands[i].data);
  }
  template <typename T>
  T* result(size_t i) const {
    return static_cast<T*>(ctx_.results[i].data);
  }
  const CustomCallBuffer& operand_buffer(size_t i) const { return ctx_.operands[i]; }
  const CustomCallBuffer& result_buffer(size_t i) const { return ctx_.results[i]; }

  // The batch dims of operand i followed by `tail`.
  std::vector<int64_t> BatchDimsOf(size_t operand, std::initializer_list<int64_t> tail) const;

 private:
  absl::StatusOr<Matrices> MatrixOf(const CustomCallBuffer& b, absl::string_view what,
                                    size_t i, DType dtype) const;
  const CustomCallContext& ctx_;
};

// How many threads OpenBLAS may give one LAPACK call made in order.
enum class BlasThreads {
  kAll,  // blocked, level-3 routines (potrf, getrf, geqrf, trsm): the team pays
  // Reductions to condensed form (gesdd's bidiagonal, syevd's tridiagonal,
  // geev's and gees's Hessenberg form) are a long series of level-2 calls,
  // each a parallel region of its own: on this 2-core machine a second
  // thread gained nothing at 256-1024 (svd 1024: 372 ms on one thread, 460
  // on two), and with another process on the cores every region waits for
  // a descheduled thread (svd 512: 57 ms on one thread, 225-275 on two).
  kOne,
};

// Calls fn(b) for b in [0, batch): in parallel over the batch when the
// matrices are small (OpenBLAS then runs each call on one thread), else in
// order, each call on OpenBLAS's threads as `threads` says (OpenBLAS's
// OpenMP build follows the calling thread's omp_get_max_threads()).
void ForEachMatrix(int64_t batch, int64_t matrix_size, const std::function<void(int64_t)>& fn,
                   BlasThreads threads = BlasThreads::kAll);

// A LAPACK workspace of n elements (at least one), left uninitialized:
// LAPACK writes a workspace before it reads it, and a zero-fill of a large
// one (gesdd's is 4 m n elements) costs a pass over memory per call.
template <typename T>
class Workspace {
 public:
  explicit Workspace(int64_t n)
      : bytes_(new unsigned char[std::max<int64_t>(n, 1) * sizeof(T)]) {}
  T* data() { return reinterpret_cast<T*>(bytes_.get()); }

 private:
  std::unique_ptr<unsigned char[]> bytes_;
};

// LAPACK's integer type; sizes beyond it are rejected.
absl::StatusOr<lapack_int> ToLapackInt(const TargetArgs& args, int64_t v);
// A matrix's rows and columns as LAPACK integers (an error naming the one too large).
struct LapackDims {
  lapack_int rows, cols;
};
absl::StatusOr<LapackDims> ToLapackDims(const TargetArgs& args, const Matrices& m);

// Registers one target per element type: lapack_<letter><routine>_ffi.
void RegisterTypedTargets(absl::string_view s_name, absl::string_view d_name,
                          absl::string_view c_name, absl::string_view z_name,
                          CustomCallTarget s, CustomCallTarget d, CustomCallTarget c,
                          CustomCallTarget z);

}  // namespace xjit::lapack
