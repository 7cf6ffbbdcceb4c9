// Element-wise fusion: each cluster of element-wise ops of one element count
// in the entry computation becomes one `fusion` instruction whose region holds
// the cluster, so a backend runs it as one pass over the elements and the
// values used only inside the cluster never reach memory. This is XLA's loop
// fusion (the fusion instruction) or MLX's compiled primitive.
//
// A cluster grows along the schedule (the instruction order): an element-wise
// op joins the open cluster of its element count; a reshape of a cluster value,
// or a bitcast_convert of one between types of one width, joins that cluster
// (it moves no element: an alias); any other instruction that
// uses a cluster value closes the cluster, which is then emitted just before
// it. Instructions that use no value of a cluster are kept before the fusion,
// so the new graph stays in SSA order. A broadcast_in_dim of one element
// feeding a cluster is copied into the region (backends read it in place,
// with stride 0: the "deferred splat"); the original stays outside only if
// something outside uses it. A region returns the cluster values used outside
// it (a tuple when there are several); aliases of them used outside are
// re-applied outside.
//
// A cluster becomes a fusion when it holds at least two element-wise ops, or
// one that reads a broadcast of one element; otherwise its ops stay as they are.
//
// Row fusion (XLA's reduction input/epilogue fusion, for softmax, layer norm,
// log-sum-exp), when the options allow it: a reduce of a cluster value over
// its trailing dims (rows x row_size) joins the cluster, which becomes a row
// cluster; element-wise ops of its per-row results join it too, and so do
// broadcast_in_dims that spread a per-row value back over its row
// (ir/row_geometry.h). A backend then runs the region a block of whole rows at a
// time, so a row is read from memory once. A reduce of a value from outside
// also joins an open row cluster whose reduces read that value with the same
// rows (XLA's multi-output fusion of sibling reductions: x.sum(1), x.max(1)
// read x once). A row cluster fuses when it holds a reduce and an element-wise
// op, or two reduces.
//
// Column fusion (XLA's column reduction input fusion: (x * x).sum(axis=0),
// the variance of each column), when the options allow it: a reduce of a
// cluster value over its leading dims joins the cluster computing it, which
// then holds no row reduce; its result (one value per column) is returned,
// and what is computed from it stays outside. A backend then reduces the
// rows as the producers compute them, and the producers' values never reach
// memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/graph.h"

namespace xjit::passes {

struct FusionOptions {
  // Whether a reduce (one input, a body ir/reduce_body.h recognises, its
  // trailing dims reduced) may join a row cluster: the backend's say on its
  // element type. Empty: no row fusion.
  std::function<bool(const Instruction& reduce)> row_reduce;
  // Rows longer than this (elements) are not fused: a block of rows must fit
  // the backend's scratch.
  int64_t max_row_size = 16384;
  // Whether a reduce of a cluster value's leading dims (rows x columns) may
  // join its cluster (a column fusion). Empty: no column fusion.
  std::function<bool(const Instruction& reduce)> column_reduce;
};

// A copy of `module` whose entry computation has its element-wise clusters
// fused; other computations (reduce bodies) are copied unchanged. Dead
// instructions of the entry are dropped (not those with side effects). The
// result is verified. Run after call inlining (pipeline.h): the ops of a callee are not fused.
absl::StatusOr<std::unique_ptr<Module>> FuseElementwise(const Module& module,
                                                        const FusionOptions& options = {});

// The same, replacing `module`, but only when a cluster fuses (no copy
// otherwise, and then dead code is left to dead-code elimination); true when
// a fusion instruction was made.
absl::StatusOr<bool> RunElementwiseFusion(Module& module, const FusionOptions& options = {});

// FuseElementwise, or null when no cluster fuses (no copy).
absl::StatusOr<std::unique_ptr<Module>> FuseElementwiseIfChanged(const Module& module,
                                                                  const FusionOptions& options);

}  // namespace xjit::passes
