#include "xjit/backends/cpu/rng_bit_generator.h"

#include "xjit/backends/common/rng_bit_generator.h"
#include "xjit/backends/cpu/parallel.h"

namespace xjit::cpu {
namespace {

class RngBitGeneratorThunk : public Thunk {
 public:
  RngBitGeneratorThunk(rng::RngPlan plan, SlotId state, SlotId next_state, SlotId output)
      : plan_(plan), state_(state), next_state_(next_state), output_(output) {}

  void Execute(void* const* buffers) const override {
    // Read the state before writing the next one: the two may share memory.
    const std::array<uint64_t, 3> words = rng::ReadState(plan_, buffers[state_]);
    void* out = buffers[output_];
    // A block costs about 40 (philox) to 100 (threefry) simple operations.
    ParallelFor(plan_.num_blocks, 4096, plan_.num_blocks * 64, [&](int64_t b, int64_t e) {
      rng::GenerateBlocks(plan_, words, b, e, out);
    });
    rng::WriteNextState(plan_, words, buffers[next_state_]);
  }

 private:
  rng::RngPlan plan_;
  SlotId state_, next_state_, output_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeRngBitGeneratorThunk(const Instruction& instr,
                                                                SlotId state, SlotId next_state,
                                                                SlotId output) {
  if (!instr.shape().is_tuple || instr.shape().tuple_shapes.size() != 2) {
    return absl::InvalidArgumentError("rng_bit_generator: needs an (output_state, output) result");
  }
  absl::StatusOr<rng::RngPlan> plan =
      rng::MakeRngPlan(instr.attrs<RngBitGeneratorAttrs>().rng_algorithm,
                       instr.operand(0)->shape(), instr.shape().tuple_shapes[1]);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<Thunk>(
      std::make_unique<RngBitGeneratorThunk>(*plan, state, next_state, output));
}

}  // namespace xjit::cpu
