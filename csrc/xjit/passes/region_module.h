// A region of an op (a while body, an if branch) as a module of its own,
// whose entry it is, so a backend can optimise and compile it like any
// entry computation (the cpu backend compiles each region of while/if/case
// into its own program).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

// A verified deep copy of `region` and the computations it calls.
absl::StatusOr<std::unique_ptr<Module>> RegionAsModule(const Computation& region);

}  // namespace xjit::passes
