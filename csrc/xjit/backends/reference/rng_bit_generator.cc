// rng_bit_generator on the reference backend: every block in order.
#include "xjit/backends/common/rng_bit_generator.h"
#include "xjit/backends/reference/ops.h"

namespace xjit::reference {

absl::StatusOr<std::vector<Literal>> EvalRngBitGenerator(const Literal& state,
                                                         const Shape& output_shape,
                                                         RngAlgorithm algorithm) {
  absl::StatusOr<rng::RngPlan> plan = rng::MakeRngPlan(algorithm, state.shape(), output_shape);
  if (!plan.ok()) return plan.status();
  const std::array<uint64_t, 3> words = rng::ReadState(*plan, state.data());
  Literal next(state.shape());
  rng::WriteNextState(*plan, words, next.mutable_data());
  Literal output(output_shape);
  rng::GenerateBlocks(*plan, words, 0, plan->num_blocks, output.mutable_data());
  std::vector<Literal> results;
  results.push_back(std::move(next));
  results.push_back(std::move(output));
  return results;
}

}  // namespace xjit::reference
