// A ReLU that oneDNN applies as a post-op, as the graph's maximum(x, +0)
// computes it: NaN stays NaN, negatives and -0 become +0. oneDNN's relu and
// clip post-ops (and binary max) compute max with vmaxps, which turns NaN
// into 0; elu with alpha 0 keeps NaN (its select is on x > 0) and gives -0
// for negatives, and a following linear(1, 0) adds +0, which makes it +0.
// Whether a kernel's post-op code keeps that promise is checked once per
// kernel name by running it on NaN and infinities (ProbeNanKeepingRelu).
#pragma once

#include <string>

#include "dnnl.hpp"

namespace xjit::cpu {

// Appends the two post-ops computing the graph's ReLU.
void AppendNanKeepingRelu(dnnl::post_ops& post_ops);

// One primitive of a probe: the primitive and the scratchpad it asks for.
struct ProbePrimitive {
  dnnl::primitive primitive;
  dnnl::memory::desc scratchpad;
};

// Whether `fused` (with AppendNanKeepingRelu's post-ops) computes exactly
// ReLU of what `plain` (the same memory descs, no post-ops) computes: both
// run once on activations of -1 with a NaN and infinities, weights of 1 and
// a zero bias (`bias` empty when there is none). The answer is kept per
// kernel name `impl`; false without running when the buffers would be large.
bool ProbeNanKeepingRelu(const std::string& impl, const ProbePrimitive& fused,
                         const ProbePrimitive& plain, const dnnl::memory::desc& src,
                         const dnnl::memory::desc& weights, const dnnl::memory::desc& bias,
                         const dnnl::memory::desc& dst);

}  // namespace xjit::cpu
