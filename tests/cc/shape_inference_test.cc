// Every op: one accepted case with its inferred shape, and rejections with
// the message and status code checked.
#include "xjit/ir/shape_inference.h"

#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace xjit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const DType F32 = DType::kF32, F64 = DType::kF64, S32 = DType::kS32, U8 = DType::kU8,
            PRED = DType::kPred, C64 = DType::kC64;

// As the builder: no attributes stand for the op's struct at its defaults.
absl::StatusOr<Shape> Infer(Opcode op, std::vector<Shape> operands, Attributes attrs = {},
                            std::vector<const Computation*> called = {},
                            const Shape* declared = nullptr) {
  std::vector<const Shape*> ptrs;
  for (const Shape& s : operands) ptrs.push_back(&s);
  if (attrs.kind() == AttrsKind::kNoAttrs) attrs = Attributes::Default(OpcodeAttrsKind(op));
  return InferShape(op, ptrs, attrs, called, declared);
}

// An op that declares its result type `declared`.
absl::StatusOr<Shape> InferDeclared(Opcode op, Shape declared, std::vector<Shape> operands,
                                    Attributes attrs = {}) {
  return Infer(op, std::move(operands), std::move(attrs), {}, &declared);
}

void ExpectShape(const absl::StatusOr<Shape>& got, const Shape& want) {
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, want) << got->ToString() << " vs " << want.ToString();
}

void ExpectError(const absl::StatusOr<Shape>& got, absl::StatusCode code, absl::string_view prefix,
                 absl::string_view substr) {
  ASSERT_FALSE(got.ok()) << got->ToString();
  EXPECT_EQ(got.status().code(), code) << got.status();
  EXPECT_THAT(std::string(got.status().message()), StartsWith(std::string(prefix)));
  EXPECT_THAT(std::string(got.status().message()), HasSubstr(std::string(substr)));
}

// --- structural ---------------------------------------------------------------

TEST(ShapeInference, ParameterAndConstant) {
  ExpectShape(InferDeclared(Opcode::kParameter, T(S32, {4}), {}), T(S32, {4}));
  ExpectError(Infer(Opcode::kParameter, {}), absl::StatusCode::kInvalidArgument,
              "parameter:", "missing result shape");
  ConstantAttrs c{Literal::Scalar<float>(F32, 1.5f)};
  ExpectShape(Infer(Opcode::kConstant, {}, c), T(F32, {}));
  ExpectError(Infer(Opcode::kConstant, {}), absl::StatusCode::kInvalidArgument,
              "constant:", "missing literal");
  ExpectError(Infer(Opcode::kConstant, {T(F32, {})}, c), absl::StatusCode::kInvalidArgument,
              "constant:", "expected 0 operand(s), got 1");
}

TEST(ShapeInference, Iota) {
  ExpectShape(InferDeclared(Opcode::kIota, T(S32, {4, 5}), {}, IotaAttrs{1}), T(S32, {4, 5}));
  ExpectError(InferDeclared(Opcode::kIota, T(S32, {4, 5}), {}, IotaAttrs{2}),
              absl::StatusCode::kOutOfRange, "iota:",
              "iota_dimension 2 out of range for tensor<4x5xi32>");
  ExpectError(InferDeclared(Opcode::kIota, T(F32, {}), {}), absl::StatusCode::kInvalidArgument,
              "iota:", "rank >= 1");
  ExpectError(InferDeclared(Opcode::kIota, T(PRED, {3}), {}), absl::StatusCode::kInvalidArgument,
              "iota:", "got tensor<3xi1>");
}

// --- element-wise unary ---------------------------------------------------------

TEST(ShapeInference, UnaryKeepsShape) {
  for (Opcode op : {Opcode::kCbrt, Opcode::kCosine, Opcode::kSine, Opcode::kTan, Opcode::kTanh,
                    Opcode::kExponential, Opcode::kExponentialMinusOne, Opcode::kLog,
                    Opcode::kLogPlusOne, Opcode::kLogistic, Opcode::kSqrt, Opcode::kRsqrt}) {
    SCOPED_TRACE(OpcodeName(op));
    ExpectShape(Infer(op, {T(F32, {2, 3})}), T(F32, {2, 3}));
    ExpectShape(Infer(op, {T(C64, {2})}), T(C64, {2}));
    ExpectError(Infer(op, {T(S32, {2})}), absl::StatusCode::kInvalidArgument, OpcodeName(op),
                "expected floating-point or complex element type, got tensor<2xi32>");
  }
  for (Opcode op : {Opcode::kCeil, Opcode::kFloor, Opcode::kRoundNearestAfz,
                    Opcode::kRoundNearestEven, Opcode::kErf}) {
    SCOPED_TRACE(OpcodeName(op));
    ExpectShape(Infer(op, {T(F64, {3})}), T(F64, {3}));
    ExpectError(Infer(op, {T(C64, {3})}), absl::StatusCode::kInvalidArgument, OpcodeName(op),
                "expected floating-point element type, got tensor<3xcomplex<f32>>");
  }
  for (Opcode op : {Opcode::kPopcnt, Opcode::kCountLeadingZeros}) {
    ExpectShape(Infer(op, {T(U8, {3})}), T(U8, {3}));
    ExpectError(Infer(op, {T(F32, {3})}), absl::StatusCode::kInvalidArgument, OpcodeName(op),
                "expected integer element type");
  }
}

TEST(ShapeInference, UnaryTypeChanging) {
  ExpectShape(Infer(Opcode::kAbs, {T(C64, {2})}), T(F32, {2}));
  ExpectShape(Infer(Opcode::kAbs, {T(S32, {2})}), T(S32, {2}));
  ExpectError(Infer(Opcode::kAbs, {T(U8, {2})}), absl::StatusCode::kInvalidArgument, "abs:",
              "expected signed integer, floating-point or complex element type, got tensor<2xui8>");
  ExpectShape(Infer(Opcode::kReal, {T(DType::kC128, {})}), T(F64, {}));
  ExpectShape(Infer(Opcode::kImag, {T(F32, {2})}), T(F32, {2}));
  ExpectError(Infer(Opcode::kImag, {T(S32, {2})}), absl::StatusCode::kInvalidArgument,
              "imag:", "tensor<2xi32>");
  ExpectShape(Infer(Opcode::kIsFinite, {T(F32, {2})}), T(PRED, {2}));
  ExpectError(Infer(Opcode::kIsFinite, {T(S32, {2})}), absl::StatusCode::kInvalidArgument,
              "is_finite:", "floating-point");
}

TEST(ShapeInference, NegateNotSign) {
  ExpectShape(Infer(Opcode::kNegate, {T(U8, {2})}), T(U8, {2}));
  ExpectError(Infer(Opcode::kNegate, {T(PRED, {2})}), absl::StatusCode::kInvalidArgument,
              "negate:", "got tensor<2xi1>");
  ExpectShape(Infer(Opcode::kNot, {T(PRED, {2})}), T(PRED, {2}));
  ExpectError(Infer(Opcode::kNot, {T(F32, {2})}), absl::StatusCode::kInvalidArgument,
              "not:", "expected pred or integer element type");
  ExpectShape(Infer(Opcode::kSign, {T(F32, {})}), T(F32, {}));
  ExpectError(Infer(Opcode::kSign, {T(U8, {})}), absl::StatusCode::kInvalidArgument,
              "sign:", "signed integer");
}

TEST(ShapeInference, Convert) {
  ExpectShape(InferDeclared(Opcode::kConvert, T(F64, {3}), {T(S32, {3})}), T(F64, {3}));
  // Only the element type given: dims come from the operand.
  ExpectShape(InferDeclared(Opcode::kConvert, T(C64, {}), {T(S32, {3})}), T(C64, {3}));
  ExpectError(InferDeclared(Opcode::kConvert, T(F32, {4}), {T(S32, {3})}),
              absl::StatusCode::kInvalidArgument, "convert:",
              "result shape tensor<4xf32> must have the dims of the operand tensor<3xi32>");
  ExpectError(Infer(Opcode::kConvert, {T(S32, {3})}), absl::StatusCode::kInvalidArgument,
              "convert:", "missing result element type");
}

TEST(ShapeInference, RejectsTupleOperandAndWrongCount) {
  Shape tup = Shape::Tuple({T(F32, {})});
  ExpectError(Infer(Opcode::kNegate, {tup}), absl::StatusCode::kInvalidArgument,
              "negate:", "operands must be arrays, got tuple<tensor<f32>>");
  ExpectError(Infer(Opcode::kAdd, {T(F32, {})}), absl::StatusCode::kInvalidArgument,
              "add:", "expected 2 operand(s), got 1");
}

// --- element-wise binary --------------------------------------------------------

TEST(ShapeInference, BinarySameShapeAndType) {
  for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum}) {
    ExpectShape(Infer(op, {T(PRED, {2, 3}), T(PRED, {2, 3})}), T(PRED, {2, 3}));
  }
  ExpectError(Infer(Opcode::kAdd, {T(F32, {2, 3}), T(F32, {3})}),
              absl::StatusCode::kInvalidArgument, "add:",
              "operands must have the same shape and element type, got tensor<2x3xf32> and "
              "tensor<3xf32>");
  ExpectError(Infer(Opcode::kMultiply, {T(F32, {2}), T(S32, {2})}),
              absl::StatusCode::kInvalidArgument, "multiply:", "tensor<2xf32> and tensor<2xi32>");
}

TEST(ShapeInference, BinaryTypeRules) {
  for (Opcode op : {Opcode::kSubtract, Opcode::kDivide, Opcode::kRemainder, Opcode::kPower}) {
    SCOPED_TRACE(OpcodeName(op));
    ExpectShape(Infer(op, {T(S32, {2}), T(S32, {2})}), T(S32, {2}));
    ExpectError(Infer(op, {T(PRED, {2}), T(PRED, {2})}), absl::StatusCode::kInvalidArgument,
                OpcodeName(op), "got tensor<2xi1>");
  }
  for (Opcode op : {Opcode::kAnd, Opcode::kOr, Opcode::kXor}) {
    ExpectShape(Infer(op, {T(PRED, {2}), T(PRED, {2})}), T(PRED, {2}));
    ExpectError(Infer(op, {T(F32, {2}), T(F32, {2})}), absl::StatusCode::kInvalidArgument,
                OpcodeName(op), "expected pred or integer element type");
  }
  for (Opcode op :
       {Opcode::kShiftLeft, Opcode::kShiftRightArithmetic, Opcode::kShiftRightLogical}) {
    ExpectShape(Infer(op, {T(U8, {}), T(U8, {})}), T(U8, {}));
    ExpectError(Infer(op, {T(PRED, {}), T(PRED, {})}), absl::StatusCode::kInvalidArgument,
                OpcodeName(op), "expected integer element type");
  }
  ExpectShape(Infer(Opcode::kAtan2, {T(F32, {2}), T(F32, {2})}), T(F32, {2}));
  ExpectError(Infer(Opcode::kAtan2, {T(S32, {2}), T(S32, {2})}), absl::StatusCode::kInvalidArgument,
              "atan2:", "floating-point or complex");
}

TEST(ShapeInference, Complex) {
  ExpectShape(Infer(Opcode::kComplex, {T(F32, {2}), T(F32, {2})}), T(C64, {2}));
  ExpectShape(Infer(Opcode::kComplex, {T(F64, {}), T(F64, {})}), T(DType::kC128, {}));
  ExpectError(Infer(Opcode::kComplex, {T(DType::kF16, {2}), T(DType::kF16, {2})}),
              absl::StatusCode::kInvalidArgument, "complex:", "expected f32 or f64 operands");
  ExpectError(Infer(Opcode::kComplex, {T(S32, {2}), T(S32, {2})}),
              absl::StatusCode::kInvalidArgument, "complex:", "floating-point");
}

TEST(ShapeInference, Compare) {
  CompareAttrs a;
  a.comparison_direction = ComparisonDirection::kLt;
  a.compare_type = ComparisonType::kFloat;
  ExpectShape(Infer(Opcode::kCompare, {T(F32, {2}), T(F32, {2})}, a), T(PRED, {2}));
  a.compare_type = ComparisonType::kTotalOrder;
  ExpectShape(Infer(Opcode::kCompare, {T(F32, {2}), T(F32, {2})}, a), T(PRED, {2}));
  a.compare_type = ComparisonType::kUnsigned;
  ExpectShape(Infer(Opcode::kCompare, {T(PRED, {}), T(PRED, {})}, a), T(PRED, {}));
  a.compare_type = ComparisonType::kSigned;
  ExpectError(Infer(Opcode::kCompare, {T(F32, {2}), T(F32, {2})}, a),
              absl::StatusCode::kInvalidArgument,
              "compare:", "compare_type SIGNED does not fit element type of tensor<2xf32>");
  a.compare_type = ComparisonType::kTotalOrder;
  ExpectError(Infer(Opcode::kCompare, {T(C64, {2}), T(C64, {2})}, a),
              absl::StatusCode::kInvalidArgument, "compare:", "TOTALORDER");
  ExpectError(Infer(Opcode::kCompare, {T(F32, {2}), T(F32, {3})}, a),
              absl::StatusCode::kInvalidArgument, "compare:", "same shape");
}

TEST(ShapeInference, SelectAndClamp) {
  ExpectShape(Infer(Opcode::kSelect, {T(PRED, {}), T(F32, {2}), T(F32, {2})}), T(F32, {2}));
  ExpectShape(Infer(Opcode::kSelect, {T(PRED, {2}), T(F32, {2}), T(F32, {2})}), T(F32, {2}));
  ExpectError(Infer(Opcode::kSelect, {T(S32, {2}), T(F32, {2}), T(F32, {2})}),
              absl::StatusCode::kInvalidArgument, "select:", "got tensor<2xi32>");
  ExpectError(Infer(Opcode::kSelect, {T(PRED, {3}), T(F32, {2}), T(F32, {2})}),
              absl::StatusCode::kInvalidArgument, "select:", "pred must be");
  ExpectError(Infer(Opcode::kSelect, {T(PRED, {}), T(F32, {2}), T(S32, {2})}),
              absl::StatusCode::kInvalidArgument,
              "select:", "on_true and on_false must have the same shape");
  ExpectShape(Infer(Opcode::kClamp, {T(F32, {}), T(F32, {3}), T(F32, {3})}), T(F32, {3}));
  ExpectError(Infer(Opcode::kClamp, {T(F32, {2}), T(F32, {3}), T(F32, {})}),
              absl::StatusCode::kInvalidArgument, "clamp:", "got min tensor<2xf32>");
  ExpectError(Infer(Opcode::kClamp, {T(S32, {}), T(F32, {3}), T(F32, {})}),
              absl::StatusCode::kInvalidArgument, "clamp:", "same element type");
}

// --- data movement --------------------------------------------------------------

TEST(ShapeInference, BroadcastInDim) {
  const Shape r = T(S32, {2, 3, 2});
  BroadcastInDimAttrs a;
  a.broadcast_dimensions = {2, 1};
  ExpectShape(InferDeclared(Opcode::kBroadcastInDim, r, {T(S32, {1, 3})}, a), T(S32, {2, 3, 2}));
  ExpectError(
      InferDeclared(Opcode::kBroadcastInDim, r, {T(S32, {3, 3})}, a), absl::StatusCode::kInvalidArgument,
      "broadcast_in_dim:", "dim 0 (size 3) must be 1 or equal to result tensor<2x3x2xi32> dim 2");
  a.broadcast_dimensions = {1, 1};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, r, {T(S32, {1, 3})}, a), absl::StatusCode::kOutOfRange,
              "broadcast_in_dim:", "repeats axis 1");
  a.broadcast_dimensions = {3, 1};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, r, {T(S32, {1, 3})}, a), absl::StatusCode::kOutOfRange,
              "broadcast_in_dim:", "out of range");
  a.broadcast_dimensions = {1};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, r, {T(S32, {1, 3})}, a), absl::StatusCode::kOutOfRange,
              "broadcast_in_dim:", "one entry per dim");
  a.broadcast_dimensions = {2, 1};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, r, {T(F32, {1, 3})}, a),
              absl::StatusCode::kInvalidArgument, "broadcast_in_dim:", "element type");
}

TEST(ShapeInference, Reshape) {
  ExpectShape(InferDeclared(Opcode::kReshape, T(F32, {3, 2}), {T(F32, {2, 3})}),
              T(F32, {3, 2}));
  ExpectShape(InferDeclared(Opcode::kReshape, T(F32, {}), {T(F32, {1})}), T(F32, {}));
  ExpectError(InferDeclared(Opcode::kReshape, T(F32, {4}), {T(F32, {2, 3})}),
              absl::StatusCode::kInvalidArgument, "reshape:",
              "cannot reshape tensor<2x3xf32> (6 elements) to tensor<4xf32> (4 elements)");
  ExpectError(Infer(Opcode::kReshape, {T(F32, {2})}), absl::StatusCode::kInvalidArgument,
              "reshape:", "missing result shape");
}

TEST(ShapeInference, Transpose) {
  TransposeAttrs a;
  a.permutation = {2, 0, 1};
  ExpectShape(Infer(Opcode::kTranspose, {T(F32, {2, 3, 4})}, a), T(F32, {4, 2, 3}));
  a.permutation = {0, 0, 1};
  ExpectError(Infer(Opcode::kTranspose, {T(F32, {2, 3, 4})}, a), absl::StatusCode::kOutOfRange,
              "transpose:",
              "permutation [0, 0, 1] is not a permutation of the dims of "
              "tensor<2x3x4xf32>");
  a.permutation = {1, 0};
  ExpectError(Infer(Opcode::kTranspose, {T(F32, {2, 3, 4})}, a), absl::StatusCode::kOutOfRange,
              "transpose:", "not a permutation");
}

TEST(ShapeInference, Reverse) {
  ReverseAttrs a;
  a.dimensions = {1};
  ExpectShape(Infer(Opcode::kReverse, {T(S32, {3, 2})}, a), T(S32, {3, 2}));
  a.dimensions = {2};
  ExpectError(Infer(Opcode::kReverse, {T(S32, {3, 2})}, a), absl::StatusCode::kOutOfRange,
              "reverse:", "axis 2 out of range for rank 2");
}

TEST(ShapeInference, Slice) {
  SliceAttrs a;
  a.start_indices = {1, 0};
  a.limit_indices = {3, 4};
  a.strides = {1, 3};
  ExpectShape(Infer(Opcode::kSlice, {T(S32, {3, 4})}, a), T(S32, {2, 2}));
  a.strides.clear();  // all ones
  ExpectShape(Infer(Opcode::kSlice, {T(S32, {3, 4})}, a), T(S32, {2, 4}));
  a.limit_indices = {3, 5};
  ExpectError(Infer(Opcode::kSlice, {T(S32, {3, 4})}, a), absl::StatusCode::kOutOfRange,
              "slice:", "dim 1 of tensor<3x4xi32> needs 0 <= start <= limit <= 4");
  a.limit_indices = {3};
  ExpectError(Infer(Opcode::kSlice, {T(S32, {3, 4})}, a), absl::StatusCode::kOutOfRange,
              "slice:", "limit_indices [3] must have one entry per dim");
  a.limit_indices = {3, 4};
  a.strides = {1, 0};
  ExpectError(Infer(Opcode::kSlice, {T(S32, {3, 4})}, a), absl::StatusCode::kOutOfRange,
              "slice:", "stride 0");
}

TEST(ShapeInference, Concatenate) {
  ConcatenateAttrs a;
  a.dimension = 0;
  ExpectShape(Infer(Opcode::kConcatenate, {T(S32, {3, 2}), T(S32, {1, 2})}, a), T(S32, {4, 2}));
  ExpectShape(Infer(Opcode::kConcatenate, {T(S32, {3})}, a), T(S32, {3}));
  ExpectError(Infer(Opcode::kConcatenate, {T(S32, {3, 2}), T(S32, {1, 3})}, a),
              absl::StatusCode::kInvalidArgument,
              "concatenate:", "got tensor<3x2xi32>, tensor<1x3xi32>");
  ExpectError(Infer(Opcode::kConcatenate, {T(S32, {3, 2}), T(F32, {1, 2})}, a),
              absl::StatusCode::kInvalidArgument, "concatenate:", "same element type");
  ExpectError(Infer(Opcode::kConcatenate, {}, a), absl::StatusCode::kInvalidArgument,
              "concatenate:", "at least one operand");
  a.dimension = 2;
  ExpectError(Infer(Opcode::kConcatenate, {T(S32, {3, 2})}, a), absl::StatusCode::kOutOfRange,
              "concatenate:", "dimension 2 out of range");
  a.dimension = 0;
  ExpectError(Infer(Opcode::kConcatenate, {T(S32, {})}, a), absl::StatusCode::kInvalidArgument,
              "concatenate:", "rank >= 1");
}

TEST(ShapeInference, Pad) {
  PadAttrs a;
  a.edge_padding_low = {0, 1};
  a.edge_padding_high = {2, 1};
  a.interior_padding = {1, 2};
  ExpectShape(Infer(Opcode::kPad, {T(S32, {2, 3}), T(S32, {})}, a), T(S32, {5, 9}));
  a.edge_padding_low = {-1, -1};
  a.edge_padding_high = {0, 0};
  a.interior_padding = {0, 0};
  ExpectShape(Infer(Opcode::kPad, {T(S32, {2, 3}), T(S32, {})}, a), T(S32, {1, 2}));
  a.edge_padding_low = {-3, 0};
  ExpectError(Infer(Opcode::kPad, {T(S32, {2, 3}), T(S32, {})}, a), absl::StatusCode::kOutOfRange,
              "pad:", "negative size -1 in dim 0");
  a.edge_padding_low = {0, 0};
  a.interior_padding = {0, -1};
  ExpectError(Infer(Opcode::kPad, {T(S32, {2, 3}), T(S32, {})}, a), absl::StatusCode::kOutOfRange,
              "pad:", "interior_padding [0, -1] must be >= 0");
  a.interior_padding = {0, 0};
  ExpectError(Infer(Opcode::kPad, {T(S32, {2, 3}), T(F32, {})}, a),
              absl::StatusCode::kInvalidArgument, "pad:", "padding_value must be a scalar");
  a.interior_padding = {0};
  ExpectError(Infer(Opcode::kPad, {T(S32, {2, 3}), T(S32, {})}, a), absl::StatusCode::kOutOfRange,
              "pad:", "interior_padding [0] must have one entry per dim");
}

// --- dot_general ----------------------------------------------------------------

TEST(ShapeInference, DotGeneral) {
  DotGeneralAttrs a;
  a.dot_dimension_numbers.lhs_batching_dimensions = {0};
  a.dot_dimension_numbers.rhs_batching_dimensions = {0};
  a.dot_dimension_numbers.lhs_contracting_dimensions = {2};
  a.dot_dimension_numbers.rhs_contracting_dimensions = {1};
  ExpectShape(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(F32, {2, 4, 5})}, a),
              T(F32, {2, 3, 5}));
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(F32, {2, 3, 5})}, a),
              absl::StatusCode::kInvalidArgument, "dot_general:",
              "contracting dimension sizes differ: lhs tensor<2x3x4xf32> dim 2 vs rhs "
              "tensor<2x3x5xf32> dim 1");
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {3, 3, 4}), T(F32, {2, 4, 5})}, a),
              absl::StatusCode::kInvalidArgument, "dot_general:", "batching dimension sizes");
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(S32, {2, 4, 5})}, a),
              absl::StatusCode::kInvalidArgument, "dot_general:", "same element type");
  a.dot_dimension_numbers.lhs_contracting_dimensions = {0};
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(F32, {2, 4, 5})}, a),
              absl::StatusCode::kOutOfRange, "dot_general:", "repeats axis 0");
  a.dot_dimension_numbers.lhs_contracting_dimensions = {3};
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(F32, {2, 4, 5})}, a),
              absl::StatusCode::kOutOfRange, "dot_general:", "out of range");
  a.dot_dimension_numbers.lhs_contracting_dimensions = {};
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {2, 3, 4}), T(F32, {2, 4, 5})}, a),
              absl::StatusCode::kOutOfRange, "dot_general:", "as many");
  DotGeneralAttrs mm;
  mm.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  mm.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  ExpectShape(Infer(Opcode::kDotGeneral, {T(F32, {2, 3}), T(F32, {3, 5})}, mm), T(F32, {2, 5}));
  ExpectShape(Infer(Opcode::kDotGeneral, {T(F32, {2}), T(F32, {3})}), T(F32, {2, 3}));
}

// --- reduce ---------------------------------------------------------------------

// A body (acc..., x...) -> acc... of scalars with the given element types.
std::unique_ptr<Computation> MakeBody(std::vector<DType> param_types, std::vector<int> results) {
  auto c = std::make_unique<Computation>("body");
  std::vector<Instruction*> params;
  for (size_t i = 0; i < param_types.size(); ++i) {
    ParameterAttrs a{static_cast<int64_t>(i)};
    params.push_back(c->AddInstruction(std::make_unique<Instruction>(
        Opcode::kParameter, T(param_types[i], {}), std::vector<Instruction*>{}, a,
        std::vector<Computation*>{})));
  }
  std::vector<Instruction*> res;
  for (int r : results) res.push_back(params[r]);
  c->set_results(res);
  return c;
}

TEST(ShapeInference, Reduce) {
  auto body = MakeBody({F32, F32}, {0});
  ReduceAttrs a;
  a.dimensions = {1};
  ExpectShape(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(F32, {})}, a, {body.get()}), T(F32, {2}));
  a.dimensions = {0, 1};
  ExpectShape(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(F32, {})}, a, {body.get()}), T(F32, {}));
  a.dimensions = {2};
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(F32, {})}, a, {body.get()}),
              absl::StatusCode::kOutOfRange, "reduce:", "axis 2 out of range");
  a.dimensions = {1};
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(S32, {})}, a, {body.get()}),
              absl::StatusCode::kInvalidArgument, "reduce:",
              "init value 0 must be a scalar with the element type of input tensor<2x3xf32>");
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3})}, a, {body.get()}),
              absl::StatusCode::kInvalidArgument, "reduce:", "N inputs followed by N init");
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(F32, {})}, a, {}),
              absl::StatusCode::kInvalidArgument, "reduce:", "expected one body");
  auto bad_body = MakeBody({S32, S32}, {0});
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(F32, {})}, a, {bad_body.get()}),
              absl::StatusCode::kInvalidArgument, "reduce:",
              "must have type (tensor<f32>, tensor<f32>) -> (tensor<f32>), got (tensor<i32>, "
              "tensor<i32>) -> (tensor<i32>)");
}

TEST(ShapeInference, ReduceMultiResult) {
  auto body = MakeBody({F32, S32, F32, S32}, {0, 1});
  ReduceAttrs a;
  a.dimensions = {0};
  ExpectShape(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(S32, {2, 3}), T(F32, {}), T(S32, {})}, a,
                    {body.get()}),
              Shape::Tuple({T(F32, {3}), T(S32, {3})}));
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(S32, {3, 2}), T(F32, {}), T(S32, {})}, a,
                    {body.get()}),
              absl::StatusCode::kInvalidArgument, "reduce:", "inputs must have the same dims");
  auto one_result = MakeBody({F32, S32, F32, S32}, {0});
  ExpectError(Infer(Opcode::kReduce, {T(F32, {2, 3}), T(S32, {2, 3}), T(F32, {}), T(S32, {})}, a,
                    {one_result.get()}),
              absl::StatusCode::kInvalidArgument, "reduce:", "got (");
}

// --- tuples and calls -----------------------------------------------------------

TEST(ShapeInference, TupleAndGetTupleElement) {
  Shape tup = Shape::Tuple({T(F32, {2}), Shape::Tuple({T(S32, {})})});
  ExpectShape(Infer(Opcode::kTuple, {T(F32, {2}), Shape::Tuple({T(S32, {})})}), tup);
  ExpectShape(Infer(Opcode::kTuple, {}), Shape::Tuple({}));
  GetTupleElementAttrs a;
  a.index = 1;
  ExpectShape(Infer(Opcode::kGetTupleElement, {tup}, a), Shape::Tuple({T(S32, {})}));
  a.index = 2;
  ExpectError(Infer(Opcode::kGetTupleElement, {tup}, a), absl::StatusCode::kOutOfRange,
              "get_tuple_element:", "index 2 out of range for tuple<");
  a.index = 0;
  ExpectError(Infer(Opcode::kGetTupleElement, {T(F32, {2})}, a), absl::StatusCode::kInvalidArgument,
              "get_tuple_element:", "operand must be a tuple, got tensor<2xf32>");
}

TEST(ShapeInference, Call) {
  auto one = MakeBody({F32, S32}, {1});
  ExpectShape(Infer(Opcode::kCall, {T(F32, {}), T(S32, {})}, {}, {one.get()}), T(S32, {}));
  auto two = MakeBody({F32, S32}, {1, 0});
  ExpectShape(Infer(Opcode::kCall, {T(F32, {}), T(S32, {})}, {}, {two.get()}),
              Shape::Tuple({T(S32, {}), T(F32, {})}));
  ExpectError(Infer(Opcode::kCall, {T(F32, {}), T(F32, {})}, {}, {one.get()}),
              absl::StatusCode::kInvalidArgument, "call:",
              "operands (tensor<f32>, tensor<f32>) do not match the parameters (tensor<f32>, "
              "tensor<i32>) of body");
  ExpectError(Infer(Opcode::kCall, {T(F32, {})}, {}, {}), absl::StatusCode::kInvalidArgument,
              "call:", "expected one callee");
  ExpectError(Infer(Opcode::kAdd, {T(F32, {}), T(F32, {})}, {}, {one.get()}),
              absl::StatusCode::kInvalidArgument, "add:", "takes no called computations");
}

// --- sizes (issue 6): results too large are OutOfRange naming the op -------------

TEST(ShapeInference, OverflowingSizesAreRejectedWhereTheShapeIsMade) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  // Before: pad(arange(3), 0, [(2^63-1, 2^63-1, 0)]) wrapped to shape (1,).
  PadAttrs p;
  p.edge_padding_low = {kMax};
  p.edge_padding_high = {kMax};
  p.interior_padding = {0};
  ExpectError(Infer(Opcode::kPad, {T(F32, {3}), T(F32, {})}, p), absl::StatusCode::kOutOfRange,
              "pad:", "tensor<3xf32>");
  p.edge_padding_low = {int64_t{1} << 59};
  p.edge_padding_high = {int64_t{1} << 59};
  ExpectError(Infer(Opcode::kPad, {T(F32, {3}), T(F32, {})}, p), absl::StatusCode::kOutOfRange,
              "pad: shape tensor<", "too large");
  p.edge_padding_low = {0};
  p.edge_padding_high = {0};
  p.interior_padding = {kMax};
  ExpectError(Infer(Opcode::kPad, {T(F32, {3}), T(F32, {})}, p), absl::StatusCode::kOutOfRange,
              "pad:", "beyond +-2^60");
  p.edge_padding_low = {-(int64_t{1} << 59)};
  p.edge_padding_high = {int64_t{1} << 59};
  p.interior_padding = {0};
  ExpectShape(Infer(Opcode::kPad, {T(F32, {3}), T(F32, {})}, p), T(F32, {3}));
  // broadcast_to(np.ones(3), (2**62, 3)).
  BroadcastInDimAttrs b;
  b.broadcast_dimensions = {1};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, T(F32, {int64_t{1} << 62, 3}), {T(F32, {3})}, b),
              absl::StatusCode::kOutOfRange, "broadcast_in_dim: shape tensor<4611686018427387904x3xf32>",
              "overflows int64");
  b.broadcast_dimensions = {};
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, T(F32, {int64_t{1} << 32, int64_t{1} << 32}),
                            {T(F32, {})}, b),
              absl::StatusCode::kOutOfRange, "broadcast_in_dim:", "too large");
  ExpectError(InferDeclared(Opcode::kBroadcastInDim, T(F32, {3, 6148914691236517206}), {T(F32, {})}, b),
              absl::StatusCode::kOutOfRange, "broadcast_in_dim:", "overflows int64");
  // reshape to a huge shape: the size error, not a wrapped element count that matches.
  ExpectError(InferDeclared(Opcode::kReshape, T(F32, {int64_t{1} << 32, int64_t{1} << 32}),
                            {T(F32, {0})}),
              absl::StatusCode::kOutOfRange, "reshape:", "too large");
  ExpectError(InferDeclared(Opcode::kIota, T(S32, {int64_t{1} << 62}), {}, IotaAttrs{}),
              absl::StatusCode::kOutOfRange, "iota:", "too large");
  ExpectError(InferDeclared(Opcode::kParameter, T(S32, {int64_t{1} << 62}), {}, ParameterAttrs{}),
              absl::StatusCode::kOutOfRange, "parameter:", "too large");
  // Concatenating dims whose sum overflows.
  ConcatenateAttrs c;
  c.dimension = 0;
  ExpectError(Infer(Opcode::kConcatenate, {T(DType::kS8, {kMax}), T(DType::kS8, {kMax})}, c),
              absl::StatusCode::kOutOfRange, "concatenate:", "overflows int64");
  // A result larger than its operands: dot_general's outer product.
  DotGeneralAttrs d;
  d.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  d.dot_dimension_numbers.rhs_contracting_dimensions = {0};
  ExpectError(Infer(Opcode::kDotGeneral, {T(F32, {int64_t{1} << 31, 1}), T(F32, {1, int64_t{1} << 31})}, d),
              absl::StatusCode::kOutOfRange, "dot_general:", "too large");
  // A huge slice stride leaves one element without overflowing.
  SliceAttrs s;
  s.start_indices = {1};
  s.limit_indices = {5};
  s.strides = {kMax};
  ExpectShape(Infer(Opcode::kSlice, {T(S32, {5})}, s), T(S32, {1}));
}

}  // namespace
}  // namespace xjit::testing
