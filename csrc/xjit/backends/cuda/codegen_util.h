// Pieces every kernel generator of the cuda backend uses (kernel_source.h
// and the indexing kernels): index arithmetic as source text, a region of
// element-wise ops as statements, the kernel signature convention
// (operands, results, then the element count), and the error for what the
// backend cannot run yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

inline constexpr int kBlock = 256;  // threads per block of the generated kernels

// Unimplemented: "<op>: <why> is not supported by the cuda backend yet (<shape>)".
absl::Status Unsupported(const Instruction& instr, absl::string_view why);

// "  for (int64_t <var> = <this thread>; <var> < <bound>; <var> += <grid>) {\n"
std::string GridStrideLoop(absl::string_view var, absl::string_view bound);

// Statements splitting the row-major linear index `linear` over `dims` into
// int64_t variables <prefix>0, <prefix>1, ...
std::string SplitIndex(const std::vector<int64_t>& dims, absl::string_view linear,
                       absl::string_view prefix);

// The row-major offset of the index expressions `index` in an array of `dims`.
std::string Offset(const std::vector<int64_t>& dims, const std::vector<std::string>& index);

// {"<prefix>0", ..., "<prefix><rank-1>"}
std::vector<std::string> IndexNames(absl::string_view prefix, size_t rank);

// The statements computing a region of element-wise ops, given an
// expression for each parameter; `values` maps each instruction to the
// variable (or expression) holding its value.
struct RegionCode {
  std::string statements;
  absl::flat_hash_map<const Instruction*, std::string> values;
};

// `pointers` names each parameter's array (a fusion's operands, indexed by
// "i"); empty for scalar regions (reduce bodies, scatter combiners).
absl::StatusOr<RegionCode> EmitRegion(const Computation& region,
                                      const std::vector<std::string>& parameters,
                                      const std::vector<std::string>& pointers,
                                      absl::string_view indent);

// extern "C" __global__ void <name>(const T0* p0, ..., R0* r0, ..., int64_t n) {
absl::StatusOr<std::string> Signature(absl::string_view name, const std::vector<DType>& inputs,
                                      const std::vector<DType>& outputs);

std::vector<DType> OperandTypes(const Instruction& instr);
std::vector<DType> ResultTypes(const Shape& shape);  // one per leaf
// Unimplemented for a tuple or token operand.
absl::Status CheckArrays(const Instruction& instr);

}  // namespace xjit::cuda
