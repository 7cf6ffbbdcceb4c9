// InferShape: checks operand counts by arity class, the attribute struct and
// the declared result type against the op's schema row, then hands each op to
// its family (shape_inference_{elementwise,movement,contraction,tuple}.cc).
#include "xjit/ir/shape_inference.h"

#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {

std::string ShapesToString(Operands operands) {
  std::vector<std::string> parts;
  for (const Shape* s : operands) parts.push_back(s->ToString());
  return absl::StrJoin(parts, ", ");
}

std::string DimsToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

absl::Status CheckArrays(Opcode op, Operands operands) {
  for (const Shape* s : operands) {
    if (s->is_tuple) {
      return absl::InvalidArgumentError(
          absl::StrCat(OpcodeName(op), ": operands must be arrays, got ", s->ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAxes(Opcode op, absl::string_view what, absl::Span<const int64_t> axes,
                       int64_t rank) {
  absl::flat_hash_set<int64_t> seen;
  for (int64_t a : axes) {
    if (a < 0 || a >= rank) {
      return absl::OutOfRangeError(absl::StrCat(OpcodeName(op), ": ", what, " ", DimsToString(axes),
                                                " has axis ", a, " out of range for rank ", rank));
    }
    if (!seen.insert(a).second) {
      return absl::OutOfRangeError(
          absl::StrCat(OpcodeName(op), ": ", what, " ", DimsToString(axes), " repeats axis ", a));
    }
  }
  return absl::OkStatus();
}

}  // namespace shape_inference

namespace {

namespace si = shape_inference;

absl::Status CheckOperandCount(Opcode op, size_t got) {
  int want = -1;
  switch (OpcodeArity(op)) {
    case OpArity::kNullary:
      want = 0;
      break;
    case OpArity::kUnary:
      want = 1;
      break;
    case OpArity::kBinary:
      want = 2;
      break;
    case OpArity::kTernary:
      want = 3;
      break;
    case OpArity::kVariadic:
      return absl::OkStatus();
  }
  if (static_cast<int>(got) != want) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), ": expected ", want, " operand(s), got ", got));
  }
  return absl::OkStatus();
}

// Ops that take tokens: the token ops themselves, and those that only pass
// values along (tuples, calls, control flow carry them like any value).
bool TakesTokens(Opcode op) {
  switch (OpcodeFamily(op)) {
    case OpFamily::kTuple:
    case OpFamily::kCall:
    case OpFamily::kControlFlow:
    case OpFamily::kHostIo:
    case OpFamily::kCustomCall:
      return true;
    default:
      return false;
  }
}

absl::Status CheckTokenOperands(Opcode op, absl::Span<const Shape* const> operands) {
  if (TakesTokens(op)) return absl::OkStatus();
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i]->is_token) {
      return absl::InvalidArgumentError(absl::StrCat(
          OpcodeName(op), ": operand ", i, " is a !stablehlo.token, which carries no data"));
    }
  }
  return absl::OkStatus();
}

// The declared result type must come exactly with the ops that declare one.
absl::Status CheckDeclaredResult(Opcode op, const Shape* declared_result) {
  if (declared_result != nullptr && !DeclaresResultType(op)) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": takes no declared result type, got ", declared_result->ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferParameter(const ParameterAttrs& attrs, const Shape* declared_result) {
  if (declared_result == nullptr) {
    return absl::InvalidArgumentError("parameter: missing result shape");
  }
  if (attrs.number < 0) {
    return absl::OutOfRangeError(
        absl::StrCat("parameter: parameter number must be >= 0, got ", attrs.number));
  }
  return *declared_result;
}

absl::StatusOr<Shape> InferUncheckedSize(Opcode op, absl::Span<const Shape* const> operands,
                                         const Attributes& attrs,
                                         absl::Span<const Computation* const> called,
                                         const Shape* declared_result);

Shape ExpressedShape(const Shape& s) {
  if (!s.is_array() || !s.is_quantized()) return s;
  return Shape(s.quant->expressed, s.dims);
}

// An op on quantized values: inferred on the expressed types; a quantized
// result is the declared one when it expresses what was inferred.
absl::StatusOr<Shape> InferOnExpressedTypes(Opcode op, absl::Span<const Shape* const> operands,
                                            const Attributes& attrs,
                                            absl::Span<const Computation* const> called,
                                            const Shape* declared) {
  if (!called.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        OpcodeName(op), ": quantized operands or results of an op with regions are not supported "
        "(dequantize them first)"));
  }
  std::vector<Shape> expressed;
  expressed.reserve(operands.size());
  for (const Shape* s : operands) {
    if (s == nullptr) return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": null operand shape"));
    expressed.push_back(ExpressedShape(*s));
  }
  std::vector<const Shape*> ptrs;
  for (const Shape& s : expressed) ptrs.push_back(&s);
  std::optional<Shape> inner_declared;
  if (declared != nullptr && DeclaresResultType(op)) inner_declared = ExpressedShape(*declared);
  absl::StatusOr<Shape> r = InferUncheckedSize(op, ptrs, attrs, called,
                                               inner_declared ? &*inner_declared : nullptr);
  if (!r.ok() || declared == nullptr) return r;
  if (*r != ExpressedShape(*declared)) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": result type ", declared->ToString(), " does not express ",
        r->ToString(), ", the result of its operands' expressed types"));
  }
  if (declared->is_quantized()) {
    const QuantizedType& q = *declared->quant;
    if (absl::Status s = CheckQuantizedType(q, declared->rank(),
                                            q.per_axis() && q.quantized_dimension < declared->rank()
                                                ? declared->dims[q.quantized_dimension] : -1);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": ", s.message()));
    }
  }
  return *declared;
}

}  // namespace

absl::StatusOr<Shape> InferShape(Opcode op, absl::Span<const Shape* const> operands,
                                 const Attributes& attrs,
                                 absl::Span<const Computation* const> called,
                                 const Shape* declared_result) {
  absl::StatusOr<Shape> result =
      ComputesOnQuantizedTypes(op, operands, declared_result)
          ? InferOnExpressedTypes(op, operands, attrs, called, declared_result)
          : InferUncheckedSize(op, operands, attrs, called, declared_result);
  // Every result the graph holds fits in int64 elements and kMaxArrayBytes,
  // so the passes and kernels compute sizes and offsets without overflow.
  if (result.ok()) {
    if (absl::Status s = CheckShapeSize(*result, OpcodeName(op)); !s.ok()) return s;
  }
  return result;
}

namespace {

absl::StatusOr<Shape> InferUncheckedSize(Opcode op, absl::Span<const Shape* const> operands,
                                         const Attributes& attrs,
                                         absl::Span<const Computation* const> called,
                                         const Shape* declared_result) {
  for (const Shape* s : operands) {
    if (s == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": null operand shape"));
    }
  }
  if (absl::Status s = CheckOperandCount(op, operands.size()); !s.ok()) return s;
  if (attrs.kind() != OpcodeAttrsKind(op)) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": takes ",
                                                   AttrsKindName(OpcodeAttrsKind(op)), ", got ",
                                                   AttrsKindName(attrs.kind())));
  }
  if (absl::Status s = CheckDeclaredResult(op, declared_result); !s.ok()) return s;
  // Tuples are legal only where the op is about tuples or forwards them.
  OpFamily family = OpcodeFamily(op);
  if (family != OpFamily::kTuple && family != OpFamily::kCall) {
    if (absl::Status s = si::CheckArrays(op, operands); !s.ok()) return s;
  }
  // Tokens only order effects: ops that compute on data refuse them.
  if (absl::Status s = CheckTokenOperands(op, operands); !s.ok()) return s;
  if (NumCalledComputations(op) == 0 && !called.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), ": takes no called computations, got ", called.size()));
  }
  if (op == Opcode::kReducePrecision) {  // the one unary op with attributes
    return si::InferReducePrecision(*operands[0], attrs.get<ReducePrecisionAttrs>());
  }
  switch (op) {
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
      return si::InferElementwiseUnary(op, *operands[0], declared_result);
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
      return si::InferElementwiseBinary(op, *operands[0], *operands[1], attrs);
    case Opcode::kParameter:
      return InferParameter(attrs.get<ParameterAttrs>(), declared_result);
    case Opcode::kConstant: {
      const Literal& value = attrs.get<ConstantAttrs>().value;
      if (value.size_bytes() != value.shape().byte_size()) {
        return absl::InvalidArgumentError("constant: missing literal value");
      }
      return value.shape();
    }
    case Opcode::kIota:
      return si::InferIota(attrs.get<IotaAttrs>(), declared_result);
    case Opcode::kSelect:
      return si::InferSelect(*operands[0], *operands[1], *operands[2]);
    case Opcode::kClamp:
      return si::InferClamp(*operands[0], *operands[1], *operands[2]);
    case Opcode::kBroadcastInDim:
      return si::InferBroadcastInDim(*operands[0], attrs.get<BroadcastInDimAttrs>(),
                                     declared_result);
    case Opcode::kReshape:
      return si::InferReshape(*operands[0], declared_result);
    case Opcode::kTranspose:
      return si::InferTranspose(*operands[0], attrs.get<TransposeAttrs>());
    case Opcode::kSlice:
      return si::InferSlice(*operands[0], attrs.get<SliceAttrs>());
    case Opcode::kConcatenate:
      return si::InferConcatenate(operands, attrs.get<ConcatenateAttrs>());
    case Opcode::kPad:
      return si::InferPad(*operands[0], *operands[1], attrs.get<PadAttrs>());
    case Opcode::kReverse:
      return si::InferReverse(*operands[0], attrs.get<ReverseAttrs>());
    case Opcode::kDotGeneral:
      return si::InferDotGeneral(*operands[0], *operands[1], attrs.get<DotGeneralAttrs>());
    case Opcode::kReduce:
      return si::InferReduce(operands, attrs.get<ReduceAttrs>(), called);
    case Opcode::kTuple:
      return si::InferTuple(operands);
    case Opcode::kGetTupleElement:
      return si::InferGetTupleElement(*operands[0], attrs.get<GetTupleElementAttrs>());
    case Opcode::kCall:
      return si::InferCall(operands, called);
    case Opcode::kFusion:
      return si::InferFusion(operands, called);
    case Opcode::kRngBitGenerator:
      return si::InferRngBitGenerator(*operands[0], attrs.get<RngBitGeneratorAttrs>(),
                                      declared_result);
    case Opcode::kSort:
      return si::InferSort(operands, attrs.get<SortAttrs>(), called);
    case Opcode::kMap:
      return si::InferMap(operands, attrs.get<MapAttrs>(), called);
    case Opcode::kBitcastConvert:
      return si::InferBitcastConvert(*operands[0], declared_result);
    case Opcode::kGather:
      return si::InferGather(*operands[0], *operands[1], attrs.get<GatherAttrs>());
    case Opcode::kScatter:
      return si::InferScatter(operands, attrs.get<ScatterAttrs>(), called);
    case Opcode::kDynamicSlice:
      return si::InferDynamicSlice(operands, attrs.get<DynamicSliceAttrs>());
    case Opcode::kDynamicUpdateSlice:
      return si::InferDynamicUpdateSlice(operands);
    case Opcode::kWhile:
      return si::InferWhile(operands, called);
    case Opcode::kIf:
      return si::InferIf(operands, called);
    case Opcode::kCase:
      return si::InferCase(operands, called);
    case Opcode::kConvolution:
      return si::InferConvolution(*operands[0], *operands[1], attrs.get<ConvolutionAttrs>());
    case Opcode::kReduceWindow:
      return si::InferReduceWindow(operands, attrs.get<ReduceWindowAttrs>(), called);
    case Opcode::kSelectAndScatter:
      return si::InferSelectAndScatter(*operands[0], *operands[1], *operands[2],
                                       attrs.get<SelectAndScatterAttrs>(), called);
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      return si::InferBatchNorm(op, operands, attrs.get<BatchNormAttrs>());
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      return si::InferHostIo(op, operands, declared_result);
    case Opcode::kCholesky:
      return si::InferCholesky(*operands[0], attrs.get<CholeskyAttrs>());
    case Opcode::kTriangularSolve:
      return si::InferTriangularSolve(*operands[0], *operands[1],
                                      attrs.get<TriangularSolveAttrs>());
    case Opcode::kCustomCall:
      return si::InferCustomCall(operands, attrs.get<CustomCallAttrs>(), declared_result);
    // issue 11 (h-fft)
    case Opcode::kFft:
      return si::InferFft(*operands[0], attrs.get<FftAttrs>());
    case Opcode::kComposite:  // a call of its decomposition
      return si::InferCall(operands, called);
    case Opcode::kUniformQuantize:
      return si::InferUniformQuantize(*operands[0], declared_result);
    case Opcode::kUniformDequantize:
      return si::InferUniformDequantize(*operands[0]);
    case Opcode::kRng:
    case Opcode::kOptimizationBarrier:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
      return si::InferDynamicShapeOp(op, operands, attrs, declared_result);
  }
  return absl::InternalError(
      absl::StrCat(OpcodeName(op), ": no shape inference rule (bug in InferShape)"));
}

}  // namespace

}  // namespace xjit
