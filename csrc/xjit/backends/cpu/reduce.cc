#include "xjit/backends/cpu/reduce.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/ir/reduce_body.h"
#include "xjit/backends/common/reduction_geometry.h"
#include "xjit/backends/cpu/arg_reduce.h"
#include "xjit/backends/cpu/isa_clones.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/scalar_evaluator.h"
#include "xjit/backends/cpu/scalar_ops.h"
#include "xjit/backends/cpu/typed_reduction_thunk.h"

namespace xjit::cpu {
namespace {

using common::ForEachReducedRun;
using common::OutputBase;
using Geometry = common::ReductionGeometry;

// ----------------------------------------------------------- typed fast path

template <typename Op, typename C>
constexpr bool kFloatMaxMin = (std::is_same_v<Op, Maximum> || std::is_same_v<Op, Minimum>) &&
                              std::is_floating_point_v<C>;

// Float maximum (minimum) of a contiguous run by the plain compare-select
// (one vmaxps: it ignores NaN and the signed-zero rule), with a flag for
// NaNs. Without NaNs the plain result is the exact one unless it is zero
// (only there do equal values differ in their bits): false then, and for
// NaN, and the caller runs the exact loop. About a third of the exact
// body's instructions: a max reduction is bound by memory again.
template <typename Op, typename C, typename T>
XJIT_ISA_CLONES bool QuickMaxMin(const T* x, int64_t n, C* result) {
  constexpr int kLanes = 32;
  constexpr bool kMax = std::is_same_v<Op, Maximum>;
  C lanes[kLanes];
  int nan = 0;
  for (int j = 0; j < kLanes; ++j) {
    lanes[j] = C(x[j]);
    nan |= lanes[j] != lanes[j];
  }
  int64_t i = kLanes;
  for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd reduction(| : nan)
    for (int j = 0; j < kLanes; ++j) {
      const C v = C(x[i + j]);
      lanes[j] = kMax ? (lanes[j] > v ? lanes[j] : v) : (lanes[j] < v ? lanes[j] : v);
      nan |= v != v;
    }
  }
  // The lanes halved as a tree (five dependent steps, not 32: rows of a few
  // thousand elements spent a third of their time here). Without NaNs the
  // order cannot change the result.
  for (int half = kLanes / 2; half > 0; half /= 2) {
    for (int j = 0; j < half; ++j) {
      const C a = lanes[j], b = lanes[j + half];
      lanes[j] = kMax ? (a > b ? a : b) : (a < b ? a : b);
    }
  }
  C r = lanes[0];
  for (; i < n; ++i) {
    const C v = C(x[i]);
    nan |= v != v;
    r = kMax ? (r > v ? r : v) : (r < v ? r : v);
  }
  if (nan || r == C(0)) return false;
  *result = r;
  return true;
}

// The 32 lanes of ReduceRun combined as a tree, in the order the generated
// row reductions combine their four 8-lane registers (jit_row_avx2.cc; two
// of 16 lanes in jit_row_avx512.cc): the registers pairwise, then the
// halves, pairs and neighbours of the 8 lanes.
// Five dependent steps, not 32 (a row's sum ends sooner), and a tree rounds
// less than a chain.
template <typename Op, typename C>
__attribute__((always_inline)) inline C CombineLanes(const C* lanes) {
  C v[8];
  for (int i = 0; i < 8; ++i) {
    v[i] = Op::Apply(Op::Apply(lanes[i], lanes[8 + i]), Op::Apply(lanes[16 + i], lanes[24 + i]));
  }
  C w[4];
  for (int i = 0; i < 4; ++i) w[i] = Op::Apply(v[i], v[i + 4]);
  return Op::Apply(Op::Apply(w[0], w[2]), Op::Apply(w[1], w[3]));
}

// `acc` combined with the n elements x[0], x[s], ...: contiguous runs use
// lanes so the loop vectorises (a reassociation the reduce spec allows).
// Cloned per ISA; omp simd because GCC otherwise leaves select-based bodies
// (max and min with their NaN and signed-zero rules) scalar.
template <typename Op, typename C, typename T>
XJIT_ISA_CLONES C ReduceRun(const T* x, int64_t n, int64_t s, C acc) {
  // 32 lanes: several independent vector chains, so a body of many
  // dependent instructions (max: compare, blend, NaN checks) overlaps.
  constexpr int kLanes = 32;
  if constexpr (kFloatMaxMin<Op, C>) {
    C quick;
    if (s == 1 && n >= 2 * kLanes && QuickMaxMin<Op, C, T>(x, n, &quick)) {
      return Op::Apply(acc, quick);
    }
  }
  int64_t i = 0;
  if (s == 1 && n >= 2 * kLanes) {
    C lanes[kLanes];
    for (int j = 0; j < kLanes; ++j) lanes[j] = C(x[j]);
    for (i = kLanes; i + kLanes <= n; i += kLanes) {
#pragma omp simd
      for (int j = 0; j < kLanes; ++j) lanes[j] = Op::Apply(lanes[j], C(x[i + j]));
    }
    acc = Op::Apply(acc, CombineLanes<Op>(lanes));
  }
  for (; i < n; ++i) acc = Op::Apply(acc, C(x[i * s]));
  return acc;
}

// acc[j] combined with x[r * stride + j] for j < n, r < rows, row by row:
// the rows inside the clone (short rows: one call, not one a row).
template <typename Op, typename C, typename T>
XJIT_ISA_CLONES void AccumulateRows(C* __restrict acc, const T* __restrict x, int64_t rows,
                                    int64_t n, int64_t stride) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * stride;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) acc[j] = Op::Apply(acc[j], C(row[j]));
  }
}

// A float maximum (minimum) of columns by the plain compare-select, as
// QuickMaxMin for a run: acc[j] = x[j], then rows 1.. combined; false when a
// NaN was read or a result is zero (where equal values differ in their bits),
// and the caller runs the exact loop.
template <typename Op, typename C, typename T>
XJIT_ISA_CLONES bool QuickColumnMaxMin(C* __restrict acc, const T* __restrict x, int64_t rows,
                                       int64_t n, int64_t stride) {
  constexpr bool kMax = std::is_same_v<Op, Maximum>;
  int nan = 0;
  for (int64_t j = 0; j < n; ++j) acc[j] = C(x[j]);
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * stride;
#pragma omp simd reduction(| : nan)
    for (int64_t j = 0; j < n; ++j) {
      const C v = C(row[j]);
      acc[j] = kMax ? (acc[j] > v ? acc[j] : v) : (acc[j] < v ? acc[j] : v);
      nan |= v != v;
    }
  }
  if (nan) return false;
  for (int64_t j = 0; j < n; ++j) {
    if (acc[j] == C(0)) return false;
  }
  return true;
}

// Rows [0, rows) of columns into acc (acc[j] = row 0's element j first).
template <typename Op, typename C, typename T>
void FirstRowsOfColumns(C* acc, const T* x, int64_t rows, int64_t n, int64_t stride) {
  if constexpr (kFloatMaxMin<Op, C>) {
    if (QuickColumnMaxMin<Op, C, T>(acc, x, rows, n, stride)) return;
  }
  for (int64_t j = 0; j < n; ++j) acc[j] = C(x[j]);
  AccumulateRows<Op, C, T>(acc, x + stride, rows - 1, n, stride);
}

// Elements a chunk of a parallel full reduction.
constexpr int64_t kFullReductionChunk = 64 * 1024;

// A column reduction of an [R, L] array with short rows (axis 0 reduced; a
// batch's mean, a column sum) had one task per 512 columns: a single
// thread for L <= 512, reads 2 KiB apart otherwise. Instead: fixed chunks
// of whole rows, each accumulated into its own row of partial results
// (contiguous reads, the partials in L1), in parallel; then the partials
// combined in chunk order. The chunks depend only on the shape, so the bits
// do not depend on the number of threads.
constexpr int64_t kColumnReductionMaxRow = 4096;       // elements
constexpr int64_t kColumnReductionChunk = 256 * 1024;  // elements a chunk, at least

template <typename Op, typename C, typename T>
void ColumnReduce(const T* in, int64_t rows, int64_t L, int64_t row_stride, C init, T* out) {
  const int64_t chunk_rows =
      std::max(kColumnReductionChunk / L, (rows + 63) / 64);  // at most 64 chunks
  const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  std::unique_ptr<C[]> partial(new C[chunks * L]);  // not vector: C may be bool
  ParallelFor(chunks, 1, rows * L, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t r0 = c * chunk_rows, r1 = std::min(rows, r0 + chunk_rows);
      FirstRowsOfColumns<Op, C, T>(partial.get() + c * L, in + r0 * row_stride, r1 - r0, L,
                                   row_stride);
    }
  });
  std::unique_ptr<C[]> acc(new C[L]);
  for (int64_t j = 0; j < L; ++j) acc[j] = init;
  AccumulateRows<Op, C, C>(acc.get(), partial.get(), chunks, L, L);
  for (int64_t j = 0; j < L; ++j) out[j] = T(acc[j]);
}

template <typename Op, typename T>
void FastReduce(const Geometry& g, const T* in, const T* init_ptr, T* out) {
  using C = Compute<T>;
  const C init = C(*init_ptr);
  if (g.num_outputs == 0) return;
  const int64_t total = g.num_outputs * std::max<int64_t>(g.num_reduced, 1);
  const bool outer_mode = !g.kept.empty() && g.kept.back().stride == 1 &&
                          (g.reduced.empty() || g.reduced.back().stride != 1) &&
                          g.num_reduced > 0;
  if (g.num_outputs == 1 && g.reduced.size() == 1 && g.reduced[0].stride == 1 &&
      g.num_reduced >= 4 * kFullReductionChunk) {
    // A full reduction of a long contiguous run: fixed chunks reduced in
    // parallel, then combined in chunk order (the bits do not depend on the
    // number of threads). Most arrive split into rows already
    // (passes/reduction_splitting.h); this takes lengths no row size divides.
    const int64_t n = g.num_reduced;
    const int64_t chunks = (n + kFullReductionChunk - 1) / kFullReductionChunk;
    std::unique_ptr<C[]> partial(new C[chunks]);  // not vector: C may be bool
    const T* x = in + OutputBase(g, 0);
    ParallelFor(chunks, 1, total, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const int64_t off = c * kFullReductionChunk;
        const int64_t len = std::min(kFullReductionChunk, n - off);
        partial[c] = ReduceRun<Op, C, T>(x + off + 1, len - 1, 1, C(x[off]));
      }
    });
    C acc = init;
    for (int64_t c = 0; c < chunks; ++c) acc = Op::Apply(acc, partial[c]);
    out[0] = T(acc);
    return;
  }
  if (!outer_mode) {
    // Each output reduces its own runs; contiguous runs use 8 lanes so the
    // loop vectorises (a reassociation the reduce spec allows).
    ParallelFor(g.num_outputs, 1, total, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        C acc = init;
        if (g.num_reduced > 0) {
          ForEachReducedRun(g, OutputBase(g, o), [&](int64_t off, int64_t n, int64_t s) {
            acc = ReduceRun<Op, C, T>(in + off, n, s, acc);
          });
        }
        out[o] = T(acc);
      }
    });
    return;
  }
  // The innermost input dim is kept: sweep rows of it, updating a block of
  // accumulators per reduced index (reads stay contiguous).
  const int64_t L = g.kept.back().size;
  if (g.kept.size() == 1 && g.reduced.size() == 1 && L <= kColumnReductionMaxRow &&
      g.num_reduced * L >= 2 * kColumnReductionChunk) {
    ColumnReduce<Op, C, T>(in, g.num_reduced, L, g.reduced[0].stride, init, out);
    return;
  }
  const int64_t outer = g.num_outputs / L;
  constexpr int64_t kBlock = 512;
  const int64_t blocks = (L + kBlock - 1) / kBlock;
  Geometry outer_g = g;
  outer_g.kept.pop_back();
  ParallelFor(outer * blocks, 1, total, [&](int64_t begin, int64_t end) {
    C acc[kBlock];
    for (int64_t task = begin; task < end; ++task) {
      int64_t ob = task / blocks, j0 = (task % blocks) * kBlock;
      int64_t nj = std::min(kBlock, L - j0);
      for (int64_t j = 0; j < nj; ++j) acc[j] = init;
      int64_t base = OutputBase(outer_g, ob) + j0;
      ForEachReducedRun(g, base, [&](int64_t off, int64_t n, int64_t s) {
        AccumulateRows<Op, C, T>(acc, in + off, n, nj, s);
      });
      T* y = out + ob * L + j0;
      for (int64_t j = 0; j < nj; ++j) y[j] = T(acc[j]);
    }
  });
}

using FastKernel = void (*)(const Geometry&, const void*, const void*, void*);

template <typename Op, typename T>
void FastReduceErased(const Geometry& g, const void* in, const void* init, void* out) {
  FastReduce<Op, T>(g, static_cast<const T*>(in), static_cast<const T*>(init), static_cast<T*>(out));
}

// make(tag) for t's type tag when Op is defined on its compute type; null
// otherwise.
template <typename Kernel, typename Op, typename Make>
Kernel TypedFor(DType t, const Make& make) {
  return DispatchDType(t, [&](auto tag) -> Kernel {
    using T = typename decltype(tag)::type;
    if constexpr (Op::template supports<Compute<T>>) return make(tag);
    return nullptr;
  });
}

// pick(Op{}) for the scalar_ops.h type of a reduce body that is one known op
// of its two parameters (ir/reduce_body.h); null otherwise.
template <typename Kernel, typename Pick>
Kernel ForRecognisedBody(const Instruction& reduce, const Pick& pick) {
  std::optional<Opcode> op = RecogniseReduceBody(reduce);
  if (!op) return nullptr;
  switch (*op) {
    case Opcode::kAdd: return pick(Add{});
    case Opcode::kMultiply: return pick(Multiply{});
    case Opcode::kMaximum: return pick(Maximum{});
    case Opcode::kMinimum: return pick(Minimum{});
    case Opcode::kAnd: return pick(And{});
    case Opcode::kOr: return pick(Or{});
    default: return nullptr;
  }
}

// The fast kernel when the body is one known op of its two parameters.
FastKernel RecogniseBody(const Instruction& instr) {
  const DType t = instr.operand(0)->shape().dtype;
  return ForRecognisedBody<FastKernel>(instr, [t](auto op) {
    using Op = decltype(op);
    return TypedFor<FastKernel, Op>(t, [](auto tag) -> FastKernel {
      return &FastReduceErased<Op, typename decltype(tag)::type>;
    });
  });
}

// Rows too short for ReduceRun's lanes (it combines them one element after
// another): sixteen rows at a time, one a lane, each still combined in
// element order from `start`, so the bits are ReduceRun's. Rows of 16
// floats (distances of 16-d points): 1.5x JAX's time element by element.
template <typename Op, typename C, typename T>
XJIT_ISA_CLONES void ReduceShortRows(const T* __restrict x, int64_t rows, int64_t n, C start,
                                     T* __restrict y) {
  constexpr int64_t kGroup = 16;
  int64_t r = 0;
  for (; r + kGroup <= rows; r += kGroup) {
    C acc[kGroup];
    for (int64_t l = 0; l < kGroup; ++l) acc[l] = start;
    const T* group = x + r * n;
    for (int64_t j = 0; j < n; ++j) {
#pragma omp simd
      for (int64_t l = 0; l < kGroup; ++l) acc[l] = Op::Apply(acc[l], C(group[l * n + j]));
    }
    for (int64_t l = 0; l < kGroup; ++l) y[r + l] = T(acc[l]);
  }
  for (; r < rows; ++r) {
    C acc = start;
    for (int64_t j = 0; j < n; ++j) acc = Op::Apply(acc, C(x[r * n + j]));
    y[r] = T(acc);
  }
}

template <typename Op, typename T>
void RowReduce(const void* in, const void* init, void* out, int64_t rows, int64_t row_size) {
  using C = Compute<T>;
  const T* x = static_cast<const T*>(in);
  const C start = C(*static_cast<const T*>(init));
  T* y = static_cast<T*>(out);
  // ReduceRun's bound for its lanes (2 * kLanes): below it, element order.
  if (row_size < 64) return ReduceShortRows<Op, C, T>(x, rows, row_size, start, y);
  for (int64_t r = 0; r < rows; ++r) y[r] = T(ReduceRun<Op, C, T>(x + r * row_size, row_size, 1, start));
}

template <typename Op, typename T>
void ColumnFirstRows(void* acc, const void* in, int64_t rows, int64_t columns) {
  using C = Compute<T>;
  FirstRowsOfColumns<Op, C, T>(static_cast<C*>(acc), static_cast<const T*>(in), rows, columns,
                               columns);
}

template <typename Op, typename T>
void ColumnMoreRows(void* acc, const void* in, int64_t rows, int64_t columns) {
  using C = Compute<T>;
  AccumulateRows<Op, C, T>(static_cast<C*>(acc), static_cast<const T*>(in), rows, columns,
                           columns);
}

template <typename Op, typename T>
void ColumnFinish(const void* partials, int64_t chunks, int64_t columns, const void* init,
                  void* out) {
  using C = Compute<T>;
  const C* p = static_cast<const C*>(partials);
  T* y = static_cast<T*>(out);
  const C start = C(*static_cast<const T*>(init));
  std::unique_ptr<C[]> acc(new C[columns]);  // not vector: C may be bool
  for (int64_t j = 0; j < columns; ++j) acc[j] = start;
  AccumulateRows<Op, C, C>(acc.get(), p, chunks, columns, columns);
  for (int64_t j = 0; j < columns; ++j) y[j] = T(acc[j]);
}

// acc[j] = acc[j] + scales[r] * x[r][j] over the rows (kFirst: acc starts as
// row 0's product). No fused multiply-add (the build's -ffp-contract=off):
// the bits of a multiply then a sum.
template <typename T, bool kFirst>
XJIT_ISA_CLONES void ScaledColumnSum(T* __restrict acc, const T* __restrict x,
                                     const T* __restrict scales, int64_t rows, int64_t n) {
  int64_t r = 0;
  if constexpr (kFirst) {
    const T a = scales[0];
    for (int64_t j = 0; j < n; ++j) acc[j] = a * x[j];
    r = 1;
  }
  for (; r < rows; ++r) {
    const T a = scales[r];
    const T* row = x + r * n;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] + a * row[j];
  }
}

template <typename T, bool kFirst>
void ColumnRowsScaled(void* acc, const void* in, const void* scales, int64_t rows,
                      int64_t columns) {
  ScaledColumnSum<T, kFirst>(static_cast<T*>(acc), static_cast<const T*>(in),
                             static_cast<const T*>(scales), rows, columns);
}

template <typename Op, typename T>
const ColumnReduceKernel* ColumnKernelFor() {
  static const ColumnReduceKernel kernel = [] {
    ColumnReduceKernel k{&ColumnFirstRows<Op, T>, &ColumnMoreRows<Op, T>, &ColumnFinish<Op, T>,
                         static_cast<int64_t>(sizeof(Compute<T>))};
    if constexpr (std::is_same_v<Op, Add> &&
                  (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      k.first_rows_scaled = &ColumnRowsScaled<T, true>;
      k.more_rows_scaled = &ColumnRowsScaled<T, false>;
    }
    return k;
  }();
  return &kernel;
}

// ------------------------------------------------------- any body, N inputs

class GenericReduceThunk : public Thunk {
 public:
  GenericReduceThunk(ScalarEvaluator body, Geometry g, std::vector<SlotId> inputs,
                     std::vector<SlotId> outputs, std::vector<int64_t> widths)
      : body_(std::move(body)), g_(std::move(g)), inputs_(std::move(inputs)),
        outputs_(std::move(outputs)), widths_(std::move(widths)) {}

  void Execute(void* const* buffers) const override {
    const int64_t n = static_cast<int64_t>(outputs_.size());
    ParallelFor(g_.num_outputs, 1, g_.num_outputs * std::max<int64_t>(g_.num_reduced, 1) * 4,
                [&](int64_t begin, int64_t end) {
      ScalarEvaluator::Frame frame = body_.NewFrame();
      std::vector<ScalarCell> acc(n), next(n);
      std::vector<const void*> params(2 * n);
      for (int64_t o = begin; o < end; ++o) {
        for (int64_t i = 0; i < n; ++i) std::memcpy(acc[i].bytes, buffers[inputs_[n + i]], widths_[i]);
        for (int64_t i = 0; i < n; ++i) params[i] = acc[i].bytes;
        if (g_.num_reduced > 0) {
          ForEachReducedRun(g_, OutputBase(g_, o), [&](int64_t off, int64_t cnt, int64_t s) {
            for (int64_t e = 0; e < cnt; ++e) {
              for (int64_t i = 0; i < n; ++i) {
                params[n + i] = static_cast<const char*>(buffers[inputs_[i]]) + (off + e * s) * widths_[i];
              }
              body_.Evaluate(frame, params.data());
              // Through `next`: a result may be a parameter, i.e. an accumulator.
              for (int64_t i = 0; i < n; ++i) std::memcpy(next[i].bytes, body_.Result(frame, i), widths_[i]);
              for (int64_t i = 0; i < n; ++i) acc[i] = next[i];
            }
          });
        }
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(static_cast<char*>(buffers[outputs_[i]]) + o * widths_[i], acc[i].bytes, widths_[i]);
        }
      }
    });
  }

 private:
  ScalarEvaluator body_;
  Geometry g_;
  std::vector<SlotId> inputs_, outputs_;
  std::vector<int64_t> widths_;
};

}  // namespace

RowReduceKernel GetRowReduceKernel(const Instruction& reduce) {
  const DType t = reduce.operand(0)->shape().dtype;
  return ForRecognisedBody<RowReduceKernel>(reduce, [t](auto op) {
    using Op = decltype(op);
    return TypedFor<RowReduceKernel, Op>(t, [](auto tag) -> RowReduceKernel {
      return &RowReduce<Op, typename decltype(tag)::type>;
    });
  });
}

const ColumnReduceKernel* GetColumnReduceKernel(const Instruction& reduce) {
  const DType t = reduce.operand(0)->shape().dtype;
  using Kernel = const ColumnReduceKernel*;
  return ForRecognisedBody<Kernel>(reduce, [t](auto op) {
    using Op = decltype(op);
    return TypedFor<Kernel, Op>(t, [](auto tag) -> Kernel {
      return ColumnKernelFor<Op, typename decltype(tag)::type>();
    });
  });
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeReduceThunk(const Instruction& instr,
                                                       std::vector<SlotId> inputs,
                                                       std::vector<SlotId> outputs) {
  const int64_t n = static_cast<int64_t>(outputs.size());
  if (static_cast<int64_t>(inputs.size()) != 2 * n || instr.called_computations().size() != 1) {
    return absl::InternalError("reduce: operand/result count mismatch in the cpu lowering");
  }
  Geometry g = common::MakeReductionGeometry(instr.operand(0)->shape(), instr.attrs<ReduceAttrs>().dimensions);
  if (FastKernel fast = RecogniseBody(instr)) {
    return std::unique_ptr<Thunk>(
        new TypedReductionThunk<Geometry>(fast, std::move(g), inputs[0], inputs[1], outputs[0]));
  }
  if (std::unique_ptr<Thunk> arg = MakeArgReduceThunk(instr, inputs, outputs)) return arg;
  auto body = ScalarEvaluator::Compile(*instr.called_computations()[0]);
  if (!body.ok()) return body.status();
  if (body->num_parameters() != 2 * n || body->num_results() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce: body takes ", body->num_parameters(), " parameters and returns ",
        body->num_results(), " values; expected ", 2 * n, " and ", n));
  }
  std::vector<int64_t> widths;
  for (int64_t i = 0; i < n; ++i) widths.push_back(ByteWidth(instr.operand(i)->shape().dtype));
  return std::unique_ptr<Thunk>(new GenericReduceThunk(std::move(*body), std::move(g),
                                                       std::move(inputs), std::move(outputs),
                                                       std::move(widths)));
}

}  // namespace xjit::cpu
