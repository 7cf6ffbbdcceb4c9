#include "xjit/transforms/stop_gradient.h"

#include "absl/strings/match.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {

bool IsStopGradient(const Computation& c) {
  return absl::StartsWith(c.name(), kStopGradientPrefix) && c.parameters().size() == 1 &&
         c.results().size() == 1 && c.results()[0] == c.parameters()[0];
}

ValueOr StopGradient(Emitter& e, Value x) {
  ComputationBuilder* id = e.module().NewComputation(std::string(kStopGradientPrefix));
  if (id == nullptr) return absl::FailedPreconditionError("stop_gradient: module already built");
  Value p = id->Parameter(x->shape());
  XJIT_TF_ASSIGN_OR_RETURN(Computation * c, id->Finish({p}));
  return e.builder().Add(Opcode::kCall, {x}, {}, {c});
}

}  // namespace xjit::transforms
