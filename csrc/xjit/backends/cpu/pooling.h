// Pooling-shaped windows on the CPU: a window that is trivial (size 1,
// stride 1, no padding) on every dimension but at most two, with no base
// dilation (2-d pooling in NCHW, NHWC or any other layout; 1-d pooling). The
// base then reads as rows [outer, A, mid, B, inner] and each output row
// (outer, a, mid) folds whole rows of the base, so the inner loops are
// contiguous (inner > 1) or constant-stride (inner == 1) vector loops instead
// of a per-element window walk. Each output still folds its window from the
// init value in row-major window order, padding included (docs/semantics.md).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "xjit/ir/dtype.h"
#include "xjit/ir/opcode.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cpu {

struct PoolingPlan {
  int64_t outer = 1, mid = 1, inner = 1;  // products of the trivial dims
  int64_t base_a = 1, base_b = 1;         // the two windowed dims' base sizes
  int64_t out_a = 1, out_b = 1;           // and their window counts
  int64_t size_a = 1, size_b = 1;         // window sizes
  int64_t stride_b = 1, dilation_b = 1, pad_b = 0;
  // rows_a[oa * size_a + ka]: the base row window element ka of output row
  // oa reads, -1 in padding. valid_b[kb]: the outputs [first, last) along b
  // whose element kb lies inside the base.
  std::vector<int64_t> rows_a;
  std::vector<std::pair<int64_t, int64_t>> valid_b;

  int64_t rows() const { return outer * out_a * mid; }      // output rows
  int64_t row_len() const { return out_b * inner; }          // outputs per row
  int64_t base_row_len() const { return base_b * inner; }    // base elements per row
  // The base offset of row `ra` (of A) for output row `r`.
  int64_t BaseRow(int64_t r, int64_t ra) const {
    const int64_t m = r % mid, o = r / mid / out_a;
    return ((o * base_a + ra) * mid + m) * base_row_len();
  }
  int64_t OutputRow(int64_t r) const { return r / mid % out_a; }
  // The base offset (within a row) of window element kb of output ob.
  int64_t ColumnOffset(int64_t ob, int64_t kb) const {
    return (ob * stride_b + kb * dilation_b - pad_b) * inner;
  }
};

// The plan of a window over `base`, or nullopt when it is not pooling-shaped.
std::optional<PoolingPlan> MakePoolingPlan(const std::vector<int64_t>& base,
                                           const std::vector<WindowDimension>& window);

// reduce_window with body `op` (add, multiply, maximum, minimum) on
// in/init/out of type `t`; nullptr when there is no typed kernel for them.
using PoolingReduceFn = void (*)(const PoolingPlan&, const void* in, const void* init,
                                 void* out);
PoolingReduceFn PoolingReduceFor(Opcode op, DType t);

// select_and_scatter's selection: chosen[s] = the base offset of the element
// of window s that `select` (one compare `direction` of (chosen, candidate))
// keeps, -1 when the window lies in padding only.
using PoolingSelectFn = void (*)(const PoolingPlan&, const void* operand, int64_t* chosen);
PoolingSelectFn PoolingSelectFor(ComparisonDirection direction, DType t);

}  // namespace xjit::cpu
