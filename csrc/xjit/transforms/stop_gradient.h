// lax.stop_gradient in the graph. StableHLO has no such op, and a new
// opcode would have to be compiled by every backend for an identity, so
// stop_gradient is a `call` of an identity computation whose name starts
// with kStopGradientPrefix: backends inline it away like any call, the JVP
// rule of call gives it a zero tangent, and batching keeps the marker.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/emitter.h"

namespace xjit::transforms {

inline constexpr absl::string_view kStopGradientPrefix = "xjit_stop_gradient";

// Whether `c` is a stop_gradient marker: an identity of one value so named.
bool IsStopGradient(const Computation& c);

// stop_gradient(x) appended through `e` (a new marker computation in its module).
ValueOr StopGradient(Emitter& e, Value x);

}  // namespace xjit::transforms
