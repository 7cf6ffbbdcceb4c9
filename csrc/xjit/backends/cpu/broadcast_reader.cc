#include "xjit/backends/cpu/broadcast_reader.h"

#include <algorithm>
#include <cstring>

namespace xjit::cpu {
namespace {

template <int kWidth>
struct Bytes {
  unsigned char b[kWidth];
};

}  // namespace

BroadcastReader::BroadcastReader(const Instruction& broadcast) {
  const Shape& result = broadcast.shape();
  const Shape& operand = broadcast.operand(0)->shape();
  const std::vector<int64_t>& bdims =
      broadcast.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  width_ = ByteWidth(result.dtype);
  // The operand's row-major strides, placed at the result dims they map to;
  // a size-1 operand dim is broadcast too.
  std::vector<int64_t> operand_strides(operand.rank(), 1);
  for (int64_t d = operand.rank() - 2; d >= 0; --d) {
    operand_strides[d] = operand_strides[d + 1] * operand.dims[d + 1];
  }
  std::vector<int64_t> strides(result.rank(), 0);
  for (size_t i = 0; i < bdims.size(); ++i) {
    if (operand.dims[i] != 1) strides[bdims[i]] = operand_strides[i];
  }
  for (int64_t d = 0; d < result.rank(); ++d) {
    const int64_t size = result.dims[d];
    if (size == 1) continue;
    // Merge with the previous dim when stepping over this one whole is one
    // step of the previous (both broadcast, or contiguous through both).
    if (!dims_.empty() && strides_.back() == strides[d] * size) {
      dims_.back() *= size;
      strides_.back() = strides[d];
      continue;
    }
    dims_.push_back(size);
    strides_.push_back(strides[d]);
  }
  if (dims_.empty()) {
    dims_.push_back(1);
    strides_.push_back(0);
  }
}

namespace {

// y[j] = src[(phase + j) % period] for j < n: one period element by element,
// then copies of what is written, doubling.
template <typename T>
void FillPeriodic(const T* src, int64_t period, int64_t phase, T* y, int64_t n) {
  int64_t filled = std::min(n, period);
  for (int64_t j = 0; j < filled; ++j) {
    const int64_t k = phase + j;
    y[j] = src[k < period ? k : k - period];
  }
  while (filled < n) {
    const int64_t copy = std::min(filled, n - filled);  // filled is a multiple of period
    std::memcpy(y + filled, y, copy * sizeof(T));
    filled += copy;
  }
}

}  // namespace

template <typename T>
void BroadcastReader::ReadTyped(const T* operand, T* out, int64_t begin, int64_t count) const {
  const int64_t rank = static_cast<int64_t>(dims_.size());
  // The multi-index of `begin` and its operand offset.
  int64_t index[8];
  std::vector<int64_t> big_index;
  int64_t* idx = index;
  if (rank > 8) {
    big_index.resize(rank);
    idx = big_index.data();
  }
  int64_t offset = 0;
  for (int64_t d = rank - 1, rest = begin; d >= 0; --d) {
    idx[d] = rest % dims_[d];
    rest /= dims_[d];
    offset += idx[d] * strides_[d];
  }
  const int64_t inner = dims_[rank - 1], inner_stride = strides_[rank - 1];
  // x[:, None, :] over rows of a few elements: each block of the two inner
  // dims repeats one short run, so it is filled by doubling copies, not a
  // copy a run (3-d points: runs of 3 elements).
  const bool repeats = rank >= 2 && inner_stride == 1 && strides_[rank - 2] == 0 && inner <= 256;
  int64_t done = 0;
  while (repeats && done < count) {
    const int64_t period = inner, block = dims_[rank - 2] * period;
    int64_t at = idx[rank - 2] * period + idx[rank - 1];  // in the block
    const int64_t run = std::min(block - at, count - done);
    FillPeriodic(operand + offset - idx[rank - 1], period, idx[rank - 1], out + done, run);
    done += run;
    at += run;
    offset += at % period - idx[rank - 1];
    idx[rank - 1] = at % period;
    idx[rank - 2] = at / period;
    for (int64_t d = rank - 2; d > 0 && idx[d] == dims_[d]; --d) {
      offset -= dims_[d] * strides_[d];
      idx[d] = 0;
      ++idx[d - 1];
      offset += strides_[d - 1];
    }
  }
  while (done < count) {
    const int64_t run = std::min(inner - idx[rank - 1], count - done);
    T* y = out + done;
    const T* x = operand + offset;
    if (inner_stride == 0) {
      const T v = *x;
      for (int64_t i = 0; i < run; ++i) y[i] = v;
    } else if (inner_stride == 1) {
      std::memcpy(y, x, run * sizeof(T));
    } else {
      for (int64_t i = 0; i < run; ++i) y[i] = x[i * inner_stride];
    }
    done += run;
    // Step the multi-index past the run: the innermost dim wraps to 0.
    offset += run * inner_stride;
    idx[rank - 1] += run;
    for (int64_t d = rank - 1; d > 0 && idx[d] == dims_[d]; --d) {
      offset -= dims_[d] * strides_[d];
      idx[d] = 0;
      ++idx[d - 1];
      offset += strides_[d - 1];
    }
  }
}

bool BroadcastReader::RowsContiguous(int64_t row_size) const {
  return row_size > 0 && CursorFits() && strides_.back() == 1 && dims_.back() % row_size == 0;
}

BroadcastReader::RowCursor::RowCursor(const BroadcastReader& reader, int64_t first_row,
                                      int64_t row_size)
    : r_(reader), row_size_(row_size) {
  for (int64_t d = static_cast<int64_t>(r_.dims_.size()) - 1, rest = first_row * row_size; d >= 0;
       --d) {
    idx_[d] = rest % r_.dims_[d];
    rest /= r_.dims_[d];
    offset_ += idx_[d] * r_.strides_[d];
  }
}

void BroadcastReader::RowOffsets(int64_t row_size, int64_t first_row, int64_t rows,
                                 int64_t* offsets) const {
  // The dims as rows see them: the innermost merged dim holds whole rows (a
  // row a step of row_size); dims of one row drop out.
  int64_t dims[8], strides[8], idx[8] = {};
  int n = 0;
  const size_t last = dims_.size() - 1;
  for (size_t d = 0; d <= last; ++d) {
    const int64_t size = d == last ? dims_[d] / row_size : dims_[d];
    if (size == 1) continue;
    dims[n] = size;
    strides[n++] = d == last ? row_size : strides_[d];
  }
  if (n == 0) {  // one row
    for (int64_t t = 0; t < rows; ++t) offsets[t] = 0;
    return;
  }
  int64_t offset = 0, rest = first_row;
  for (int d = n - 1; d >= 0; --d) {
    idx[d] = rest % dims[d];
    rest /= dims[d];
    offset += idx[d] * strides[d];
  }
  const int64_t inner = dims[n - 1], step = strides[n - 1];
  for (int64_t t = 0; t < rows;) {
    const int64_t run = std::min(rows - t, inner - idx[n - 1]);
    for (int64_t u = 0; u < run; ++u) offsets[t + u] = offset + u * step;
    t += run;
    offset += run * step;
    idx[n - 1] += run;
    for (int d = n - 1; d > 0 && idx[d] == dims[d]; --d) {  // the odometer's carry
      offset += strides[d - 1] - dims[d] * strides[d];
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
}

void BroadcastReader::Read(const void* operand, void* out, int64_t begin, int64_t count) const {
  switch (width_) {
    case 1: return ReadTyped(static_cast<const Bytes<1>*>(operand), static_cast<Bytes<1>*>(out), begin, count);
    case 2: return ReadTyped(static_cast<const uint16_t*>(operand), static_cast<uint16_t*>(out), begin, count);
    case 4: return ReadTyped(static_cast<const uint32_t*>(operand), static_cast<uint32_t*>(out), begin, count);
    case 8: return ReadTyped(static_cast<const uint64_t*>(operand), static_cast<uint64_t*>(out), begin, count);
    case 16: return ReadTyped(static_cast<const Bytes<16>*>(operand), static_cast<Bytes<16>*>(out), begin, count);
    default: break;
  }
  // Any other width, byte by byte through memcpy (not reached by today's dtypes).
  for (int64_t i = 0; i < count; ++i) {
    int64_t flat = begin + i, offset = 0;
    for (int64_t d = static_cast<int64_t>(dims_.size()) - 1; d >= 0; --d) {
      offset += (flat % dims_[d]) * strides_[d];
      flat /= dims_[d];
    }
    std::memcpy(static_cast<unsigned char*>(out) + i * width_,
                static_cast<const unsigned char*>(operand) + offset * width_, width_);
  }
}

}  // namespace xjit::cpu
