#include "xjit/backends/cpu/elementwise.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/backends/cpu/eigen_math.h"
#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/backends/cpu/storage_dtype.h"
#include "xjit/ir/narrow_convert.h"

namespace xjit::cpu {
namespace {

// Storage type of a result computed in C from storage type T: a float result of
// an f16/bf16 input is rounded back to the input's type.
template <typename T, typename O>
using StoreAs = std::conditional_t<is_half_v<T> && std::is_same_v<O, float>, T, O>;

template <typename Op, typename T>
XJIT_ISA_CLONES void UnaryKernel(const void* const* in, const int64_t*, void* out, int64_t begin, int64_t end) {
  using C = Compute<T>;
  using S = StoreAs<T, typename Op::template Out<C>>;
  if constexpr (std::is_same_v<Op, Not> && std::is_same_v<T, bool>) {
    // Bytes of 0 or 1 flipped: GCC leaves a bool loop scalar.
    const uint8_t* __restrict x = static_cast<const uint8_t*>(in[0]);
    uint8_t* __restrict y = static_cast<uint8_t*>(out);
    for (int64_t i = begin; i < end; ++i) y[i] = x[i] ^ 1;
  } else {
    const T* __restrict x = static_cast<const T*>(in[0]);
    S* __restrict y = static_cast<S*>(out);
    for (int64_t i = begin; i < end; ++i) y[i] = S(Op::Apply(C(x[i])));
  }
}

// A stride of 0 marks an operand splat from one element (a fused scalar
// broadcast): each case is its own loop so that all of them vectorize.
template <typename Op, typename T>
XJIT_ISA_CLONES void BinaryKernel(const void* const* in, const int64_t* st, void* out, int64_t begin, int64_t end) {
  using C = Compute<T>;
  using S = StoreAs<T, typename Op::template Out<C>>;
  const T* __restrict a = static_cast<const T*>(in[0]);
  const T* __restrict b = static_cast<const T*>(in[1]);
  S* __restrict y = static_cast<S*>(out);
  if (st[0] != 0 && st[1] != 0) {
    for (int64_t i = begin; i < end; ++i) y[i] = S(Op::Apply(C(a[i]), C(b[i])));
  } else if (st[1] != 0) {
    const C av = C(a[0]);
    for (int64_t i = begin; i < end; ++i) y[i] = S(Op::Apply(av, C(b[i])));
  } else if (st[0] != 0) {
    const C bv = C(b[0]);
    for (int64_t i = begin; i < end; ++i) y[i] = S(Op::Apply(C(a[i]), bv));
  } else {
    const S v = S(Op::Apply(C(a[0]), C(b[0])));
    for (int64_t i = begin; i < end; ++i) y[i] = v;
  }
}

// Unsigned integer of N bytes, to choose between two values by their bits.
template <size_t N> struct UintOfSize { using type = void; };
template <> struct UintOfSize<1> { using type = uint8_t; };
template <> struct UintOfSize<2> { using type = uint16_t; };
template <> struct UintOfSize<4> { using type = uint32_t; };
template <> struct UintOfSize<8> { using type = uint64_t; };

// One loop per splat pattern (kP, kT, kF: the operand is an array, not a
// splat). Both sides are read and blended by a mask made from the predicate
// byte, so the loop vectorizes and never branches on the predicate (a ReLU
// mask is as good as random); GCC vectorizes neither a bool-conditional nor
// a conversion from bool, hence the bytes and the bits.
template <typename T, bool kP, bool kT, bool kF>
__attribute__((always_inline)) inline void SelectLoop(const uint8_t* __restrict p,
                                                      const T* __restrict t,
                                                      const T* __restrict f, T* __restrict y,
                                                      int64_t begin, int64_t end) {
  using U = typename UintOfSize<sizeof(T)>::type;
  for (int64_t i = begin; i < end; ++i) {
    if constexpr (std::is_void_v<U>) {
      y[i] = p[kP ? i : 0] ? t[kT ? i : 0] : f[kF ? i : 0];
    } else {
      U a, b;
      std::memcpy(&a, &t[kT ? i : 0], sizeof(T));
      std::memcpy(&b, &f[kF ? i : 0], sizeof(T));
      const U m = U(U(0) - U(p[kP ? i : 0]));
      const U r = U((a & m) | (b & U(~m)));
      std::memcpy(static_cast<void*>(&y[i]), &r, sizeof(T));
    }
  }
}

template <typename T>
XJIT_ISA_CLONES void SelectKernel(const void* const* in, const int64_t* st, void* out, int64_t begin, int64_t end) {
  const uint8_t* p = static_cast<const uint8_t*>(in[0]);  // bools: 0 or 1
  const T* t = static_cast<const T*>(in[1]);
  const T* f = static_cast<const T*>(in[2]);
  T* y = static_cast<T*>(out);
  switch ((st[0] != 0) << 2 | (st[1] != 0) << 1 | (st[2] != 0)) {
    case 0: return SelectLoop<T, false, false, false>(p, t, f, y, begin, end);
    case 1: return SelectLoop<T, false, false, true>(p, t, f, y, begin, end);
    case 2: return SelectLoop<T, false, true, false>(p, t, f, y, begin, end);
    case 3: return SelectLoop<T, false, true, true>(p, t, f, y, begin, end);
    case 4: return SelectLoop<T, true, false, false>(p, t, f, y, begin, end);
    case 5: return SelectLoop<T, true, false, true>(p, t, f, y, begin, end);
    case 6: return SelectLoop<T, true, true, false>(p, t, f, y, begin, end);
    default: return SelectLoop<T, true, true, true>(p, t, f, y, begin, end);
  }
}

// clamp(min, x, max) = minimum(maximum(x, min), max), with their NaN rules.
template <typename T>
XJIT_ISA_CLONES void ClampKernel(const void* const* in, const int64_t* st, void* out, int64_t begin, int64_t end) {
  using C = Compute<T>;
  const T* lo = static_cast<const T*>(in[0]);
  const T* x = static_cast<const T*>(in[1]);
  const T* hi = static_cast<const T*>(in[2]);
  T* y = static_cast<T*>(out);
  for (int64_t i = begin; i < end; ++i) {
    C v = Maximum::Apply(C(x[i * st[1]]), C(lo[i * st[0]]));
    y[i] = T(Minimum::Apply(v, C(hi[i * st[2]])));
  }
}

template <typename To, typename From>
XJIT_ISA_CLONES void ConvertKernel(const void* const* in, const int64_t*, void* out, int64_t begin, int64_t end) {
  const From* __restrict x = static_cast<const From*>(in[0]);
  To* __restrict y = static_cast<To*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = ConvertElement<To>(x[i]);
}

// reduce_precision on the bits of a float with kMantissa mantissa bits out
// of kBits: round to st[2] mantissa bits (ties to even), then overflow to
// +-Inf / flush to +-0 outside an st[1]-bit exponent range (no subnormals in
// the reduced format); a NaN is passed through unchanged.
template <typename T, typename U, int kBits, int kMantissa>
XJIT_ISA_CLONES void ReducePrecisionKernel(const void* const* in, const int64_t* st, void* out,
                                           int64_t begin, int64_t end) {
  constexpr int kExp = kBits - 1 - kMantissa;
  constexpr U kSignBit = U{1} << (kBits - 1);
  constexpr U kExpField = ((U{1} << kExp) - 1) << kMantissa;
  const int64_t exp_bits = st[1], man_bits = st[2];
  const U* x = static_cast<const U*>(in[0]);
  U* y = static_cast<U*>(out);
  const bool round = man_bits < kMantissa;
  const int shift = round ? kMantissa - static_cast<int>(man_bits) : 0;
  const U low_mask = round ? static_cast<U>((U{1} << shift) - 1) : U{0};
  const bool clip = exp_bits < kExp;
  const int64_t bias = (int64_t{1} << (kExp - 1)) - 1;
  const int64_t reduced_bias = clip ? (int64_t{1} << (exp_bits - 1)) - 1 : 0;
  for (int64_t i = begin; i < end; ++i) {
    const U v = x[i];
    const bool nan = (v & kExpField) == kExpField && (v & ~(kExpField | kSignBit)) != 0;
    if (nan) {
      y[i] = v;
      continue;
    }
    U r = v;
    if (round) {
      // Round the magnitude's bits: adding half (minus one when the kept
      // part is even) and truncating is round-half-to-even.
      const U kept_lsb = static_cast<U>((r >> shift) & 1);
      r = static_cast<U>(r + (low_mask >> 1) + kept_lsb);
      r = static_cast<U>(r & ~low_mask);
    }
    if (clip) {
      const int64_t e = static_cast<int64_t>((r & kExpField) >> kMantissa) - bias;
      if (e > reduced_bias) {
        r = static_cast<U>((r & kSignBit) | kExpField);
      } else if (e <= -reduced_bias) {
        r = static_cast<U>(r & kSignBit);
      }
    }
    y[i] = r;
  }
}

using KernelOr = absl::StatusOr<ElementwiseKernel>;

KernelOr ReducePrecisionFor(const Instruction& instr) {
  switch (instr.operand(0)->shape().dtype) {
    case DType::kF16: return &ReducePrecisionKernel<f16, uint16_t, 16, 10>;
    case DType::kBF16: return &ReducePrecisionKernel<bf16, uint16_t, 16, 7>;
    case DType::kF32: return &ReducePrecisionKernel<float, uint32_t, 32, 23>;
    case DType::kF64: return &ReducePrecisionKernel<double, uint64_t, 64, 52>;
    default: break;
  }
  return absl::UnimplementedError(absl::StrCat("reduce_precision: the cpu backend has no kernel for ",
                                               instr.operand(0)->shape().ToString()));
}

absl::Status Unsupported(const Instruction& instr) {
  return absl::UnimplementedError(absl::StrCat(
      OpcodeName(instr.opcode()), ": the cpu backend has no kernel for ",
      instr.operand(instr.opcode() == Opcode::kSelect ? 1 : 0)->shape().ToString(), " -> ",
      instr.shape().ToString()));
}

// Checks that the kernel's result storage type is the instruction's dtype, so a
// graph that escaped verification cannot make a kernel write the wrong width.
template <typename S>
KernelOr Checked(const Instruction& instr, ElementwiseKernel k) {
  if (StorageDType<S>() != instr.shape().dtype) return Unsupported(instr);
  return k;
}

// Op's kernel over the storage type of the operands (all of one type), or
// Unsupported where Op has no definition for it.
template <typename Op, int kArity>
KernelOr ArithmeticFor(const Instruction& instr) {
  return DispatchDType(instr.operand(0)->shape().dtype, [&](auto tag) -> KernelOr {
    using T = typename decltype(tag)::type;
    using C = Compute<T>;
    if constexpr (Op::template supports<C>) {
      ElementwiseKernel kernel;
      if constexpr (kArity == 1) {
        kernel = &UnaryKernel<Op, T>;
      } else {
        kernel = &BinaryKernel<Op, T>;
      }
      return Checked<StoreAs<T, typename Op::template Out<C>>>(instr, kernel);
    } else {
      return Unsupported(instr);
    }
  });
}

template <typename Op>
KernelOr UnaryFor(const Instruction& instr) {
  return ArithmeticFor<Op, 1>(instr);
}

template <typename Op>
KernelOr BinaryFor(const Instruction& instr) {
  if (instr.operand(1)->shape().dtype != instr.operand(0)->shape().dtype) return Unsupported(instr);
  return ArithmeticFor<Op, 2>(instr);
}

template <bool kTotal>
KernelOr CompareFor(const Instruction& instr) {
  switch (instr.attrs<CompareAttrs>().comparison_direction) {
    case ComparisonDirection::kEq: return BinaryFor<Compare<ComparisonDirection::kEq, kTotal>>(instr);
    case ComparisonDirection::kNe: return BinaryFor<Compare<ComparisonDirection::kNe, kTotal>>(instr);
    case ComparisonDirection::kGe: return BinaryFor<Compare<ComparisonDirection::kGe, kTotal>>(instr);
    case ComparisonDirection::kGt: return BinaryFor<Compare<ComparisonDirection::kGt, kTotal>>(instr);
    case ComparisonDirection::kLe: return BinaryFor<Compare<ComparisonDirection::kLe, kTotal>>(instr);
    case ComparisonDirection::kLt: return BinaryFor<Compare<ComparisonDirection::kLt, kTotal>>(instr);
  }
  return Unsupported(instr);
}

// The direct conversions of narrow types (ir/narrow_convert.h); bytes per
// element of the types they involve.
constexpr int64_t NarrowConvertWidth(DType t) {
  return t == DType::kF32 ? 4 : t == DType::kF64 ? 8 : 1;
}

template <DType From, DType To>
void NarrowConvertKernel(const void* const* in, const int64_t*, void* out, int64_t begin, int64_t end) {
  ConvertNarrowElements(From, To, static_cast<const char*>(in[0]) + begin * NarrowConvertWidth(From),
                        static_cast<char*>(out) + begin * NarrowConvertWidth(To), end - begin);
}

KernelOr NarrowConvertFor(const Instruction& instr) {
  const DType from = instr.operand(0)->shape().dtype, to = instr.shape().dtype;
#define XJIT_NARROW_FLOAT(N)                                                                  \
  if (from == DType::N && to == DType::kF32) return &NarrowConvertKernel<DType::N, DType::kF32>; \
  if (from == DType::kF32 && to == DType::N) return &NarrowConvertKernel<DType::kF32, DType::N>; \
  if (from == DType::kF64 && to == DType::N) return &NarrowConvertKernel<DType::kF64, DType::N>;
#define XJIT_SUB_BYTE(N, C)                                                                   \
  if (from == DType::N && to == DType::C) return &NarrowConvertKernel<DType::N, DType::C>;     \
  if (from == DType::C && to == DType::N) return &NarrowConvertKernel<DType::C, DType::N>;
  XJIT_NARROW_FLOAT(kF8E3M4) XJIT_NARROW_FLOAT(kF8E4M3) XJIT_NARROW_FLOAT(kF8E4M3FN)
  XJIT_NARROW_FLOAT(kF8E4M3FNUZ) XJIT_NARROW_FLOAT(kF8E4M3B11FNUZ) XJIT_NARROW_FLOAT(kF8E5M2)
  XJIT_NARROW_FLOAT(kF8E5M2FNUZ) XJIT_NARROW_FLOAT(kF8E8M0FNU) XJIT_NARROW_FLOAT(kF4E2M1FN)
  XJIT_NARROW_FLOAT(kF6E2M3FN) XJIT_NARROW_FLOAT(kF6E3M2FN)
  XJIT_SUB_BYTE(kS2, kS8) XJIT_SUB_BYTE(kS4, kS8) XJIT_SUB_BYTE(kU2, kU8) XJIT_SUB_BYTE(kU4, kU8)
#undef XJIT_NARROW_FLOAT
#undef XJIT_SUB_BYTE
  return Unsupported(instr);
}

KernelOr ConvertFor(const Instruction& instr) {
  if (IsNarrow(instr.operand(0)->shape().dtype) || IsNarrow(instr.shape().dtype)) {
    return NarrowConvertFor(instr);
  }
  return DispatchDType(instr.operand(0)->shape().dtype, [&](auto from_tag) -> KernelOr {
    using From = typename decltype(from_tag)::type;
    return DispatchDType(instr.shape().dtype, [&](auto to_tag) -> KernelOr {
      using To = typename decltype(to_tag)::type;
      return &ConvertKernel<To, From>;
    });
  });
}

KernelOr SelectOrClampFor(const Instruction& instr) {
  bool is_select = instr.opcode() == Opcode::kSelect;
  DType t = instr.shape().dtype;
  if (is_select && instr.operand(0)->shape().dtype != DType::kPred) return Unsupported(instr);
  return DispatchDType(t, [&](auto tag) -> KernelOr {
    using T = typename decltype(tag)::type;
    if (is_select) return &SelectKernel<T>;
    if constexpr (Maximum::supports<Compute<T>>) return &ClampKernel<T>;
    return Unsupported(instr);
  });
}

}  // namespace

namespace {

// float32 sine and cosine on Eigen's vector functions (eigen_math.h).
void SineF32Kernel(const void* const* in, const int64_t*, void* out, int64_t begin, int64_t end) {
  EigenSinF32(static_cast<const float*>(in[0]) + begin, static_cast<float*>(out) + begin, end - begin);
}
void CosineF32Kernel(const void* const* in, const int64_t*, void* out, int64_t begin, int64_t end) {
  EigenCosF32(static_cast<const float*>(in[0]) + begin, static_cast<float*>(out) + begin, end - begin);
}

}  // namespace

absl::StatusOr<ElementwiseKernel> GetElementwiseKernel(const Instruction& instr) {
  const bool f32 = instr.shape().dtype == DType::kF32 && instr.operands().size() == 1 &&
                   instr.operand(0)->shape().dtype == DType::kF32;
  if (f32 && instr.opcode() == Opcode::kSine && EigenTrigAvailable()) return &SineF32Kernel;
  if (f32 && instr.opcode() == Opcode::kCosine && EigenTrigAvailable()) return &CosineF32Kernel;
  switch (instr.opcode()) {
#define XJIT_UNARY(E) case Opcode::k##E: return UnaryFor<E>(instr);
    XJIT_UNARY(Abs) XJIT_UNARY(Cbrt) XJIT_UNARY(Ceil) XJIT_UNARY(Cosine)
    XJIT_UNARY(CountLeadingZeros) XJIT_UNARY(Erf) XJIT_UNARY(Exponential)
    XJIT_UNARY(ExponentialMinusOne) XJIT_UNARY(Floor) XJIT_UNARY(Imag) XJIT_UNARY(IsFinite)
    XJIT_UNARY(Log) XJIT_UNARY(LogPlusOne) XJIT_UNARY(Logistic) XJIT_UNARY(Negate)
    XJIT_UNARY(Not) XJIT_UNARY(Popcnt) XJIT_UNARY(Real) XJIT_UNARY(RoundNearestAfz)
    XJIT_UNARY(RoundNearestEven) XJIT_UNARY(Rsqrt) XJIT_UNARY(Sign) XJIT_UNARY(Sine)
    XJIT_UNARY(Sqrt) XJIT_UNARY(Tan) XJIT_UNARY(Tanh)
#undef XJIT_UNARY
#define XJIT_BINARY(E) case Opcode::k##E: return BinaryFor<E>(instr);
    XJIT_BINARY(Add) XJIT_BINARY(Subtract) XJIT_BINARY(Multiply) XJIT_BINARY(Divide)
    XJIT_BINARY(Remainder) XJIT_BINARY(Power) XJIT_BINARY(Maximum) XJIT_BINARY(Minimum)
    XJIT_BINARY(And) XJIT_BINARY(Or) XJIT_BINARY(Xor) XJIT_BINARY(ShiftLeft)
    XJIT_BINARY(ShiftRightArithmetic) XJIT_BINARY(ShiftRightLogical) XJIT_BINARY(Atan2)
    XJIT_BINARY(Complex)
#undef XJIT_BINARY
    case Opcode::kCompare:
      if (instr.attrs<CompareAttrs>().compare_type == ComparisonType::kTotalOrder) {
        return CompareFor<true>(instr);
      }
      return CompareFor<false>(instr);
    case Opcode::kConvert: return ConvertFor(instr);
    case Opcode::kReducePrecision: return ReducePrecisionFor(instr);
    case Opcode::kSelect:
    case Opcode::kClamp: return SelectOrClampFor(instr);
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  return absl::InternalError(
      absl::StrCat(OpcodeName(instr.opcode()), " is not an element-wise op"));
}

std::vector<int64_t> KernelParameters(const Instruction& instr) {
  if (instr.opcode() == Opcode::kReducePrecision) {
    const ReducePrecisionAttrs& a = instr.attrs<ReducePrecisionAttrs>();
    return {a.exponent_bits, a.mantissa_bits};
  }
  return {};
}

namespace {
// Elements per parallel chunk of one element-wise op.
constexpr int64_t kTile = 4 * 1024;
// Elements per tile of a fused chain: its live tile buffers (1K elements
// each, reused once dead) stay in L1/L2 while the call per op and tile is
// still small against the tile's work.
constexpr int64_t kFusedTile = 1024;
}  // namespace

ElementwiseThunk::ElementwiseThunk(ElementwiseKernel kernel, std::vector<SlotId> inputs,
                                   std::vector<int64_t> strides, std::vector<int64_t> input_widths,
                                   SlotId output, int64_t output_width, int64_t n)
    : kernel_(kernel), inputs_(std::move(inputs)), strides_(std::move(strides)),
      input_widths_(std::move(input_widths)), output_(output), output_width_(output_width), n_(n) {}

ElementwiseThunk::ElementwiseThunk(std::shared_ptr<const BroadcastReader> broadcast,
                                   SlotId input, int64_t input_width, SlotId output, int64_t n)
    : broadcast_(std::move(broadcast)), inputs_{input}, strides_{0}, input_widths_{input_width},
      output_(output), output_width_(input_width), n_(n) {}

void ElementwiseThunk::Execute(void* const* buffers) const {
  if (broadcast_ != nullptr) {
    const void* x = buffers[inputs_[0]];
    auto* out = static_cast<unsigned char*>(buffers[output_]);
    ParallelFor(n_, kTile, n_, [&](int64_t begin, int64_t end) {
      broadcast_->Read(x, out + begin * output_width_, begin, end - begin);
    });
    return;
  }
  const void* in[3] = {nullptr, nullptr, nullptr};
  for (size_t i = 0; i < inputs_.size(); ++i) in[i] = buffers[inputs_[i]];
  void* out = buffers[output_];
  ParallelFor(n_, kTile, n_, [&](int64_t begin, int64_t end) {
    kernel_(in, strides_.data(), out, begin, end);
  });
}

bool ElementwiseThunk::AppendSteps(void* const* buffers, std::vector<KernelStep>* steps) const {
  if (broadcast_ != nullptr || n_ >= kParallelThreshold || n_ <= 0) return false;
  KernelStep step{kernel_, {nullptr, nullptr, nullptr}, strides_.data(), buffers[output_], n_};
  for (size_t i = 0; i < inputs_.size(); ++i) step.in[i] = buffers[inputs_[i]];
  steps->push_back(step);
  return true;
}

FusedElementwiseThunk::FusedElementwiseThunk(std::vector<std::unique_ptr<ElementwiseThunk>> chain,
                                             const std::vector<SlotId>& tile_local) {
  n_ = chain.empty() ? 0 : chain.front()->num_elements();
  auto local_of = [&](SlotId s) -> int32_t {
    auto it = std::find(tile_local.begin(), tile_local.end(), s);
    return it == tile_local.end() ? -1 : static_cast<int32_t>(it - tile_local.begin());
  };
  // The last op reading each tile-local value: its buffer is free after that.
  std::vector<int64_t> last_use(tile_local.size(), -1);
  for (size_t i = 0; i < chain.size(); ++i) {
    for (SlotId s : chain[i]->inputs()) {
      if (int32_t l = local_of(s); l >= 0) last_use[l] = static_cast<int64_t>(i);
    }
  }
  // Tile buffers are reused once their value is dead (a long chain such as
  // threefry's rounds or erf_inv has hundreds of values but few live at
  // once), so one thread's scratch stays in L1/L2.
  local_offsets_.assign(tile_local.size(), -1);
  absl::flat_hash_map<int64_t, std::vector<int64_t>> free_by_size;
  auto tile_bytes = [](int64_t width) { return (kFusedTile * width + 63) / 64 * 64; };
  for (size_t i = 0; i < chain.size(); ++i) {
    const ElementwiseThunk& t = *chain[i];
    Op op;
    op.kernel = t.kernel();
    op.broadcast = t.broadcast().get();
    if (op.broadcast != nullptr) readers_.push_back(t.broadcast());
    op.strides = t.strides();
    op.one_element = t.one_element();
    for (size_t j = 0; j < t.inputs().size(); ++j) {
      op.inputs.push_back({t.inputs()[j], local_of(t.inputs()[j]), t.strides()[j],
                           t.input_widths()[j]});
    }
    const int32_t out = local_of(t.output());
    if (out >= 0 && local_offsets_[out] < 0) {
      const int64_t bytes = tile_bytes(t.output_width());
      std::vector<int64_t>& free = free_by_size[bytes];
      if (free.empty()) {
        local_offsets_[out] = scratch_bytes_;
        scratch_bytes_ += bytes;
      } else {
        local_offsets_[out] = free.back();
        free.pop_back();
      }
    }
    op.output = {t.output(), out, 1, t.output_width()};
    ops_.push_back(std::move(op));
    // Inputs whose last reader this is are released after the output is
    // placed, so no op writes over its own operand.
    for (const Operand& in : ops_.back().inputs) {
      if (in.local >= 0 && last_use[in.local] == static_cast<int64_t>(i)) {
        free_by_size[tile_bytes(in.width)].push_back(local_offsets_[in.local]);
        last_use[in.local] = -2;  // released once even when read twice
      }
    }
  }
}

void FusedElementwiseThunk::RunTiles(void* const* buffers, unsigned char* scratch,
                                     int64_t first_tile, int64_t end_tile) const {
  auto address = [&](const Operand& o, int64_t begin) -> unsigned char* {
    if (o.local >= 0) return scratch + local_offsets_[o.local];
    return static_cast<unsigned char*>(buffers[o.slot]) + begin * o.stride * o.width;
  };
  for (int64_t tile = first_tile; tile < end_tile; ++tile) {
    int64_t begin = tile * kFusedTile, count = std::min(kFusedTile, n_ - begin);
    for (const Op& op : ops_) {
      if (op.broadcast != nullptr) {
        op.broadcast->Read(buffers[op.inputs[0].slot], address(op.output, begin), begin, count);
        continue;
      }
      const void* in[3] = {nullptr, nullptr, nullptr};
      for (size_t i = 0; i < op.inputs.size(); ++i) in[i] = address(op.inputs[i], begin);
      op.kernel(in, op.strides.data(), address(op.output, begin), 0, op.one_element ? 1 : count);
    }
  }
}

bool FusedElementwiseThunk::AppendSteps(void* const* buffers,
                                        std::vector<KernelStep>* steps) const {
  if (n_ <= 0 || n_ > kFusedTile) return false;
  for (const Op& op : ops_) {
    if (op.broadcast != nullptr) return false;
  }
  serial_scratch_.resize(scratch_bytes_);  // Execute keeps this size: no reallocation
  unsigned char* scratch = serial_scratch_.data();
  auto address = [&](const Operand& o) -> void* {
    return o.local >= 0 ? scratch + local_offsets_[o.local] : buffers[o.slot];
  };
  for (const Op& op : ops_) {
    KernelStep step{op.kernel, {nullptr, nullptr, nullptr}, op.strides.data(),
                    address(op.output), op.one_element ? 1 : n_};
    for (size_t i = 0; i < op.inputs.size(); ++i) step.in[i] = address(op.inputs[i]);
    steps->push_back(step);
  }
  return true;
}

void FusedElementwiseThunk::Execute(void* const* buffers) const {
  const int64_t tiles = (n_ + kFusedTile - 1) / kFusedTile;
  const bool serial = n_ * static_cast<int64_t>(ops_.size()) < kParallelThreshold || tiles == 1;
  ForEachBlockWithScratch(tiles, scratch_bytes_, serial, &serial_scratch_,
                          [&](unsigned char* scratch, int64_t tile) {
                            RunTiles(buffers, scratch, tile, tile + 1);
                          });
}

absl::StatusOr<std::unique_ptr<ElementwiseThunk>> MakeElementwiseOp(
    const Instruction& instr, std::vector<SlotId> inputs, SlotId output,
    const std::vector<bool>& splat) {
  auto kernel = GetElementwiseKernel(instr);
  if (!kernel.ok()) return kernel.status();
  if (inputs.size() > 3) return absl::InternalError("element-wise op with more than 3 operands");
  std::vector<int64_t> strides;
  int64_t n = instr.shape().num_elements();
  for (size_t i = 0; i < instr.operands().size(); ++i) {
    // A rank-0 operand of a non-scalar select/clamp is broadcast, and so is
    // an operand the compiler fused from a scalar broadcast_in_dim.
    const bool one = i < splat.size() && splat[i];
    strides.push_back(!one && instr.operand(i)->shape().num_elements() == n ? 1 : 0);
  }
  for (int64_t p : KernelParameters(instr)) strides.push_back(p);
  std::vector<int64_t> widths;
  for (const Instruction* operand : instr.operands()) widths.push_back(ByteWidth(operand->shape().dtype));
  return std::make_unique<ElementwiseThunk>(*kernel, std::move(inputs), std::move(strides),
                                            std::move(widths), output,
                                            ByteWidth(instr.shape().dtype), n);
}

std::unique_ptr<ElementwiseThunk> MakeBroadcastReadOp(const Instruction& broadcast,
                                                      SlotId operand, SlotId output) {
  return std::make_unique<ElementwiseThunk>(std::make_shared<const BroadcastReader>(broadcast),
                                            operand, ByteWidth(broadcast.shape().dtype), output,
                                            broadcast.shape().num_elements());
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeElementwiseThunk(const Instruction& instr,
                                                            std::vector<SlotId> inputs,
                                                            SlotId output,
                                                            const std::vector<bool>& splat) {
  auto op = MakeElementwiseOp(instr, std::move(inputs), output, splat);
  if (!op.ok()) return op.status();
  return std::unique_ptr<Thunk>(std::move(*op));
}

namespace {

template <int kWidth>
struct Bytes {
  unsigned char b[kWidth];
};

// Elements as unsigned integers where one fits, so the fill vectorizes.
template <int kWidth>
using SplatElement = std::conditional_t<
    kWidth == 1, uint8_t,
    std::conditional_t<kWidth == 2, uint16_t,
                       std::conditional_t<kWidth == 4, uint32_t,
                                          std::conditional_t<kWidth == 8, uint64_t, Bytes<kWidth>>>>>;

template <int kWidth>
XJIT_ISA_CLONES void SplatKernel(const void* const* in, const int64_t*, void* out, int64_t begin,
                                 int64_t end) {
  using E = SplatElement<kWidth>;
  E v;
  std::memcpy(&v, in[0], kWidth);
  E* __restrict y = static_cast<E*>(out);
  for (int64_t i = begin; i < end; ++i) y[i] = v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ElementwiseThunk>> MakeSplatOp(SlotId source, SlotId output,
                                                              int64_t width, int64_t n) {
  ElementwiseKernel kernel;
  switch (width) {
    case 1: kernel = &SplatKernel<1>; break;
    case 2: kernel = &SplatKernel<2>; break;
    case 4: kernel = &SplatKernel<4>; break;
    case 8: kernel = &SplatKernel<8>; break;
    case 16: kernel = &SplatKernel<16>; break;
    default:
      return absl::InternalError(absl::StrCat("splat of ", width, "-byte elements"));
  }
  return std::make_unique<ElementwiseThunk>(kernel, std::vector<SlotId>{source},
                                            std::vector<int64_t>{0}, std::vector<int64_t>{width},
                                            output, width, n);
}

}  // namespace xjit::cpu
