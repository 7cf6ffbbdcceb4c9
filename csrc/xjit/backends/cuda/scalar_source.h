// Per-element rules of the CUDA backend as CUDA C++ source: the prelude of
// device helpers every generated program starts with, and the expression of
// one element-wise instruction over its operands' expressions. The rules are
// docs/semantics.md's, translated from the cpu backend's scalar_ops.h and the
// reference's scalar_semantics.h (integer edges, NaN and signed zeros agree
// bit for bit; transcendentals are CUDA's libdevice, within a few ulps).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/graph.h"

namespace xjit::cuda {

// The CUDA C++ type an element of `t` is stored and passed as in generated
// kernels: bool, int8_t..uint64_t, __half, __nv_bfloat16, float, double,
// xjit_c64, xjit_c128. Narrow types are Unimplemented (passes expand them).
absl::StatusOr<std::string> CudaTypeName(DType t);

// Device code every generated program starts with: the fixed-width integer
// typedefs (NVRTC has no <cstdint>), cuda_fp16.h and cuda_bf16.h, the complex
// structs and one xjit_-prefixed __device__ __forceinline__ helper per rule
// that is more than one C++ operator.
const std::string& ScalarPrelude();

// A C++ expression computing element-wise `instr` (every op of
// XJIT_ELEMENTWISE_{UNARY,BINARY,TERNARY}_OPS, and bitcast_convert between
// types of one byte width) from `operands`, C++ expressions of the operands'
// CudaTypeName types. Each operand expression appears exactly once in the
// result, whose type is the CudaTypeName of instr's element type. f16/bf16
// compute in float and round once when stored, as the cpu's Compute<T>.
// f32/f64 add, subtract, multiply and divide are __fadd_rn-style intrinsics,
// which NVRTC never contracts into an fma, so nested expressions keep one
// rounding per op. Anything else is Unimplemented naming the op and types.
absl::StatusOr<std::string> ElementwiseExpression(const Instruction& instr,
                                                  absl::Span<const std::string> operands);

}  // namespace xjit::cuda
