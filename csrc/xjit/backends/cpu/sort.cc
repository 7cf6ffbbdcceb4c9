#include "xjit/backends/cpu/sort.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/backends/common/sort_comparator.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_evaluator.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cpu {
namespace {

using common::SimpleSortComparator;
using common::SortKeyOrder;

// ------------------------------------------------------------------ keys

// Fills keys[i] with an unsigned integer whose order is the comparator's
// order of element i of the slice (x[i * stride]); false when a plain float
// compare meets a NaN (the comparator is then no strict weak order, and the
// slice takes the general path so that every backend agrees).
template <typename K>
using KeyFn = bool (*)(const unsigned char* x, int64_t stride, int64_t n, bool descending, K* keys);

// Total-order key of a float's bits: negative values reversed, positives
// above them.
template <typename K>
inline K TotalOrderKey(K u) {
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  return (u & kSign) ? static_cast<K>(~u) : static_cast<K>(u | kSign);
}

// kInf: the bits of +Inf; kNaN: the canonical quiet NaN JAX substitutes.
template <typename K, K kInf, K kNaN, SortKeyOrder kOrder>
bool FloatKeysOf(const unsigned char* x, int64_t stride, int64_t n, bool descending, K* keys) {
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  const K flip = descending ? static_cast<K>(~K{0}) : K{0};
  for (int64_t i = 0; i < n; ++i) {
    K u;
    std::memcpy(&u, x + i * stride * sizeof(K), sizeof(K));
    const K mag = static_cast<K>(u & ~kSign);
    if constexpr (kOrder != SortKeyOrder::kTotalOrder) {
      if (mag > kInf) {
        if constexpr (kOrder == SortKeyOrder::kPlain) return false;
        u = kNaN;
      } else if (mag == 0) {
        u = 0;  // -0.0 == 0.0
      }
    }
    keys[i] = static_cast<K>(TotalOrderKey(u) ^ flip);
  }
  return true;
}

// Integers (and pred): `kSigned` follows the compare type (SIGNED on an
// unsigned type reinterprets the bits, as compare does).
template <typename K, bool kSigned>
bool IntKeys(const unsigned char* x, int64_t stride, int64_t n, bool descending, K* keys) {
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  const K flip = static_cast<K>((descending ? ~K{0} : K{0}) ^ (kSigned ? kSign : K{0}));
  for (int64_t i = 0; i < n; ++i) {
    K u;
    std::memcpy(&u, x + i * stride * sizeof(K), sizeof(K));
    keys[i] = static_cast<K>(u ^ flip);
  }
  return true;
}

template <typename K, K kInf, K kNaN>
KeyFn<K> FloatKeyFnFor(SortKeyOrder order) {
  switch (order) {
    case SortKeyOrder::kPlain: return &FloatKeysOf<K, kInf, kNaN, SortKeyOrder::kPlain>;
    case SortKeyOrder::kTotalOrder: return &FloatKeysOf<K, kInf, kNaN, SortKeyOrder::kTotalOrder>;
    case SortKeyOrder::kCanonical: return &FloatKeysOf<K, kInf, kNaN, SortKeyOrder::kCanonical>;
  }
  return nullptr;
}

// ------------------------------------------------------------ radix sort

// Sorts (keys, order) pairs by key, stably, with one 11-bit digit per pass
// (3 passes for 32-bit keys; passes whose digit is the same for every key
// are skipped). Uses the second buffers as scratch; returns the order array
// that holds the result.
template <typename K>
uint32_t* RadixSort(K* keys, uint32_t* order, K* keys2, uint32_t* order2, int64_t n) {
  if (n <= 32) {  // insertion sort: stable, and cheaper than the histograms
    for (int64_t i = 1; i < n; ++i) {
      K k = keys[i];
      uint32_t o = order[i];
      int64_t j = i;
      for (; j > 0 && keys[j - 1] > k; --j) {
        keys[j] = keys[j - 1];
        order[j] = order[j - 1];
      }
      keys[j] = k;
      order[j] = o;
    }
    return order;
  }
  if (n < 1024) {  // the histograms' fixed cost outweighs a comparison sort here
    std::vector<std::pair<K, uint32_t>> pairs(n);
    for (int64_t i = 0; i < n; ++i) pairs[i] = {keys[i], order[i]};
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int64_t i = 0; i < n; ++i) order[i] = pairs[i].second;
    return order;
  }
  constexpr int kDigitBits = 11;
  constexpr int kBuckets = 1 << kDigitBits;
  constexpr int kPasses = (8 * sizeof(K) + kDigitBits - 1) / kDigitBits;
  std::vector<uint32_t> hist(kPasses * kBuckets, 0);
  for (int64_t i = 0; i < n; ++i) {
    const K k = keys[i];
    for (int p = 0; p < kPasses; ++p) ++hist[p * kBuckets + ((k >> (kDigitBits * p)) & (kBuckets - 1))];
  }
  K* src = keys;
  K* dst = keys2;
  uint32_t* src_o = order;
  uint32_t* dst_o = order2;
  for (int p = 0; p < kPasses; ++p) {
    const int shift = kDigitBits * p;
    uint32_t* h = &hist[p * kBuckets];
    if (h[(src[0] >> shift) & (kBuckets - 1)] == static_cast<uint32_t>(n)) continue;  // one digit
    uint32_t sum = 0;
    for (int d = 0; d < kBuckets; ++d) {
      const uint32_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const K k = src[i];
      const uint32_t pos = h[(k >> shift) & (kBuckets - 1)]++;
      dst[pos] = k;
      dst_o[pos] = src_o[i];
    }
    std::swap(src, dst);
    std::swap(src_o, dst_o);
  }
  return src_o;
}

// ------------------------------------------------------------- permuting

template <int kWidth>
struct Bytes {
  unsigned char b[kWidth];
};

// out[i] = in[order[i]] along one slice (element stride `stride`).
using PermuteFn = void (*)(const unsigned char* in, unsigned char* out, int64_t stride,
                           const uint32_t* order, int64_t n);

template <int kWidth>
void Permute(const unsigned char* in, unsigned char* out, int64_t stride, const uint32_t* order,
             int64_t n) {
  const auto* x = reinterpret_cast<const Bytes<kWidth>*>(in);
  auto* y = reinterpret_cast<Bytes<kWidth>*>(out);
  if (stride == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[order[i]];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i * stride] = x[order[i] * stride];
  }
}

PermuteFn PermuteFor(int64_t width) {
  switch (width) {
    case 1: return &Permute<1>;
    case 2: return &Permute<2>;
    case 4: return &Permute<4>;
    case 8: return &Permute<8>;
    case 16: return &Permute<16>;
    default: return nullptr;
  }
}

// ------------------------------------------------------------------ thunk

struct Operand {
  SlotId in, out;
  int64_t width;
  PermuteFn permute;
};

class SortThunk : public Thunk {
 public:
  SortThunk(std::vector<Operand> operands, int64_t outer, int64_t n, int64_t inner)
      : operands_(std::move(operands)), outer_(outer), n_(n), inner_(inner) {}

  // Exactly one of these is set up by the factory: a typed key function
  // (one of the widths) and, for the general path or NaN fallback, the
  // comparator's evaluator.
  KeyFn<uint8_t> key8 = nullptr;
  KeyFn<uint16_t> key16 = nullptr;
  KeyFn<uint32_t> key32 = nullptr;
  KeyFn<uint64_t> key64 = nullptr;
  bool descending = false;
  int64_t prefix = 0;  // > 0: only the first `prefix` of each slice are read
  std::optional<ScalarEvaluator> comparator;

  void Execute(void* const* buffers) const override {
    const int64_t slices = outer_ * inner_;
    if (slices == 0 || n_ == 0) return;
    const int64_t grain = std::max<int64_t>(1, (64 * 1024) / n_);
    int64_t log_n = 1;
    while ((int64_t{1} << log_n) < n_) ++log_n;
    const int64_t cost = slices * n_ * log_n * static_cast<int64_t>(operands_.size());
    ParallelFor(slices, grain, cost, [&](int64_t begin, int64_t end) {
      Scratch scratch;
      for (int64_t s = begin; s < end; ++s) {
        const int64_t base = (s / inner_) * n_ * inner_ + s % inner_;
        SortSlice(buffers, base, scratch);
      }
    });
  }

 private:
  struct Scratch {
    std::vector<unsigned char> keys, keys2;
    std::vector<uint32_t> order, order2;
    std::optional<ScalarEvaluator::Frame> frame;
    std::vector<const void*> params;
  };

  template <typename K>
  const uint32_t* KeySort(KeyFn<K> fn, const unsigned char* x, Scratch& s) const {
    s.keys.resize(n_ * sizeof(K));
    s.keys2.resize(n_ * sizeof(K));
    s.order.resize(n_);
    s.order2.resize(n_);
    K* keys = reinterpret_cast<K*>(s.keys.data());
    if (!fn(x, inner_, n_, descending, keys)) return nullptr;
    if (prefix > 0 && prefix * 8 <= n_) return PartialKeySort(keys, s);
    std::iota(s.order.begin(), s.order.end(), 0u);
    return RadixSort(keys, s.order.data(), reinterpret_cast<K*>(s.keys2.data()),
                     s.order2.data(), n_);
  }

  // The first `prefix` of the stable order: (key, position) pairs compared
  // as pairs are a total order equal to the stable one; the rest follow in
  // no particular order (never read).
  template <typename K>
  const uint32_t* PartialKeySort(const K* keys, Scratch& s) const {
    // (Built in keys2's bytes, made large enough: reused slice after slice.)
    using Pair = std::pair<K, uint32_t>;
    s.keys2.resize(n_ * sizeof(Pair));
    Pair* pairs = reinterpret_cast<Pair*>(s.keys2.data());
    for (int64_t i = 0; i < n_; ++i) pairs[i] = {keys[i], static_cast<uint32_t>(i)};
    std::partial_sort(pairs, pairs + prefix, pairs + n_);
    for (int64_t i = 0; i < prefix; ++i) s.order[i] = pairs[i].second;
    return s.order.data();
  }

  const uint32_t* GeneralSort(void* const* buffers, int64_t base, Scratch& s) const {
    if (!s.frame) s.frame = comparator->NewFrame();
    s.params.resize(2 * operands_.size());
    s.order.resize(n_);
    std::iota(s.order.begin(), s.order.end(), 0u);
    std::stable_sort(s.order.begin(), s.order.end(), [&](uint32_t a, uint32_t b) {
      for (size_t k = 0; k < operands_.size(); ++k) {
        const auto* x = static_cast<const unsigned char*>(buffers[operands_[k].in]);
        const int64_t w = operands_[k].width;
        s.params[2 * k] = x + (base + a * inner_) * w;
        s.params[2 * k + 1] = x + (base + b * inner_) * w;
      }
      comparator->Evaluate(*s.frame, s.params.data());
      return *static_cast<const bool*>(comparator->Result(*s.frame, 0));
    });
    return s.order.data();
  }

  void SortSlice(void* const* buffers, int64_t base, Scratch& s) const {
    const auto* key_in =
        static_cast<const unsigned char*>(buffers[operands_[0].in]) + base * operands_[0].width;
    const uint32_t* order = nullptr;
    if (key8 != nullptr) order = KeySort(key8, key_in, s);
    if (key16 != nullptr) order = KeySort(key16, key_in, s);
    if (key32 != nullptr) order = KeySort(key32, key_in, s);
    if (key64 != nullptr) order = KeySort(key64, key_in, s);
    // A partial sort orders only the prefix, and only the prefix is read.
    const bool partial = order != nullptr && prefix > 0 && prefix * 8 <= n_;
    if (order == nullptr) order = GeneralSort(buffers, base, s);
    for (const Operand& o : operands_) {
      const auto* in = static_cast<const unsigned char*>(buffers[o.in]) + base * o.width;
      auto* out = static_cast<unsigned char*>(buffers[o.out]) + base * o.width;
      o.permute(in, out, inner_, order, partial ? prefix : n_);
    }
  }

  std::vector<Operand> operands_;
  int64_t outer_, n_, inner_;
};

// Sets the key function for a recognised comparator; false if there is none
// for the key's type (complex).
bool SetKeyFunction(SortThunk& t, DType key, const SimpleSortComparator& c) {
  t.descending = c.descending;
  const bool is_signed = c.compare_type == ComparisonType::kSigned ||
                         (c.compare_type == ComparisonType::kNotype && IsSignedInt(key));
  switch (key) {
    case DType::kF16:
      t.key16 = FloatKeyFnFor<uint16_t, 0x7C00, 0x7E00>(c.order);
      return true;
    case DType::kBF16:
      t.key16 = FloatKeyFnFor<uint16_t, 0x7F80, 0x7FC0>(c.order);
      return true;
    case DType::kF32:
      t.key32 = FloatKeyFnFor<uint32_t, 0x7F800000u, 0x7FC00000u>(c.order);
      return true;
    case DType::kF64:
      t.key64 = FloatKeyFnFor<uint64_t, 0x7FF0000000000000ull, 0x7FF8000000000000ull>(c.order);
      return true;
    case DType::kPred:
      t.key8 = &IntKeys<uint8_t, false>;
      return true;
    case DType::kS8: case DType::kU8:
      t.key8 = is_signed ? &IntKeys<uint8_t, true> : &IntKeys<uint8_t, false>;
      return true;
    case DType::kS16: case DType::kU16:
      t.key16 = is_signed ? &IntKeys<uint16_t, true> : &IntKeys<uint16_t, false>;
      return true;
    case DType::kS32: case DType::kU32:
      t.key32 = is_signed ? &IntKeys<uint32_t, true> : &IntKeys<uint32_t, false>;
      return true;
    case DType::kS64: case DType::kU64:
      t.key64 = is_signed ? &IntKeys<uint64_t, true> : &IntKeys<uint64_t, false>;
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeSortThunk(const Instruction& instr,
                                                     std::vector<SlotId> inputs,
                                                     std::vector<SlotId> outputs,
                                                     int64_t prefix) {
  const size_t num = instr.operands().size();
  if (num == 0 || inputs.size() != num || outputs.size() != num ||
      instr.called_computations().size() != 1) {
    return absl::InternalError("sort: operand/result count mismatch in the cpu lowering");
  }
  const std::vector<int64_t>& dims = instr.operand(0)->shape().dims;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t d = instr.attrs<SortAttrs>().dimension;
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) return absl::InvalidArgumentError("sort: dimension out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= dims[k];
  for (int64_t k = d + 1; k < rank; ++k) inner *= dims[k];
  const int64_t n = dims[d];
  if (n > int64_t{0xFFFFFFFF}) {
    return absl::UnimplementedError(
        absl::StrCat("sort: the cpu backend sorts at most 2^32 - 1 elements along a dimension, "
                     "got ", n));
  }
  std::vector<Operand> operands;
  for (size_t k = 0; k < num; ++k) {
    const int64_t w = ByteWidth(instr.operand(k)->shape().dtype);
    PermuteFn permute = PermuteFor(w);
    if (permute == nullptr) return absl::InternalError(absl::StrCat("sort: element width ", w));
    operands.push_back({inputs[k], outputs[k], w, permute});
  }
  auto thunk = std::make_unique<SortThunk>(std::move(operands), outer, n, inner);
  thunk->prefix = prefix;
  std::optional<SimpleSortComparator> simple = common::RecogniseSortComparator(instr);
  bool keyed = simple && SetKeyFunction(*thunk, instr.operand(0)->shape().dtype, *simple);
  // The general path: any comparator, and plain float compares meeting NaN.
  if (!keyed || simple->order == SortKeyOrder::kPlain) {
    absl::StatusOr<ScalarEvaluator> ev = ScalarEvaluator::Compile(*instr.called_computations()[0]);
    // Without an evaluator a NaN key could not be ordered as the comparator says.
    if (!ev.ok()) return ev.status();
    thunk->comparator = *std::move(ev);
  }
  return std::unique_ptr<Thunk>(std::move(thunk));
}

}  // namespace xjit::cpu
