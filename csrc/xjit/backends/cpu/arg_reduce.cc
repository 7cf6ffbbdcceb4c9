#include "xjit/backends/cpu/arg_reduce.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_evaluator.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/half.h"

namespace xjit::cpu {
namespace {

// ------------------------------------------------------------ recognition

// Body parameters: acc value, acc index, current value, current index.
constexpr int kAccValue = 0, kAccIndex = 1, kCurValue = 2, kCurIndex = 3;

bool IsEither(const Instruction* i, const Computation& body, int a, int b) {
  return i == body.parameters()[a] || i == body.parameters()[b];
}

bool IsValueParam(const Instruction* i, const Computation& body) {
  return IsEither(i, body, kAccValue, kCurValue);
}
bool IsIndexParam(const Instruction* i, const Computation& body) {
  return IsEither(i, body, kAccIndex, kCurIndex);
}

// A compare type that orders `t` by its numeric value (not TOTALORDER).
bool NumericCompare(ComparisonType c, DType t) {
  if (c == ComparisonType::kNotype) return true;
  if (IsFloat(t)) return c == ComparisonType::kFloat;
  if (IsSignedInt(t)) return c == ComparisonType::kSigned;
  return c == ComparisonType::kUnsigned;
}

// Whether every body result is a choice between two parameters of one kind,
// steered by compares within a kind: then the results depend only on the
// order classes that the truth table below tries.
bool BuiltFromChoices(const Computation& body) {
  if (body.parameters().size() != 4 || body.results().size() != 2) return false;
  auto pred = [](const Instruction* i) { return i->shape().dtype == DType::kPred && !i->shape().is_tuple; };
  for (const auto& owned : body.instructions()) {
    const Instruction& i = *owned;
    if (!i.shape().dims.empty() && i.opcode() != Opcode::kParameter) return false;
    switch (i.opcode()) {
      case Opcode::kParameter:
        break;
      case Opcode::kConstant:
        if (!pred(&i)) return false;
        break;
      case Opcode::kCompare: {
        const Instruction *a = i.operand(0), *b = i.operand(1);
        const bool values = IsValueParam(a, body) && IsValueParam(b, body);
        const bool indices = IsIndexParam(a, body) && IsIndexParam(b, body);
        if (!(values || indices) || !NumericCompare(i.attrs<CompareAttrs>().compare_type, a->shape().dtype)) {
          return false;
        }
        break;
      }
      case Opcode::kNot:
      case Opcode::kAnd:
      case Opcode::kOr:
      case Opcode::kXor:
        if (!pred(&i)) return false;
        for (const Instruction* o : i.operands()) {
          if (!pred(o)) return false;
        }
        break;
      case Opcode::kSelect: {
        const Instruction *a = i.operand(1), *b = i.operand(2);
        if (!pred(i.operand(0))) return false;
        if (!(IsValueParam(a, body) && IsValueParam(b, body)) &&
            !(IsIndexParam(a, body) && IsIndexParam(b, body))) {
          return false;
        }
        break;
      }
      default:
        return false;
    }
  }
  // Compares and logic only steer; the results are the choices.
  auto chooses = [&](const Instruction* r, bool values) {
    auto kind = [&](const Instruction* x) { return values ? IsValueParam(x, body) : IsIndexParam(x, body); };
    return kind(r) || (r->opcode() == Opcode::kSelect && kind(r->operand(1)));
  };
  return chooses(body.results()[0], true) && chooses(body.results()[1], false);
}

// The bits of `v` as a scalar of type t (an integer type, or a float type
// given as its bit pattern through `float_bits`).
struct alignas(16) Scalar {  // aligned as ScalarCell: the evaluator's kernels load typed values
  unsigned char bytes[8] = {};
};

Scalar IntScalar(DType t, int64_t v) {
  Scalar s;
  std::memcpy(s.bytes, &v, ByteWidth(t));  // little-endian: the low bytes
  return s;
}

// Float representatives by name: 1, 2, +0, -0, and two NaNs of different payloads.
enum class Rep { kOne, kTwo, kPlusZero, kMinusZero, kNan1, kNan2 };

Scalar FloatScalar(DType t, Rep r) {
  Scalar s;
  auto put = [&](auto bits) { std::memcpy(s.bytes, &bits, sizeof(bits)); };
  switch (t) {
    case DType::kF16: {
      const uint16_t b[] = {0x3C00, 0x4000, 0x0000, 0x8000, 0x7E01, 0x7E02};
      put(b[static_cast<int>(r)]);
      break;
    }
    case DType::kBF16: {
      const uint16_t b[] = {0x3F80, 0x4000, 0x0000, 0x8000, 0x7FC1, 0x7FC2};
      put(b[static_cast<int>(r)]);
      break;
    }
    case DType::kF32: {
      const uint32_t b[] = {0x3F800000u, 0x40000000u, 0u, 0x80000000u, 0x7FC00001u, 0x7FC00002u};
      put(b[static_cast<int>(r)]);
      break;
    }
    default: {
      const uint64_t b[] = {0x3FF0000000000000ull, 0x4000000000000000ull, 0ull,
                            0x8000000000000000ull, 0x7FF8000000000001ull, 0x7FF8000000000002ull};
      put(b[static_cast<int>(r)]);
      break;
    }
  }
  return s;
}

// Order classes of (acc, cur) values: cur below, equal, above; for floats
// also acc NaN, cur NaN, both NaN.
struct ValueCase {
  Scalar acc, cur;
  bool cur_better_max, cur_better_min, tie;
};

std::vector<ValueCase> ValueCases(DType t) {
  if (!IsFloat(t)) {
    return {{IntScalar(t, 2), IntScalar(t, 1), false, true, false},
            {IntScalar(t, 2), IntScalar(t, 2), false, false, true},
            {IntScalar(t, 1), IntScalar(t, 2), true, false, false}};
  }
  auto f = [t](Rep r) { return FloatScalar(t, r); };
  return {{f(Rep::kTwo), f(Rep::kOne), false, true, false},
          {f(Rep::kPlusZero), f(Rep::kMinusZero), false, false, true},
          {f(Rep::kOne), f(Rep::kTwo), true, false, false},
          {f(Rep::kNan1), f(Rep::kOne), false, false, false},
          {f(Rep::kOne), f(Rep::kNan1), true, true, false},
          {f(Rep::kNan1), f(Rep::kNan2), false, false, true}};
}

enum class Extreme { kMax, kMin };

// Runs the body on every pair of classes; the extreme it implements, if any.
std::optional<Extreme> TruthTable(const Computation& body, DType vt, DType it) {
  auto eval = ScalarEvaluator::Compile(body);
  if (!eval.ok() || eval->num_parameters() != 4 || eval->num_results() != 2) return std::nullopt;
  ScalarEvaluator::Frame frame = eval->NewFrame();
  const int64_t vw = ByteWidth(vt), iw = ByteWidth(it);
  const Scalar lo = IntScalar(it, 1), hi = IntScalar(it, 2);
  struct IndexCase {
    Scalar acc, cur;
  };
  const IndexCase index_cases[] = {{lo, hi}, {hi, hi}, {hi, lo}};
  bool max_ok = true, min_ok = true;
  for (const ValueCase& v : ValueCases(vt)) {
    for (const IndexCase& i : index_cases) {
      const void* params[4] = {v.acc.bytes, i.acc.bytes, v.cur.bytes, i.cur.bytes};
      eval->Evaluate(frame, params);
      const void* value = eval->Result(frame, 0);
      const void* index = eval->Result(frame, 1);
      const bool lower_cur = std::memcmp(i.cur.bytes, lo.bytes, iw) == 0 && std::memcmp(i.acc.bytes, hi.bytes, iw) == 0;
      for (Extreme e : {Extreme::kMax, Extreme::kMin}) {
        const bool better = e == Extreme::kMax ? v.cur_better_max : v.cur_better_min;
        const Scalar& want_value = better ? v.cur : v.acc;
        const Scalar& want_index = better || (v.tie && lower_cur) ? i.cur : i.acc;
        const bool ok = std::memcmp(value, want_value.bytes, vw) == 0 &&
                        std::memcmp(index, want_index.bytes, iw) == 0;
        (e == Extreme::kMax ? max_ok : min_ok) &= ok;
      }
    }
  }
  if (max_ok) return Extreme::kMax;
  if (min_ok) return Extreme::kMin;
  return std::nullopt;
}

// Whether `x` holds each element's position along dim `d` (s32 or s64): an
// iota, or the constant that constant folding makes of a small one.
template <typename I>
bool IsIotaLiteral(const Literal& lit, int64_t d) {
  const std::vector<int64_t>& dims = lit.shape().dims;
  int64_t inner = 1;
  for (int64_t k = d + 1; k < static_cast<int64_t>(dims.size()); ++k) inner *= dims[k];
  const I* v = lit.data_as<I>();
  for (int64_t i = 0, n = lit.shape().num_elements(); i < n; ++i) {
    if (v[i] != static_cast<I>((i / inner) % dims[d])) return false;
  }
  return true;
}

bool IsIotaAlong(const Instruction& x, int64_t d) {
  if (x.opcode() == Opcode::kIota) return x.attrs<IotaAttrs>().iota_dimension == d;
  // A 1-D iota spread along d (the passes' form of an iota of several dims).
  if (x.opcode() == Opcode::kBroadcastInDim && x.operand(0)->shape().rank() == 1 &&
      x.attrs<BroadcastInDimAttrs>().broadcast_dimensions == std::vector<int64_t>{d} &&
      x.operand(0)->shape().dtype == x.shape().dtype) {
    return IsIotaAlong(*x.operand(0), 0);
  }
  if (x.opcode() != Opcode::kConstant) return false;
  const Literal& lit = x.attrs<ConstantAttrs>().value;
  if (lit.shape() != x.shape()) return false;
  if (x.shape().dtype == DType::kS32) return IsIotaLiteral<int32_t>(lit, d);
  if (x.shape().dtype == DType::kS64) return IsIotaLiteral<int64_t>(lit, d);
  return false;
}

// ------------------------------------------------------------------ kernels

// The compare type of each storage type: half types compare as float.
template <typename T>
struct Key {
  using C = T;
  static C Get(T v) { return v; }
};
template <>
struct Key<f16> {
  using C = float;
  static float Get(f16 v) { return f16::ToFloat(v.bits); }
};
template <>
struct Key<bf16> {
  using C = float;
  static float Get(bf16 v) { return BitsToFloat(static_cast<uint32_t>(v.bits) << 16); }
};

template <typename C>
inline bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return v != v;
  } else {
    return false;
  }
}

// Whether `c` is strictly better than `a` (a NaN is the best of all).
template <Extreme kE, typename C>
inline bool Better(C c, C a) {
  if (IsNan(a)) return false;
  if (IsNan(c)) return true;
  return kE == Extreme::kMax ? c > a : c < a;
}

template <Extreme kE, typename C>
inline bool Tie(C c, C a) {
  return (IsNan(c) && IsNan(a)) || c == a;
}

// Whether `v` replaces the running best `b` of a lane: strictly better, as a
// branch-free expression the vectoriser keeps (a NaN is the best of all).
template <Extreme kE, typename C>
inline bool Improves(C v, C b) {
  bool up = kE == Extreme::kMax ? v > b : v < b;
  if constexpr (std::is_floating_point_v<C>) up = up || (v != v && b == b);
  return up;
}

// The position of the first best element of the contiguous x[0..n), 1 <= n
// <= 2^31. Each of 32 lanes keeps its best value and where it first saw it
// (only a strictly better value moves it); the lanes then combine, ties
// going to the lower position.
template <Extreme kE, typename T>
XJIT_ISA_CLONES int64_t FirstBestOfPart(const T* x, int64_t n) {
  using C = typename Key<T>::C;
  constexpr int kLanes = 32;
  C bv = Key<T>::Get(x[0]);
  int64_t bp = 0, i = 1;
  if (n >= 2 * kLanes) {
    C best[kLanes];
    int32_t pos[kLanes];  // 32-bit: half the vector work of int64 positions
    for (int j = 0; j < kLanes; ++j) best[j] = Key<T>::Get(x[j]), pos[j] = j;
    for (i = kLanes; i + kLanes <= n; i += kLanes) {
      const int32_t at = static_cast<int32_t>(i);
#pragma omp simd
      for (int j = 0; j < kLanes; ++j) {
        const C v = Key<T>::Get(x[i + j]), b = best[j];
        const bool up = Improves<kE>(v, b);
        best[j] = up ? v : b;
        pos[j] = up ? at + j : pos[j];
      }
    }
    bv = best[0], bp = pos[0];
    for (int j = 1; j < kLanes; ++j) {
      if (Better<kE>(best[j], bv) || (Tie<kE>(best[j], bv) && pos[j] < bp)) bv = best[j], bp = pos[j];
    }
  }
  for (; i < n; ++i) {  // later than every lane's position: only a better value moves it
    const C v = Key<T>::Get(x[i]);
    if (Better<kE>(v, bv)) bv = v, bp = i;
  }
  return bp;
}

// The same for any n >= 1, in parts of 2^30 (a later part must be strictly better).
template <Extreme kE, typename T>
int64_t FirstBest(const T* x, int64_t n) {
  constexpr int64_t kPart = int64_t{1} << 30;
  int64_t bp = FirstBestOfPart<kE>(x, std::min(n, kPart));
  for (int64_t b = kPart; b < n; b += kPart) {
    const int64_t p = b + FirstBestOfPart<kE>(x + b, std::min(n - b, kPart));
    if (Better<kE>(Key<T>::Get(x[p]), Key<T>::Get(x[bp]))) bp = p;
  }
  return bp;
}

// For `lanes` columns of a reduced dim that is not the minor one: x[r*inner + j]
// for r in [0, n); the first best position of each column into pos[j].
template <Extreme kE, typename T>
XJIT_ISA_CLONES void FirstBestColumns(const T* x, int64_t n, int64_t inner, int64_t lanes,
                                      typename Key<T>::C* best, int64_t* pos) {
  using C = typename Key<T>::C;
  for (int64_t j = 0; j < lanes; ++j) best[j] = Key<T>::Get(x[j]), pos[j] = 0;
  for (int64_t r = 1; r < n; ++r) {
    const T* row = x + r * inner;
#pragma omp simd
    for (int64_t j = 0; j < lanes; ++j) {
      const C v = Key<T>::Get(row[j]), b = best[j];
      const bool up = Improves<kE>(v, b);
      best[j] = up ? v : b;
      pos[j] = up ? r : pos[j];
    }
  }
}

template <typename T, typename I, Extreme kE>
class ArgReduceThunk : public Thunk {
 public:
  ArgReduceThunk(int64_t outer, int64_t n, int64_t inner, SlotId values, SlotId init_value,
                 SlotId init_index, SlotId out_value, SlotId out_index)
      : outer_(outer), n_(n), inner_(inner), values_(values), init_value_(init_value),
        init_index_(init_index), out_value_(out_value), out_index_(out_index) {}

  void Execute(void* const* buffers) const override {
    const T* x = static_cast<const T*>(buffers[values_]);
    Outputs o{*static_cast<const T*>(buffers[init_value_]), *static_cast<const I*>(buffers[init_index_]),
              static_cast<T*>(buffers[out_value_]), static_cast<I*>(buffers[out_index_])};
    if (n_ == 0) {
      for (int64_t k = 0; k < outer_ * inner_; ++k) o.value[k] = o.init_value, o.index[k] = o.init_index;
      return;
    }
    if (inner_ == 1) {
      Rows(x, o);
    } else {
      Columns(x, o);
    }
  }

 private:
  struct Outputs {
    T init_value;
    I init_index;
    T* value;
    I* index;
  };

  // Output k from its first best element x_best at position `pos`, folded
  // with the init value as the reduce's body would (the body chooses like this).
  static void Finish(const Outputs& o, int64_t k, T x_best, int64_t pos) {
    using C = typename Key<T>::C;
    const C c = Key<T>::Get(x_best), a = Key<T>::Get(o.init_value);
    const I ci = static_cast<I>(pos);
    if (Better<kE>(c, a)) {
      o.value[k] = x_best, o.index[k] = ci;
    } else {
      o.value[k] = o.init_value;
      o.index[k] = Tie<kE>(c, a) && ci < o.init_index ? ci : o.init_index;
    }
  }

  void Rows(const T* x, const Outputs& o) const {
    constexpr int64_t kPart = int64_t{1} << 16;
    const int64_t threads = omp_get_max_threads();
    if (outer_ >= threads || n_ < 2 * kPart || threads < 2) {
      ParallelFor(outer_, 1, outer_ * n_, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t pos = FirstBest<kE>(x + r * n_, n_);
          Finish(o, r, x[r * n_ + pos], pos);
        }
      });
      return;
    }
    // Few long rows: each split into parts searched in parallel; the parts'
    // answers combine in order (a later part must be strictly better).
    const int64_t parts = std::min<int64_t>(threads * 4, n_ / kPart);
    const int64_t part = (n_ + parts - 1) / parts;
    std::vector<int64_t> found(outer_ * parts);
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < outer_ * parts; ++t) {
      const int64_t r = t / parts, begin = (t % parts) * part, len = std::min(part, n_ - begin);
      found[t] = len > 0 ? begin + FirstBest<kE>(x + r * n_ + begin, len) : -1;
    }
    for (int64_t r = 0; r < outer_; ++r) {
      const T* row = x + r * n_;
      int64_t pos = found[r * parts];
      for (int64_t p = 1; p < parts; ++p) {
        const int64_t q = found[r * parts + p];
        if (q >= 0 && Better<kE>(Key<T>::Get(row[q]), Key<T>::Get(row[pos]))) pos = q;
      }
      Finish(o, r, row[pos], pos);
    }
  }

  void Columns(const T* x, const Outputs& o) const {
    constexpr int64_t kTile = 256;
    const int64_t tiles = (inner_ + kTile - 1) / kTile;
    ParallelFor(outer_ * tiles, 1, outer_ * n_ * inner_, [&](int64_t begin, int64_t end) {
      typename Key<T>::C best[kTile];
      int64_t pos[kTile];
      for (int64_t t = begin; t < end; ++t) {
        const int64_t r = t / tiles, j0 = (t % tiles) * kTile, lanes = std::min(kTile, inner_ - j0);
        const T* base = x + r * n_ * inner_ + j0;
        FirstBestColumns<kE>(base, n_, inner_, lanes, best, pos);
        for (int64_t j = 0; j < lanes; ++j) {
          Finish(o, r * inner_ + j0 + j, base[pos[j] * inner_ + j], pos[j]);
        }
      }
    });
  }

  int64_t outer_, n_, inner_;
  SlotId values_, init_value_, init_index_, out_value_, out_index_;
};

template <typename T, typename I>
std::unique_ptr<Thunk> Make(Extreme e, int64_t outer, int64_t n, int64_t inner,
                            const std::vector<SlotId>& in, const std::vector<SlotId>& out) {
  if (e == Extreme::kMax) {
    return std::make_unique<ArgReduceThunk<T, I, Extreme::kMax>>(outer, n, inner, in[0], in[2], in[3],
                                                                out[0], out[1]);
  }
  return std::make_unique<ArgReduceThunk<T, I, Extreme::kMin>>(outer, n, inner, in[0], in[2], in[3],
                                                              out[0], out[1]);
}

// Real values only (pred arrives as int8 from jnp; narrow types are
// expanded before backends see them).
template <typename I>
std::unique_ptr<Thunk> ForValueType(DType vt, Extreme e, int64_t outer, int64_t n, int64_t inner,
                                    const std::vector<SlotId>& in, const std::vector<SlotId>& out) {
  if (IsNarrow(vt)) return nullptr;
  return DispatchDType(vt, [&](auto tag) -> std::unique_ptr<Thunk> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || is_complex_v<T>) {
      return nullptr;
    } else {
      return Make<T, I>(e, outer, n, inner, in, out);
    }
  });
}

}  // namespace

std::unique_ptr<Thunk> MakeArgReduceThunk(const Instruction& reduce, const std::vector<SlotId>& in,
                                          const std::vector<SlotId>& out) {
  if (reduce.operands().size() != 4 || in.size() != 4 || out.size() != 2 ||
      reduce.called_computations().size() != 1) {
    return nullptr;
  }
  const std::vector<int64_t>& dims = reduce.attrs<ReduceAttrs>().dimensions;
  const Instruction& values = *reduce.operand(0);
  const Instruction& iota = *reduce.operand(1);
  if (dims.size() != 1 || !IsIotaAlong(iota, dims[0])) return nullptr;
  const DType vt = values.shape().dtype, it = iota.shape().dtype;
  if (it != DType::kS32 && it != DType::kS64) return nullptr;
  const std::vector<int64_t>& shape = values.shape().dims;
  const int64_t d = dims[0];
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= shape[k];
  for (int64_t k = d + 1; k < static_cast<int64_t>(shape.size()); ++k) inner *= shape[k];
  const int64_t n = shape[d];
  if (it == DType::kS32 && n > std::numeric_limits<int32_t>::max()) return nullptr;
  const Computation& body = *reduce.called_computations()[0];
  if (!BuiltFromChoices(body)) return nullptr;
  const std::optional<Extreme> e = TruthTable(body, vt, it);
  if (!e) return nullptr;
  return it == DType::kS32 ? ForValueType<int32_t>(vt, *e, outer, n, inner, in, out)
                           : ForValueType<int64_t>(vt, *e, outer, n, inner, in, out);
}

}  // namespace xjit::cpu
