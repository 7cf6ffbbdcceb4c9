// The thunk of a typed reduction kernel decided at compile time: it calls
// kernel(plan, input, init value, output) with the plan the kernel walks
// (reduce's geometry, a pooling plan).
#pragma once

#include <utility>

#include "xjit/backends/cpu/thunk.h"

namespace xjit::cpu {

template <typename Plan>
class TypedReductionThunk : public Thunk {
 public:
  using Kernel = void (*)(const Plan&, const void*, const void*, void*);
  TypedReductionThunk(Kernel kernel, Plan plan, SlotId in, SlotId init, SlotId out)
      : kernel_(kernel), plan_(std::move(plan)), in_(in), init_(init), out_(out) {}
  void Execute(void* const* buffers) const override {
    kernel_(plan_, buffers[in_], buffers[init_], buffers[out_]);
  }

 private:
  Kernel kernel_;
  Plan plan_;
  SlotId in_, init_, out_;
};

}  // namespace xjit::cpu
