// JVP rules that differentiate the region an op applies (region_jvp.cc):
//
// - map: the map is its computation vmapped over the (flattened) elements, so
//   the rule vmaps the computation and differentiates that in place; the
//   tangent part is then made of ordinary transposable ops, and grad works.
// - reduce_window with a body other than one add/max/min (variadic ones
//   included): JAX's reduce_window_jvp. The body's JVP becomes the body of
//   one reduce_window over (operands..., tangents...) that computes both the
//   primal results and their tangents. Like JAX's, it is forward mode only
//   (the new body is not linear in a way the transpose can split) and the
//   init values must have no tangent (JAX's TypeError).
#pragma once

#include "absl/status/statusor.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

absl::StatusOr<JvpOut> MapJvp(JvpContext& ctx);
absl::StatusOr<JvpOut> GeneralReduceWindowJvp(JvpContext& ctx);

}  // namespace xjit::transforms
