#include "xjit/passes/rewrite_module.h"

#include <memory>
#include <utility>

namespace xjit::passes {

absl::Status RewriteModule(Module& module, const CloneOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> clone = CloneModule(module, options);
  if (!clone.ok()) return clone.status();
  module = std::move(**clone);
  return absl::OkStatus();
}

}  // namespace xjit::passes
