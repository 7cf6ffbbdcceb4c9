// Graph rewriting by cloning: the graph is append-only, so a transform or a
// pass copies a computation into a ComputationBuilder, instruction by
// instruction in SSA order, keeping a map from each old instruction to its
// new value. A hook sees every instruction (with its operands already
// mapped) and may clone it as is, leave it out, or replace it by another
// value it builds. Every new instruction goes through ComputationBuilder::Add,
// so shapes are re-inferred and ModuleBuilder::Build verifies the result.
//
// Lives in builder/, not ir/: it builds through the ComputationBuilder, and
// ir/ must not include the layer above it. Users and walks are in ir/users.h
// and ir/walk.h.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/builder/builder.h"
#include "xjit/ir/graph.h"

namespace xjit {

// Old instruction -> its value in the computation being built.
using ValueMap = absl::flat_hash_map<const Instruction*, Instruction*>;

// What a clone hook decides for one instruction.
class CloneAction {
 public:
  enum class Kind { kClone, kSkip, kReplace };
  // Copy the instruction onto the mapped operands (the default).
  static CloneAction Clone() { return CloneAction(Kind::kClone, nullptr); }
  // Leave it out: using it later (as an operand or a result) is an error.
  static CloneAction Skip() { return CloneAction(Kind::kSkip, nullptr); }
  // Use `value`, an instruction of the computation being built, instead.
  static CloneAction Replace(Instruction* value) { return CloneAction(Kind::kReplace, value); }

  Kind kind() const { return kind_; }
  Instruction* replacement() const { return replacement_; }

 private:
  CloneAction(Kind kind, Instruction* replacement) : kind_(kind), replacement_(replacement) {}
  Kind kind_;
  Instruction* replacement_;
};

class Cloner;

// What a hook is shown: the old instruction and the computation it is in,
// its operands mapped into `builder` (null where an operand was skipped),
// the builder to append replacements with, the cloner (to clone or inline
// other computations from inside the hook), and the value map so far (the
// new value of any earlier instruction of `source`).
struct CloneContext {
  const Instruction& old;
  const Computation& source;
  absl::Span<Instruction* const> operands;
  ComputationBuilder& builder;
  Cloner& cloner;
  const ValueMap& map;
};
using CloneHook = std::function<absl::StatusOr<CloneAction>(const CloneContext&)>;

// What happens to the computations a cloned instruction calls (reduce
// bodies, call targets).
enum class CalleePolicy {
  // Cloned into the target module (through the hook), once each.
  kClone,
  // Kept as they are: only for a target module that already holds them, as
  // when a transform clones a computation of the module being traced.
  kShare,
};

struct CloneOptions {
  CloneHook hook;  // empty: clone every instruction as is
  CalleePolicy callees = CalleePolicy::kClone;
};

class Cloner {
 public:
  // Clones into computations of `target`'s module; `target` must outlive it.
  explicit Cloner(ModuleBuilder& target, CloneOptions options = {});

  // Clones the instructions of `source` into `builder` (a builder of the
  // target module), in SSA order. Instructions already in `map` are not
  // cloned: bind `source`'s parameters to values of `builder` there to
  // inline a body; unbound parameters become new parameters of `builder`.
  // Every cloned or replaced instruction is added to `map`. Returns the
  // mapped results of `source`; `builder` is left unfinished.
  absl::StatusOr<std::vector<Instruction*>> CloneBody(const Computation& source,
                                                      ComputationBuilder& builder, ValueMap& map);

  // Clones `source` into a new finished computation of the target module,
  // with the same name. Memoised: cloning it again returns the same one.
  absl::StatusOr<Computation*> CloneComputation(const Computation& source);

  // Makes `source` clone as `clone` (a computation of the target module):
  // instructions calling `source` then call `clone`.
  void MapComputation(const Computation& source, Computation* clone) {
    computations_[&source] = clone;
  }

  // Appends a copy of `old` onto `operands` (values of `builder`), its
  // called computations cloned or shared as the options say: what
  // CloneAction::Clone() does, for a hook that needs the new instruction.
  absl::StatusOr<Instruction*> CloneInstruction(const Instruction& old,
                                                std::vector<Instruction*> operands,
                                                ComputationBuilder& builder);

  const CloneOptions& options() const { return options_; }
  // The module being built: a rule that adds computations (a reduce body).
  ModuleBuilder& target() { return target_; }

 private:

  ModuleBuilder& target_;
  CloneOptions options_;
  absl::flat_hash_map<const Computation*, Computation*> computations_;
  absl::flat_hash_set<const Computation*> in_progress_;  // guards against call cycles
};

// A copy of `module` made through `options` (a deep copy by default): the
// computations reachable from the entry, each called computation cloned once.
// The copy is verified.
absl::StatusOr<std::unique_ptr<Module>> CloneModule(const Module& module,
                                                    const CloneOptions& options = {});

}  // namespace xjit
