#include "xjit/backends/cpu/transpose_tiles.h"

#include <algorithm>
#include <cstring>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"

namespace xjit::cpu {
namespace {

// GCC vector types of one cache line: the shuffles below become vpunpck/
// vpermt2 instructions on zmm registers in the AVX-512 clone (two ymm or four
// xmm halves in the others).
using V16x32 = uint32_t __attribute__((vector_size(64)));
using V8x64 = uint64_t __attribute__((vector_size(64)));

// The last two steps of both tiles: four vectors X, Y, Z, W whose 16-byte
// lanes L hold column `L * per_lane + m` of consecutive row groups, regrouped
// so that each result holds one column: out[0] its lanes 0, out[1] lanes 1...
template <typename V, typename Mask>
__attribute__((always_inline)) inline void RegroupLanes(V x, V y, V z, V w, const Mask& lo,
                                                        const Mask& hi, const Mask& lo2,
                                                        const Mask& hi2, V out[4]) {
  const V p = __builtin_shuffle(x, y, lo), q = __builtin_shuffle(x, y, hi);
  const V r = __builtin_shuffle(z, w, lo), s = __builtin_shuffle(z, w, hi);
  out[0] = __builtin_shuffle(p, r, lo2);
  out[2] = __builtin_shuffle(p, r, hi2);
  out[1] = __builtin_shuffle(q, s, lo2);
  out[3] = __builtin_shuffle(q, s, hi2);
}

// dst[k * ds + i] = src[i * ss + k] for i, k < 16: sixteen whole lines read,
// sixteen written, nothing left in cache for a later tile (with power-of-two
// strides the lines of a column of tiles share a few cache sets). Always
// inlined: compiled into each ISA clone of Band.
__attribute__((always_inline)) inline void Tile(const uint32_t* src, int64_t ss, uint32_t* dst,
                                                int64_t ds) {
  V16x32 r[16], t[16], u[16];
  for (int i = 0; i < 16; ++i) std::memcpy(&r[i], src + i * ss, sizeof(V16x32));
  // 32-bit interleave of row pairs, then 64-bit of pair pairs: u[4g + m]'s
  // lane L holds column 4L + m of rows 4g..4g+3.
  for (int i = 0; i < 16; i += 2) {
    t[i] = __builtin_shuffle(r[i], r[i + 1],
                             V16x32{0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29});
    t[i + 1] = __builtin_shuffle(r[i], r[i + 1],
                                 V16x32{2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31});
  }
  const V16x32 even{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29};
  const V16x32 odd{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31};
  for (int i = 0; i < 16; i += 4) {
    u[i] = __builtin_shuffle(t[i], t[i + 2], even);
    u[i + 1] = __builtin_shuffle(t[i], t[i + 2], odd);
    u[i + 2] = __builtin_shuffle(t[i + 1], t[i + 3], even);
    u[i + 3] = __builtin_shuffle(t[i + 1], t[i + 3], odd);
  }
  const V16x32 lo{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27};
  const V16x32 hi{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31};
  const V16x32 lo2{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
  const V16x32 hi2{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31};
  for (int m = 0; m < 4; ++m) {
    V16x32 col[4];
    RegroupLanes(u[m], u[4 + m], u[8 + m], u[12 + m], lo, hi, lo2, hi2, col);
    for (int l = 0; l < 4; ++l) std::memcpy(dst + (4 * l + m) * ds, &col[l], sizeof(V16x32));
  }
}

// The same for 8x8 tiles of 8-byte elements: t[2h + m]'s lane L holds
// column 2L + m of rows 2h, 2h + 1.
__attribute__((always_inline)) inline void Tile(const uint64_t* src, int64_t ss, uint64_t* dst,
                                                int64_t ds) {
  V8x64 r[8], t[8];
  for (int i = 0; i < 8; ++i) std::memcpy(&r[i], src + i * ss, sizeof(V8x64));
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shuffle(r[i], r[i + 1], V8x64{0, 8, 2, 10, 4, 12, 6, 14});
    t[i + 1] = __builtin_shuffle(r[i], r[i + 1], V8x64{1, 9, 3, 11, 5, 13, 7, 15});
  }
  const V8x64 lo{0, 1, 8, 9, 4, 5, 12, 13}, hi{2, 3, 10, 11, 6, 7, 14, 15};
  const V8x64 lo2{0, 1, 2, 3, 8, 9, 10, 11}, hi2{4, 5, 6, 7, 12, 13, 14, 15};
  for (int m = 0; m < 2; ++m) {
    V8x64 col[4];
    RegroupLanes(t[m], t[2 + m], t[4 + m], t[6 + m], lo, hi, lo2, hi2, col);
    for (int l = 0; l < 4; ++l) std::memcpy(dst + (2 * l + m) * ds, &col[l], sizeof(V8x64));
  }
}

// One band: destination columns [i0, i0 + rows) (one line's worth at most)
// of every one of the `ks` destination rows, whole tiles first, the ragged
// edges element by element.
template <typename E>
XJIT_ISA_CLONES void Band(const E* __restrict src, int64_t ss, E* __restrict dst, int64_t ds,
                          int64_t rows, int64_t ks) {
  constexpr int64_t kTile = 64 / sizeof(E);
  const int64_t full_k = ks - ks % kTile, full_i = rows - rows % kTile;
  for (int64_t k = 0; k < full_k; k += kTile) {
    for (int64_t i = 0; i < full_i; i += kTile) Tile(src + i * ss + k, ss, dst + k * ds + i, ds);
    for (int64_t i = full_i; i < rows; ++i) {
      for (int64_t kk = k; kk < k + kTile; ++kk) dst[kk * ds + i] = src[i * ss + kk];
    }
  }
  for (int64_t k = full_k; k < ks; ++k) {
    for (int64_t i = 0; i < rows; ++i) dst[k * ds + i] = src[i * ss + k];
  }
}

template <typename E>
void Transpose(const StridedCopy& c, int64_t kdim, E* dst, const E* src) {
  const int64_t rank = static_cast<int64_t>(c.sizes.size());
  const int64_t last = rank - 1;
  const int64_t n_i = c.sizes[last], ss = c.src_strides[last];
  const int64_t n_k = c.sizes[kdim], ds = c.dst_strides[kdim];
  // The other dims, outermost first.
  std::vector<int64_t> outer;
  int64_t n_outer = 1;
  for (int64_t d = 0; d < last; ++d) {
    if (d == kdim) continue;
    outer.push_back(d);
    n_outer *= c.sizes[d];
  }
  constexpr int64_t kBand = 64 / sizeof(E);
  // Destination rows of 2 KiB or more are written a band of whole rows at a
  // time, reading a cache line from each of n_i source rows; shorter ones a
  // band of columns at a time, reading kBand whole source rows. Measured on
  // the 2-core Zen 5 (f32): 2048^2 1090 -> 630 us, [32, 1024, 64] ->
  // [32, 64, 1024] 374 -> 179 us by rows; [32, 64, 1024] -> [32, 1024, 64]
  // 137 us by columns, 319 by rows.
  const bool by_rows = n_i * static_cast<int64_t>(sizeof(E)) >= 2048;
  const int64_t across = by_rows ? n_k : n_i;  // what the bands split
  const int64_t bands = (across + kBand - 1) / kBand;
  ParallelFor(n_outer * bands, 1, n_outer * n_i * n_k, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      int64_t o = t / bands;
      const int64_t first = (t % bands) * kBand, count = std::min(kBand, across - first);
      int64_t d_at = c.dst_offset + (by_rows ? first * ds : first);
      int64_t s_at = c.src_offset + (by_rows ? first : first * ss);
      for (int64_t j = static_cast<int64_t>(outer.size()) - 1; j >= 0; --j) {
        const int64_t d = outer[j];
        const int64_t at = o % c.sizes[d];
        o /= c.sizes[d];
        d_at += at * c.dst_strides[d];
        s_at += at * c.src_strides[d];
      }
      if (by_rows) {
        Band<E>(src + s_at, ss, dst + d_at, ds, n_i, count);
      } else {
        Band<E>(src + s_at, ss, dst + d_at, ds, count, n_k);
      }
    }
  });
}

}  // namespace

void TransposedRows(const void* src, int64_t cols, int64_t rows, int64_t first, int64_t count,
                    void* dst) {
  const auto* s = static_cast<const uint32_t*>(src);
  auto* d = static_cast<uint32_t*>(dst);
  // One band of destination rows per batch the rows cross: destination row
  // r is source column r of its batch.
  for (int64_t g = first, end = first + count; g < end;) {
    const int64_t batch = g / rows, r = g % rows;
    const int64_t n = std::min(end - g, rows - r);
    Band<uint32_t>(s + batch * rows * cols + r, rows, d + (g - first) * cols, cols, cols, n);
    g += n;
  }
}

bool RunTransposeTiles(const StridedCopy& c, void* dst, const void* src) {
  const int64_t rank = static_cast<int64_t>(c.sizes.size());
  if (rank < 2 || (c.elem_bytes != 4 && c.elem_bytes != 8)) return false;
  const int64_t last = rank - 1;
  if (c.dst_strides[last] != 1 || c.src_strides[last] <= 1) return false;
  // The source's contiguous dim, large enough for whole tiles.
  int64_t kdim = -1;
  for (int64_t d = 0; d < last; ++d) {
    if (c.src_strides[d] == 1) kdim = d;
  }
  const int64_t tile = 64 / c.elem_bytes;
  if (kdim < 0 || c.sizes[kdim] < tile || c.sizes[last] < tile) return false;
  if (c.elem_bytes == 4) {
    Transpose(c, kdim, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src));
  } else {
    Transpose(c, kdim, static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src));
  }
  return true;
}

}  // namespace xjit::cpu
