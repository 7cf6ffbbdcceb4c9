// argmax / argmin written as a reduce (lax.argmax's lowering): a two-input
// reduce of (values, iota along the one reduced dim) whose body keeps the
// better value and, on a tie, the lower index, a NaN counting as the best.
// The generic reduce evaluates that body once per element (about 20 ns); this
// thunk finds each output's first best element with vector scans instead.
//
// The body is not matched op by op: it must be built only from compares of
// the two values (or the two indices), boolean logic and selects that return
// a parameter, so each result is a choice between parameters that depends on
// nothing but the order classes of (value, value) and (index, index). Run on
// one representative of every class, it must choose exactly as argmax (or
// argmin) does; then it does so on every input.
#pragma once

#include <memory>
#include <vector>

#include "xjit/backends/cpu/thunk.h"
#include "xjit/ir/graph.h"

namespace xjit::cpu {

// The thunk, or null when `reduce` is not such an argmax or argmin.
std::unique_ptr<Thunk> MakeArgReduceThunk(const Instruction& reduce, const std::vector<SlotId>& in,
                                          const std::vector<SlotId>& out);

}  // namespace xjit::cpu
