// A while condition that is one compare of two integer scalars, each a
// parameter of the condition or a constant (a fori_loop's `i < n`, a scan's
// `i < length`): the while thunk evaluates it on the host from the carry's
// buffers instead of running the condition's program every iteration.
#pragma once

#include <cstdint>
#include <optional>

#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

class CounterCondition {
 public:
  // The condition when it has that form (signed or unsigned integers of up
  // to 32 bits, or signed 64-bit), else nullopt.
  static std::optional<CounterCondition> Match(const Computation& condition);

  // `args`: the condition's arguments (one address per parameter). Inline:
  // it runs once per iteration.
  bool Evaluate(const void* const* args) const {
    return CompareBy(direction_, Read(lhs_, args), Read(rhs_, args));
  }

  // An integer scalar of a type Match accepts, as int64_t (they all fit).
  static int64_t Load(DType type, const void* p) {
    switch (type) {
      case DType::kS8: return *static_cast<const int8_t*>(p);
      case DType::kS16: return *static_cast<const int16_t*>(p);
      case DType::kS32: return *static_cast<const int32_t*>(p);
      case DType::kS64: return *static_cast<const int64_t*>(p);
      case DType::kU8: return *static_cast<const uint8_t*>(p);
      case DType::kU16: return *static_cast<const uint16_t*>(p);
      case DType::kU32: return *static_cast<const uint32_t*>(p);
      default: return 0;  // excluded by Match
    }
  }

 private:
  struct Side {
    int64_t parameter = -1;  // or -1: the constant
    int64_t constant = 0;
  };
  int64_t Read(const Side& side, const void* const* args) const {
    return side.parameter < 0 ? side.constant : Load(type_, args[side.parameter]);
  }

  Side lhs_, rhs_;
  DType type_ = DType::kS32;
  ComparisonDirection direction_ = ComparisonDirection::kLt;
};

}  // namespace xjit::cpu
