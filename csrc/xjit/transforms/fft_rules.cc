#include "xjit/transforms/fft_rules.h"

#include <complex>
#include <utility>
#include <vector>

#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

ValueOr Fft(Emitter& e, Value x, FftType type, const std::vector<int64_t>& lengths) {
  return e.builder().Add(Opcode::kFft, {x}, FftAttrs{type, lengths});
}

// complex(real(v), -imag(v)).
ValueOr Conj(Emitter& e, Value v) {
  XJIT_TF_ASSIGN_OR_RETURN(Value re, e.Unary(Opcode::kReal, v));
  XJIT_TF_ASSIGN_OR_RETURN(Value im, e.Unary(Opcode::kImag, v));
  XJIT_TF_ASSIGN_OR_RETURN(Value neg, e.Neg(im));
  return e.Binary(Opcode::kComplex, re, neg);
}

// JAX's _rfft_transpose: the transpose of x -> fft(complex(x))[..., :n/2+1].
ValueOr RfftTranspose(Emitter& e, Value ct, const std::vector<int64_t>& lengths) {
  const Shape& s = ct->shape();
  std::vector<int64_t> low(s.rank(), 0), high(s.rank(), 0), interior(s.rank(), 0);
  high.back() = lengths.back() - s.dims.back();
  XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.Full(s.dtype, {}, 0.0));
  XJIT_TF_ASSIGN_OR_RETURN(Value padded, e.Pad(ct, zero, low, high, interior));
  XJIT_TF_ASSIGN_OR_RETURN(Value full, Fft(e, padded, FftType::kFft, lengths));
  return e.Unary(Opcode::kReal, full);
}

// JAX's _irfft_transpose: conj(rfft(ct) * mask / prod(n)), the mask doubling
// the entries whose Hermitian twins the RFFT leaves out.
ValueOr IrfftTranspose(Emitter& e, Value ct, const std::vector<int64_t>& lengths) {
  XJIT_TF_ASSIGN_OR_RETURN(Value x, Fft(e, ct, FftType::kRfft, lengths));
  const Shape& s = x->shape();
  const int64_t m = s.dims.back();
  const bool odd = lengths.back() % 2 == 1;
  double scale = 1;
  for (int64_t n : lengths) scale /= static_cast<double>(n);
  Literal mask(Shape(s.dtype, {m}));
  for (int64_t j = 0; j < m; ++j) {
    const double w = (j == 0 || (!odd && j == m - 1) ? 1.0 : 2.0) * scale;
    if (s.dtype == DType::kC64) {
      mask.mutable_data_as<std::complex<float>>()[j] = std::complex<float>(static_cast<float>(w), 0);
    } else {
      mask.mutable_data_as<std::complex<double>>()[j] = std::complex<double>(w, 0);
    }
  }
  Value c = e.builder().Constant(std::move(mask));
  XJIT_TF_ASSIGN_OR_RETURN(Value wide, e.BroadcastInDim(c, s.dims, {s.rank() - 1}));
  XJIT_TF_ASSIGN_OR_RETURN(Value scaled, e.Mul(x, wide));
  return Conj(e, scaled);
}

}  // namespace

absl::StatusOr<JvpOut> FftJvp(JvpContext& ctx) {
  if (ctx.t(0) == nullptr) return JvpOut{{}, {nullptr}};
  const FftAttrs& a = ctx.old.attrs<FftAttrs>();
  XJIT_TF_ASSIGN_OR_RETURN(Value t, Fft(ctx.e, ctx.t(0), a.fft_type, a.fft_length));
  return JvpOut{{}, {t}};
}

absl::StatusOr<std::vector<Value>> FftTranspose(TransposeContext& ctx) {
  const FftAttrs& a = ctx.old.attrs<FftAttrs>();
  switch (a.fft_type) {
    case FftType::kFft:
    case FftType::kIfft: {  // the DFT matrix is symmetric
      XJIT_TF_ASSIGN_OR_RETURN(Value v, Fft(ctx.e, ctx.ct, a.fft_type, a.fft_length));
      return std::vector<Value>{v};
    }
    case FftType::kRfft: {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, RfftTranspose(ctx.e, ctx.ct, a.fft_length));
      return std::vector<Value>{v};
    }
    case FftType::kIrfft: {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, IrfftTranspose(ctx.e, ctx.ct, a.fft_length));
      return std::vector<Value>{v};
    }
  }
  return absl::InternalError("fft: unknown fft_type");
}

absl::StatusOr<BatchOut> FftBatch(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(Value v,
                           ctx.e.builder().Add(Opcode::kFft, {ctx.operands[0]}, ctx.old.attributes()));
  return BatchOut{{v}, {true}};
}

absl::StatusOr<JvpOut> OptimizationBarrierJvp(JvpContext& ctx) {
  JvpOut out;
  for (size_t i = 0; i < ctx.tangent_operands.size(); ++i) out.tangents.push_back(ctx.t(i));
  return out;
}

absl::StatusOr<BatchOut> OptimizationBarrierBatch(BatchContext& ctx) {
  XJIT_TF_ASSIGN_OR_RETURN(
      Value v, ctx.e.builder().Add(Opcode::kOptimizationBarrier, ctx.operands, NoAttrs{}));
  if (ctx.operands.size() == 1) return BatchOut{{v}, {ctx.batched[0]}};
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(ctx.e.builder(), v));
  return BatchOut{parts, ctx.batched};
}

}  // namespace xjit::transforms
