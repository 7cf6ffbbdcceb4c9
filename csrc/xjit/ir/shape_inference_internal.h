// Per-family shape inference entry points and the checks they share. Only the
// shape_inference*.cc files include this; everyone else calls InferShape.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/graph.h"
#include "xjit/ir/opcode.h"
#include "xjit/ir/shape.h"

namespace xjit {
namespace shape_inference {

using Operands = absl::Span<const Shape* const>;
using Called = absl::Span<const Computation* const>;

// "tensor<2xf32>, tensor<3xf32>" for messages.
std::string ShapesToString(Operands operands);
// "[0, 1]" for messages.
std::string DimsToString(absl::Span<const int64_t> dims);

// Fails unless every operand is an array (not a tuple).
absl::Status CheckArrays(Opcode op, Operands operands);
// Each listed axis in [0, rank) and no axis twice; `what` names the attribute.
absl::Status CheckAxes(Opcode op, absl::string_view what, absl::Span<const int64_t> axes,
                       int64_t rank);

absl::StatusOr<Shape> InferElementwiseUnary(Opcode op, const Shape& x, const Shape* declared);
absl::StatusOr<Shape> InferElementwiseBinary(Opcode op, const Shape& lhs, const Shape& rhs,
                                             const Attributes& attrs);
absl::StatusOr<Shape> InferSelect(const Shape& pred, const Shape& on_true, const Shape& on_false);
absl::StatusOr<Shape> InferClamp(const Shape& min, const Shape& operand, const Shape& max);

absl::StatusOr<Shape> InferIota(const IotaAttrs& attrs, const Shape* declared);
absl::StatusOr<Shape> InferBroadcastInDim(const Shape& x, const BroadcastInDimAttrs& attrs,
                                          const Shape* declared);
absl::StatusOr<Shape> InferReshape(const Shape& x, const Shape* declared);
absl::StatusOr<Shape> InferTranspose(const Shape& x, const TransposeAttrs& attrs);
absl::StatusOr<Shape> InferReverse(const Shape& x, const ReverseAttrs& attrs);
absl::StatusOr<Shape> InferSlice(const Shape& x, const SliceAttrs& attrs);
absl::StatusOr<Shape> InferConcatenate(Operands operands, const ConcatenateAttrs& attrs);
absl::StatusOr<Shape> InferPad(const Shape& x, const Shape& padding_value, const PadAttrs& attrs);

absl::StatusOr<Shape> InferDotGeneral(const Shape& lhs, const Shape& rhs,
                                      const DotGeneralAttrs& attrs);
absl::StatusOr<Shape> InferReduce(Operands operands, const ReduceAttrs& attrs, Called called);

absl::StatusOr<Shape> InferSort(Operands inputs, const SortAttrs& attrs, Called called);
absl::StatusOr<Shape> InferMap(Operands inputs, const MapAttrs& attrs, Called called);
absl::StatusOr<Shape> InferReducePrecision(const Shape& x, const ReducePrecisionAttrs& attrs);
absl::StatusOr<Shape> InferBitcastConvert(const Shape& x, const Shape* declared);

absl::StatusOr<Shape> InferGather(const Shape& operand, const Shape& start_indices,
                                  const GatherAttrs& attrs);
absl::StatusOr<Shape> InferScatter(Operands operands, const ScatterAttrs& attrs, Called called);
absl::StatusOr<Shape> InferDynamicSlice(Operands operands, const DynamicSliceAttrs& attrs);
// custom_call: the declared results (one array, or a tuple of arrays).
absl::StatusOr<Shape> InferCustomCall(Operands operands, const CustomCallAttrs& attrs,
                                      const Shape* declared);
absl::StatusOr<Shape> InferDynamicUpdateSlice(Operands operands);
absl::StatusOr<Shape> InferWhile(Operands operands, Called called);
absl::StatusOr<Shape> InferIf(Operands operands, Called called);
absl::StatusOr<Shape> InferCase(Operands operands, Called called);
absl::StatusOr<Shape> InferConvolution(const Shape& lhs, const Shape& rhs,
                                       const ConvolutionAttrs& attrs);
absl::StatusOr<Shape> InferReduceWindow(Operands operands, const ReduceWindowAttrs& attrs,
                                        Called called);
absl::StatusOr<Shape> InferSelectAndScatter(const Shape& operand, const Shape& source,
                                            const Shape& init_value,
                                            const SelectAndScatterAttrs& attrs, Called called);

// batch_norm_inference/training/grad (shape_inference_batch_norm.cc).
absl::StatusOr<Shape> InferBatchNorm(Opcode op, Operands operands, const BatchNormAttrs& attrs);

// issue 11 (h-fft): fft (shape_inference_fft.cc); the dynamic-shape ops, rng,
// optimization_barrier, replica_id, partition_id (shape_inference_dynamic.cc).
absl::StatusOr<Shape> InferFft(const Shape& x, const FftAttrs& attrs);
absl::StatusOr<Shape> InferDynamicShapeOp(Opcode op, Operands operands, const Attributes& attrs,
                                          const Shape* declared);
// cholesky, triangular_solve (shape_inference_linalg.cc).
absl::StatusOr<Shape> InferCholesky(const Shape& a, const CholeskyAttrs& attrs);
absl::StatusOr<Shape> InferTriangularSolve(const Shape& a, const Shape& b,
                                           const TriangularSolveAttrs& attrs);

absl::StatusOr<Shape> InferTuple(Operands operands);
absl::StatusOr<Shape> InferGetTupleElement(const Shape& tuple, const GetTupleElementAttrs& attrs);
absl::StatusOr<Shape> InferCall(Operands operands, Called called);
// shape_inference_quantization.cc
absl::StatusOr<Shape> InferUniformQuantize(const Shape& operand, const Shape* declared);
absl::StatusOr<Shape> InferUniformDequantize(const Shape& operand);
absl::StatusOr<Shape> InferFusion(Operands operands, Called called);

absl::StatusOr<Shape> InferRngBitGenerator(const Shape& state, const RngBitGeneratorAttrs& attrs,
                                           const Shape* declared);

// after_all, infeed, outfeed, send, recv (shape_inference_host_io.cc).
absl::StatusOr<Shape> InferHostIo(Opcode op, Operands operands, const Shape* declared);

}  // namespace shape_inference
}  // namespace xjit
