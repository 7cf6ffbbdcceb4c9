#include "xjit/backends/cpu/row_indexing.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {

bool IsRowIndexing(const IndexingGeometry& g) {
  const int64_t rank = static_cast<int64_t>(g.operand_dims.size());
  if (rank == 0 || g.start_map.size() != 1 || g.start_map[0] != 0 ||
      !g.batching_operand_dims.empty()) {
    return false;
  }
  // The window: the full trailing dims, dim 0 dropped or kept with size 1.
  const int64_t skip = static_cast<int64_t>(g.window_operand_dims.size()) == rank ? 1 : 0;
  if (static_cast<int64_t>(g.window_operand_dims.size()) != rank - 1 + skip) return false;
  if (skip == 1 && g.window_sizes[0] != 1) return false;
  for (int64_t k = skip; k < static_cast<int64_t>(g.window_sizes.size()); ++k) {
    if (g.window_operand_dims[k] != k + 1 - skip ||
        g.window_sizes[k] != g.operand_dims[k + 1 - skip]) {
      return false;
    }
  }
  // In `other`, the window trails the batch dims, all row-major; in the
  // indices, batch position b sits at b (a trailing index vector of one).
  int64_t stride = 1;
  for (int64_t k = static_cast<int64_t>(g.window_sizes.size()) - 1; k >= 0; --k) {
    if (g.window_sizes[k] != 1 && g.window_other_strides[k] != stride) return false;
    stride *= g.window_sizes[k];
  }
  int64_t index_stride = 1;
  for (int64_t k = static_cast<int64_t>(g.batch_sizes.size()) - 1; k >= 0; --k) {
    if (g.batch_sizes[k] != 1 &&
        (g.batch_other_strides[k] != stride || g.batch_index_strides[k] != index_stride)) {
      return false;
    }
    stride *= g.batch_sizes[k];
    index_stride *= g.batch_sizes[k];
  }
  return true;
}

RowIndexing MakeRowIndexing(const IndexingGeometry& g) {
  RowIndexing r;
  r.rows = g.operand_dims[0];
  r.row_bytes = g.window_elements * g.width;
  r.count = g.num_batches;
  r.index_type = g.index_type;
  return r;
}

namespace {

// Index b of the index array, typed where the type is common.
template <typename I>
struct Indices {
  const I* p;
  int64_t operator[](int64_t b) const { return static_cast<int64_t>(p[b]); }
};
struct AnyIndices {
  const void* p;
  DType t;
  int64_t operator[](int64_t b) const { return LoadIndex(t, p, b); }
};

template <typename Fn>
void WithIndices(DType t, const void* p, const Fn& fn) {
  switch (t) {
    case DType::kS32: return fn(Indices<int32_t>{static_cast<const int32_t*>(p)});
    case DType::kS64: return fn(Indices<int64_t>{static_cast<const int64_t*>(p)});
    default: return fn(AnyIndices{p, t});
  }
}

// Copies `n` bytes; fixed sizes of common rows are inlined moves.
inline void CopyRow(unsigned char* dst, const unsigned char* src, int64_t n) {
  switch (n) {
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    case 32: std::memcpy(dst, src, 32); return;
    case 64: std::memcpy(dst, src, 64); return;
    default: std::memcpy(dst, src, n); return;
  }
}

// "set": the update replaces the row.
struct SetRow {};

// The updates [begin, end) in order, skipping rows outside [0, rows); rows
// of n elements of T (SetRow: n bytes); kN > 0: n is kN, a constant the
// combining loop unrolls with.
template <typename Op, typename T, typename Idx, int64_t kN = 0>
XJIT_ISA_CLONES void ScatterRun(T* __restrict result, const T* __restrict updates, Idx idx,
                                int64_t n_, int64_t begin, int64_t end, int64_t rows,
                                int64_t wrap) {
  const int64_t n = kN > 0 ? kN : n_;
  const uint64_t span = static_cast<uint64_t>(rows);
  // Rows prefetched ahead when the result outgrows the caches (the writes
  // land at random); a cache-sized result goes without the extra loads.
  constexpr int64_t kAhead = 16;
  const bool prefetch = rows * n * static_cast<int64_t>(sizeof(T)) > (int64_t{1} << 20);
  for (int64_t b = begin; b < end; ++b) {
    if (prefetch && b + kAhead < end) {
      int64_t ahead = idx[b + kAhead];
      ahead += ahead < 0 ? wrap : 0;
      if (static_cast<uint64_t>(ahead) < span) __builtin_prefetch(result + ahead * n, 1);
    }
    int64_t i = idx[b];
    i += i < 0 ? wrap : 0;
    if (static_cast<uint64_t>(i) >= span) continue;  // outside: skipped
    T* dst = result + i * n;
    const T* src = updates + b * n;
    if constexpr (std::is_same_v<Op, SetRow>) {
      CopyRow(reinterpret_cast<unsigned char*>(dst), reinterpret_cast<const unsigned char*>(src),
              n);
    } else if (n == 1) {
      *dst = Op::Apply(*dst, *src);
    } else {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) dst[j] = Op::Apply(dst[j], src[j]);
    }
  }
}

// The value a combine leaves its other operand unchanged with.
template <typename Op, typename T>
T IdentityOf() {
  if constexpr (std::is_same_v<Op, Add>) return T(0);
  else if constexpr (std::is_same_v<Op, Multiply>) return T(1);
  else if constexpr (std::is_same_v<Op, Maximum>) return std::numeric_limits<T>::lowest();
  else return std::numeric_limits<T>::max();
}

// Integer combines are exact and order-free: with duplicates, each thread
// combines its share of the updates into a copy of its own (the combine's
// identity), then the copies go into the result (bincount, histograms: 100K
// counts into 1000 bins). Results of at most kMaxPrivateElements, at least
// 16 updates an element.
constexpr int64_t kMaxPrivateElements = 64 * 1024;

template <typename Op, typename T, typename Idx>
bool ScatterIntoCopies(const RowIndexing& r, Idx idx, const T* updates, T* result, int64_t n) {
  const int64_t elements = r.rows * n, threads = MaxThreads();
  if (threads < 2 || elements > kMaxPrivateElements || r.count < 16 * elements ||
      r.count * n < 2 * kParallelThreshold) {
    return false;
  }
  std::vector<T> copies(threads * elements, IdentityOf<Op, T>());
  ParallelFor(threads, 1, r.count * n, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      ScatterRun<Op>(copies.data() + t * elements, updates, idx, n, r.count * t / threads,
                     r.count * (t + 1) / threads, r.rows, r.wrap);
    }
  });
  for (int64_t t = 0; t < threads; ++t) {
    const T* copy = copies.data() + t * elements;
    for (int64_t i = 0; i < elements; ++i) result[i] = Op::Apply(result[i], copy[i]);
  }
  return true;
}

template <typename Op, typename T>
void ScatterRows(const RowIndexing& r, const void* indices_v, const void* updates_v,
                 void* result_v, bool unique_indices) {
  const auto* updates = static_cast<const T*>(updates_v);
  auto* result = static_cast<T*>(result_v);
  const int64_t n = r.row_bytes / static_cast<int64_t>(sizeof(T));
  const int64_t cost = r.count * std::max<int64_t>(n, 1);
  WithIndices(r.index_type, indices_v, [&](auto idx) {
    if (unique_indices) {  // no two updates meet: split them between the threads
      ParallelFor(r.count, 1024, cost, [&](int64_t b, int64_t e) {
        ScatterRun<Op>(result, updates, idx, n, b, e, r.rows, r.wrap);
      });
      return;
    }
    // Duplicates combine in the serial order, on one thread: splitting the
    // result's rows between threads (each reading every index) measured 2-2.5x
    // slower on the shared 2-core machine (docs/performance.md).
    using Idx = decltype(idx);
    if constexpr (!std::is_same_v<Op, SetRow> && kIsInt<T>) {
      if (ScatterIntoCopies<Op>(r, idx, updates, result, n)) return;
    }
    if constexpr (!std::is_same_v<Op, SetRow>) {
      if (n == 16) return ScatterRun<Op, T, Idx, 16>(result, updates, idx, n, 0, r.count, r.rows,
                                                     r.wrap);
      if (n == 8) return ScatterRun<Op, T, Idx, 8>(result, updates, idx, n, 0, r.count, r.rows,
                                                   r.wrap);
      if (n == 1) return ScatterRun<Op, T, Idx, 1>(result, updates, idx, n, 0, r.count, r.rows,
                                                   r.wrap);
    }
    ScatterRun<Op>(result, updates, idx, n, 0, r.count, r.rows, r.wrap);
  });
}

template <typename Op>
ScatterRowsFn TypedScatter(DType t) {
  return DispatchDType(t, [](auto tag) -> ScatterRowsFn {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<Op, SetRow>) {
      return &ScatterRows<SetRow, unsigned char>;
    } else if constexpr (Op::template supports<T>) {
      return &ScatterRows<Op, T>;
    } else {
      return nullptr;
    }
  });
}

}  // namespace

namespace {

// Rows of one scalar (1-d take) with s32/s64 indices: a loop the compiler
// turns into vector gathers. `last` is rows - 1, capped at I's maximum (an
// index of type I never exceeds it then). kFill: positions whose index is
// outside [lo, hi] get `fill`.
template <typename V, typename I, bool kFill>
XJIT_ISA_CLONES void GatherScalars(const V* __restrict operand, const I* __restrict idx,
                                   V* __restrict out, I last, I wrap, I lo, I hi, V fill,
                                   int64_t begin, int64_t end) {
#pragma omp simd
  for (int64_t b = begin; b < end; ++b) {
    const I raw = idx[b];
    I i = raw < 0 ? I(raw + wrap) : raw;
    i = i < 0 ? I(0) : i;
    i = i > last ? last : i;
    V v = operand[i];
    if constexpr (kFill) v = raw >= lo && raw <= hi ? v : fill;
    out[b] = v;
  }
}

template <typename V, typename I>
void GatherScalarsParallel(const RowIndexing& r, const void* operand, const void* indices,
                           void* out) {
  constexpr int64_t kMin = std::numeric_limits<I>::min(), kMax = std::numeric_limits<I>::max();
  const I last = static_cast<I>(std::min<int64_t>(r.rows - 1, kMax));
  V fill;
  std::memcpy(&fill, &r.fill_bits, sizeof(V));
  // The kept indices as an inclusive range of I (fill_hi > fill_lo, so
  // fill_hi - 1 does not overflow).
  const bool none = r.fill && (r.fill_hi <= r.fill_lo || r.fill_lo > kMax || r.fill_hi <= kMin);
  const I lo = static_cast<I>(std::clamp<int64_t>(r.fill_lo, kMin, kMax));
  const I hi = none ? lo : static_cast<I>(std::clamp<int64_t>(r.fill_hi - 1, kMin, kMax));
  ParallelFor(r.count, 1 << 16, r.count, [&](int64_t begin, int64_t end) {
    auto* o = static_cast<V*>(out);
    const auto* x = static_cast<const V*>(operand);
    const auto* idx = static_cast<const I*>(indices);
    if (none) {
      std::fill(o + begin, o + end, fill);
    } else if (r.fill) {
      GatherScalars<V, I, true>(x, idx, o, last, static_cast<I>(r.wrap), lo, hi, fill, begin, end);
    } else {
      GatherScalars<V, I, false>(x, idx, o, last, static_cast<I>(r.wrap), lo, hi, fill, begin,
                                 end);
    }
  });
}

template <typename I>
void GatherScalarsOfWidth(const RowIndexing& r, const void* operand, const void* indices,
                          void* out) {
  if (r.row_bytes == 4) {
    GatherScalarsParallel<uint32_t, I>(r, operand, indices, out);
  } else {
    GatherScalarsParallel<uint64_t, I>(r, operand, indices, out);
  }
}

}  // namespace

bool GatherFillsRows(int64_t row_bytes, DType index_type) {
  return (row_bytes == 4 || row_bytes == 8) &&
         (index_type == DType::kS32 || index_type == DType::kS64);
}

void GatherRows(const RowIndexing& r, const void* operand_v, const void* indices,
                void* out_v) {
  if (r.row_bytes == 4 || r.row_bytes == 8) {
    if (r.index_type == DType::kS32) {
      return GatherScalarsOfWidth<int32_t>(r, operand_v, indices, out_v);
    }
    if (r.index_type == DType::kS64) {
      return GatherScalarsOfWidth<int64_t>(r, operand_v, indices, out_v);
    }
  }
  const auto* operand = static_cast<const unsigned char*>(operand_v);
  auto* out = static_cast<unsigned char*>(out_v);
  const int64_t last = r.rows - 1;
  const int64_t cost = r.count * std::max<int64_t>(r.row_bytes / 4, 1);
  WithIndices(r.index_type, indices, [&](auto idx) {
    ParallelFor(r.count, 4096, cost, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        int64_t i = idx[b];
        i += i < 0 ? r.wrap : 0;
        i = std::min(std::max<int64_t>(i, 0), last);
        CopyRow(out + b * r.row_bytes, operand + i * r.row_bytes, r.row_bytes);
      }
    });
  });
}

ScatterRowsFn ScatterRowsFor(Opcode combine, DType t) {
  switch (combine) {
    case Opcode::kParameter: return TypedScatter<SetRow>(t);
    case Opcode::kAdd: return TypedScatter<Add>(t);
    case Opcode::kMultiply: return TypedScatter<Multiply>(t);
    case Opcode::kMaximum: return TypedScatter<Maximum>(t);
    case Opcode::kMinimum: return TypedScatter<Minimum>(t);
    default: return nullptr;
  }
}

}  // namespace xjit::cpu
