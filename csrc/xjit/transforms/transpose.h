// Reverse mode as linearize + transpose, graph -> graph.
//
// Vjp(f) first builds f's JVP (jvp.h), then splits it by partial
// evaluation: an instruction is linear when it depends on a tangent, primal
// otherwise. The primal instructions form the forward computation, which
// returns f's results and the residuals (primal values the linear part
// reads); constants and iotas (and broadcasts/reshapes/converts of them) are
// rebuilt in the backward computation instead of being saved. The linear
// instructions are walked in reverse, each op's transpose rule
// (transpose_rules.cc) turning the cotangent of its result into cotangents
// of its linear operands, summed where a value is used several times.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/graph.h"

namespace xjit::transforms {

struct VjpResult {
  // (params of f...) -> (results of f..., residuals...)
  Computation* forward = nullptr;
  // (residuals..., one cotangent per result with result_has_cotangent) ->
  // (one cotangent per param with wants_cotangent)
  Computation* backward = nullptr;
  int64_t num_residuals = 0;
  std::vector<bool> result_has_cotangent;  // float and complex results
};

// `wants_cotangent`: one flag per parameter of `fn` (float or complex ones
// only). The computations are built in `target`, the module of `fn`, named
// `name`_fwd and `name`_bwd.
absl::StatusOr<VjpResult> Vjp(const Computation& fn, const std::vector<bool>& wants_cotangent,
                              ModuleBuilder& target, const std::string& name);

}  // namespace xjit::transforms
