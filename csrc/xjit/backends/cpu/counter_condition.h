// A while condition that is one compare of two integer scalars, each a
// parameter of the condition or a constant (a fori_loop's `i < n`, a scan's
// `i < length`): the while thunk evaluates it on the host from the carry's
// buffers instead of running the condition's program every iteration.
#pragma once

#include <optional>

#include "xjit/ir/graph.h"

namespace xjit::cpu {

class CounterCondition {
 public:
  // The condition when it has that form (signed or unsigned integers of up
  // to 32 bits, or signed 64-bit), else nullopt.
  static std::optional<CounterCondition> Match(const Computation& condition);

  // `args`: the condition's arguments (one address per parameter).
  bool Evaluate(const void* const* args) const {
    return Compare(Read(lhs_, args), Read(rhs_, args));
  }

 private:
  struct Side {
    int64_t parameter = -1;  // or -1: the constant
    int64_t constant = 0;
  };
  int64_t Read(const Side& side, const void* const* args) const;
  bool Compare(int64_t a, int64_t b) const;

  Side lhs_, rhs_;
  DType type_ = DType::kS32;
  ComparisonDirection direction_ = ComparisonDirection::kLt;
};

}  // namespace xjit::cpu
