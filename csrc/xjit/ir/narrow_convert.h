// The conversions kernels run natively on narrow types (ir/dtype.h):
//   small float <-> f32, and f64 -> small float (rounded once from f64, as
//   XLA does, except f8E8M0FNU, which XLA takes through f32);
//   sub-byte integer <-> its compute type (s8/u8): sign- or zero-extension
//   of the code one way, keeping the low bits (wrap-around) the other.
// passes/narrow_type_expansion builds every other conversion from these, so
// both backends share this one definition.
#pragma once

#include <cstdint>

#include "xjit/ir/dtype.h"

namespace xjit {

bool IsDirectNarrowConvert(DType from, DType to);

// The storage byte of a narrow element from any byte whose low BitWidth(t)
// bits are its code (the bits above are dropped).
uint8_t NarrowStorageOfCode(DType t, uint8_t code);

// out[i] = convert(in[i]) for n elements of storage, for a pair
// IsDirectNarrowConvert accepts.
void ConvertNarrowElements(DType from, DType to, const void* in, void* out, int64_t n);

}  // namespace xjit
