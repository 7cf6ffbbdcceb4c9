#include "xjit/backends/cpu/pooling.h"

#include <algorithm>
#include <memory>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {

std::optional<PoolingPlan> MakePoolingPlan(const std::vector<int64_t>& base,
                                           const std::vector<WindowDimension>& window) {
  const int64_t r = static_cast<int64_t>(base.size());
  if (r == 0 || static_cast<int64_t>(window.size()) != r) return std::nullopt;
  std::vector<int64_t> windowed;
  for (int64_t i = 0; i < r; ++i) {
    const WindowDimension& w = window[i];
    if (w.base_dilation != 1 || w.size < 1 || base[i] == 0) return std::nullopt;
    const bool trivial = w.size == 1 && w.stride == 1 && w.padding_low == 0 &&
                         w.padding_high == 0;
    if (!trivial) windowed.push_back(i);
  }
  if (windowed.empty() || windowed.size() > 2) return std::nullopt;
  const int64_t b = windowed.back();
  const int64_t a = windowed.size() == 2 ? windowed[0] : -1;  // -1: a size-1 virtual dim
  PoolingPlan p;
  const int64_t first_windowed = a >= 0 ? a : b;
  for (int64_t i = 0; i < first_windowed; ++i) p.outer *= base[i];
  for (int64_t i = first_windowed + 1; i < b; ++i) p.mid *= base[i];
  for (int64_t i = b + 1; i < r; ++i) p.inner *= base[i];
  const WindowDimension wa = a >= 0 ? window[a] : WindowDimension{};
  const WindowDimension& wb = window[b];
  p.base_a = a >= 0 ? base[a] : 1;
  p.base_b = base[b];
  p.out_a = wa.NumWindows(p.base_a);
  p.out_b = wb.NumWindows(p.base_b);
  if (p.out_a <= 0 || p.out_b <= 0) return std::nullopt;
  p.size_a = wa.size;
  p.size_b = wb.size;
  p.stride_b = wb.stride;
  p.dilation_b = wb.window_dilation;
  p.pad_b = wb.padding_low;
  for (int64_t oa = 0; oa < p.out_a; ++oa) {
    for (int64_t ka = 0; ka < p.size_a; ++ka) p.rows_a.push_back(wa.BaseIndex(p.base_a, oa, ka));
  }
  for (int64_t kb = 0; kb < p.size_b; ++kb) {
    int64_t first = p.out_b, last = 0;  // BaseIndex is monotonic in ob: one run
    for (int64_t ob = 0; ob < p.out_b; ++ob) {
      if (wb.BaseIndex(p.base_b, ob, kb) >= 0) {
        first = std::min(first, ob);
        last = ob + 1;
      }
    }
    p.valid_b.emplace_back(first, std::max(first, last));
  }
  return p;
}

namespace {

// acc[j] = op(acc[j], x[j * s]); the stride a template argument where it is
// known (1, 2), so the loads are contiguous or de-interleaving shuffles.
// Inlined into the cloned row kernels below (one ISA per clone).
template <typename Op, typename C, typename T, int64_t kStride>
inline void Accumulate(C* __restrict acc, const T* __restrict x, int64_t n, int64_t s) {
  const int64_t st = kStride > 0 ? kStride : s;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) acc[j] = Op::Apply(acc[j], C(x[j * st]));
}

template <typename Op, typename C, typename T>
inline void AccumulateRun(C* acc, const T* x, int64_t n, int64_t s) {
  if (s == 1) {
    Accumulate<Op, C, T, 1>(acc, x, n, 1);
  } else if (s == 2) {
    Accumulate<Op, C, T, 2>(acc, x, n, 2);
  } else {
    Accumulate<Op, C, T, 0>(acc, x, n, s);
  }
}

template <typename Op, typename C>
inline void AccumulateInit(C* acc, int64_t n, C init) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) acc[j] = Op::Apply(acc[j], init);
}

// Calls fn(r, begin, end) for the output rows [begin, end) of each thread's share.
template <typename Fn>
void ForRows(const PoolingPlan& p, const Fn& fn) {
  const int64_t len = std::max<int64_t>(p.row_len(), 1);
  const int64_t cost = p.rows() * len * p.size_a * p.size_b;
  ParallelFor(p.rows(), std::max<int64_t>(1, 4096 / len), cost, fn);
}

// Outputs [begin, begin + n) of one row of a kA x kB window with stride kS
// along b, every element inside the base, inner == 1: each output folded in
// registers, in window order (the common 2x2/2 and 3x3 pooling).
template <typename Op, typename C, typename T, int kA, int kB, int kS, int64_t kN = 0>
inline void FoldWindows(const T* const* rows, C init, T* __restrict out, int64_t begin,
                        int64_t n) {
  const int64_t count = kN > 0 ? kN : n;
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ob = begin + i;
    C acc = init;
    for (int ka = 0; ka < kA; ++ka) {
      for (int kb = 0; kb < kB; ++kb) acc = Op::Apply(acc, C(rows[ka][ob * kS + kb]));
    }
    out[ob] = T(acc);
  }
}

// One output row by FoldWindows in blocks of a fixed width, so each block is
// whole vectors; a partial last block is redone as the row's last full block
// (outputs depend on the inputs only, so the overlap writes the same values).
// A remainder loop would run scalar: rows of 2x2/2 pooling over 56 columns
// have 28 outputs, and 12 of them took 80% of the time.
template <typename Op, typename C, typename T, int kA, int kB, int kS>
inline void ReduceRowInRegisters(const T* const* rows, C init, T* __restrict out, int64_t n) {
  constexpr int64_t kBlock = 16;
  if (n < kBlock) {
    FoldWindows<Op, C, T, kA, kB, kS>(rows, init, out, 0, n);
    return;
  }
  int64_t ob = 0;
  for (; ob + kBlock <= n; ob += kBlock) {
    FoldWindows<Op, C, T, kA, kB, kS, kBlock>(rows, init, out, ob, kBlock);
  }
  if (ob < n) FoldWindows<Op, C, T, kA, kB, kS, kBlock>(rows, init, out, n - kBlock, kBlock);
}

// Whether row r can take ReduceRowInRegisters: rows[] gets its base rows.
template <typename T>
bool InRegisters(const PoolingPlan& p, const T* in, int64_t r, const T** rows) {
  if (p.inner != 1 || p.dilation_b != 1 || p.pad_b != 0 || p.size_a > 3) return false;
  for (int64_t kb = 0; kb < p.size_b; ++kb) {
    if (p.valid_b[kb].first != 0 || p.valid_b[kb].second != p.out_b) return false;
  }
  const int64_t oa = p.OutputRow(r);
  for (int64_t ka = 0; ka < p.size_a; ++ka) {
    const int64_t ra = p.rows_a[oa * p.size_a + ka];
    if (ra < 0) return false;
    rows[ka] = in + p.BaseRow(r, ra);
  }
  return true;
}

// The output rows [begin, end), with `acc` (row_len() values) as scratch.
template <typename Op, typename T, typename C>
XJIT_ISA_CLONES void ReduceRows(const PoolingPlan& p, const T* in, C init, T* out, C* acc,
                                int64_t begin, int64_t end) {
  const int64_t len = p.row_len(), inner = p.inner;
  for (int64_t r = begin; r < end; ++r) {
    const T* rows[3];
    if (InRegisters(p, in, r, rows)) {
      const int64_t a = p.size_a, b = p.size_b, s = p.stride_b;
      if (a == 2 && b == 2 && s == 2) {
        ReduceRowInRegisters<Op, C, T, 2, 2, 2>(rows, init, out + r * len, len);
        continue;
      }
      if (a == 3 && b == 3 && s == 1) {
        ReduceRowInRegisters<Op, C, T, 3, 3, 1>(rows, init, out + r * len, len);
        continue;
      }
      if (a == 3 && b == 3 && s == 2) {
        ReduceRowInRegisters<Op, C, T, 3, 3, 2>(rows, init, out + r * len, len);
        continue;
      }
    }
    std::fill(acc, acc + len, init);
    const int64_t oa = p.OutputRow(r);
    for (int64_t ka = 0; ka < p.size_a; ++ka) {
      const int64_t ra = p.rows_a[oa * p.size_a + ka];
      if (ra < 0) {  // a padding row: the init value once per window element
        for (int64_t kb = 0; kb < p.size_b; ++kb) AccumulateInit<Op>(acc, len, init);
        continue;
      }
      const T* row = in + p.BaseRow(r, ra);
      for (int64_t kb = 0; kb < p.size_b; ++kb) {
        const auto [first, last] = p.valid_b[kb];
        AccumulateInit<Op>(acc, first * inner, init);
        AccumulateInit<Op>(acc + last * inner, (p.out_b - last) * inner, init);
        if (first >= last) continue;
        const T* x = row + p.ColumnOffset(first, kb);
        if (inner == 1) {
          AccumulateRun<Op>(acc + first, x, last - first, p.stride_b);
        } else {
          for (int64_t ob = first; ob < last; ++ob) {
            AccumulateRun<Op>(acc + ob * inner, x + (ob - first) * p.stride_b * inner, inner, 1);
          }
        }
      }
    }
    T* o = out + r * len;
    for (int64_t j = 0; j < len; ++j) o[j] = T(acc[j]);
  }
}

template <typename Op, typename T>
void PoolingReduce(const PoolingPlan& p, const void* in, const void* init_v, void* out) {
  using C = Compute<T>;
  const C init = C(*static_cast<const T*>(init_v));
  ForRows(p, [&](int64_t begin, int64_t end) {
    std::unique_ptr<C[]> acc(new C[p.row_len()]);
    ReduceRows<Op>(p, static_cast<const T*>(in), init, static_cast<T*>(out), acc.get(), begin,
                   end);
  });
}

// The running choice (value, base offset) against candidates x[j * s] at
// offsets base + j * s: the candidate replaces it unless `select(chosen,
// candidate)` holds (or nothing is chosen yet).
template <ComparisonDirection kDir, typename C, typename T>
inline void SelectRun(C* __restrict best, int64_t* __restrict at, const T* __restrict x,
                               int64_t n, int64_t s, int64_t base) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const C v = C(x[j * s]);
    const C b = best[j];
    bool keep;
    if constexpr (kDir == ComparisonDirection::kGe) keep = b >= v;
    else if constexpr (kDir == ComparisonDirection::kGt) keep = b > v;
    else if constexpr (kDir == ComparisonDirection::kLe) keep = b <= v;
    else keep = b < v;
    keep = keep && at[j] >= 0;
    best[j] = keep ? b : v;
    at[j] = keep ? at[j] : base + j * s;
  }
}

template <ComparisonDirection kDir, typename T, typename C>
XJIT_ISA_CLONES void SelectRows(const PoolingPlan& p, const T* in, int64_t* chosen, C* best,
                                int64_t begin, int64_t end) {
  const int64_t len = p.row_len(), inner = p.inner;
  for (int64_t r = begin; r < end; ++r) {
    int64_t* at = chosen + r * len;
    std::fill(at, at + len, int64_t{-1});
    std::fill(best, best + len, C(0));
    const int64_t oa = p.OutputRow(r);
    for (int64_t ka = 0; ka < p.size_a; ++ka) {
      const int64_t ra = p.rows_a[oa * p.size_a + ka];
      if (ra < 0) continue;  // padding is never selected
      const int64_t row = p.BaseRow(r, ra);
      for (int64_t kb = 0; kb < p.size_b; ++kb) {
        const auto [first, last] = p.valid_b[kb];
        if (first >= last) continue;
        if (inner == 1) {
          const int64_t off = row + p.ColumnOffset(first, kb);
          SelectRun<kDir>(best + first, at + first, in + off, last - first, p.stride_b, off);
          continue;
        }
        for (int64_t ob = first; ob < last; ++ob) {
          const int64_t off = row + p.ColumnOffset(ob, kb);
          SelectRun<kDir>(best + ob * inner, at + ob * inner, in + off, inner, 1, off);
        }
      }
    }
  }
}

template <ComparisonDirection kDir, typename T>
void PoolingSelect(const PoolingPlan& p, const void* operand, int64_t* chosen) {
  using C = Compute<T>;
  ForRows(p, [&](int64_t begin, int64_t end) {
    std::unique_ptr<C[]> best(new C[p.row_len()]);
    SelectRows<kDir>(p, static_cast<const T*>(operand), chosen, best.get(), begin, end);
  });
}

template <typename Op>
PoolingReduceFn ReduceFor(DType t) {
  return DispatchDType(t, [](auto tag) -> PoolingReduceFn {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || kIsInt<T> || is_half_v<T>) {
      return &PoolingReduce<Op, T>;
    } else {
      return nullptr;
    }
  });
}

template <ComparisonDirection kDir>
PoolingSelectFn SelectFor(DType t) {
  return DispatchDType(t, [](auto tag) -> PoolingSelectFn {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || kIsInt<T> || is_half_v<T>) {
      return &PoolingSelect<kDir, T>;
    } else {
      return nullptr;
    }
  });
}

}  // namespace

PoolingReduceFn PoolingReduceFor(Opcode op, DType t) {
  switch (op) {
    case Opcode::kAdd: return ReduceFor<Add>(t);
    case Opcode::kMultiply: return ReduceFor<Multiply>(t);
    case Opcode::kMaximum: return ReduceFor<Maximum>(t);
    case Opcode::kMinimum: return ReduceFor<Minimum>(t);
    default: return nullptr;
  }
}

PoolingSelectFn PoolingSelectFor(ComparisonDirection direction, DType t) {
  switch (direction) {
    case ComparisonDirection::kGe: return SelectFor<ComparisonDirection::kGe>(t);
    case ComparisonDirection::kGt: return SelectFor<ComparisonDirection::kGt>(t);
    case ComparisonDirection::kLe: return SelectFor<ComparisonDirection::kLe>(t);
    case ComparisonDirection::kLt: return SelectFor<ComparisonDirection::kLt>(t);
    case ComparisonDirection::kEq:
    case ComparisonDirection::kNe: return nullptr;
  }
  return nullptr;
}

}  // namespace xjit::cpu
