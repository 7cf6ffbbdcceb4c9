// Reads a broadcast_in_dim's result in flat (row-major) order straight from
// its operand, a range at a time: how a fused element-wise loop reads a
// broadcast operand (a row or column vector spread over a matrix) without the
// broadcast ever being written out.
#pragma once

#include <cstdint>
#include <vector>

#include "xjit/ir/graph.h"

namespace xjit::cpu {

class BroadcastReader {
 public:
  // `broadcast` is a broadcast_in_dim instruction (non-tuple).
  explicit BroadcastReader(const Instruction& broadcast);
  // Writes result elements [begin, begin + count) to `out` (element 0 of
  // `out` is element `begin`).
  void Read(const void* operand, void* out, int64_t begin, int64_t count) const;

  // Whether every row of `row_size` result elements (a row starts at a
  // multiple of row_size) is a contiguous run of the operand: a row fusion's
  // kernels then read row r in place at RowOffset(r) (x[:, None, :] spread
  // over [n, m, k] rows of k).
  bool RowsContiguous(int64_t row_size) const;
  // The operand elements where rows first_row, first_row + 1, ... start,
  // one Next() a row (RowsContiguous(row_size)): one division per dim for
  // the first row, then additions.
  class RowCursor {
   public:
    RowCursor(const BroadcastReader& reader, int64_t first_row, int64_t row_size);
    int64_t offset() const { return offset_; }
    // Inline: called once a row, for rows of a few dozen elements too.
    void Next() {
      // The innermost merged dim holds whole rows (stride 1): step it by a
      // row, carrying into the outer dims as an odometer.
      const int64_t last = static_cast<int64_t>(r_.dims_.size()) - 1;
      offset_ += row_size_;
      idx_[last] += row_size_;
      for (int64_t d = last; d > 0 && idx_[d] == r_.dims_[d]; --d) {
        offset_ += r_.strides_[d - 1] - r_.dims_[d] * r_.strides_[d];
        idx_[d] = 0;
        ++idx_[d - 1];
      }
    }

   private:
    const BroadcastReader& r_;
    int64_t row_size_, offset_ = 0;
    int64_t idx_[8] = {};  // merged dims beyond 8 are not made by any rank we carry
  };
  // Whether RowCursor can walk this reader (at most 8 merged dims).
  bool CursorFits() const { return dims_.size() <= 8; }
  // offsets[t] = the operand element where row first_row + t starts, for t <
  // rows (RowsContiguous(row_size)): runs of rows along the innermost row dim
  // in a tight loop, an odometer step between runs.
  void RowOffsets(int64_t row_size, int64_t first_row, int64_t rows, int64_t* offsets) const;

 private:
  template <typename T>
  void ReadTyped(const T* operand, T* out, int64_t begin, int64_t count) const;

  // The result's dims after merging neighbours that step through the operand
  // alike, and the operand's element stride along each (0: broadcast).
  std::vector<int64_t> dims_, strides_;
  int64_t width_;
};

}  // namespace xjit::cpu
