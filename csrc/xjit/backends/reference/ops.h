// The reference kernels, one function per op (or op family). Each takes
// literals, computes its own result type from the operands and attributes,
// and returns an error (never crashes) on operands it cannot handle. The
// evaluator checks results against the instruction's declared shape.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/literal.h"
#include "xjit/ir/opcode.h"

namespace xjit::reference {

// Element-wise (elementwise_unary.cc, convert.cc, elementwise_binary.cc,
// compare.cc, elementwise_ternary.cc).
absl::StatusOr<Literal> EvalUnary(Opcode op, const Literal& x);
// fft by the definition (fft.cc, issue 11).
absl::StatusOr<Literal> EvalFft(const Literal& x, const FftAttrs& attrs, const Shape& result);
absl::StatusOr<Literal> EvalConvert(const Literal& x, DType to);
absl::StatusOr<Literal> EvalBinary(Opcode op, const Literal& lhs, const Literal& rhs);
absl::StatusOr<Literal> EvalCompare(const Literal& lhs, const Literal& rhs,
                                    ComparisonDirection direction, ComparisonType type);
absl::StatusOr<Literal> EvalSelect(const Literal& pred, const Literal& on_true,
                                   const Literal& on_false);
absl::StatusOr<Literal> EvalClamp(const Literal& min, const Literal& x, const Literal& max);

// Creation and data movement, iota included (data_movement.cc).
absl::StatusOr<Literal> EvalIota(const Shape& shape, int64_t iota_dimension);
absl::StatusOr<Literal> EvalBroadcastInDim(const Literal& x, absl::Span<const int64_t> dims,
                                           const Shape& result_shape);
absl::StatusOr<Literal> EvalReshape(const Literal& x, const Shape& result_shape);
absl::StatusOr<Literal> EvalTranspose(const Literal& x, absl::Span<const int64_t> permutation);
absl::StatusOr<Literal> EvalSlice(const Literal& x, absl::Span<const int64_t> start,
                                  absl::Span<const int64_t> limit,
                                  absl::Span<const int64_t> strides);
absl::StatusOr<Literal> EvalConcatenate(absl::Span<const Literal* const> inputs,
                                        int64_t dimension);
absl::StatusOr<Literal> EvalPad(const Literal& x, const Literal& padding_value,
                                absl::Span<const int64_t> low, absl::Span<const int64_t> high,
                                absl::Span<const int64_t> interior);
absl::StatusOr<Literal> EvalReverse(const Literal& x, absl::Span<const int64_t> dims);

// Linear algebra and reductions (dot_general.cc, reduce.cc).
absl::StatusOr<Literal> EvalDotGeneral(const Literal& lhs, const Literal& rhs,
                                       const DotDimensionNumbers& dnums);

// A reduction body: takes N accumulators then N input elements (0-d
// literals) and returns the N new accumulators.
using ReduceBody =
    std::function<absl::StatusOr<std::vector<Literal>>(std::vector<Literal> args)>;
absl::StatusOr<std::vector<Literal>> EvalReduce(absl::Span<const Literal* const> inputs,
                                                absl::Span<const Literal* const> init_values,
                                                absl::Span<const int64_t> dimensions,
                                                const ReduceBody& body);

// rng_bit_generator (rng_bit_generator.cc): (output_state, output).
absl::StatusOr<std::vector<Literal>> EvalRngBitGenerator(const Literal& state,
                                                         const Shape& output_shape,
                                                         RngAlgorithm algorithm);
// sort and map (sort.cc). A comparator takes lhs_0, rhs_0, lhs_1, rhs_1, ...
// (0-d literals) and says whether lhs goes first; a map computation takes one
// element of each input and returns the result element.
using SortComparator = std::function<absl::StatusOr<bool>(std::vector<Literal> args)>;
absl::StatusOr<std::vector<Literal>> EvalSort(absl::Span<const Literal* const> inputs,
                                              int64_t dimension, const SortComparator& less);
using MapComputation = std::function<absl::StatusOr<Literal>(std::vector<Literal> args)>;
absl::StatusOr<Literal> EvalMap(absl::Span<const Literal* const> inputs, DType result_type,
                                const MapComputation& fn);

// Indexing (gather.cc). scatter's update_computation takes the N current
// values then the N update values and returns the N new values.
absl::StatusOr<Literal> EvalGather(const Literal& operand, const Literal& start_indices,
                                   const GatherAttrs& attrs, const Shape& result_shape);
absl::StatusOr<std::vector<Literal>> EvalScatter(absl::Span<const Literal* const> inputs,
                                                 const Literal& scatter_indices,
                                                 absl::Span<const Literal* const> updates,
                                                 const ScatterAttrs& attrs,
                                                 const ReduceBody& update_computation);
absl::StatusOr<Literal> EvalDynamicSlice(const Literal& operand,
                                         absl::Span<const Literal* const> starts,
                                         absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Literal> EvalDynamicUpdateSlice(const Literal& operand, const Literal& update,
                                               absl::Span<const Literal* const> starts);
// convolution.cc: the result shape comes from shape inference.
absl::StatusOr<Literal> EvalConvolution(const Literal& lhs, const Literal& rhs,
                                        const ConvolutionAttrs& attrs, const Shape& result_shape);
// window.cc. reduce_window's body is a ReduceBody (accumulators, then
// elements); select_and_scatter's select(chosen, candidate) says whether to
// keep the chosen element, scatter(current, source) combines.
absl::StatusOr<std::vector<Literal>> EvalReduceWindow(absl::Span<const Literal* const> inputs,
                                                      absl::Span<const Literal* const> inits,
                                                      const ReduceWindowAttrs& attrs,
                                                      const ReduceBody& body);
using SelectFn = std::function<absl::StatusOr<bool>(const Literal&, const Literal&)>;
using ScatterFn = std::function<absl::StatusOr<Literal>(const Literal&, const Literal&)>;
absl::StatusOr<Literal> EvalSelectAndScatter(const Literal& operand, const Literal& source,
                                             const Literal& init_value,
                                             const SelectAndScatterAttrs& attrs,
                                             const SelectFn& select, const ScatterFn& scatter);

// batch_norm.cc: operands in the op's order (shape inference checked them).
absl::StatusOr<Literal> EvalBatchNormInference(absl::Span<const Literal* const> operands,
                                               const BatchNormAttrs& attrs);
absl::StatusOr<std::vector<Literal>> EvalBatchNormTraining(
    absl::Span<const Literal* const> operands, const BatchNormAttrs& attrs);
absl::StatusOr<std::vector<Literal>> EvalBatchNormGrad(absl::Span<const Literal* const> operands,
                                                       const BatchNormAttrs& attrs);

// Bit-level ops (bits.cc).
absl::StatusOr<Literal> EvalReducePrecision(const Literal& x, int64_t exponent_bits,
                                            int64_t mantissa_bits);
absl::StatusOr<Literal> EvalBitcastConvert(const Literal& x, const Shape& result_shape);

// cholesky and triangular_solve (linalg.cc), batched over leading dimensions.
absl::StatusOr<Literal> EvalCholesky(const Literal& a, const CholeskyAttrs& attrs);
absl::StatusOr<Literal> EvalTriangularSolve(const Literal& a, const Literal& b,
                                            const TriangularSolveAttrs& attrs);

}  // namespace xjit::reference
