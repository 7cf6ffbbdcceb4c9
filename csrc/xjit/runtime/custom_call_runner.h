// A custom_call made ready at compile time: its target found, its backend
// config and layouts read. Both backends run it on row-major host buffers;
// operands and results whose declared layout is another (LAPACK's
// column-major) are converted on the way in and out.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/ir/graph.h"
#include "xjit/runtime/custom_call_registry.h"

namespace xjit {

class CustomCallRunner {
 public:
  // Fails, naming the target, when no target of that name is registered.
  static absl::StatusOr<CustomCallRunner> Create(const Instruction& instr);

  // `operands` and `results`: one row-major host address per operand and
  // result (array results in the declared order).
  absl::Status Run(absl::Span<const void* const> operands, absl::Span<void* const> results) const;

  const std::vector<Shape>& result_shapes() const { return result_shapes_; }
  bool has_side_effect() const { return has_side_effect_; }

 private:
  std::string name_;
  std::shared_ptr<const CustomCallTarget> target_;
  std::shared_ptr<const CustomCallConfig> config_;
  int64_t api_version_ = 0;
  bool has_side_effect_ = false;
  std::vector<Shape> operand_shapes_, result_shapes_;
  // Major-to-minor order of each value's dimensions; empty when row-major.
  std::vector<std::vector<int64_t>> operand_orders_, result_orders_;
};

}  // namespace xjit
