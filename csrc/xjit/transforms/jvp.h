// Forward-mode differentiation as a graph -> graph transform.
//
// Jvp(f) builds a computation (primals..., tangents...) -> (results...,
// result tangents...): the original instructions are cloned and, next to
// each, its JVP rule (jvp_rules.cc, one per op) appends the instructions
// computing its tangent from its operands' tangents. A value no tangent
// reaches is a symbolic zero: nothing is built for it. Integer and boolean
// values never carry tangents. Calls and fusions are inlined (their bodies
// differentiated in place), so the tangent part of the result is one flat
// graph that transpose.h can split and transpose.
#pragma once

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/graph.h"
#include "xjit/transforms/jvp_rules.h"

namespace xjit::transforms {

struct JvpResult {
  // (params of f..., one tangent per param with wants_tangent) ->
  // (results of f..., one tangent per result with result_has_tangent).
  Computation* computation = nullptr;
  // Results of a float or complex type get a tangent (zeros when none reaches them).
  std::vector<bool> result_has_tangent;
  // for_vjp only: the primal values made inside checkpoints, with their policy.
  RematMap remat;
};

// `wants_tangent` has one flag per parameter of `fn`; a flagged parameter
// must have a float or complex element type. The new computation, named
// `name`, is built in `target`, which must be the module `fn` lives in (its
// called computations are shared, not copied).
// `for_vjp`: the JVP is for Vjp (transpose.h): custom_vjp calls become
// their linearisation, and checkpointed values are recorded.
absl::StatusOr<JvpResult> Jvp(const Computation& fn, const std::vector<bool>& wants_tangent,
                              ModuleBuilder& target, const std::string& name,
                              bool for_vjp = false);

}  // namespace xjit::transforms
