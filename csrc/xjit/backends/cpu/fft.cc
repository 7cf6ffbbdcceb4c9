#include "xjit/backends/cpu/fft.h"

#include <omp.h>

#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ducc0/fft/fft.h"

namespace xjit::cpu {
namespace {

using Dims = ducc0::fmav_info::shape_t;
using Strides = ducc0::fmav_info::stride_t;

template <typename T>
class FftThunk : public Thunk {
 public:
  FftThunk(FftType type, const Shape& in, const Shape& out, int64_t axes, SlotId operand,
           SlotId result)
      : type_(type), operand_(operand), result_(result) {
    // Without a batch, only the transformed dimensions: ducc0 splits a single
    // 1-d transform over threads only when the array is 1-d.
    int64_t batch = 1;
    for (int64_t d = 0; d < in.rank() - axes; ++d) batch *= in.dims[d];
    const int64_t first = batch == 1 ? in.rank() - axes : 0;
    in_shape_.assign(in.dims.begin() + first, in.dims.end());
    out_shape_.assign(out.dims.begin() + first, out.dims.end());
    in_strides_ = RowMajor(in_shape_);
    out_strides_ = RowMajor(out_shape_);
    const int64_t rank = in.rank() - first;
    for (int64_t a = rank - axes; a < rank; ++a) axes_.push_back(a);
    // The logical lengths: the real side's for RFFT/IRFFT.
    const Dims& logical = type == FftType::kIrfft ? out_shape_ : in_shape_;
    double n = 1;
    for (size_t a : axes_) n *= static_cast<double>(logical[a]);
    scale_ = (type == FftType::kIfft || type == FftType::kIrfft) && n > 0 ? T(1 / n) : T(1);
    empty_ = in.num_elements() == 0 || out.num_elements() == 0;
  }

  void Execute(void* const* buffers) const override {
    if (empty_) return;
    using C = std::complex<T>;
    const size_t threads = static_cast<size_t>(omp_get_max_threads());
    switch (type_) {
      case FftType::kFft:
      case FftType::kIfft:
        ducc0::c2c(ducc0::cfmav<C>(static_cast<const C*>(buffers[operand_]), in_shape_, in_strides_),
                   ducc0::vfmav<C>(static_cast<C*>(buffers[result_]), out_shape_, out_strides_),
                   axes_, type_ == FftType::kFft, scale_, threads);
        return;
      case FftType::kRfft:
        ducc0::r2c(ducc0::cfmav<T>(static_cast<const T*>(buffers[operand_]), in_shape_, in_strides_),
                   ducc0::vfmav<C>(static_cast<C*>(buffers[result_]), out_shape_, out_strides_),
                   axes_, /*forward=*/true, scale_, threads);
        return;
      case FftType::kIrfft:
        ducc0::c2r(ducc0::cfmav<C>(static_cast<const C*>(buffers[operand_]), in_shape_, in_strides_),
                   ducc0::vfmav<T>(static_cast<T*>(buffers[result_]), out_shape_, out_strides_),
                   axes_, /*forward=*/false, scale_, threads);
        return;
    }
  }

 private:
  static Strides RowMajor(const Dims& shape) {
    Strides s(shape.size());
    ptrdiff_t step = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      s[i] = step;
      step *= static_cast<ptrdiff_t>(shape[i]);
    }
    return s;
  }

  FftType type_;
  SlotId operand_, result_;
  Dims in_shape_, out_shape_, axes_;
  Strides in_strides_, out_strides_;
  T scale_;
  bool empty_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeFftThunk(const Instruction& instr, SlotId operand,
                                                    SlotId result) {
  const FftAttrs& attrs = instr.attrs<FftAttrs>();
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  const int64_t axes = static_cast<int64_t>(attrs.fft_length.size());
  // IRFFT's result dtype is real already; the others have a complex side.
  const DType component = attrs.fft_type == FftType::kIrfft ? out.dtype
                          : attrs.fft_type == FftType::kRfft ? in.dtype
                                                              : ComplexComponent(in.dtype);
  if (component == DType::kF32) {
    return std::unique_ptr<Thunk>(
        new FftThunk<float>(attrs.fft_type, in, out, axes, operand, result));
  }
  if (component == DType::kF64) {
    return std::unique_ptr<Thunk>(
        new FftThunk<double>(attrs.fft_type, in, out, axes, operand, result));
  }
  return absl::InvalidArgumentError(absl::StrCat("fft: unsupported type ", in.ToString()));
}

}  // namespace xjit::cpu
