#include "xjit/backends/cpu/work_estimate.h"

#include <algorithm>

namespace xjit::cpu {
namespace {

// Ops that call into libm (or an equally long polynomial) per element cost
// around ten simple adds; counting them as such keeps a 30K-element sin out
// of the inline path.
bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kCbrt: case Opcode::kCosine: case Opcode::kErf: case Opcode::kExponential:
    case Opcode::kExponentialMinusOne: case Opcode::kLog: case Opcode::kLogPlusOne:
    case Opcode::kLogistic: case Opcode::kSine: case Opcode::kTan: case Opcode::kTanh:
    case Opcode::kPower: case Opcode::kAtan2: case Opcode::kRemainder:
      return true;
    case Opcode::kAbs: case Opcode::kCeil: case Opcode::kCountLeadingZeros: case Opcode::kFloor:
    case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kNegate: case Opcode::kNot:
    case Opcode::kPopcnt: case Opcode::kReal: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kRsqrt: case Opcode::kSign: case Opcode::kSqrt:
    case Opcode::kConvert: case Opcode::kReducePrecision:
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kAnd: case Opcode::kOr:
    case Opcode::kXor: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kComplex: case Opcode::kCompare:
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_NON_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      break;
  }
  return false;
}

constexpr int64_t kTranscendentalWeight = 10;

}  // namespace

int64_t EstimateInstructionWork(const Instruction& instr) {
  const Opcode op = instr.opcode();
  const int64_t out = instr.shape().total_elements();
  if (op == Opcode::kDotGeneral) {
    int64_t k = 1;
    const Shape& lhs = instr.operand(0)->shape();
    const DotDimensionNumbers& dn = instr.attrs<DotGeneralAttrs>().dot_dimension_numbers;
    for (int64_t d : dn.lhs_contracting_dimensions) k *= lhs.dims[d];
    return out * std::max<int64_t>(k, 1);
  }
  if (op == Opcode::kReduce) {
    int64_t in = 0;
    for (const Instruction* o : instr.operands()) in += o->shape().total_elements();
    return std::max(in, out);
  }
  if (op == Opcode::kSort) {  // n log n comparisons, each operand permuted
    const Shape& x = instr.operand(0)->shape();
    int64_t d = instr.attrs<SortAttrs>().dimension;
    if (d < 0) d += x.rank();
    const int64_t n = d >= 0 && d < x.rank() ? x.dims[d] : 1;
    int64_t log_n = 1;
    while ((int64_t{1} << log_n) < n) ++log_n;
    return x.num_elements() * log_n * static_cast<int64_t>(instr.operands().size());
  }
  if (OpcodeFamily(op) == OpFamily::kLinearAlgebra) {  // ~ k^2 flops per result column
    const Shape& a = instr.operand(0)->shape();
    return std::max<int64_t>(instr.shape().num_elements() * a.dims[a.rank() - 1], 1);
  }
  if (OpcodeFamily(op) == OpFamily::kNormalization) {  // a few passes over the operand
    return 4 * instr.operand(0)->shape().num_elements();
  }
  if (OpcodeFamily(op) == OpFamily::kControlFlow) {
    // One iteration (or branch) of regions run as programs: the bound of any
    // one kernel they start, which is what inline execution cares about.
    int64_t work = 0;
    for (const Computation* c : instr.called_computations()) {
      for (const auto& i : c->instructions()) work += EstimateInstructionWork(*i);
    }
    return std::max<int64_t>(work, 1);
  }
  if (op == Opcode::kMap) {  // the computation runs once per element
    return out * static_cast<int64_t>(instr.called_computations()[0]->instructions().size());
  }
  if (op == Opcode::kConvolution) {  // each output element: kernel window x input features
    const Shape& rhs = instr.operand(1)->shape();
    const int64_t kout = rhs.dims[instr.attrs<ConvolutionAttrs>().dimension_numbers
                                      .kernel_output_feature_dimension];
    return out * std::max<int64_t>(rhs.num_elements() / std::max<int64_t>(kout, 1), 1);
  }
  if (op == Opcode::kReduceWindow || op == Opcode::kSelectAndScatter) {  // each window element
    int64_t window = 1;
    for (int64_t w : op == Opcode::kReduceWindow
                         ? instr.attrs<ReduceWindowAttrs>().window_dimensions
                         : instr.attrs<SelectAndScatterAttrs>().window_dimensions) {
      window *= w;
    }
    const int64_t base = instr.operand(0)->shape().num_elements();
    return std::max(base, out * std::max<int64_t>(window, 1));
  }
  if (IsTranscendental(op)) return out * kTranscendentalWeight;
  // A threefry or philox hash is about a hundred integer operations per block.
  if (op == Opcode::kRngBitGenerator) return out * 3 * kTranscendentalWeight;
  return out;
}

int64_t InlineWork(const Instruction& instr, int64_t work) {
  if (instr.opcode() != Opcode::kDotGeneral && instr.opcode() != Opcode::kConvolution) return work;
  switch (instr.shape().dtype) {
    case DType::kF32: case DType::kBF16: case DType::kF16:
      return work / 20;
    case DType::kF64:
      return work / 10;
    default:
      return work;
  }
}

}  // namespace xjit::cpu
