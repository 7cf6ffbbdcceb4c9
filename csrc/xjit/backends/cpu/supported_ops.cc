#include "xjit/backends/cpu/supported_ops.h"

namespace xjit::cpu {

bool SupportsOp(Opcode op) {
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kIota:
    case Opcode::kAbs: case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kCosine:
    case Opcode::kCountLeadingZeros: case Opcode::kErf: case Opcode::kExponential:
    case Opcode::kExponentialMinusOne: case Opcode::kFloor: case Opcode::kImag:
    case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLogPlusOne: case Opcode::kLogistic:
    case Opcode::kNegate: case Opcode::kNot: case Opcode::kPopcnt: case Opcode::kReal:
    case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven: case Opcode::kRsqrt:
    case Opcode::kSign: case Opcode::kSine: case Opcode::kSqrt: case Opcode::kTan:
    case Opcode::kTanh: case Opcode::kConvert: case Opcode::kAdd: case Opcode::kSubtract:
    case Opcode::kMultiply: case Opcode::kDivide: case Opcode::kRemainder: case Opcode::kPower:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kAtan2: case Opcode::kComplex:
    case Opcode::kCompare: case Opcode::kSelect: case Opcode::kClamp:
    case Opcode::kBroadcastInDim: case Opcode::kReshape: case Opcode::kTranspose:
    case Opcode::kSlice: case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse:
    case Opcode::kDotGeneral: case Opcode::kReduce: case Opcode::kTuple:
    case Opcode::kGetTupleElement: case Opcode::kCall: case Opcode::kFusion:
    case Opcode::kRngBitGenerator:
    case Opcode::kSort: case Opcode::kMap: case Opcode::kReducePrecision:
    case Opcode::kBitcastConvert:
    case Opcode::kGather: case Opcode::kScatter: case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kWhile: case Opcode::kIf: case Opcode::kCase:
    case Opcode::kConvolution: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
    XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
    case Opcode::kCustomCall:
    // issue 11 (h-fft); the dynamic-shape ops and rng by lowering (passes/dynamic_shape_lowering.h)
    XJIT_SPECTRAL_OPS(XJIT_OPCODE_CASE)
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    XJIT_SPECIAL_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
      return true;
  }
  return false;
}

std::vector<Opcode> SupportedOps() { return OpcodesWhere(SupportsOp); }

}  // namespace xjit::cpu
