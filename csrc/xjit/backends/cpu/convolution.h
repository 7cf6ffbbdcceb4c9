// convolution on the CPU: a oneDNN convolution primitive (created at compile
// time) for f32/bf16/f16 whenever oneDNN can express the op — any layout
// (strided memory descriptors), strides, non-negative padding, rhs dilation,
// feature groups — and the lhs-dilated convolutions that gradients produce,
// as oneDNN deconvolutions (a flipped kernel); window reversal flips the
// kernel too. Everything else (batch groups, negative padding, other element
// types, lhs dilation with window strides) runs on a direct kernel, parallel
// over output elements.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/epilogue.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// `epilogue` (epilogue.h, float32 only): steps applied to the result as it
// is written (a bias as oneDNN's bias argument, a ReLU in place after the
// primitive; the direct kernel applies both after), reading step_inputs[i]
// for step i (-1: none).
absl::StatusOr<std::unique_ptr<Thunk>> MakeConvolutionThunk(
    const Instruction& instr, SlotId lhs, SlotId rhs, SlotId output, LoweringContext& ctx,
    const Epilogue* epilogue = nullptr, std::vector<SlotId> step_inputs = {});

// Whether the convolution `instr` runs on oneDNN (for tests and benchmarks).
bool ConvolutionUsesOneDnn(const Instruction& instr);

}  // namespace xjit::cpu
