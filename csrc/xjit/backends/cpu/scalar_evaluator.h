// Runs a region (a reduce body, a sort comparator, a map computation) on scalars, one element at a time. Used for
// reductions whose body is not a single known op, e.g. a variadic argmax of
// compare + select. Each body instruction becomes one call of its element-wise
// kernel on one element; values live in 16-byte cells (wide enough for c128).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

struct alignas(16) ScalarCell { unsigned char bytes[16]; };

class ScalarEvaluator {
 public:
  // Fails for a region holding anything but parameters, constants, element-wise
  // ops, rank-0 reshapes/broadcasts and a final tuple.
  static absl::StatusOr<ScalarEvaluator> Compile(const Computation& region);

  int64_t num_parameters() const { return num_parameters_; }
  int64_t num_results() const { return static_cast<int64_t>(results_.size()); }

  // Per-thread state: cells for every value and their pointer table.
  struct Frame {
    std::vector<ScalarCell> cells;
    std::vector<const void*> values;
  };
  Frame NewFrame() const;

  // params[i] points at parameter i; afterwards Result(frame, j) points at result j.
  void Evaluate(Frame& frame, const void* const* params) const;
  const void* Result(const Frame& frame, int64_t j) const { return frame.values[results_[j]]; }

 private:
  struct Step {
    ElementwiseKernel kernel;
    int32_t inputs[3];
    int32_t num_inputs;
    int32_t output;
    int64_t strides[3];  // 1 per operand, then the op's parameters (reduce_precision's bits)
  };
  int64_t num_parameters_ = 0;
  std::vector<int32_t> parameter_values_;  // value index of each parameter
  std::vector<Step> steps_;
  std::vector<int32_t> results_;           // value index of each result
  std::vector<ScalarCell> initial_cells_;  // constants pre-filled
};

}  // namespace xjit::cpu
