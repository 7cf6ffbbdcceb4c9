#include "xjit/backends/cpu/scatter.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/gather.h"
#include "xjit/backends/cpu/indexing_geometry.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/row_indexing.h"
#include "xjit/backends/cpu/scalar_evaluator.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/backends/cpu/strided_copy.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

// How the update computation combines (current, update): a recognised
// single-input body, or the region itself.
enum class Combine { kSet, kAdd, kMultiply, kMaximum, kMinimum, kRegion };

Combine RecogniseScatterBody(const Instruction& scatter) {
  if (scatter.operands().size() != 3 || scatter.called_computations().size() != 1) {
    return Combine::kRegion;
  }
  const Computation& body = *scatter.called_computations()[0];
  if (body.results().size() != 1 || body.parameters().size() != 2) return Combine::kRegion;
  const Instruction* r = body.results()[0];
  const Instruction* update = body.parameters()[1];
  if (r == update) return Combine::kSet;
  if (r->operands().size() != 2) return Combine::kRegion;
  const Instruction *a = r->operand(0), *b = r->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter || a == b) {
    return Combine::kRegion;
  }
  switch (r->opcode()) {
    case Opcode::kAdd: return Combine::kAdd;
    case Opcode::kMultiply: return Combine::kMultiply;
    case Opcode::kMaximum: return Combine::kMaximum;
    case Opcode::kMinimum: return Combine::kMinimum;
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    case Opcode::kSubtract: case Opcode::kDivide: case Opcode::kRemainder: case Opcode::kPower:
    case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor: case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: case Opcode::kAtan2:
    case Opcode::kComplex: case Opcode::kCompare:
      break;
  }
  return Combine::kRegion;
}

template <typename Op, typename T>
void ApplyRun(unsigned char* dst, const unsigned char* src, int64_t n, int64_t ds, int64_t ss) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) d[i * ds] = Op::Apply(d[i * ds], s[i * ss]);
}

using RunFn = void (*)(unsigned char*, const unsigned char*, int64_t, int64_t, int64_t);

template <typename Op>
RunFn RunFor(DType t) {
  RunFn fn = nullptr;
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template supports<T>) fn = &ApplyRun<Op, T>;
  });
  return fn;
}

class ScatterThunk : public Thunk {
 public:
  ScatterThunk(IndexingGeometry g, std::vector<SlotId> inputs, SlotId indices,
               std::vector<SlotId> updates, std::vector<SlotId> outputs,
               std::vector<int64_t> widths, int64_t input_elements, Combine combine, RunFn run,
               std::optional<ScalarEvaluator> region, bool parallel)
      : g_(std::move(g)), inputs_(std::move(inputs)), indices_(indices),
        updates_(std::move(updates)), outputs_(std::move(outputs)), widths_(std::move(widths)),
        input_elements_(input_elements), combine_(combine), run_(run),
        region_(std::move(region)), parallel_(parallel) {
    for (int64_t d : g_.window_operand_dims) dst_strides_.push_back(g_.operand_strides[d]);
    is_window_.assign(g_.operand_dims.size(), false);
    for (int64_t d : g_.window_operand_dims) is_window_[d] = true;
  }

  void Execute(void* const* buffers) const override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (buffers[inputs_[i]] != buffers[outputs_[i]]) {
        ParallelCopy(buffers[outputs_[i]], buffers[inputs_[i]], input_elements_ * widths_[i]);
      }
    }
    const int64_t cost = g_.num_batches * g_.window_elements;
    // Elements of the results [out_lo, out_hi) this pass may write.
    auto body = [&](int64_t begin, int64_t end, int64_t out_lo, int64_t out_hi) {
      const int64_t rank = static_cast<int64_t>(g_.operand_dims.size());
      std::vector<int64_t> start(rank), lo, hi;
      std::optional<ScalarEvaluator::Frame> frame;
      if (region_) frame = region_->NewFrame();
      for (int64_t b = begin; b < end; ++b) {
        const int64_t src_base = g_.Start(buffers[indices_], b, start);
        if (!Clip(start, lo, hi)) continue;
        int64_t dst_base = 0;
        for (int64_t d = 0; d < rank; ++d) dst_base += start[d] * g_.operand_strides[d];
        if (out_lo > 0 || out_hi < input_elements_) {  // skip windows outside this part
          int64_t first = dst_base, last = dst_base;
          for (size_t k = 0; k < lo.size(); ++k) {
            first += lo[k] * dst_strides_[k];
            last += (hi[k] - 1) * dst_strides_[k];
          }
          if (last < out_lo || first >= out_hi) continue;
        }
        Walk(buffers, src_base, dst_base, lo, hi, out_lo, out_hi, frame ? &*frame : nullptr);
      }
    };
    const int64_t all = input_elements_;
    if (parallel_) {  // unique indices: no two index vectors write one element
      ParallelFor(g_.num_batches, 1, cost,
                  [&](int64_t b, int64_t e) { body(b, e, 0, all); });
    } else if (cost >= kParallelThreshold && all >= 2 * Parts()) {
      const int64_t parts = Parts();
      // Duplicates may hit one element: split the results instead. Each part
      // applies every update, in order, to its own range of elements only, so
      // every element still sees its updates in the serial order.
      ParallelFor(parts, 1, cost, [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          body(0, g_.num_batches, all * p / parts, all * (p + 1) / parts);
        }
      });
    } else {
      body(0, g_.num_batches, 0, all);
    }
  }

 private:
  // The part [lo, hi) of the window inside the inputs; false when empty.
  bool Clip(const std::vector<int64_t>& start, std::vector<int64_t>& lo,
            std::vector<int64_t>& hi) const {
    const int64_t rank = static_cast<int64_t>(g_.operand_dims.size());
    lo.resize(g_.window_sizes.size());
    hi.resize(g_.window_sizes.size());
    for (size_t k = 0; k < g_.window_sizes.size(); ++k) {
      const int64_t d = g_.window_operand_dims[k];
      // Entirely outside (and no overflow in the differences below).
      if (start[d] >= g_.operand_dims[d] || start[d] <= -g_.window_sizes[k]) return false;
      lo[k] = std::max<int64_t>(0, -start[d]);
      hi[k] = std::min<int64_t>(g_.window_sizes[k], g_.operand_dims[d] - start[d]);
      if (lo[k] >= hi[k]) return false;
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (!is_window_[d] && (start[d] < 0 || start[d] >= g_.operand_dims[d])) return false;
    }
    return true;
  }

  // Parts the results are split into when duplicates forbid splitting the
  // updates: one per thread (each part reads every index vector).
  static int64_t Parts() { return MaxThreads(); }

  void Walk(void* const* buffers, int64_t src_base, int64_t dst_base,
            const std::vector<int64_t>& lo, const std::vector<int64_t>& hi, int64_t out_lo,
            int64_t out_hi, ScalarEvaluator::Frame* frame) const {
    const int64_t rank = static_cast<int64_t>(lo.size());
    std::vector<int64_t> index(lo);
    const int64_t inner = rank == 0 ? 1 : hi[rank - 1] - lo[rank - 1];
    const int64_t ss = rank == 0 ? 0 : g_.window_other_strides[rank - 1];
    const int64_t ds = rank == 0 ? 0 : dst_strides_[rank - 1];
    while (true) {
      int64_t s = src_base, t = dst_base;
      for (int64_t d = 0; d < rank; ++d) {
        s += index[d] * g_.window_other_strides[d];
        t += index[d] * dst_strides_[d];
      }
      // Only the elements of the run inside [out_lo, out_hi).
      int64_t first = 0, last = inner;
      if (ds > 0) {
        if (t < out_lo) first = (out_lo - t + ds - 1) / ds;
        last = std::min<int64_t>(inner, t >= out_hi ? 0 : (out_hi - t + ds - 1) / ds);
      } else if (t < out_lo || t >= out_hi) {
        last = 0;
      }
      if (first < last) {
        Run(buffers, t + first * ds, s + first * ss, last - first, ds, ss, frame);
      }
      int64_t d = rank - 2;
      for (; d >= 0; --d) {
        if (++index[d] < hi[d]) break;
        index[d] = lo[d];
      }
      if (d < 0) return;
    }
  }

  // `n` elements from update offset `s` (stride ss) into result offset `t` (stride ds).
  void Run(void* const* buffers, int64_t t, int64_t s, int64_t n, int64_t ds, int64_t ss,
           ScalarEvaluator::Frame* frame) const {
    if (combine_ == Combine::kSet) {
      const int64_t w = widths_[0];
      auto* dst = static_cast<unsigned char*>(buffers[outputs_[0]]) + t * w;
      const auto* src = static_cast<const unsigned char*>(buffers[updates_[0]]) + s * w;
      if (ds == 1 && ss == 1) {
        std::memcpy(dst, src, n * w);
      } else {
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds * w, src + i * ss * w, w);
      }
      return;
    }
    if (run_ != nullptr) {
      const int64_t w = widths_[0];
      run_(static_cast<unsigned char*>(buffers[outputs_[0]]) + t * w,
           static_cast<const unsigned char*>(buffers[updates_[0]]) + s * w, n, ds, ss);
      return;
    }
    const size_t num = outputs_.size();
    std::vector<const void*> params(2 * num);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < num; ++k) {
        params[k] = static_cast<const unsigned char*>(buffers[outputs_[k]]) + (t + i * ds) * widths_[k];
        params[num + k] =
            static_cast<const unsigned char*>(buffers[updates_[k]]) + (s + i * ss) * widths_[k];
      }
      region_->Evaluate(*frame, params.data());
      for (size_t k = 0; k < num; ++k) {
        std::memcpy(static_cast<unsigned char*>(buffers[outputs_[k]]) + (t + i * ds) * widths_[k],
                    region_->Result(*frame, k), widths_[k]);
      }
    }
  }

  IndexingGeometry g_;
  std::vector<SlotId> inputs_;
  SlotId indices_;
  std::vector<SlotId> updates_, outputs_;
  std::vector<int64_t> widths_;
  int64_t input_elements_;
  Combine combine_;
  RunFn run_;
  std::optional<ScalarEvaluator> region_;
  bool parallel_;
  std::vector<int64_t> dst_strides_;
  std::vector<bool> is_window_;  // per input dimension
};

// A scatter of whole rows with a recognised body (row_indexing.h).
class ScatterRowsThunk : public Thunk {
 public:
  ScatterRowsThunk(RowIndexing r, ScatterRowsFn fn, bool unique, int64_t input_bytes,
                   SlotId input, SlotId indices, SlotId updates, SlotId output)
      : r_(r), fn_(fn), unique_(unique), input_bytes_(input_bytes), input_(input),
        indices_(indices), updates_(updates), output_(output) {}
  void Execute(void* const* buffers) const override {
    if (buffers[input_] != buffers[output_]) {
      ParallelCopy(buffers[output_], buffers[input_], input_bytes_);
    }
    fn_(r_, buffers[indices_], buffers[updates_], buffers[output_], unique_);
  }

 private:
  RowIndexing r_;
  ScatterRowsFn fn_;
  bool unique_;
  int64_t input_bytes_;
  SlotId input_, indices_, updates_, output_;
};

// The opcode row_indexing.h names a recognised body by.
Opcode CombineOpcode(Combine c) {
  switch (c) {
    case Combine::kSet: return Opcode::kParameter;
    case Combine::kAdd: return Opcode::kAdd;
    case Combine::kMultiply: return Opcode::kMultiply;
    case Combine::kMaximum: return Opcode::kMaximum;
    case Combine::kMinimum: return Opcode::kMinimum;
    case Combine::kRegion: break;
  }
  return Opcode::kCall;  // no row kernel
}

class DynamicUpdateSliceThunk : public Thunk {
 public:
  DynamicUpdateSliceThunk(std::vector<int64_t> dims, std::vector<int64_t> sizes,
                          DType index_type, int64_t width, SlotId operand, SlotId update,
                          std::vector<SlotId> starts, SlotId output, bool splat_update)
      : dims_(std::move(dims)), sizes_(std::move(sizes)), index_type_(index_type),
        width_(width), operand_(operand), update_(update), starts_(std::move(starts)),
        output_(output), splat_update_(splat_update) {
    strides_ = RowMajorStrides(dims_);
    update_strides_ = RowMajorStrides(sizes_);
    bytes_ = width_;
    for (int64_t d : dims_) bytes_ *= d;
    run_bytes_ = ContiguousBoxBytes(dims_, sizes_, width_);
  }

  void Execute(void* const* buffers) const override {
    if (buffers[operand_] != buffers[output_]) {
      ParallelCopy(buffers[output_], buffers[operand_], bytes_);
    }
    absl::InlinedVector<const void*, 4> in(dims_.size() + 1);
    in[0] = buffers[update_];
    for (size_t d = 0; d < dims_.size(); ++d) in[d + 1] = buffers[starts_[d]];
    RunStep(in.data(), buffers[output_]);
  }

  // Writes the update into `out`, which holds the operand. in: the update,
  // then the start of each dimension.
  void RunStep(const void* const* in, void* out) const {
    const int64_t dst = ClampedStartOffset(dims_, sizes_, strides_, index_type_, in + 1);
    unsigned char* to = static_cast<unsigned char*>(out) + dst * width_;
    if (splat_update_) {
      FillBox(in[0], to);
      return;
    }
    if (run_bytes_ >= 0) {
      std::memcpy(to, in[0], run_bytes_);
      return;
    }
    CopyBox(static_cast<const unsigned char*>(in[0]), to, width_, sizes_, update_strides_,
            strides_, true);
  }

  // The box at `to` filled with the element at `value`, a run at a time.
  void FillBox(const void* value, unsigned char* to) const {
    const int64_t rank = static_cast<int64_t>(sizes_.size());
    if (run_bytes_ >= 0) {
      FillElements(to, value, width_, run_bytes_ / width_);
      return;
    }
    for (int64_t s : sizes_) {
      if (s == 0) return;
    }
    absl::InlinedVector<int64_t, 8> index(rank - 1, 0);
    while (true) {
      int64_t offset = 0;
      for (int64_t d = 0; d + 1 < rank; ++d) offset += index[d] * strides_[d];
      FillElements(to + offset * width_, value, width_, sizes_[rank - 1]);
      int64_t d = rank - 2;
      for (; d >= 0 && ++index[d] == sizes_[d]; --d) index[d] = 0;
      if (d < 0) return;
    }
  }

  // Only in place (a loop's carried array): a step reads three buffers.
  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override {
    if (dims_.empty() || dims_.size() > 2 || buffers[operand_] != buffers[output_]) return false;
    steps->push_back(ThunkStep(this, buffers[update_], buffers[starts_[0]],
                               dims_.size() > 1 ? buffers[starts_[1]] : nullptr,
                               buffers[output_]));
    return true;
  }

 private:
  std::vector<int64_t> dims_, sizes_, strides_, update_strides_;
  DType index_type_;
  int64_t width_, bytes_;
  int64_t run_bytes_;  // >= 0: the window is one run of the operand (ContiguousBoxBytes)
  SlotId operand_, update_;
  std::vector<SlotId> starts_;
  SlotId output_;
  bool splat_update_;  // update_ holds one element for the whole box
};

}  // namespace

namespace {

IndexingGeometry ScatterGeometry(const Instruction& instr) {
  const size_t num = (instr.operands().size() - 1) / 2;
  const ScatterDimensionNumbers& dn = instr.attrs<ScatterAttrs>().scatter_dimension_numbers;
  return MakeIndexingGeometry(
      instr.operand(0)->shape(), instr.operand(num)->shape(), instr.operand(num + 1)->shape(),
      dn.update_window_dims, dn.inserted_window_dims, dn.input_batching_dims,
      dn.scatter_indices_batching_dims, dn.scatter_dims_to_operand_dims, dn.index_vector_dim);
}

// The row kernel of a one-input scatter of whole rows with a recognised
// body (row_indexing.h), or nullptr.
ScatterRowsFn RowKernel(const Instruction& instr, const IndexingGeometry& g) {
  if (instr.operands().size() != 3 || !IsRowIndexing(g)) return nullptr;
  const Combine combine = RecogniseScatterBody(instr);
  if (combine == Combine::kRegion) return nullptr;
  return ScatterRowsFor(CombineOpcode(combine), instr.operand(0)->shape().dtype);
}

}  // namespace

bool ScatterOfRows(const Instruction& instr) {
  return instr.operands().size() == 3 && RowKernel(instr, ScatterGeometry(instr)) != nullptr;
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeScatterThunk(const Instruction& instr,
                                                        std::vector<SlotId> inputs,
                                                        std::vector<SlotId> outputs,
                                                        int64_t wrap) {
  const size_t num = (instr.operands().size() - 1) / 2;
  if (instr.operands().size() < 3 || inputs.size() != 2 * num + 1 || outputs.size() != num ||
      instr.called_computations().size() != 1) {
    return absl::InternalError("scatter: operand/result count mismatch in the cpu lowering");
  }
  const ScatterAttrs& a = instr.attrs<ScatterAttrs>();
  const Shape& input = instr.operand(0)->shape();
  IndexingGeometry g = ScatterGeometry(instr);
  if (ScatterRowsFn fn = RowKernel(instr, g)) {
    RowIndexing r = MakeRowIndexing(g);
    r.wrap = wrap;
    return std::unique_ptr<Thunk>(new ScatterRowsThunk(r, fn, a.unique_indices, input.byte_size(),
                                                       inputs[0], inputs[1], inputs[2],
                                                       outputs[0]));
  }
  if (wrap != 0) return absl::InternalError("scatter: index wrapping needs a scatter of rows");
  std::vector<int64_t> widths;
  for (size_t k = 0; k < num; ++k) widths.push_back(ByteWidth(instr.operand(k)->shape().dtype));
  Combine combine = RecogniseScatterBody(instr);
  RunFn run = nullptr;
  switch (combine) {
    case Combine::kAdd: run = RunFor<Add>(input.dtype); break;
    case Combine::kMultiply: run = RunFor<Multiply>(input.dtype); break;
    case Combine::kMaximum: run = RunFor<Maximum>(input.dtype); break;
    case Combine::kMinimum: run = RunFor<Minimum>(input.dtype); break;
    case Combine::kSet: case Combine::kRegion: break;
  }
  if (combine != Combine::kSet && run == nullptr) combine = Combine::kRegion;
  std::optional<ScalarEvaluator> region;
  if (combine == Combine::kRegion) {
    absl::StatusOr<ScalarEvaluator> fn = ScalarEvaluator::Compile(*instr.called_computations()[0]);
    if (!fn.ok()) return fn.status();
    if (fn->num_results() != static_cast<int64_t>(num)) {
      return absl::InternalError("scatter: update_computation result count");
    }
    region = *std::move(fn);
  }
  std::vector<SlotId> ins(inputs.begin(), inputs.begin() + num);
  std::vector<SlotId> ups(inputs.begin() + num + 1, inputs.end());
  return std::unique_ptr<Thunk>(new ScatterThunk(
      std::move(g), std::move(ins), inputs[num], std::move(ups), std::move(outputs),
      std::move(widths), input.num_elements(), combine, run, std::move(region),
      a.unique_indices));
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeDynamicUpdateSliceThunk(const Instruction& instr,
                                                                   std::vector<SlotId> inputs,
                                                                   SlotId output,
                                                                   bool splat_update) {
  const Shape& x = instr.operand(0)->shape();
  if (static_cast<int64_t>(inputs.size()) != x.rank() + 2) {
    return absl::InternalError("dynamic_update_slice: operand count in the cpu lowering");
  }
  const DType index_type = x.rank() > 0 ? instr.operand(2)->shape().dtype : DType::kS32;
  std::vector<SlotId> starts(inputs.begin() + 2, inputs.end());
  return std::unique_ptr<Thunk>(new DynamicUpdateSliceThunk(
      x.dims, instr.operand(1)->shape().dims, index_type, ByteWidth(x.dtype), inputs[0],
      inputs[1], std::move(starts), output, splat_update));
}

}  // namespace xjit::cpu
