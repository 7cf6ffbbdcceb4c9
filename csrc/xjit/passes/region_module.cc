#include "xjit/passes/region_module.h"

#include "xjit/builder/rewriter.h"

namespace xjit::passes {

absl::StatusOr<std::unique_ptr<Module>> RegionAsModule(const Computation& region) {
  ModuleBuilder mb(region.name());
  Cloner cloner(mb);
  absl::StatusOr<Computation*> entry = cloner.CloneComputation(region);
  if (!entry.ok()) return entry.status();
  return mb.Build(*entry);
}

}  // namespace xjit::passes
