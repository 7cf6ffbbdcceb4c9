// A thunk is one step of a compiled CPU program: everything it needs (kernel
// pointers, strides, oneDNN primitives) is decided at compile time, so running
// it only reads the buffer table and calls the kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace xjit::cpu {

// Buffer slots are small integers; the program fills a table slot -> pointer
// before each run (parameters, results, arena offsets, constants).
using SlotId = int32_t;

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual void Execute(void* const* buffers) const = 0;
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
