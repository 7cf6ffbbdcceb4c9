#include "xjit/backends/cpu/gather.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/indexing_geometry.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/row_indexing.h"

namespace xjit::cpu {

int64_t ClampedStartOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& strides, DType index_type,
                           const void* const* starts) {
  int64_t offset = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t s = LoadIndex(index_type, starts[d], 0);
    offset += std::max<int64_t>(0, std::min(s, dims[d] - sizes[d])) * strides[d];
  }
  return offset;
}

int64_t ContiguousBoxBytes(const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes,
                           int64_t width) {
  size_t d = 0;
  while (d < sizes.size() && sizes[d] == 1) ++d;  // leading dims of one
  int64_t bytes = width;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (k > d && sizes[k] != dims[k]) return -1;  // a partial dim after the first
    bytes *= sizes[k];
  }
  return bytes;
}

void CopyBox(const unsigned char* src, unsigned char* dst, int64_t width,
             const std::vector<int64_t>& sizes, const std::vector<int64_t>& src_strides,
             const std::vector<int64_t>& dst_strides, bool inner_contiguous) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (rank == 0) {
    std::memcpy(dst, src, width);
    return;
  }
  for (int64_t s : sizes) {
    if (s == 0) return;
  }
  const int64_t inner = sizes[rank - 1];
  const int64_t ss = src_strides[rank - 1] * width, ds = dst_strides[rank - 1] * width;
  if (rank == 1) {  // one run: a row of a gather of rows
    if (inner_contiguous) {
      std::memcpy(dst, src, inner * width);
    } else {
      for (int64_t i = 0; i < inner; ++i) std::memcpy(dst + i * ds, src + i * ss, width);
    }
    return;
  }
  absl::InlinedVector<int64_t, 8> index(rank - 1, 0);
  while (true) {
    int64_t so = 0, dof = 0;
    for (int64_t d = 0; d < rank - 1; ++d) {
      so += index[d] * src_strides[d];
      dof += index[d] * dst_strides[d];
    }
    const unsigned char* s = src + so * width;
    unsigned char* t = dst + dof * width;
    if (inner_contiguous) {
      std::memcpy(t, s, inner * width);
    } else {
      for (int64_t i = 0; i < inner; ++i) std::memcpy(t + i * ds, s + i * ss, width);
    }
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace {

class GatherThunk : public Thunk {
 public:
  GatherThunk(IndexingGeometry g, std::vector<int64_t> slice_sizes, std::vector<bool> clamp,
              SlotId operand, SlotId indices, SlotId output)
      : g_(std::move(g)), slice_sizes_(std::move(slice_sizes)), clamp_(std::move(clamp)),
        operand_(operand), indices_(indices), output_(output) {
    for (int64_t d : g_.window_operand_dims) src_strides_.push_back(g_.operand_strides[d]);
    for (int64_t s : slice_sizes_) empty_slices_ = empty_slices_ || s == 0;
  }

  void Execute(void* const* buffers) const override {
    const auto* operand = static_cast<const unsigned char*>(buffers[operand_]);
    const void* indices = buffers[indices_];
    auto* out = static_cast<unsigned char*>(buffers[output_]);
    if (empty_slices_) {  // a dropped dimension of slice size 0: nothing to read
      std::memset(out, 0, g_.num_batches * g_.window_elements * g_.width);
      return;
    }
    const int64_t rank = static_cast<int64_t>(g_.operand_dims.size());
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, g_.window_elements));
    ParallelFor(g_.num_batches, grain, g_.num_batches * g_.window_elements,
                [&](int64_t begin, int64_t end) {
                  std::vector<int64_t> start(rank);
                  for (int64_t b = begin; b < end; ++b) {
                    const int64_t other = g_.Start(indices, b, start);
                    int64_t src = 0;
                    for (int64_t d = 0; d < rank; ++d) {
                      int64_t s = start[d];
                      if (clamp_[d]) {
                        s = std::max<int64_t>(0, std::min(s, g_.operand_dims[d] - slice_sizes_[d]));
                      }
                      src += s * g_.operand_strides[d];
                    }
                    CopyBox(operand + src * g_.width, out + other * g_.width, g_.width,
                            g_.window_sizes, src_strides_, g_.window_other_strides,
                            g_.inner_contiguous);
                  }
                });
  }

 private:
  IndexingGeometry g_;
  std::vector<int64_t> slice_sizes_;
  std::vector<bool> clamp_;  // false on operand batching dims (never clamped)
  std::vector<int64_t> src_strides_;
  bool empty_slices_ = false;
  SlotId operand_, indices_, output_;
};

// An index clamped into [0, n) (a start of a one-element slice).
inline int64_t ClampIndex(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

// ThunkT<E, I>(args...) for elements of `width` bytes (E: an unsigned type of
// that size) and int32/int64 indices; null for other widths and index types.
template <template <typename, typename> class ThunkT, typename... Args>
std::unique_ptr<Thunk> MakeTypedGather(int64_t width, DType index, const Args&... args) {
  auto with_index = [&](auto element) -> std::unique_ptr<Thunk> {
    using E = decltype(element);
    if (index == DType::kS32) return std::make_unique<ThunkT<E, int32_t>>(args...);
    if (index == DType::kS64) return std::make_unique<ThunkT<E, int64_t>>(args...);
    return nullptr;
  };
  switch (width) {
    case 1: return with_index(uint8_t{});
    case 2: return with_index(uint16_t{});
    case 4: return with_index(uint32_t{});
    case 8: return with_index(uint64_t{});
    default: return nullptr;
  }
}

// A gather of one element per batch position through up to four indexed
// operand dims, the others batching dims or dropped at 0 (take_along_axis:
// out[i, j] = x[idx[i, j], j]; points: out[i] = x[r[i], c[i]]): the batch
// positions walked as an odometer, each element a clamped index load per
// indexed dim and one copy, where GatherThunk spent a division per batch dim
// and a box copy per element (take_along_axis of 512x512: 1.6 ms -> 0.12 ms;
// 100k points of a 2048x2048 matrix: 1.0 ms -> 0.1 ms).
template <typename E, typename I>
class ElementGatherThunk : public Thunk {
 public:
  static constexpr int kMaxIndexed = 4;

  ElementGatherThunk(const IndexingGeometry& g, SlotId operand, SlotId indices, SlotId output)
      : operand_(operand), indices_(indices), output_(output) {
    indexed_ = static_cast<int>(g.start_map.size());
    for (int c = 0; c < indexed_; ++c) {
      dims_[c] = g.operand_dims[g.start_map[c]];
      strides_[c] = g.operand_strides[g.start_map[c]];
      components_[c] = c * g.index_vector_stride;
    }
    sizes_ = g.batch_sizes;
    out_strides_ = g.batch_other_strides;
    index_strides_ = g.batch_index_strides;
    operand_strides_.assign(sizes_.size(), 0);
    for (size_t i = 0; i < g.batching_operand_dims.size(); ++i) {
      operand_strides_[g.batching_positions[i]] = g.operand_strides[g.batching_operand_dims[i]];
    }
    n_ = g.num_batches;
  }

  void Execute(void* const* buffers) const override {
    const E* x = static_cast<const E*>(buffers[operand_]);
    const I* idx = static_cast<const I*>(buffers[indices_]);
    E* out = static_cast<E*>(buffers[output_]);
    const int64_t rank = static_cast<int64_t>(sizes_.size());
    ParallelFor(n_, 4096, n_ * 4 * indexed_, [&](int64_t begin, int64_t end) {
      int64_t coord[8] = {}, o = 0, i = 0, base = 0;
      for (int64_t k = rank - 1, rest = begin; k >= 0; --k) {
        coord[k] = rest % sizes_[k];
        rest /= sizes_[k];
        o += coord[k] * out_strides_[k];
        i += coord[k] * index_strides_[k];
        base += coord[k] * operand_strides_[k];
      }
      const int64_t last = rank - 1;
      for (int64_t b = begin; b < end;) {
        // A run along the innermost batch dim, then the odometer's carry.
        const int64_t run = std::min(end - b, sizes_[last] - coord[last]);
        const int64_t so = out_strides_[last], si = index_strides_[last],
                      sb = operand_strides_[last];
        switch (indexed_) {
          case 1: Run<1>(x, idx + i, out + o, base, run, so, si, sb); break;
          case 2: Run<2>(x, idx + i, out + o, base, run, so, si, sb); break;
          case 3: Run<3>(x, idx + i, out + o, base, run, so, si, sb); break;
          default: Run<4>(x, idx + i, out + o, base, run, so, si, sb); break;
        }
        b += run;
        o += run * so;
        i += run * si;
        base += run * sb;
        coord[last] += run;
        for (int64_t k = last; k > 0 && coord[k] == sizes_[k]; --k) {
          o += out_strides_[k - 1] - sizes_[k] * out_strides_[k];
          i += index_strides_[k - 1] - sizes_[k] * index_strides_[k];
          base += operand_strides_[k - 1] - sizes_[k] * operand_strides_[k];
          coord[k] = 0;
          ++coord[k - 1];
        }
      }
    });
  }

 private:
  // `run` elements along the innermost batch dim, the index vectors' `kIndexed`
  // components read and clamped with the geometry in registers.
  template <int kIndexed>
  void Run(const E* x, const I* idx, E* out, int64_t base, int64_t run, int64_t so, int64_t si,
           int64_t sb) const {
    int64_t dims[kIndexed], strides[kIndexed], components[kIndexed];
    for (int c = 0; c < kIndexed; ++c) {
      dims[c] = dims_[c];
      strides[c] = strides_[c];
      components[c] = components_[c];
    }
    for (int64_t r = 0; r < run; ++r) {
      int64_t at = base + r * sb;
      for (int c = 0; c < kIndexed; ++c) {
        at += ClampIndex(static_cast<int64_t>(idx[r * si + components[c]]), dims[c]) * strides[c];
      }
      out[r * so] = x[at];
    }
  }

  SlotId operand_, indices_, output_;
  int indexed_ = 1;
  int64_t dims_[kMaxIndexed] = {}, strides_[kMaxIndexed] = {}, components_[kMaxIndexed] = {};
  int64_t n_ = 0;
  std::vector<int64_t> sizes_, out_strides_, index_strides_, operand_strides_;
};

// Whether `instr` is an element gather: every slice one element, one to four
// indexed dims, one to 8 batch dims (an element of 1 to 8 bytes and int32/
// int64 indices are checked when the thunk is made).
bool IsElementGather(const Instruction& instr, const IndexingGeometry& g) {
  const std::vector<int64_t>& sizes = instr.attrs<GatherAttrs>().slice_sizes;
  const bool one_element = std::all_of(sizes.begin(), sizes.end(), [](int64_t s) { return s == 1; });
  return one_element && g.window_elements == 1 && !g.start_map.empty() &&
         g.start_map.size() <= ElementGatherThunk<uint8_t, int32_t>::kMaxIndexed &&
         g.num_batches != 0 && !g.batch_sizes.empty() && g.batch_sizes.size() <= 8;
}

std::unique_ptr<Thunk> MakeElementGather(const Instruction& instr, const IndexingGeometry& g,
                                         SlotId operand, SlotId indices, SlotId output) {
  if (!IsElementGather(instr, g)) return nullptr;
  return MakeTypedGather<ElementGatherThunk>(g.width, g.index_type, g, operand, indices, output);
}

// A gather of columns: the last operand dim indexed by a list of K indices,
// every leading dim whole (x[:, idx], take(x, idx, axis=-1)): out[r, k] =
// x[r, idx[k]], row by row (each output row written once, its input row in
// cache), where GatherThunk copied each column down the rows (2048x2048 by
// 1024 indices: 9 ms -> 0.53 ms).
template <typename E, typename I>
class GatherColumnsThunk : public Thunk {
 public:
  // `wrap` != 0: the indices are raw (negative ones wrapped here); `fill`:
  // positions outside [lo, hi) of the raw indices get the fill value.
  GatherColumnsThunk(int64_t rows, int64_t columns, int64_t k, SlotId operand, SlotId indices,
                     SlotId output, int64_t wrap, std::optional<IndexFill> fill)
      : rows_(rows), columns_(columns), k_(k), operand_(operand), indices_(indices),
        output_(output), wrap_(wrap), fill_(fill) {}

  void Execute(void* const* buffers) const override {
    const E* x = static_cast<const E*>(buffers[operand_]);
    const I* idx = static_cast<const I*>(buffers[indices_]);
    E* out = static_cast<E*>(buffers[output_]);
    std::vector<int64_t> col(k_), filled;
    for (int64_t j = 0; j < k_; ++j) {
      const int64_t raw = static_cast<int64_t>(idx[j]);
      if (fill_ && (raw < fill_->lo || raw >= fill_->hi)) filled.push_back(j);
      col[j] = ClampIndex(wrap_ != 0 && raw < 0 ? raw + wrap_ : raw, columns_);
    }
    E fill_value{};
    if (fill_) std::memcpy(&fill_value, &fill_->bits, sizeof(E));
    // A row's columns are read in the indices' order, which the hardware
    // prefetcher cannot follow: the next row's lines are prefetched first
    // (2048 x 2048 by 1024 columns: 1.5 -> 0.73 ms a thread).
    const int64_t lines = std::min<int64_t>((columns_ * sizeof(E) + 63) / 64, 512);
    ParallelFor(rows_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, k_)), rows_ * k_,
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const E* row = x + r * columns_;
                    if (r + 1 < end) {
                      const char* next = reinterpret_cast<const char*>(row + columns_);
                      for (int64_t l = 0; l < lines; ++l) __builtin_prefetch(next + 64 * l);
                    }
                    E* y = out + r * k_;
                    for (int64_t j = 0; j < k_; ++j) y[j] = row[col[j]];
                    for (int64_t j : filled) y[j] = fill_value;
                  }
                });
  }

 private:
  int64_t rows_, columns_, k_;
  SlotId operand_, indices_, output_;
  int64_t wrap_;
  std::optional<IndexFill> fill_;
};

// Whether `instr` is a gather of columns: the last dim indexed by one batch
// dim, innermost in the result; every other dim a whole window dim in order
// before it; some rows and columns.
bool IsColumnGather(const Instruction& instr, const IndexingGeometry& g) {
  const int64_t rank = static_cast<int64_t>(g.operand_dims.size());
  const std::vector<int64_t>& sizes = instr.attrs<GatherAttrs>().slice_sizes;
  if (rank < 2 || g.start_map.size() != 1 || g.start_map[0] != rank - 1 ||
      g.batch_sizes.size() != 1 || g.batch_other_strides[0] != 1 ||
      !g.batching_operand_dims.empty() || sizes[rank - 1] != 1 ||
      static_cast<int64_t>(g.window_operand_dims.size()) != rank - 1 || g.batch_sizes[0] == 0) {
    return false;
  }
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (g.window_operand_dims[d] != d || sizes[d] != g.operand_dims[d] || sizes[d] == 0) {
      return false;
    }
  }
  return true;
}

// The column gather's thunk when `instr` is one (and, with a fill, of 4- or
// 8-byte elements); null otherwise.
std::unique_ptr<Thunk> MakeGatherColumns(const Instruction& instr, const IndexingGeometry& g,
                                         SlotId operand, SlotId indices, SlotId output,
                                         int64_t wrap = 0, const IndexFill* fill = nullptr) {
  if (!IsColumnGather(instr, g)) return nullptr;
  const int64_t rank = static_cast<int64_t>(g.operand_dims.size());
  const int64_t k = g.batch_sizes[0], columns = g.operand_dims[rank - 1];
  int64_t rows = 1;
  for (int64_t d = 0; d < rank - 1; ++d) rows *= g.operand_dims[d];
  if (fill != nullptr && g.width != 4 && g.width != 8) return nullptr;  // the fill's bits
  std::optional<IndexFill> f;
  if (fill != nullptr) f = *fill;
  return MakeTypedGather<GatherColumnsThunk>(g.width, g.index_type, rows, columns, k, operand,
                                             indices, output, wrap, f);
}

// A gather of whole rows (row_indexing.h).
class GatherRowsThunk : public Thunk {
 public:
  GatherRowsThunk(RowIndexing r, SlotId operand, SlotId indices, SlotId output)
      : r_(r), operand_(operand), indices_(indices), output_(output) {}
  void Execute(void* const* buffers) const override {
    GatherRows(r_, buffers[operand_], buffers[indices_], buffers[output_]);
  }

 private:
  RowIndexing r_;
  SlotId operand_, indices_, output_;
};

class DynamicSliceThunk : public Thunk {
 public:
  DynamicSliceThunk(std::vector<int64_t> dims, std::vector<int64_t> sizes, DType index_type,
                    int64_t width, SlotId operand, std::vector<SlotId> starts, SlotId output)
      : dims_(std::move(dims)), sizes_(std::move(sizes)), index_type_(index_type), width_(width),
        operand_(operand), starts_(std::move(starts)), output_(output) {
    strides_ = RowMajorStrides(dims_);
    out_strides_ = RowMajorStrides(sizes_);
    contiguous_ = !sizes_.empty();
    run_bytes_ = ContiguousBoxBytes(dims_, sizes_, width_);
  }

  void Execute(void* const* buffers) const override {
    absl::InlinedVector<const void*, 4> in(dims_.size() + 1);
    in[0] = buffers[operand_];
    for (size_t d = 0; d < dims_.size(); ++d) in[d + 1] = buffers[starts_[d]];
    RunStep(in.data(), buffers[output_]);
  }

  // in: the operand, then the start of each dimension.
  void RunStep(const void* const* in, void* out) const {
    const int64_t src = ClampedStartOffset(dims_, sizes_, strides_, index_type_, in + 1);
    const unsigned char* from = static_cast<const unsigned char*>(in[0]) + src * width_;
    if (run_bytes_ >= 0) {
      std::memcpy(out, from, run_bytes_);
      return;
    }
    CopyBox(from, static_cast<unsigned char*>(out), width_, sizes_, strides_, out_strides_,
            contiguous_);
  }

  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override {
    if (dims_.empty() || dims_.size() > 2) return false;  // a step reads three buffers
    steps->push_back(ThunkStep(this, buffers[operand_], buffers[starts_[0]],
                               dims_.size() > 1 ? buffers[starts_[1]] : nullptr,
                               buffers[output_]));
    return true;
  }

 private:
  std::vector<int64_t> dims_, sizes_, strides_, out_strides_;
  DType index_type_;
  int64_t width_;
  int64_t run_bytes_;  // >= 0: the window is one run of the operand (ContiguousBoxBytes)
  SlotId operand_;
  std::vector<SlotId> starts_;
  SlotId output_;
  bool contiguous_;
};

}  // namespace

namespace {

IndexingGeometry GatherGeometry(const Instruction& instr) {
  const GatherDimensionNumbers& dn = instr.attrs<GatherAttrs>().dimension_numbers;
  return MakeIndexingGeometry(
      instr.operand(0)->shape(), instr.operand(1)->shape(), instr.shape(), dn.offset_dims,
      dn.collapsed_slice_dims, dn.operand_batching_dims, dn.start_indices_batching_dims,
      dn.start_index_map, dn.index_vector_dim);
}

// A gather of whole rows (row_indexing.h): one row each (a collapsed dim of
// slice size 0 gathers nothing).
bool IsRowGather(const Instruction& instr, const IndexingGeometry& g) {
  return IsRowIndexing(g) && instr.attrs<GatherAttrs>().slice_sizes[0] == 1;
}

}  // namespace

bool GatherOfRows(const Instruction& instr) { return IsRowGather(instr, GatherGeometry(instr)); }

bool GatherOfColumns(const Instruction& instr) {
  const IndexingGeometry g = GatherGeometry(instr);
  // The row and element paths come first in MakeGatherThunk.
  return !IsRowGather(instr, g) && !IsElementGather(instr, g) && IsColumnGather(instr, g) &&
         (g.width == 4 || g.width == 8) &&
         (g.index_type == DType::kS32 || g.index_type == DType::kS64);
}

bool GatherFillsRows(const Instruction& instr) {
  IndexingGeometry g = GatherGeometry(instr);
  if (!IsRowGather(instr, g)) return false;
  const RowIndexing r = MakeRowIndexing(g);
  return GatherFillsRows(r.row_bytes, r.index_type);
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeGatherThunk(const Instruction& instr,
                                                       std::vector<SlotId> inputs, SlotId output,
                                                       int64_t wrap, const IndexFill* fill) {
  if (inputs.size() != 2) return absl::InternalError("gather: operand count in the cpu lowering");
  const GatherAttrs& a = instr.attrs<GatherAttrs>();
  const GatherDimensionNumbers& dn = a.dimension_numbers;
  const Shape& operand = instr.operand(0)->shape();
  IndexingGeometry g = GatherGeometry(instr);
  if (IsRowGather(instr, g)) {
    RowIndexing r = MakeRowIndexing(g);
    r.wrap = wrap;
    if (fill != nullptr) {
      if (!GatherFillsRows(r.row_bytes, r.index_type)) {
        return absl::InternalError("gather: a fill needs rows of one 4- or 8-byte scalar");
      }
      r.fill = true;
      r.fill_lo = fill->lo;
      r.fill_hi = fill->hi;
      r.fill_bits = fill->bits;
    }
    return std::unique_ptr<Thunk>(new GatherRowsThunk(r, inputs[0], inputs[1], output));
  }
  if (wrap != 0 || fill != nullptr) {
    if (std::unique_ptr<Thunk> columns =
            MakeGatherColumns(instr, g, inputs[0], inputs[1], output, wrap, fill)) {
      return columns;
    }
    return absl::InternalError("gather: index wrapping or a fill needs a gather of rows or columns");
  }
  if (std::unique_ptr<Thunk> element = MakeElementGather(instr, g, inputs[0], inputs[1], output)) {
    return element;
  }
  if (std::unique_ptr<Thunk> columns = MakeGatherColumns(instr, g, inputs[0], inputs[1], output)) {
    return columns;
  }
  // The window sizes come from the result (slice sizes of the kept dims).
  std::vector<bool> clamp(operand.rank(), true);
  for (int64_t d : dn.operand_batching_dims) clamp[d] = false;
  return std::unique_ptr<Thunk>(
      new GatherThunk(std::move(g), a.slice_sizes, std::move(clamp), inputs[0], inputs[1], output));
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeDynamicSliceThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             SlotId output) {
  const Shape& x = instr.operand(0)->shape();
  if (static_cast<int64_t>(inputs.size()) != x.rank() + 1) {
    return absl::InternalError("dynamic_slice: operand count in the cpu lowering");
  }
  const DType index_type = x.rank() > 0 ? instr.operand(1)->shape().dtype : DType::kS32;
  std::vector<SlotId> starts(inputs.begin() + 1, inputs.end());
  return std::unique_ptr<Thunk>(new DynamicSliceThunk(
      x.dims, instr.attrs<DynamicSliceAttrs>().slice_sizes, index_type, ByteWidth(x.dtype),
      inputs[0], std::move(starts), output));
}

}  // namespace xjit::cpu
