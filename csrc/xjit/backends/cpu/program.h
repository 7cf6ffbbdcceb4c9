// A compiled CPU program: a fixed list of thunks over a slot table. Slots are
// parameters and results (bound per run), constants (owned), and
// intermediates, each at a compile-time offset in one arena.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/literal.h"
#include "xjit/runtime/backend.h"

namespace xjit::cpu {

struct Slot {
  enum class Kind { kParameter, kResult, kArena, kConstant };
  Kind kind = Kind::kArena;
  int64_t number = 0;  // parameter or result number; constant index
  int64_t bytes = 0;
  int64_t offset = 0;  // in the arena
};

class CpuProgram : public CompiledProgram {
 public:
  // The arena is allocated here, once; constants are owned by the program.
  // `work` is the compiler's estimate of one run (see work_estimate.h).
  // `reusable`: ResultMayReuseParameter's answers, [result * num_parameters
  // + parameter] (donation.h); empty when no result may reuse a parameter.
  CpuProgram(std::vector<Slot> slots, ThunkList thunks, std::vector<Literal> constants,
             int64_t arena_bytes, int64_t num_parameters, int64_t num_results, int64_t work,
             std::vector<bool> reusable = {});

  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results) override;
  bool PrefersInlineExecution() const override;
  bool ResultMayReuseParameter(int result, int parameter) const override;
  // Run without the argument checks and error handling, for a region run by
  // a thunk of an enclosing program (control_flow.h): `args` and `results`
  // hold one address per parameter and result; exceptions reach the
  // outermost Run.
  void RunRegion(const void* const* args, void* const* results);
  // The kernel calls RunRegion(args, results) makes, when every thunk can
  // list its own (Thunk::AppendSteps); false otherwise. The steps stay valid
  // while these addresses do (the program's arena and constants are its own).
  bool FlattenRegion(const void* const* args, void* const* results,
                     std::vector<KernelStep>* steps);

  int64_t arena_bytes() const { return arena_bytes_; }
  int64_t num_thunks() const { return static_cast<int64_t>(thunks_.size()); }
  int64_t estimated_work() const { return work_; }

 private:
  std::vector<Slot> slots_;
  ThunkList thunks_;
  std::vector<Literal> constants_;
  int64_t arena_bytes_;
  int64_t num_parameters_, num_results_;
  int64_t work_;
  std::vector<bool> reusable_;
  std::unique_ptr<unsigned char[]> arena_storage_;
  // Slot -> address. Arena and constant entries are fixed at construction;
  // Run rebinds parameters and results (Run is never concurrent on one program).
  std::vector<void*> table_;
  std::vector<SlotId> parameter_slots_, result_slots_;
};

}  // namespace xjit::cpu
