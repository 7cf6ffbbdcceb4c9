// A thunk is one step of a compiled CPU program: everything it needs (kernel
// pointers, strides, oneDNN primitives) is decided at compile time, so running
// it only reads the buffer table and calls the kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"

namespace xjit::cpu {

// Buffer slots are small integers; the program fills a table slot -> pointer
// before each run (parameters, results, arena offsets, constants).
using SlotId = int32_t;

// One kernel call with every address resolved: a small loop body flattened
// into a list of these (CpuProgram::FlattenRegion) runs each iteration with no
// thunk dispatch, slot lookup or parallel-for check. The kernel computes
// elements [0, count) (an element-wise kernel's signature).
struct KernelStep {
  using Kernel = void (*)(const void* const* in, const int64_t* strides, void* out,
                          int64_t begin, int64_t end);
  Kernel kernel;
  const void* in[3];
  const int64_t* strides;
  void* out;
  int64_t count;
};

// A step that calls `self->RunStep(in, out)`: a thunk whose work is not an
// element-wise kernel (a dynamic slice, a small product) flattens into one
// of these. The step's `strides` carries the thunk (element-wise kernels
// are the only ones that read it as strides).
template <typename T>
void RunThunkStep(const void* const* in, const int64_t* self, void* out, int64_t, int64_t) {
  reinterpret_cast<const T*>(self)->RunStep(in, out);
}
template <typename T>
KernelStep ThunkStep(const T* self, const void* in0, const void* in1, const void* in2,
                     void* out) {
  return {&RunThunkStep<T>, {in0, in1, in2}, reinterpret_cast<const int64_t*>(self), out, 1};
}

// Thrown by a thunk whose work fails at run time (a custom_call target's
// error); CpuProgram::Run returns the status.
struct ThunkError {
  absl::Status status;
};

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual void Execute(void* const* buffers) const = 0;
  // Appends the kernel calls that Execute(buffers) would make, when it makes
  // only such calls on one thread (small element-wise work, a copy); false
  // (the default) otherwise.
  virtual bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const {
    return false;
  }
};

using ThunkList = std::vector<std::unique_ptr<Thunk>>;

// What a thunk factory may ask of the compiler while it lowers one instruction.
class LoweringContext {
 public:
  virtual ~LoweringContext() = default;
  // Scratch memory that lives only while the thunk being lowered runs.
  virtual SlotId NewScratch(int64_t bytes) = 0;
};

}  // namespace xjit::cpu
