#include "xjit/backends/cpu/cumulative_sum.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/half.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cpu {
namespace {

// a + b in T as the interpreter computes it: 16-bit floats through float,
// integers wrapping (through the unsigned type: no signed overflow).
template <typename T>
inline T Add(T a, T b) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

constexpr int64_t kSumRows = 8, kSumTile = 512;

// kSumRows rows of n (rows <= kSumRows) summed at once, so the adds' latency overlaps.
template <typename T>
XJIT_ISA_CLONES void SumRows(const T* x, T* y, int64_t rows, int64_t n, bool suffix) {
  T acc[kSumRows];
  for (int64_t r = 0; r < kSumRows; ++r) acc[r] = T(0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = suffix ? n - 1 - k : k;
    for (int64_t r = 0; r < rows; ++r) {
      acc[r] = suffix ? Add(x[r * n + i], acc[r]) : Add(acc[r], x[r * n + i]);
      y[r * n + i] = acc[r];
    }
  }
}

template <typename T>
XJIT_ISA_CLONES void SumColumns(const T* x, T* y, int64_t n, int64_t stride, int64_t lanes,
                              bool suffix) {
  T acc[kSumTile];
  for (int64_t j = 0; j < lanes; ++j) acc[j] = T(0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = suffix ? n - 1 - k : k;
    const T* xi = x + i * stride;
    T* yi = y + i * stride;
#pragma omp simd
    for (int64_t j = 0; j < lanes; ++j) {
      acc[j] = suffix ? Add(xi[j], acc[j]) : Add(acc[j], xi[j]);
      yi[j] = acc[j];
    }
  }
}


// Sums along the middle dim of [outer, n, inner], from the end when `suffix`.
template <typename T>
class CumulativeSumThunk : public Thunk {
 public:
  CumulativeSumThunk(int64_t outer, int64_t n, int64_t inner, bool suffix, SlotId in, SlotId out)
      : outer_(outer), n_(n), inner_(inner), suffix_(suffix), in_(in), out_(out) {}

  void Execute(void* const* buffers) const override {
    const T* x = static_cast<const T*>(buffers[in_]);
    T* y = static_cast<T*>(buffers[out_]);
    if (inner_ == 1) {
      // Rows: kSumRows independent sums interleaved, so the adds' latency overlaps.
      const int64_t groups = (outer_ + kSumRows - 1) / kSumRows;
      ParallelFor(groups, 1, outer_ * n_, [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          const int64_t r0 = g * kSumRows, rows = std::min<int64_t>(kSumRows, outer_ - r0);
          SumRows(x + r0 * n_, y + r0 * n_, rows, n_, suffix_);
        }
      });
      return;
    }
    const int64_t tiles = (inner_ + kSumTile - 1) / kSumTile;
    ParallelFor(outer_ * tiles, 1, outer_ * n_ * inner_, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t o = t / tiles, j0 = (t % tiles) * kSumTile;
        const int64_t base = o * n_ * inner_ + j0;
        SumColumns(x + base, y + base, n_, inner_, std::min(kSumTile, inner_ - j0), suffix_);
      }
    });
  }

 private:
  int64_t outer_, n_, inner_;
  bool suffix_;
  SlotId in_, out_;
};

bool IsPositiveZero(const Instruction& init) {
  if (init.opcode() != Opcode::kConstant) return false;
  const Literal& v = init.attrs<ConstantAttrs>().value;
  if (v.shape() != init.shape()) return false;
  for (int64_t i = 0; i < v.size_bytes(); ++i) {
    if (v.data()[i] != 0) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<Thunk> MakeCumulativeSumThunk(const Instruction& rw, const std::vector<SlotId>& in,
                                              const std::vector<SlotId>& out) {
  if (rw.operands().size() != 2 || in.size() != 2 || out.size() != 1) return nullptr;
  if (RecogniseReduceBody(rw) != Opcode::kAdd || !IsPositiveZero(*rw.operand(1))) return nullptr;
  const std::vector<int64_t>& dims = rw.operand(0)->shape().dims;
  const std::vector<WindowDimension> window = ReduceWindowWindow(rw.attrs<ReduceWindowAttrs>());
  if (window.size() != dims.size() || rw.shape().dims != dims) return nullptr;
  int64_t axis = -1;
  bool suffix = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    const WindowDimension& w = window[d];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1 || w.reversal) return nullptr;
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    const int64_t n = dims[d];
    const bool prefix = w.padding_low == n - 1 && w.padding_high == 0;
    const bool is_suffix = w.padding_low == 0 && w.padding_high == n - 1;
    if (axis >= 0 || w.size != n || n < 2 || !(prefix || is_suffix)) return nullptr;
    axis = static_cast<int64_t>(d);
    suffix = is_suffix;
  }
  if (axis < 0) return nullptr;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t n = dims[axis];
  const DType t = rw.shape().dtype;
  if (IsNarrow(t)) return nullptr;  // expanded before backends see them
  return DispatchDType(t, [&](auto tag) -> std::unique_ptr<Thunk> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || is_complex_v<T>) {
      return nullptr;
    } else {
      return std::make_unique<CumulativeSumThunk<T>>(outer, n, inner, suffix, in[0], out[0]);
    }
  });
}

}  // namespace xjit::cpu
