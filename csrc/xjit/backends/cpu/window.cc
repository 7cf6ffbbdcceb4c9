#include "xjit/backends/cpu/window.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/backends/cpu/cumulative_sum.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/pooling.h"
#include "xjit/backends/cpu/typed_reduction_thunk.h"
#include "xjit/backends/cpu/scalar_evaluator.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/window_attrs.h"

namespace xjit::cpu {
namespace {

// The geometry of one windowed op: base dims and strides, output dims, the
// window. Walk() visits the base offsets of one output element's window in
// row-major window order (-1 for padding and dilation holes).
// Window ranks the cpu kernels walk (more falls back to the reference-like
// evaluator: none of our ops has more than 16 dimensions in practice).
constexpr size_t kMaxWalkRank = 32;

struct WindowPlan {
  std::vector<int64_t> base_dims, base_strides, out_dims, window_sizes;
  std::vector<WindowDimension> window;
  int64_t out_count = 1, window_count = 1;
  // offsets[i][o * size_i + k]: the base offset (index * stride) window
  // element k of output o reads along dimension i, or -1 (padding, hole).
  std::vector<std::vector<int64_t>> offsets;

  WindowPlan(const std::vector<int64_t>& base, std::vector<WindowDimension> w)
      : base_dims(base), window(std::move(w)) {
    const size_t r = base.size();
    base_strides.assign(r, 1);
    for (int64_t i = static_cast<int64_t>(r) - 2; i >= 0; --i) {
      base_strides[i] = base_strides[i + 1] * base[i + 1];
    }
    for (size_t i = 0; i < r; ++i) {
      out_dims.push_back(window[i].NumWindows(base[i]));
      window_sizes.push_back(window[i].size);
      out_count *= out_dims.back();
      window_count *= window[i].size;
      std::vector<int64_t> t(out_dims[i] * window[i].size);
      for (int64_t o = 0; o < out_dims[i]; ++o) {
        for (int64_t k = 0; k < window[i].size; ++k) {
          const int64_t x = window[i].BaseIndex(base[i], o, k);
          t[o * window[i].size + k] = x < 0 ? -1 : x * base_strides[i];
        }
      }
      offsets.push_back(std::move(t));
    }
  }

  // The multi-index of output `out_linear`, and the next one in row-major order.
  void Decompose(int64_t out_linear, std::vector<int64_t>& oi) const {
    for (int64_t i = static_cast<int64_t>(out_dims.size()) - 1, rest = out_linear; i >= 0; --i) {
      oi[i] = rest % out_dims[i];
      rest /= out_dims[i];
    }
  }
  void Next(std::vector<int64_t>& oi) const {
    for (int64_t i = static_cast<int64_t>(out_dims.size()) - 1; i >= 0; --i) {
      if (++oi[i] < out_dims[i]) return;
      oi[i] = 0;
    }
  }

  // fn(offset) for each element of the window of output `oi`, in row-major
  // window order (-1 for padding and dilation holes). Iterative: the leading
  // window dimensions by an odometer, the last one as a plain loop.
  template <typename Fn>
  void Walk(const std::vector<int64_t>& oi, const Fn& fn) const {
    const size_t r = base_dims.size();
    if (r == 0) {
      fn(int64_t{0});
      return;
    }
    const size_t last = r - 1;
    const int64_t n = window_sizes[last];
    const int64_t* tl = offsets[last].data() + oi[last] * n;
    if (n == 0) return;
    const int64_t lead_count = window_count / n;
    int64_t wi[kMaxWalkRank] = {0};
    for (int64_t lead = 0; lead < lead_count; ++lead) {
      int64_t base = 0;
      bool pad = false;
      for (size_t i = 0; i < last; ++i) {
        const int64_t t = offsets[i][oi[i] * window_sizes[i] + wi[i]];
        pad = pad || t < 0;
        base += t;
      }
      if (pad) {
        for (int64_t k = 0; k < n; ++k) fn(int64_t{-1});
      } else {
        for (int64_t k = 0; k < n; ++k) fn(tl[k] < 0 ? int64_t{-1} : base + tl[k]);
      }
      for (int64_t i = static_cast<int64_t>(last) - 1; i >= 0; --i) {
        if (++wi[i] < window_sizes[i]) break;
        wi[i] = 0;
      }
    }
  }

  // fn(o, oi) for outputs [begin, end), walking the multi-index.
  template <typename Fn>
  void ForOutputs(int64_t begin, int64_t end, const Fn& fn) const {
    std::vector<int64_t> oi(out_dims.size());
    Decompose(begin, oi);
    for (int64_t o = begin; o < end; ++o) {
      fn(o, oi);
      Next(oi);
    }
  }
};

// Row by row of the output (all dimensions but the last): for each window
// position, one pass over the row's outputs, so the inner loop is a plain
// strided loop. Each output still folds its window in row-major order.
template <typename Op, typename T>
void ReduceWindowTyped(const WindowPlan& p, const T* in, T init, T* out) {
  using C = Compute<T>;
  const size_t r = p.base_dims.size();
  if (r == 0) {
    out[0] = T(Op::Apply(C(init), C(in[0])));
    return;
  }
  const size_t last = r - 1;
  const int64_t row_len = p.out_dims[last];
  if (p.out_count == 0 || row_len == 0) return;
  const int64_t rows = p.out_count / row_len;
  const int64_t n = p.window_sizes[last];
  const int64_t lead_count = n == 0 ? 0 : p.window_count / n;
  const int64_t* tl = p.offsets[last].data();
  const int64_t cost = p.out_count * std::max<int64_t>(p.window_count, 1);
  ParallelFor(rows, std::max<int64_t>(1, 4096 / row_len), cost, [&](int64_t begin, int64_t end) {
    std::unique_ptr<C[]> acc(new C[row_len]);  // not vector<bool>
    std::vector<int64_t> oi(r, 0);
    p.Decompose(begin * row_len, oi);
    for (int64_t row = begin; row < end; ++row) {
      std::fill(acc.get(), acc.get() + row_len, C(init));
      int64_t wi[kMaxWalkRank] = {0};
      for (int64_t lead = 0; lead < lead_count; ++lead) {
        int64_t base = 0;
        bool pad = false;
        for (size_t i = 0; i < last; ++i) {
          const int64_t t = p.offsets[i][oi[i] * p.window_sizes[i] + wi[i]];
          pad = pad || t < 0;
          base += t;
        }
        for (int64_t k = 0; k < n; ++k) {
          if (pad) {
            for (int64_t o = 0; o < row_len; ++o) acc[o] = Op::Apply(acc[o], C(init));
            continue;
          }
          const int64_t* t = tl + k;
          for (int64_t o = 0; o < row_len; ++o) {
            const int64_t off = t[o * n];
            acc[o] = Op::Apply(acc[o], off < 0 ? C(init) : C(in[base + off]));
          }
        }
        for (int64_t i = static_cast<int64_t>(last) - 1; i >= 0; --i) {
          if (++wi[i] < p.window_sizes[i]) break;
          wi[i] = 0;
        }
      }
      T* orow = out + row * row_len;
      for (int64_t o = 0; o < row_len; ++o) orow[o] = T(acc[o]);
      // Next row: the leading output dimensions' odometer.
      for (int64_t i = static_cast<int64_t>(last) - 1; i >= 0; --i) {
        if (++oi[i] < p.out_dims[i]) break;
        oi[i] = 0;
      }
    }
  });
}

class ReduceWindowThunk : public Thunk {
 public:
  using Typed = void (*)(const WindowPlan&, const void*, const void*, void*);
  ReduceWindowThunk(WindowPlan plan, std::vector<SlotId> in, std::vector<SlotId> out,
                    std::vector<int64_t> widths, Typed typed, std::optional<ScalarEvaluator> body)
      : plan_(std::move(plan)), in_(std::move(in)), out_(std::move(out)),
        widths_(std::move(widths)), typed_(typed), body_(std::move(body)) {}

  void Execute(void* const* buffers) const override {
    if (typed_ != nullptr) {
      typed_(plan_, buffers[in_[0]], buffers[in_[1]], buffers[out_[0]]);
      return;
    }
    const size_t n = out_.size();
    const int64_t cost = plan_.out_count * std::max<int64_t>(plan_.window_count, 1) * 8;
    ParallelFor(plan_.out_count, 64, cost, [&](int64_t begin, int64_t end) {
      ScalarEvaluator::Frame frame = body_->NewFrame();
      std::vector<ScalarCell> acc(n);
      std::vector<const void*> params(2 * n);
      plan_.ForOutputs(begin, end, [&](int64_t o, const std::vector<int64_t>& oi) {
        for (size_t k = 0; k < n; ++k) std::memcpy(acc[k].bytes, buffers[in_[n + k]], widths_[k]);
        plan_.Walk(oi, [&](int64_t off) {
          for (size_t k = 0; k < n; ++k) {
            params[k] = acc[k].bytes;
            params[n + k] = off < 0 ? buffers[in_[n + k]]
                                    : static_cast<const unsigned char*>(buffers[in_[k]]) +
                                          off * widths_[k];
          }
          body_->Evaluate(frame, params.data());
          for (size_t k = 0; k < n; ++k) {
            std::memcpy(acc[k].bytes, body_->Result(frame, k), widths_[k]);
          }
        });
        for (size_t k = 0; k < n; ++k) {
          std::memcpy(static_cast<unsigned char*>(buffers[out_[k]]) + o * widths_[k], acc[k].bytes,
                      widths_[k]);
        }
      });
    });
  }

 private:
  WindowPlan plan_;
  std::vector<SlotId> in_, out_;
  std::vector<int64_t> widths_;
  Typed typed_;
  std::optional<ScalarEvaluator> body_;
};


// maximum/minimum of floats with the same semantics as scalar_ops.h (a NaN
// wins, +0 > -0), written as selects the compiler can vectorize.
template <bool kMax>
struct SelectMinMax {
  template <typename T> static constexpr bool supports = std::is_floating_point_v<T>;
  template <typename T> static T Apply(T a, T b) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    U ua, ub;
    std::memcpy(&ua, &a, sizeof(T));
    std::memcpy(&ub, &b, sizeof(T));
    // Equal values differ at most in the sign of zero: and-ing the bits keeps
    // +0 for max, or-ing keeps -0 for min.
    const U tie_bits = kMax ? (ua & ub) : (ua | ub);
    // Masks instead of branches (random data would mispredict every other one).
    auto mask = [](bool c) { return U(0) - U(c); };
    const U pick_a = mask(kMax ? a > b : a < b);
    U m = (ua & pick_a) | (ub & ~pick_a);
    const U eq = mask(a == b);
    m = (tie_bits & eq) | (m & ~eq);
    const U b_nan = mask(b != b);
    m = (ub & b_nan) | (m & ~b_nan);
    const U a_nan = mask(a != a);
    m = (ua & a_nan) | (m & ~a_nan);
    T out;
    std::memcpy(&out, &m, sizeof(T));
    return out;
  }
};

template <typename Op>
ReduceWindowThunk::Typed TypedFor(DType t) {
  return DispatchDType(t, [](auto tag) -> ReduceWindowThunk::Typed {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template supports<T>) {
      return [](const WindowPlan& p, const void* in, const void* init, void* out) {
        ReduceWindowTyped<Op, T>(p, static_cast<const T*>(in), *static_cast<const T*>(init),
                                 static_cast<T*>(out));
      };
    } else {
      return nullptr;
    }
  });
}

// Only the ops RecogniseReduceBody returns reach here.
ReduceWindowThunk::Typed TypedReduceWindow(Opcode op, DType t) {
  if (op == Opcode::kAdd) return TypedFor<Add>(t);
  if (op == Opcode::kMultiply) return TypedFor<Multiply>(t);
  if (op == Opcode::kMaximum) {
    return t == DType::kF32 || t == DType::kF64 ? TypedFor<SelectMinMax<true>>(t)
                                                : TypedFor<Maximum>(t);
  }
  if (op == Opcode::kMinimum) {
    return t == DType::kF32 || t == DType::kF64 ? TypedFor<SelectMinMax<false>>(t)
                                                : TypedFor<Minimum>(t);
  }
  // and/or of booleans are min/max; of integers they are bitwise (the evaluator's).
  if (op == Opcode::kAnd && t == DType::kPred) return TypedFor<Minimum>(t);
  if (op == Opcode::kOr && t == DType::kPred) return TypedFor<Maximum>(t);
  return nullptr;
}

// ---------------------------------------------------------- select_and_scatter

enum class Pick { kGe, kGt, kLe, kLt };

// select = one compare of (p0, p1) with a direction that keeps the running
// choice while it is >= / > / <= / < the candidate; NOTYPE/FLOAT/SIGNED/UNSIGNED.
std::optional<Pick> RecogniseSelect(const Computation& select) {
  if (select.results().size() != 1 || select.parameters().size() != 2) return std::nullopt;
  const Instruction* r = select.results()[0];
  if (r->opcode() != Opcode::kCompare) return std::nullopt;
  if (r->operand(0) != select.parameters()[0] || r->operand(1) != select.parameters()[1]) {
    return std::nullopt;
  }
  const CompareAttrs& c = r->attrs<CompareAttrs>();
  if (c.compare_type == ComparisonType::kTotalOrder) return std::nullopt;
  switch (c.comparison_direction) {
    case ComparisonDirection::kGe: return Pick::kGe;
    case ComparisonDirection::kGt: return Pick::kGt;
    case ComparisonDirection::kLe: return Pick::kLe;
    case ComparisonDirection::kLt: return Pick::kLt;
    case ComparisonDirection::kEq:
    case ComparisonDirection::kNe: return std::nullopt;
  }
  return std::nullopt;
}

ComparisonDirection DirectionOf(Pick pick) {
  switch (pick) {
    case Pick::kGe: return ComparisonDirection::kGe;
    case Pick::kGt: return ComparisonDirection::kGt;
    case Pick::kLe: return ComparisonDirection::kLe;
    case Pick::kLt: return ComparisonDirection::kLt;
  }
  return ComparisonDirection::kGe;
}

bool IsAddOfParameters(const Computation& scatter) {
  if (scatter.results().size() != 1 || scatter.parameters().size() != 2) return false;
  const Instruction* r = scatter.results()[0];
  return r->opcode() == Opcode::kAdd && r->operand(0)->opcode() == Opcode::kParameter &&
         r->operand(1)->opcode() == Opcode::kParameter && r->operand(0) != r->operand(1);
}

template <typename T>
bool Keep(Pick pick, T a, T b) {
  switch (pick) {
    case Pick::kGe: return a >= b;
    case Pick::kGt: return a > b;
    case Pick::kLe: return a <= b;
    case Pick::kLt: return a < b;
  }
  return true;
}

class SelectAndScatterThunk : public Thunk {
 public:
  using TypedSelect = void (*)(const WindowPlan&, Pick, const void*, int64_t*);
  using TypedScatter = void (*)(const WindowPlan&, const int64_t*, const void*, const void*,
                                void*, int64_t);
  SelectAndScatterThunk(WindowPlan plan, SlotId operand, SlotId source, SlotId init, SlotId out,
                        int64_t width, int64_t operand_count, SlotId chosen, Pick pick,
                        TypedSelect typed_select, TypedScatter typed_scatter,
                        std::optional<ScalarEvaluator> select,
                        std::optional<ScalarEvaluator> scatter)
      : plan_(std::move(plan)), operand_(operand), source_(source), init_(init), out_(out),
        width_(width), operand_count_(operand_count), chosen_(chosen), pick_(pick),
        typed_select_(typed_select), typed_scatter_(typed_scatter), select_(std::move(select)),
        scatter_(std::move(scatter)) {}

  // The selection of a pooling-shaped window (pooling.h) instead of the walk.
  void UsePoolingSelect(PoolingPlan plan, PoolingSelectFn fn) {
    pooling_ = std::move(plan);
    pooling_select_ = fn;
  }

  void Execute(void* const* buffers) const override {
    auto* chosen = static_cast<int64_t*>(buffers[chosen_]);
    const auto* operand = static_cast<const unsigned char*>(buffers[operand_]);
    if (pooling_select_ != nullptr) {
      pooling_select_(*pooling_, operand, chosen);
    } else if (typed_select_ != nullptr) {
      typed_select_(plan_, pick_, operand, chosen);
    } else {
      const int64_t cost = plan_.out_count * std::max<int64_t>(plan_.window_count, 1) * 8;
      ParallelFor(plan_.out_count, 64, cost, [&](int64_t begin, int64_t end) {
        ScalarEvaluator::Frame frame = select_->NewFrame();
        plan_.ForOutputs(begin, end, [&](int64_t s, const std::vector<int64_t>& oi) {
          int64_t best = -1;
          plan_.Walk(oi, [&](int64_t off) {
            if (off < 0) return;
            if (best >= 0) {
              const void* params[2] = {operand + best * width_, operand + off * width_};
              select_->Evaluate(frame, params);
              if (*static_cast<const bool*>(select_->Result(frame, 0))) return;
            }
            best = off;
          });
          chosen[s] = best;
        });
      });
    }
    if (typed_scatter_ != nullptr) {
      typed_scatter_(plan_, chosen, buffers[source_], buffers[init_], buffers[out_],
                     operand_count_);
      return;
    }
    auto* out = static_cast<unsigned char*>(buffers[out_]);
    for (int64_t i = 0; i < operand_count_; ++i) {
      std::memcpy(out + i * width_, buffers[init_], width_);
    }
    const auto* source = static_cast<const unsigned char*>(buffers[source_]);
    ScalarEvaluator::Frame frame = scatter_->NewFrame();
    for (int64_t s = 0; s < plan_.out_count; ++s) {
      if (chosen[s] < 0) continue;
      const void* params[2] = {out + chosen[s] * width_, source + s * width_};
      scatter_->Evaluate(frame, params);
      std::memcpy(out + chosen[s] * width_, scatter_->Result(frame, 0), width_);
    }
  }

 private:
  WindowPlan plan_;
  SlotId operand_, source_, init_, out_;
  int64_t width_, operand_count_;
  SlotId chosen_;
  Pick pick_;
  TypedSelect typed_select_;
  std::optional<PoolingPlan> pooling_;
  PoolingSelectFn pooling_select_ = nullptr;
  TypedScatter typed_scatter_;
  std::optional<ScalarEvaluator> select_, scatter_;
};

template <typename T>
void SelectTyped(const WindowPlan& p, Pick pick, const void* operand_v, int64_t* chosen) {
  const T* operand = static_cast<const T*>(operand_v);
  const int64_t cost = p.out_count * std::max<int64_t>(p.window_count, 1);
  ParallelFor(p.out_count, 1024, cost, [&](int64_t begin, int64_t end) {
    p.ForOutputs(begin, end, [&](int64_t s, const std::vector<int64_t>& oi) {
      int64_t best = -1;
      p.Walk(oi, [&](int64_t off) {
        if (off < 0) return;
        if (best >= 0 && Keep(pick, Compute<T>(operand[best]), Compute<T>(operand[off]))) return;
        best = off;
      });
      chosen[s] = best;
    });
  });
}

template <typename T>
void ScatterAddTyped(const WindowPlan& p, const int64_t* chosen, const void* source_v,
                     const void* init_v, void* out_v, int64_t count) {
  const T* source = static_cast<const T*>(source_v);
  T* out = static_cast<T*>(out_v);
  const T init = *static_cast<const T*>(init_v);
  for (int64_t i = 0; i < count; ++i) out[i] = init;
  for (int64_t s = 0; s < p.out_count; ++s) {
    if (chosen[s] >= 0) {
      out[chosen[s]] = T(Add::Apply(Compute<T>(out[chosen[s]]), Compute<T>(source[s])));
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeReduceWindowThunk(const Instruction& instr,
                                                             std::vector<SlotId> inputs,
                                                             std::vector<SlotId> outputs) {
  const size_t n = instr.operands().size() / 2;
  if (instr.called_computations().size() != 1 || inputs.size() != 2 * n || outputs.size() != n) {
    return absl::InternalError("reduce_window: operand count mismatch in the cpu lowering");
  }
  const ReduceWindowAttrs& attrs = instr.attrs<ReduceWindowAttrs>();
  if (attrs.window_dimensions.size() > kMaxWalkRank) {
    return absl::UnimplementedError(absl::StrCat("reduce_window: the cpu backend walks windows of "
                                                 "rank <= ", kMaxWalkRank));
  }
  std::vector<WindowDimension> window = ReduceWindowWindow(attrs);
  const Shape& base = instr.operand(0)->shape();
  if (std::unique_ptr<Thunk> sums = MakeCumulativeSumThunk(instr, inputs, outputs)) return sums;
  if (n == 1) {
    std::optional<Opcode> op = RecogniseReduceBody(instr);
    std::optional<PoolingPlan> pooling = MakePoolingPlan(base.dims, window);
    PoolingReduceFn fn = op && pooling ? PoolingReduceFor(*op, base.dtype) : nullptr;
    if (fn != nullptr) {
      return std::unique_ptr<Thunk>(
          new TypedReductionThunk<PoolingPlan>(fn, *std::move(pooling), inputs[0], inputs[1],
                                               outputs[0]));
    }
  }
  WindowPlan plan(base.dims, std::move(window));
  std::vector<int64_t> widths;
  for (size_t k = 0; k < n; ++k) widths.push_back(ByteWidth(instr.operand(k)->shape().dtype));
  ReduceWindowThunk::Typed typed = nullptr;
  if (n == 1) {
    if (std::optional<Opcode> op = RecogniseReduceBody(instr)) {
      typed = TypedReduceWindow(*op, instr.operand(0)->shape().dtype);
    }
  }
  std::optional<ScalarEvaluator> body;
  if (typed == nullptr) {
    absl::StatusOr<ScalarEvaluator> fn = ScalarEvaluator::Compile(*instr.called_computations()[0]);
    if (!fn.ok()) return fn.status();
    body = *std::move(fn);
  }
  return std::unique_ptr<Thunk>(new ReduceWindowThunk(std::move(plan), std::move(inputs),
                                                      std::move(outputs), std::move(widths), typed,
                                                      std::move(body)));
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeSelectAndScatterThunk(const Instruction& instr,
                                                                 std::vector<SlotId> inputs,
                                                                 SlotId output,
                                                                 LoweringContext& ctx) {
  if (instr.called_computations().size() != 2 || inputs.size() != 3) {
    return absl::InternalError("select_and_scatter: operand count mismatch in the cpu lowering");
  }
  const Shape& operand = instr.operand(0)->shape();
  const DType t = operand.dtype;
  if (static_cast<size_t>(operand.rank()) > kMaxWalkRank) {
    return absl::UnimplementedError(absl::StrCat(
        "select_and_scatter: the cpu backend walks windows of rank <= ", kMaxWalkRank));
  }
  WindowPlan plan(operand.dims, SelectAndScatterWindow(instr.attrs<SelectAndScatterAttrs>()));
  const Computation& select = *instr.called_computations()[0];
  const Computation& scatter = *instr.called_computations()[1];
  SelectAndScatterThunk::TypedSelect typed_select = nullptr;
  SelectAndScatterThunk::TypedScatter typed_scatter = nullptr;
  std::optional<Pick> pick = RecogniseSelect(select);
  const bool real = IsFloat(t) || IsInteger(t);
  if (pick && real) {
    typed_select = DispatchDType(t, [](auto tag) -> SelectAndScatterThunk::TypedSelect {
      using T = typename decltype(tag)::type;
      if constexpr (kIsInt<T> || kIsFloat<T>) {
        return &SelectTyped<T>;
      } else {
        return nullptr;
      }
    });
  }
  if (IsAddOfParameters(scatter) && real) {
    typed_scatter = DispatchDType(t, [](auto tag) -> SelectAndScatterThunk::TypedScatter {
      using T = typename decltype(tag)::type;
      if constexpr (kIsInt<T> || kIsFloat<T>) {
        return &ScatterAddTyped<T>;
      } else {
        return nullptr;
      }
    });
  }
  std::optional<ScalarEvaluator> select_fn, scatter_fn;
  if (typed_select == nullptr) {
    absl::StatusOr<ScalarEvaluator> fn = ScalarEvaluator::Compile(select);
    if (!fn.ok()) return fn.status();
    select_fn = *std::move(fn);
  }
  if (typed_scatter == nullptr) {
    absl::StatusOr<ScalarEvaluator> fn = ScalarEvaluator::Compile(scatter);
    if (!fn.ok()) return fn.status();
    scatter_fn = *std::move(fn);
  }
  SlotId chosen = ctx.NewScratch(std::max<int64_t>(plan.out_count, 1) * sizeof(int64_t));
  std::optional<PoolingPlan> pooling = MakePoolingPlan(operand.dims, plan.window);
  PoolingSelectFn pooling_select =
      pooling && pick && real ? PoolingSelectFor(DirectionOf(*pick), t) : nullptr;
  auto thunk = std::make_unique<SelectAndScatterThunk>(
      std::move(plan), inputs[0], inputs[1], inputs[2], output, ByteWidth(t),
      operand.num_elements(), chosen, pick.value_or(Pick::kGe), typed_select, typed_scatter,
      std::move(select_fn), std::move(scatter_fn));
  if (pooling_select != nullptr) thunk->UsePoolingSelect(*std::move(pooling), pooling_select);
  return std::unique_ptr<Thunk>(std::move(thunk));
}

}  // namespace xjit::cpu
