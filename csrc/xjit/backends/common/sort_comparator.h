// Recognising a sort comparator that orders by the first operand alone with
// one compare (ascending for LT, descending for GT), so a backend can sort
// keys with a typed kernel and permute the other operands alongside, instead
// of evaluating the region per comparison.
#pragma once

#include <optional>

#include "xjit/ir/attributes.h"
#include "xjit/ir/graph.h"

namespace xjit::common {

// How the keys (operand 0) are ordered.
enum class SortKeyOrder : uint8_t {
  kPlain,       // compare FLOAT/SIGNED/UNSIGNED of the two parameters: for
                // floats -0.0 == 0.0 and NaN is unordered (a run with NaN needs
                // the general path)
  kTotalOrder,  // compare TOTALORDER: -NaN < -Inf < ... < -0.0 < 0.0 < ... < NaN
  kCanonical,   // JAX's comparator: zeros made +0.0, NaNs made +NaN, then
                // TOTALORDER: -0.0 == 0.0, every NaN equal and last
};

struct SimpleSortComparator {
  SortKeyOrder order = SortKeyOrder::kPlain;
  ComparisonType compare_type = ComparisonType::kNotype;  // of the compare
  bool descending = false;
};

// Set when `sort`'s comparator is `compare(k(p0), k(p1), LT|GT)` (or with the
// parameters swapped) where k is the identity, or JAX's float
// canonicalisation select(x != x, NaN, select(x == 0, 0, x)) under
// TOTALORDER; the other parameters may be ignored. nullopt otherwise, and
// for complex keys.
std::optional<SimpleSortComparator> RecogniseSortComparator(const Instruction& sort);

}  // namespace xjit::common
