// How every pass applies its rewrite: the module is cloned through a hook
// (builder/rewriter.h) and the clone, verified by ModuleBuilder::Build,
// replaces it. Passes first check cheaply whether they have anything to do,
// so an unchanged module is never copied.
#pragma once

#include "absl/status/status.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

absl::Status RewriteModule(Module& module, const CloneOptions& options);

}  // namespace xjit::passes
