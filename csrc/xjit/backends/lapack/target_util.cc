#include "xjit/backends/lapack/target_util.h"

#include <omp.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit::lapack {

absl::Status TargetArgs::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat("custom_call @", name(), ": ", what));
}

absl::Status TargetArgs::CheckCounts(size_t operands, size_t results) const {
  if (ctx_.operands.size() != operands || ctx_.results.size() != results) {
    return Error(absl::StrCat("expects ", operands, " operands and ", results, " results, got ",
                              ctx_.operands.size(), " and ", ctx_.results.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Matrices> TargetArgs::MatrixOf(const CustomCallBuffer& b, absl::string_view what,
                                              size_t i, DType dtype) const {
  if (b.dtype != dtype) {
    return Error(absl::StrCat(what, " ", i, " must be of type ", StableHloName(dtype), ", got ",
                              StableHloName(b.dtype)));
  }
  if (b.dims.size() < 2) {
    return Error(absl::StrCat(what, " ", i, " must have rank >= 2 (a batch of matrices), got [",
                              absl::StrJoin(b.dims, ","), "]"));
  }
  Matrices m;
  const size_t r = b.dims.size();
  for (size_t k = 0; k + 2 < r; ++k) m.batch *= b.dims[k];
  m.rows = b.dims[r - 2];
  m.cols = b.dims[r - 1];
  return m;
}

absl::StatusOr<Matrices> TargetArgs::MatrixOperand(size_t i, DType dtype) const {
  return MatrixOf(ctx_.operands[i], "operand", i, dtype);
}
absl::StatusOr<Matrices> TargetArgs::MatrixResult(size_t i, DType dtype) const {
  return MatrixOf(ctx_.results[i], "result", i, dtype);
}

absl::Status TargetArgs::CheckResult(size_t i, DType dtype, absl::Span<const int64_t> dims) const {
  const CustomCallBuffer& b = ctx_.results[i];
  if (b.dtype != dtype || std::vector<int64_t>(b.dims.begin(), b.dims.end()) !=
                              std::vector<int64_t>(dims.begin(), dims.end())) {
    return Error(absl::StrCat("result ", i, " must be ", StableHloName(dtype), "[",
                              absl::StrJoin(dims, ","), "], got ", StableHloName(b.dtype), "[",
                              absl::StrJoin(b.dims, ","), "]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<char> TargetArgs::CharAttr(absl::string_view attr, absl::string_view allowed) const {
  absl::StatusOr<int64_t> v = ctx_.config.GetInt(attr);
  if (!v.ok()) {
    return Error(absl::StrCat("needs the backend_config attribute '", attr, "' (one of '",
                              allowed, "' as a ui8 code): ", v.status().message()));
  }
  const char c = static_cast<char>(*v);
  if (*v < 0 || *v > 127 || allowed.find(c) == absl::string_view::npos) {
    return Error(absl::StrCat("backend_config attribute '", attr, "' must be one of '", allowed,
                              "' (as a ui8 code), got ", *v));
  }
  return c;
}

std::vector<int64_t> TargetArgs::BatchDimsOf(size_t operand,
                                             std::initializer_list<int64_t> tail) const {
  const CustomCallBuffer& b = ctx_.operands[operand];
  std::vector<int64_t> dims(b.dims.begin(), b.dims.end() - 2);
  dims.insert(dims.end(), tail.begin(), tail.end());
  return dims;
}

void ForEachMatrix(int64_t batch, int64_t matrix_size, const std::function<void(int64_t)>& fn,
                   BlasThreads threads) {
  // Up to 128 x 128 a call is cheap enough that one thread per matrix wins.
  if (batch > 1 && matrix_size <= 128 * 128) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < batch; ++b) fn(b);
    return;
  }
  const int team = omp_get_max_threads();  // this thread's setting, restored after
  if (threads == BlasThreads::kOne) omp_set_num_threads(1);
  for (int64_t b = 0; b < batch; ++b) fn(b);
  omp_set_num_threads(team);
}

absl::StatusOr<lapack_int> ToLapackInt(const TargetArgs& args, int64_t v) {
  if (v > std::numeric_limits<lapack_int>::max()) {
    return args.Error(absl::StrCat("dimension ", v, " is too large for LAPACK's 32-bit integers"));
  }
  return static_cast<lapack_int>(v);
}

absl::StatusOr<LapackDims> ToLapackDims(const TargetArgs& args, const Matrices& m) {
  absl::StatusOr<lapack_int> rows = ToLapackInt(args, m.rows);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<lapack_int> cols = ToLapackInt(args, m.cols);
  if (!cols.ok()) return cols.status();
  return LapackDims{*rows, *cols};
}

void RegisterTypedTargets(absl::string_view s_name, absl::string_view d_name,
                          absl::string_view c_name, absl::string_view z_name,
                          CustomCallTarget s, CustomCallTarget d, CustomCallTarget c,
                          CustomCallTarget z) {
  RegisterCustomCallTarget(std::string(s_name), std::move(s));
  RegisterCustomCallTarget(std::string(d_name), std::move(d));
  RegisterCustomCallTarget(std::string(c_name), std::move(c));
  RegisterCustomCallTarget(std::string(z_name), std::move(z));
}

}  // namespace xjit::lapack
