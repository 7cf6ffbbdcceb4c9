#include "xjit/backends/cpu/strided_copy.h"

#include <cstring>
#include <optional>

#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/transpose_tiles.h"
#include "xjit/ir/checked_math.h"

namespace xjit::cpu {
namespace {

// Fixed-size element so the copy loop moves whole elements, not bytes.
template <int kBytes> struct Element { unsigned char b[kBytes]; };

// Copies elements [i0, i1) of one innermost run (destination offset d, source
// offset s), with the common stride pairs as loops the compiler vectorises.
template <typename E>
inline void CopyRun(E* dst, const E* src, int64_t d, int64_t s, int64_t ds, int64_t ss, int64_t i0,
                    int64_t i1) {
  if (ds == 1 && ss == 1) {
    std::memcpy(dst + d + i0, src + s + i0, (i1 - i0) * sizeof(E));
  } else if (ds == 1 && ss == 0) {
    for (int64_t i = i0; i < i1; ++i) dst[d + i] = src[s];
  } else if (ds == 1 && ss == -1) {  // reverse
    E* __restrict o = dst + d;
    const E* __restrict r = src + s;
    for (int64_t i = i0; i < i1; ++i) o[i] = r[-i];
  } else {
    for (int64_t i = i0; i < i1; ++i) dst[d + i * ds] = src[s + i * ss];
  }
}

template <typename E>
void CopyRows(const StridedCopy& c, E* dst, const E* src, int64_t row_begin, int64_t row_end,
              int64_t i0, int64_t i1) {
  const int64_t rank = static_cast<int64_t>(c.sizes.size());
  const int64_t ds = c.dst_strides[rank - 1], ss = c.src_strides[rank - 1];
  // Multi-index of the first row, then an odometer over the outer dims.
  std::vector<int64_t> idx(rank, 0);
  int64_t d = c.dst_offset, s = c.src_offset;
  for (int64_t k = rank - 2, r = row_begin; k >= 0; --k) {
    idx[k] = r % c.sizes[k];
    r /= c.sizes[k];
    d += idx[k] * c.dst_strides[k];
    s += idx[k] * c.src_strides[k];
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    CopyRun(dst, src, d, s, ds, ss, i0, i1);
    for (int64_t k = rank - 2; k >= 0; --k) {
      d += c.dst_strides[k];
      s += c.src_strides[k];
      if (++idx[k] < c.sizes[k]) break;
      d -= idx[k] * c.dst_strides[k];
      s -= idx[k] * c.src_strides[k];
      idx[k] = 0;
    }
  }
}

template <typename E>
void CopyTyped(const StridedCopy& c, void* dst, const void* src) {
  const int64_t rank = static_cast<int64_t>(c.sizes.size());
  int64_t rows = 1;
  for (int64_t k = 0; k + 1 < rank; ++k) rows *= c.sizes[k];
  const int64_t inner = c.sizes[rank - 1];
  constexpr int64_t kPiece = 64 * 1024;  // elements
  if (rows < 4 && inner >= 2 * kPiece) {
    // Few long runs (a 1-d reverse or slice): threads split the runs.
    const int64_t pieces = (inner + kPiece - 1) / kPiece;
    ParallelFor(rows * pieces, 1, rows * inner, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t row = t / pieces, i0 = (t % pieces) * kPiece;
        CopyRows<E>(c, static_cast<E*>(dst), static_cast<const E*>(src), row, row + 1, i0,
                    std::min(inner, i0 + kPiece));
      }
    });
    return;
  }
  int64_t grain = std::max<int64_t>(1, (16 * 1024) / std::max<int64_t>(inner, 1));
  ParallelFor(rows, grain, rows * inner, [&](int64_t begin, int64_t end) {
    CopyRows<E>(c, static_cast<E*>(dst), static_cast<const E*>(src), begin, end, 0, inner);
  });
}

}  // namespace

StridedCopy SimplifyStridedCopy(StridedCopy c) {
  StridedCopy out;
  out.elem_bytes = c.elem_bytes;
  out.dst_offset = c.dst_offset;
  out.src_offset = c.src_offset;
  for (size_t k = 0; k < c.sizes.size(); ++k) {
    if (c.sizes[k] == 1) continue;
    if (!out.sizes.empty()) {
      int64_t n = c.sizes[k];
      // Merge into the previous dim when stepping it equals n steps of this one.
      // (Checked: in an empty copy, n times a stride may lie outside any array.)
      std::optional<int64_t> dst_step = CheckedMul(c.dst_strides[k], n);
      std::optional<int64_t> src_step = CheckedMul(c.src_strides[k], n);
      if (dst_step && src_step && out.dst_strides.back() == *dst_step &&
          out.src_strides.back() == *src_step) {
        out.sizes.back() *= n;
        out.dst_strides.back() = c.dst_strides[k];
        out.src_strides.back() = c.src_strides[k];
        continue;
      }
    }
    out.sizes.push_back(c.sizes[k]);
    out.dst_strides.push_back(c.dst_strides[k]);
    out.src_strides.push_back(c.src_strides[k]);
  }
  for (int64_t size : c.sizes) {
    if (size == 0) out.sizes.assign(1, 0);  // empty: nothing to copy
  }
  if (out.sizes.empty()) {  // a single element
    out.sizes = {1};
    out.dst_strides = {1};
    out.src_strides = {1};
  } else if (out.sizes.size() == 1 && out.sizes[0] == 0) {
    out.dst_strides = {1};
    out.src_strides = {1};
  }
  return out;
}

void ParallelCopy(void* dst, const void* src, int64_t bytes) {
  constexpr int64_t kChunk = 256 * 1024;
  if (bytes < 4 * kChunk) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  ParallelFor(bytes, kChunk, bytes / 4, [&](int64_t begin, int64_t end) {
    std::memcpy(static_cast<unsigned char*>(dst) + begin,
                static_cast<const unsigned char*>(src) + begin, static_cast<size_t>(end - begin));
  });
}

void RunStridedCopy(const StridedCopy& c, void* dst, const void* src) {
  if (c.sizes.empty() || c.sizes[0] == 0) return;
  if (RunTransposeTiles(c, dst, src)) return;
  switch (c.elem_bytes) {  // integer elements: the compiler vectorises their loops
    case 1: return CopyTyped<uint8_t>(c, dst, src);
    case 2: return CopyTyped<uint16_t>(c, dst, src);
    case 4: return CopyTyped<uint32_t>(c, dst, src);
    case 8: return CopyTyped<uint64_t>(c, dst, src);
    case 16: return CopyTyped<Element<16>>(c, dst, src);
    default: return;  // every DType has one of the widths above
  }
}

namespace {
template <typename E>
void FillTyped(void* dst, const void* value, int64_t count) {
  E v;
  std::memcpy(&v, value, sizeof(E));
  E* d = static_cast<E*>(dst);
  ParallelFor(count, 64 * 1024, count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) d[i] = v;
  });
}
}  // namespace

void FillElements(void* dst, const void* value, int64_t elem_bytes, int64_t count) {
  switch (elem_bytes) {  // integer elements: the compiler vectorises their stores
    case 1: return FillTyped<uint8_t>(dst, value, count);
    case 2: return FillTyped<uint16_t>(dst, value, count);
    case 4: return FillTyped<uint32_t>(dst, value, count);
    case 8: return FillTyped<uint64_t>(dst, value, count);
    case 16: return FillTyped<Element<16>>(dst, value, count);
    default: return;
  }
}

}  // namespace xjit::cpu
