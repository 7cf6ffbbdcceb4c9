// The op schema: every op is declared once, in XJIT_OPCODES, with its traits
// (family, arity, attribute struct, regions, flags). Everything that needs to
// know about ops (parsing names, shape inference, printing, backends, docs)
// asks these traits instead of testing enum ranges or listing ops by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xjit {

// Operand-count classes used by shape inference and the printer.
enum class OpArity : uint8_t { kNullary, kUnary, kBinary, kTernary, kVariadic };

// What an op does, coarsely; passes and backends dispatch on it.
enum class OpFamily : uint8_t {
  kStructural,          // parameter, constant, iota
  kElementwiseUnary,    // includes convert
  kElementwiseBinary,   // includes compare
  kElementwiseTernary,  // select, clamp
  kDataMovement,        // affine index maps and reshape
  kContraction,         // dot_general
  kReduction,           // reduce
  kTuple,               // tuple, get_tuple_element
  kCall,                // call
  kFusion,              // fusion: element-wise ops in one region (passes/elementwise_fusion.h)
  kRandom,              // rng_bit_generator
  kSort,                // sort: 1-d slices ordered by a comparator region
  kMap,                 // map: a scalar region applied at every index
  kIndexing,            // gather, scatter, dynamic_slice, dynamic_update_slice
  kControlFlow,         // while, if, case: regions run as whole computations
  kWindow,              // convolution, reduce_window, select_and_scatter: sliding windows
  kNormalization,       // batch_norm_inference, batch_norm_training, batch_norm_grad
  kHostIo,              // tokens and host transfers: after_all, infeed, outfeed, send, recv
  kLinearAlgebra,       // cholesky, triangular_solve: batched over leading dimensions
  kCustomCall,          // custom_call: a registered host function (runtime/custom_call_registry.h)
  // issue 11 (h-fft):
  kSpectral,            // fft
  kDynamicShape,        // shape operands; passes/dynamic_shape_lowering.h makes them static
  kSpecial,             // optimization_barrier, replica_id, partition_id
};

// The typed attribute structs (ir/attributes.h), in variant order: an op's
// row names the one it takes.
#define XJIT_ATTRS_STRUCTS(V) \
  V(NoAttrs)                  \
  V(ParameterAttrs)           \
  V(ConstantAttrs)            \
  V(IotaAttrs)                \
  V(BroadcastInDimAttrs)      \
  V(TransposeAttrs)           \
  V(SliceAttrs)               \
  V(ConcatenateAttrs)         \
  V(PadAttrs)                 \
  V(ReverseAttrs)             \
  V(DotGeneralAttrs)          \
  V(ReduceAttrs)              \
  V(CompareAttrs)             \
  V(GetTupleElementAttrs)     \
  V(RngBitGeneratorAttrs)      \
  V(SortAttrs)                \
  V(MapAttrs)                 \
  V(ReducePrecisionAttrs)       \
  V(GatherAttrs)                \
  V(ScatterAttrs)               \
  V(DynamicSliceAttrs) \
  V(ConvolutionAttrs)         \
  V(ReduceWindowAttrs)        \
  V(SelectAndScatterAttrs)    \
  V(BatchNormAttrs)           \
  V(SendRecvAttrs)            \
  V(CholeskyAttrs)            \
  V(TriangularSolveAttrs)     \
  V(CustomCallAttrs)          \
  V(FftAttrs)                 \
  V(RngAttrs)                 \
  V(DynamicBroadcastInDimAttrs) \
  V(DynamicGatherAttrs)       \
  V(DimensionSizeAttrs)       \
  V(CompositeAttrs)

enum class AttrsKind : uint8_t {
#define XJIT_ATTRS_KIND_ENUM(s) k##s,
  XJIT_ATTRS_STRUCTS(XJIT_ATTRS_KIND_ENUM)
#undef XJIT_ATTRS_KIND_ENUM
};

// Flags of an op's row (bits of OpTraits::flags).
enum OpFlag : uint32_t {
  kNoFlags = 0,
  kCommutative = 1u << 0,         // f(a, b) == f(b, a) for every attribute value
  kMultipleResults = 1u << 1,     // may return several values (a tuple shape printed as %N:K)
  kSideEffects = 1u << 2,         // may not be removed or reordered even when unused
  kDeclaresResultType = 1u << 3,  // the caller gives the result type; inference checks it
  kCallsFunction = 1u << 4,       // its one called computation is a function (@callee), not a region
  kVariadicRegions = 1u << 5,     // takes `regions` or more regions (case's branches)
};

// V(Name, "stablehlo_name", family, arity, attribute struct, regions, flags)
// `regions` counts the inline regions (bodies); a called function is a flag.
// Rows are grouped by family, one macro per family, so that a switch handling
// one family can pass the others on with XJIT_<FAMILY>_OPS(XJIT_OPCODE_CASE)
// and the compiler (-Werror=switch) still points at it when an op of its own
// family is added.
#define XJIT_STRUCTURAL_OPS(V)                                                                     \
  V(Parameter, "parameter", kStructural, kNullary, ParameterAttrs, 0, kDeclaresResultType)         \
  V(Constant, "constant", kStructural, kNullary, ConstantAttrs, 0, kNoFlags)                       \
  V(Iota, "iota", kStructural, kNullary, IotaAttrs, 0, kDeclaresResultType)

#define XJIT_ELEMENTWISE_UNARY_OPS(V)                                                              \
  V(Abs, "abs", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                   \
  V(Cbrt, "cbrt", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Ceil, "ceil", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Cosine, "cosine", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                             \
  V(CountLeadingZeros, "count_leading_zeros", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)     \
  V(Erf, "erf", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                   \
  V(Exponential, "exponential", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                   \
  V(ExponentialMinusOne, "exponential_minus_one", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags) \
  V(Floor, "floor", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                               \
  V(Imag, "imag", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(IsFinite, "is_finite", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                        \
  V(Log, "log", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                   \
  V(LogPlusOne, "log_plus_one", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                   \
  V(Logistic, "logistic", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                         \
  V(Negate, "negate", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                             \
  V(Not, "not", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                   \
  V(Popcnt, "popcnt", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                             \
  V(Real, "real", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(RoundNearestAfz, "round_nearest_afz", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)         \
  V(RoundNearestEven, "round_nearest_even", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)       \
  V(Rsqrt, "rsqrt", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                               \
  V(Sign, "sign", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Sine, "sine", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Sqrt, "sqrt", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Tan, "tan", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                   \
  V(Tanh, "tanh", kElementwiseUnary, kUnary, NoAttrs, 0, kNoFlags)                                 \
  V(Convert, "convert", kElementwiseUnary, kUnary, NoAttrs, 0, kDeclaresResultType)            \
  V(ReducePrecision, "reduce_precision", kElementwiseUnary, kUnary, ReducePrecisionAttrs, 0,       \
    kNoFlags)

#define XJIT_ELEMENTWISE_BINARY_OPS(V)                                                             \
  V(Add, "add", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                             \
  V(Subtract, "subtract", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                       \
  V(Multiply, "multiply", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                   \
  V(Divide, "divide", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                           \
  V(Remainder, "remainder", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                     \
  V(Power, "power", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                             \
  V(Maximum, "maximum", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                     \
  V(Minimum, "minimum", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                     \
  V(And, "and", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                             \
  V(Or, "or", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                               \
  V(Xor, "xor", kElementwiseBinary, kBinary, NoAttrs, 0, kCommutative)                             \
  V(ShiftLeft, "shift_left", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                    \
  V(ShiftRightArithmetic, "shift_right_arithmetic", kElementwiseBinary, kBinary, NoAttrs, 0,       \
    kNoFlags)                                                                                      \
  V(ShiftRightLogical, "shift_right_logical", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)   \
  V(Atan2, "atan2", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                             \
  V(Complex, "complex", kElementwiseBinary, kBinary, NoAttrs, 0, kNoFlags)                         \
  V(Compare, "compare", kElementwiseBinary, kBinary, CompareAttrs, 0, kNoFlags)

#define XJIT_ELEMENTWISE_TERNARY_OPS(V)                                                            \
  V(Select, "select", kElementwiseTernary, kTernary, NoAttrs, 0, kNoFlags)                         \
  V(Clamp, "clamp", kElementwiseTernary, kTernary, NoAttrs, 0, kNoFlags)

#define XJIT_DATA_MOVEMENT_OPS(V)                                                                  \
  V(BroadcastInDim, "broadcast_in_dim", kDataMovement, kUnary, BroadcastInDimAttrs, 0,             \
    kDeclaresResultType)                                                                           \
  V(Reshape, "reshape", kDataMovement, kUnary, NoAttrs, 0, kDeclaresResultType)                    \
  V(Transpose, "transpose", kDataMovement, kUnary, TransposeAttrs, 0, kNoFlags)                    \
  V(Slice, "slice", kDataMovement, kUnary, SliceAttrs, 0, kNoFlags)                                \
  V(Concatenate, "concatenate", kDataMovement, kVariadic, ConcatenateAttrs, 0, kNoFlags)           \
  V(Pad, "pad", kDataMovement, kBinary, PadAttrs, 0, kNoFlags)                                     \
  V(Reverse, "reverse", kDataMovement, kUnary, ReverseAttrs, 0, kNoFlags)                         \
  V(BitcastConvert, "bitcast_convert", kDataMovement, kUnary, NoAttrs, 0, kDeclaresResultType)

#define XJIT_CONTRACTION_OPS(V)                                                                    \
  V(DotGeneral, "dot_general", kContraction, kBinary, DotGeneralAttrs, 0, kNoFlags)

#define XJIT_REDUCTION_OPS(V)                                                                      \
  V(Reduce, "reduce", kReduction, kVariadic, ReduceAttrs, 1, kMultipleResults)

#define XJIT_TUPLE_OPS(V)                                                                          \
  V(Tuple, "tuple", kTuple, kVariadic, NoAttrs, 0, kNoFlags)                                       \
  V(GetTupleElement, "get_tuple_element", kTuple, kUnary, GetTupleElementAttrs, 0, kNoFlags)

#define XJIT_CALL_OPS(V)                                                                           \
  V(Call, "call", kCall, kVariadic, NoAttrs, 0, kMultipleResults | kCallsFunction)

// Random bits from a counter-based generator state (threefry2x32/philox4x32).
// Results: (output_state, output); the caller declares both types.
#define XJIT_RANDOM_OPS(V)                                                                         \
  V(RngBitGenerator, "rng_bit_generator", kRandom, kUnary, RngBitGeneratorAttrs, 0,                \
    kMultipleResults | kDeclaresResultType)                                                        \
  V(Rng, "rng", kRandom, kTernary, RngAttrs, 0, kDeclaresResultType)

// Made by passes, never traced: a cluster of element-wise ops in one region,
// run by a backend as one pass over the elements (XLA's fusion instruction).
// Printed as "xjit.fusion": StableHLO has no such op.
#define XJIT_FUSION_OPS(V)                                                                         \
  V(Fusion, "fusion", kFusion, kVariadic, NoAttrs, 1, kMultipleResults)

// sort: variadic operands permuted together, ordered by the comparator region
// (2N scalar parameters -> i1).
#define XJIT_SORT_OPS(V)                                                                           \
  V(Sort, "sort", kSort, kVariadic, SortAttrs, 1, kMultipleResults)

// map: the region (N scalar parameters -> one scalar) applied at each index.
#define XJIT_MAP_OPS(V)                                                                            \
  V(Map, "map", kMap, kVariadic, MapAttrs, 1, kNoFlags)

// Indexing: start indices are operands (data-dependent positions). gather
// clamps its starts, scatter skips updates that fall outside (its region
// combines the current and the update values: (N + N scalars) -> N scalars).
#define XJIT_INDEXING_OPS(V)                                                                       \
  V(Gather, "gather", kIndexing, kBinary, GatherAttrs, 0, kNoFlags)                                \
  V(Scatter, "scatter", kIndexing, kVariadic, ScatterAttrs, 1, kMultipleResults)                   \
  V(DynamicSlice, "dynamic_slice", kIndexing, kVariadic, DynamicSliceAttrs, 0, kNoFlags)           \
  V(DynamicUpdateSlice, "dynamic_update_slice", kIndexing, kVariadic, NoAttrs, 0, kNoFlags)
// Control flow (ir/shape_inference_control_flow.cc). Operands after the
// spec's (while: the carried values; if: pred; case: index) are the values
// the regions capture, passed to every region as trailing parameters.
#define XJIT_CONTROL_FLOW_OPS(V)                                                                   \
  V(While, "while", kControlFlow, kVariadic, NoAttrs, 2, kMultipleResults)                         \
  V(If, "if", kControlFlow, kVariadic, NoAttrs, 2, kMultipleResults)                               \
  V(Case, "case", kControlFlow, kVariadic, NoAttrs, 1, kMultipleResults | kVariadicRegions)
// Sliding-window ops. reduce_window: N inputs then N init values, one body;
// select_and_scatter: (operand, source, init_value), select and scatter regions.
#define XJIT_WINDOW_OPS(V)                                                                         \
  V(Convolution, "convolution", kWindow, kBinary, ConvolutionAttrs, 0, kNoFlags)                   \
  V(ReduceWindow, "reduce_window", kWindow, kVariadic, ReduceWindowAttrs, 1, kMultipleResults)     \
  V(SelectAndScatter, "select_and_scatter", kWindow, kTernary, SelectAndScatterAttrs, 2, kNoFlags)

// Batch normalization over every dimension but feature_index
// (ir/shape_inference_batch_norm.cc). inference: (operand, scale, offset,
// mean, variance) -> output; training: (operand, scale, offset) -> (output,
// batch_mean, batch_var); grad: (operand, scale, mean, variance, grad_output)
// -> (grad_operand, grad_scale, grad_offset).
#define XJIT_NORMALIZATION_OPS(V)                                                                  \
  V(BatchNormInference, "batch_norm_inference", kNormalization, kVariadic, BatchNormAttrs, 0,      \
    kNoFlags)                                                                                      \
  V(BatchNormTraining, "batch_norm_training", kNormalization, kTernary, BatchNormAttrs, 0,         \
    kMultipleResults)                                                                              \
  V(BatchNormGrad, "batch_norm_grad", kNormalization, kVariadic, BatchNormAttrs, 0,                \
    kMultipleResults)

// Tokens and host transfers (ir/shape_inference_host_io.cc; runtime/host_transfers.h).
// after_all joins tokens (none: a fresh token, StableHLO's create_token);
// infeed (token) -> (values..., token) and recv (token) -> (values..., token)
// declare their whole result tuple; outfeed and send take (values..., token).
#define XJIT_HOST_IO_OPS(V)                                                                        \
  V(AfterAll, "after_all", kHostIo, kVariadic, NoAttrs, 0, kNoFlags)                               \
  V(Infeed, "infeed", kHostIo, kUnary, NoAttrs, 0,                                                 \
    kMultipleResults | kSideEffects | kDeclaresResultType)                                         \
  V(Outfeed, "outfeed", kHostIo, kVariadic, NoAttrs, 0, kSideEffects)                              \
  V(Send, "send", kHostIo, kVariadic, SendRecvAttrs, 0, kSideEffects)                              \
  V(Recv, "recv", kHostIo, kUnary, SendRecvAttrs, 0,                                               \
    kMultipleResults | kSideEffects | kDeclaresResultType)

// Linear algebra on the two innermost dimensions, batched over the others
// (ir/shape_inference_linalg.cc). cholesky: a -> factor; triangular_solve:
// (a, b) -> x with op(a) x = b (left_side) or x op(a) = b.
#define XJIT_LINEAR_ALGEBRA_OPS(V)                                                                 \
  V(Cholesky, "cholesky", kLinearAlgebra, kUnary, CholeskyAttrs, 0, kNoFlags)                      \
  V(TriangularSolve, "triangular_solve", kLinearAlgebra, kBinary, TriangularSolveAttrs, 0, kNoFlags)

// custom_call: operands and results of declared types, computed by the host
// function the target names. Side effects are per instruction
// (has_side_effect; Instruction::has_side_effects()).
#define XJIT_CUSTOM_CALL_OPS(V)                                                                    \
  V(CustomCall, "custom_call", kCustomCall, kVariadic, CustomCallAttrs, 0,                         \
    kMultipleResults | kDeclaresResultType)
// issue 11 (h-fft). fft: FFT/IFFT/RFFT/IRFFT over the fft_length.size()
// innermost dimensions (ir/shape_inference_fft.cc).
#define XJIT_SPECTRAL_OPS(V)                                                                       \
  V(Fft, "fft", kSpectral, kUnary, FftAttrs, 0, kNoFlags)

// Ops whose shape comes from operand values. Shape inference checks what the
// types say; passes/dynamic_shape_lowering.h rewrites each into its static op
// once its shape operands are constants (and fails clearly when they are
// not), before any backend runs. rng (in XJIT_RANDOM_OPS) is lowered there too.
#define XJIT_DYNAMIC_SHAPE_OPS(V)                                                                  \
  V(DynamicBroadcastInDim, "dynamic_broadcast_in_dim", kDynamicShape, kBinary,                     \
    DynamicBroadcastInDimAttrs, 0, kDeclaresResultType)                                            \
  V(DynamicConv, "dynamic_conv", kDynamicShape, kTernary, ConvolutionAttrs, 0,                     \
    kDeclaresResultType)                                                                           \
  V(DynamicGather, "dynamic_gather", kDynamicShape, kTernary, DynamicGatherAttrs, 0,               \
    kDeclaresResultType)                                                                           \
  V(DynamicIota, "dynamic_iota", kDynamicShape, kUnary, IotaAttrs, 0, kDeclaresResultType)         \
  V(DynamicPad, "dynamic_pad", kDynamicShape, kVariadic, NoAttrs, 0, kDeclaresResultType)          \
  V(DynamicReshape, "dynamic_reshape", kDynamicShape, kBinary, NoAttrs, 0, kDeclaresResultType)    \
  V(GetDimensionSize, "get_dimension_size", kDynamicShape, kUnary, DimensionSizeAttrs, 0,          \
    kNoFlags)                                                                                      \
  V(SetDimensionSize, "set_dimension_size", kDynamicShape, kBinary, DimensionSizeAttrs, 0,         \
    kNoFlags)

// optimization_barrier: the identity on its operands, which passes treat as
// opaque (nothing is folded, fused or CSE'd through it); replica_id and
// partition_id: a ui32 scalar, 0 on xjit's single process; composite: a named
// call of its decomposition function (printed `decomposition = @f`), which
// backends run as that call (the cpu backend inlines it); uniform_quantize
// and uniform_dequantize: quantized types (ir/quantized_type.h), which
// passes/quantized_op_expansion lowers before any backend sees them.
#define XJIT_SPECIAL_OPS(V)                                                                        \
  V(OptimizationBarrier, "optimization_barrier", kSpecial, kVariadic, NoAttrs, 0,                  \
    kMultipleResults | kSideEffects)                                                               \
  V(ReplicaId, "replica_id", kSpecial, kNullary, NoAttrs, 0, kNoFlags)                             \
  V(PartitionId, "partition_id", kSpecial, kNullary, NoAttrs, 0, kNoFlags)                         \
  V(Composite, "composite", kSpecial, kVariadic, CompositeAttrs, 0,                                \
    kMultipleResults | kCallsFunction)                                                             \
  V(UniformQuantize, "uniform_quantize", kSpecial, kUnary, NoAttrs, 0, kDeclaresResultType)       \
  V(UniformDequantize, "uniform_dequantize", kSpecial, kUnary, NoAttrs, 0, kNoFlags)

// Every op, in enum order.
#define XJIT_OPCODES(V)                                                                  \
  XJIT_STRUCTURAL_OPS(V) XJIT_ELEMENTWISE_OPS(V) XJIT_DATA_MOVEMENT_OPS(V)                \
  XJIT_CONTRACTION_OPS(V) XJIT_REDUCTION_OPS(V) XJIT_TUPLE_OPS(V) XJIT_CALL_OPS(V)     \
  XJIT_FUSION_OPS(V) XJIT_RANDOM_OPS(V) XJIT_SORT_OPS(V) XJIT_MAP_OPS(V)             \
  XJIT_INDEXING_OPS(V) XJIT_CONTROL_FLOW_OPS(V) XJIT_WINDOW_OPS(V) XJIT_NORMALIZATION_OPS(V) \
  XJIT_HOST_IO_OPS(V) XJIT_LINEAR_ALGEBRA_OPS(V) XJIT_CUSTOM_CALL_OPS(V) XJIT_SPECTRAL_OPS(V)  \
  XJIT_DYNAMIC_SHAPE_OPS(V) XJIT_SPECIAL_OPS(V)
#define XJIT_ELEMENTWISE_OPS(V) \
  XJIT_ELEMENTWISE_UNARY_OPS(V) XJIT_ELEMENTWISE_BINARY_OPS(V) XJIT_ELEMENTWISE_TERNARY_OPS(V)
#define XJIT_NON_ELEMENTWISE_OPS(V)                                                  \
  XJIT_STRUCTURAL_OPS(V) XJIT_DATA_MOVEMENT_OPS(V) XJIT_CONTRACTION_OPS(V)            \
  XJIT_REDUCTION_OPS(V) XJIT_TUPLE_OPS(V) XJIT_CALL_OPS(V) XJIT_FUSION_OPS(V)        \
  XJIT_RANDOM_OPS(V) XJIT_SORT_OPS(V) XJIT_MAP_OPS(V) XJIT_INDEXING_OPS(V) XJIT_CONTROL_FLOW_OPS(V) \
  XJIT_WINDOW_OPS(V) XJIT_NORMALIZATION_OPS(V) XJIT_HOST_IO_OPS(V) XJIT_LINEAR_ALGEBRA_OPS(V) \
  XJIT_CUSTOM_CALL_OPS(V) XJIT_SPECTRAL_OPS(V) XJIT_DYNAMIC_SHAPE_OPS(V) XJIT_SPECIAL_OPS(V)

// `case Opcode::kX:` for each row it is applied to.
#define XJIT_OPCODE_CASE(e, name, family, arity, attrs, regions, flags) case Opcode::k##e:

enum class Opcode : uint16_t {
#define XJIT_OPCODE_ENUM(e, name, family, arity, attrs, regions, flags) k##e,
  XJIT_OPCODES(XJIT_OPCODE_ENUM)
#undef XJIT_OPCODE_ENUM
};

#define XJIT_OPCODE_COUNT(e, name, family, arity, attrs, regions, flags) +1
inline constexpr int kNumOpcodes = 0 XJIT_OPCODES(XJIT_OPCODE_COUNT);
#undef XJIT_OPCODE_COUNT

// One op's row of the schema.
struct OpTraits {
  const char* name;  // StableHLO mnemonic without "stablehlo."
  OpFamily family;
  OpArity arity;
  AttrsKind attrs;
  int num_regions;
  uint32_t flags;  // OpFlag bits
};

inline constexpr OpTraits kOpTraits[] = {
#define XJIT_OPCODE_TRAITS(e, name, family, arity, attrs, regions, flags) \
  {name, OpFamily::family, OpArity::arity, AttrsKind::k##attrs, regions, flags},
    XJIT_OPCODES(XJIT_OPCODE_TRAITS)
#undef XJIT_OPCODE_TRAITS
};

inline const OpTraits& GetOpTraits(Opcode op) { return kOpTraits[static_cast<int>(op)]; }

// StableHLO mnemonic without "stablehlo."
inline absl::string_view OpcodeName(Opcode op) { return GetOpTraits(op).name; }
inline OpArity OpcodeArity(Opcode op) { return GetOpTraits(op).arity; }
inline OpFamily OpcodeFamily(Opcode op) { return GetOpTraits(op).family; }
inline AttrsKind OpcodeAttrsKind(Opcode op) { return GetOpTraits(op).attrs; }
absl::StatusOr<Opcode> ParseOpcode(absl::string_view name);  // accepts "stablehlo.add" or "add"
absl::string_view OpFamilyName(OpFamily family);             // "elementwise_binary"
absl::string_view OpArityName(OpArity arity);                // "binary"
absl::string_view AttrsKindName(AttrsKind kind);             // "SliceAttrs"
// Every opcode for which `pred` holds, in enum order (a backend's supported ops).
std::vector<Opcode> OpcodesWhere(bool (*pred)(Opcode));

inline bool IsElementwiseUnary(Opcode op) {  // includes convert
  return OpcodeFamily(op) == OpFamily::kElementwiseUnary;
}
inline bool IsElementwiseBinary(Opcode op) {  // includes compare
  return OpcodeFamily(op) == OpFamily::kElementwiseBinary;
}
inline bool IsElementwiseTernary(Opcode op) {  // select, clamp
  return OpcodeFamily(op) == OpFamily::kElementwiseTernary;
}
inline bool IsElementwise(Opcode op) {
  return IsElementwiseUnary(op) || IsElementwiseBinary(op) || IsElementwiseTernary(op);
}
inline bool HasFlag(Opcode op, OpFlag flag) { return (GetOpTraits(op).flags & flag) != 0; }
inline bool IsCommutative(Opcode op) { return HasFlag(op, kCommutative); }
inline bool HasMultipleResults(Opcode op) { return HasFlag(op, kMultipleResults); }
inline bool HasSideEffects(Opcode op) { return HasFlag(op, kSideEffects); }
inline bool DeclaresResultType(Opcode op) { return HasFlag(op, kDeclaresResultType); }
inline bool CallsFunction(Opcode op) { return HasFlag(op, kCallsFunction); }
inline bool HasVariadicRegions(Opcode op) { return HasFlag(op, kVariadicRegions); }
inline int NumRegions(Opcode op) { return GetOpTraits(op).num_regions; }
// Regions plus the called function: how many computations the op refers to.
inline int NumCalledComputations(Opcode op) {
  return NumRegions(op) + (CallsFunction(op) ? 1 : 0);
}

}  // namespace xjit
