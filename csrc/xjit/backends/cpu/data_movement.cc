#include "xjit/backends/cpu/data_movement.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/strided_copy.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

// One strided copy from input `input` into the output, plus an optional fill
// of the whole output first (pad).
struct CopyPiece {
  int input;
  StridedCopy copy;
};

class StridedCopyThunk : public Thunk {
 public:
  StridedCopyThunk(std::vector<SlotId> inputs, SlotId output, std::vector<CopyPiece> pieces,
                   int fill_input, int64_t elem_bytes, int64_t out_elements)
      : inputs_(std::move(inputs)), output_(output), pieces_(std::move(pieces)),
        fill_input_(fill_input), elem_bytes_(elem_bytes), out_elements_(out_elements) {}

  void Execute(void* const* buffers) const override {
    void* out = buffers[output_];
    if (fill_input_ >= 0) {
      FillElements(out, buffers[inputs_[fill_input_]], elem_bytes_, out_elements_);
    }
    for (const CopyPiece& p : pieces_) RunStridedCopy(p.copy, out, buffers[inputs_[p.input]]);
  }

 private:
  std::vector<SlotId> inputs_;
  SlotId output_;
  std::vector<CopyPiece> pieces_;
  int fill_input_;
  int64_t elem_bytes_, out_elements_;
};

// Iteration over the output with row-major destination strides; the caller
// fills in the source strides and offset.
StridedCopy OverOutput(const Shape& out) {
  StridedCopy c;
  c.elem_bytes = ByteWidth(out.dtype);
  c.sizes = out.dims;
  c.dst_strides = RowMajorStrides(out.dims);
  c.src_strides.assign(out.dims.size(), 0);
  return c;
}

absl::StatusOr<std::vector<CopyPiece>> PlanPieces(const Instruction& instr, int* fill_input) {
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims);
  const int64_t rank = out.rank();
  *fill_input = -1;
  StridedCopy c = OverOutput(out);
  switch (instr.opcode()) {
    case Opcode::kReshape:
      c.sizes = {out.num_elements()};
      c.dst_strides = {1};
      c.src_strides = {1};
      return std::vector<CopyPiece>{{0, c}};
    case Opcode::kBroadcastInDim: {
      const std::vector<int64_t>& bd = instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
      for (size_t d = 0; d < bd.size(); ++d) {
        if (in.dims[d] != 1) c.src_strides[bd[d]] = in_strides[d];
      }
      return std::vector<CopyPiece>{{0, c}};
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t>& perm = instr.attrs<TransposeAttrs>().permutation;
      for (int64_t d = 0; d < rank; ++d) c.src_strides[d] = in_strides[perm[d]];
      return std::vector<CopyPiece>{{0, c}};
    }
    case Opcode::kSlice: {
      const SliceAttrs& a = instr.attrs<SliceAttrs>();
      for (int64_t d = 0; d < rank; ++d) {
        int64_t step = a.strides.empty() ? 1 : a.strides[d];
        // A huge step can only leave one element, whose stride is never used.
        c.src_strides[d] = out.dims[d] > 1 ? in_strides[d] * step : 0;
        c.src_offset += a.start_indices[d] * in_strides[d];
      }
      return std::vector<CopyPiece>{{0, c}};
    }
    case Opcode::kReverse:
      for (int64_t d = 0; d < rank; ++d) c.src_strides[d] = in_strides[d];
      for (int64_t d : instr.attrs<ReverseAttrs>().dimensions) {
        c.src_strides[d] = -in_strides[d];
        c.src_offset += (in.dims[d] - 1) * in_strides[d];
      }
      return std::vector<CopyPiece>{{0, c}};
    case Opcode::kConcatenate: {
      const int64_t axis = instr.attrs<ConcatenateAttrs>().dimension;
      std::vector<CopyPiece> pieces;
      std::vector<int64_t> out_strides = RowMajorStrides(out.dims);
      int64_t offset = 0;
      for (size_t i = 0; i < instr.operands().size(); ++i) {
        const Shape& s = instr.operand(i)->shape();
        StridedCopy p;
        p.elem_bytes = ByteWidth(out.dtype);
        p.sizes = s.dims;
        p.dst_strides = out_strides;
        p.src_strides = RowMajorStrides(s.dims);
        p.dst_offset = offset * out_strides[axis];
        offset += s.dims[axis];
        pieces.push_back({static_cast<int>(i), p});
      }
      return pieces;
    }
    case Opcode::kPad: {
      // Operand element i of dim d lands at lo + i * (interior + 1); negative
      // edge padding cuts elements off, so copy only those that land inside.
      *fill_input = 1;
      const PadAttrs& a = instr.attrs<PadAttrs>();
      std::vector<int64_t> out_strides = RowMajorStrides(out.dims);
      StridedCopy p;
      p.elem_bytes = ByteWidth(out.dtype);
      for (int64_t d = 0; d < rank; ++d) {
        int64_t lo = a.edge_padding_low[d], step = a.interior_padding[d] + 1;
        int64_t first = lo >= 0 ? 0 : (-lo + step - 1) / step;
        int64_t last = in.dims[d];  // exclusive
        if (out.dims[d] - 1 - lo < 0) {
          last = 0;
        } else {
          last = std::min(last, (out.dims[d] - 1 - lo) / step + 1);
        }
        p.sizes.push_back(std::max<int64_t>(0, last - first));
        // More than one element lands inside only when step < out.dims[d].
        p.dst_strides.push_back(p.sizes.back() > 1 ? out_strides[d] * step : 0);
        p.src_strides.push_back(in_strides[d]);
        p.dst_offset += (lo + first * step) * out_strides[d];
        p.src_offset += first * in_strides[d];
      }
      return std::vector<CopyPiece>{{0, p}};
    }
    XJIT_STRUCTURAL_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
    XJIT_CONTRACTION_OPS(XJIT_OPCODE_CASE)
    XJIT_REDUCTION_OPS(XJIT_OPCODE_CASE)
    XJIT_TUPLE_OPS(XJIT_OPCODE_CASE)
    XJIT_CALL_OPS(XJIT_OPCODE_CASE)
    XJIT_FUSION_OPS(XJIT_OPCODE_CASE)
    XJIT_RANDOM_OPS(XJIT_OPCODE_CASE)
    XJIT_SORT_OPS(XJIT_OPCODE_CASE)
    XJIT_MAP_OPS(XJIT_OPCODE_CASE)
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
    XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
    XJIT_INDEXING_OPS(XJIT_OPCODE_CASE)
    XJIT_CONTROL_FLOW_OPS(XJIT_OPCODE_CASE)
    XJIT_WINDOW_OPS(XJIT_OPCODE_CASE)
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
    XJIT_CUSTOM_CALL_OPS(XJIT_OPCODE_CASE)
    XJIT_SPECTRAL_OPS(XJIT_OPCODE_CASE)
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    XJIT_SPECIAL_OPS(XJIT_OPCODE_CASE)
    case Opcode::kBitcastConvert:  // a plain copy (compiler.cc)
      break;
  }
  return absl::InternalError(
      absl::StrCat(OpcodeName(instr.opcode()), " is not a data-movement op"));
}

// Copies bytes [0, end) of in[0] to out: a copy as a flattened step.
void CopyBytesKernel(const void* const* in, const int64_t*, void* out, int64_t, int64_t end) {
  std::memcpy(out, in[0], static_cast<size_t>(end));
}

class CopyThunk : public Thunk {
 public:
  CopyThunk(SlotId src, SlotId dst, int64_t bytes) : src_(src), dst_(dst), bytes_(bytes) {}
  void Execute(void* const* buffers) const override {
    // A result that is a donated parameter handed over to it is its own source.
    if (bytes_ > 0 && buffers[dst_] != buffers[src_]) ParallelCopy(buffers[dst_], buffers[src_], bytes_);
  }
  bool AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const override {
    if (bytes_ > 0 && buffers[dst_] != buffers[src_]) {
      steps->push_back({&CopyBytesKernel, {buffers[src_], nullptr, nullptr}, nullptr,
                        buffers[dst_], bytes_});
    }
    return true;
  }

 private:
  SlotId src_, dst_;
  int64_t bytes_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeDataMovementThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             SlotId output) {
  int fill_input = -1;
  auto pieces = PlanPieces(instr, &fill_input);
  if (!pieces.ok()) return pieces.status();
  for (CopyPiece& p : *pieces) p.copy = SimplifyStridedCopy(std::move(p.copy));
  return std::unique_ptr<Thunk>(new StridedCopyThunk(std::move(inputs), output,
                                                     std::move(*pieces), fill_input,
                                                     ByteWidth(instr.shape().dtype),
                                                     instr.shape().num_elements()));
}

std::unique_ptr<Thunk> MakeCopyThunk(SlotId src, SlotId dst, int64_t bytes) {
  return std::make_unique<CopyThunk>(src, dst, bytes);
}

absl::StatusOr<Literal> EvaluateIota(const Shape& shape, int64_t iota_dimension) {
  if (iota_dimension < 0 || iota_dimension >= shape.rank()) {
    return absl::OutOfRangeError(absl::StrCat("iota: iota_dimension ", iota_dimension,
                                              " is out of range for ", shape.ToString()));
  }
  Literal lit(shape);
  std::vector<int64_t> strides = RowMajorStrides(shape.dims);
  int64_t n = shape.num_elements(), stride = strides[iota_dimension],
          size = shape.dims[iota_dimension];
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = ConvertElement<T>((i / stride) % size);
  });
  return lit;
}

}  // namespace xjit::cpu
