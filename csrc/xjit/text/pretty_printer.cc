#include "xjit/text/pretty_printer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit::text {
namespace {

std::string Ints(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

std::string ShapeText(const Shape& s) {
  if (!s.is_tuple) return s.ToString();
  std::vector<std::string> parts;
  for (const Shape& e : s.tuple_shapes) parts.push_back(e.ToString());
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

// (operand types) -> result type
std::string FunctionType(const Instruction& instr) {
  std::vector<std::string> parts;
  for (const Instruction* o : instr.operands()) parts.push_back(o->shape().ToString());
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ") -> ", ShapeText(instr.shape()));
}

// One type when every operand and the result share it, else the function type.
std::string SameOrFunctionType(const Instruction& instr) {
  bool same = !instr.shape().is_tuple;
  for (const Instruction* o : instr.operands()) same &= o->shape() == instr.shape();
  return same ? instr.shape().ToString() : FunctionType(instr);
}

// "op %a, %b" with `extra` items (", dims = [...]") after the operands.
std::string Head(const Instruction& instr, const std::vector<std::string>& operands,
                 const std::string& extra = "") {
  std::string s = absl::StrCat("stablehlo.", OpcodeName(instr.opcode()));
  if (!operands.empty()) absl::StrAppend(&s, " ", absl::StrJoin(operands, ", "));
  if (!extra.empty()) absl::StrAppend(&s, operands.empty() ? " " : ", ", extra);
  return s;
}

// reduce(%x init: %c) applies OP when the body is OP(p0, p1) returned.
std::optional<std::string> PrettyReduce(const Instruction& instr,
                                        const std::vector<std::string>& operands) {
  if (instr.operands().size() != 2 || instr.called_computations().size() != 1) {
    return std::nullopt;
  }
  const Computation& body = *instr.called_computations()[0];
  if (body.results().size() != 1) return std::nullopt;
  const Instruction* r = body.results()[0];
  const auto& params = body.parameters();
  if (params.size() != 2 || r->operands().size() != 2 || r->operand(0) != params[0] ||
      r->operand(1) != params[1] || !IsElementwiseBinary(r->opcode()) ||
      r->opcode() == Opcode::kCompare) {
    return std::nullopt;
  }
  size_t ops = 0;
  for (const auto& i : body.instructions()) ops += i->opcode() != Opcode::kParameter;
  if (ops != 1) return std::nullopt;
  return absl::StrCat("stablehlo.reduce(", operands[0], " init: ", operands[1],
                      ") applies stablehlo.", OpcodeName(r->opcode()), " across dimensions = ",
                      Ints(instr.attrs<ReduceAttrs>().dimensions), " : ", FunctionType(instr));
}

}  // namespace

std::optional<std::string> PrettyOpText(const Instruction& instr,
                                        const std::vector<std::string>& operands) {
  const Opcode op = instr.opcode();
  // Operand refs must be one per operand (a multi-result operand used whole
  // spells several). (No switch: the ops without a form here are many, and a
  // switch over Opcode may not use `default:`.)
  if (operands.size() != instr.operands().size()) return std::nullopt;
  if (op == Opcode::kConstant) {
    const Literal& v = instr.attrs<ConstantAttrs>().value;
    return absl::StrCat("stablehlo.constant ", v.ToString(), " : ", v.shape().ToString());
  }
  if (op == Opcode::kIota)
    return absl::StrCat(Head(instr, operands, absl::StrCat(
                                                  "dim = ", instr.attrs<IotaAttrs>().iota_dimension)),
                        " : ", instr.shape().ToString());
  if (op == Opcode::kCompare) {
    const auto& a = instr.attrs<CompareAttrs>();
    std::string s = absl::StrCat("stablehlo.compare ", EnumName(a.comparison_direction), ", ",
                                 absl::StrJoin(operands, ", "));
    if (a.compare_type != ComparisonType::kNotype) {
      absl::StrAppend(&s, ", ", EnumName(a.compare_type));
    }
    return absl::StrCat(s, " : ", FunctionType(instr));
  }
  if (op == Opcode::kSelect) {
    const Shape& p = instr.operand(0)->shape();
    if (instr.operand(1)->shape() == instr.shape() &&
        instr.operand(2)->shape() == instr.shape()) {
      return absl::StrCat(Head(instr, operands), " : ", p.ToString(), ", ",
                          instr.shape().ToString());
    }
    return absl::StrCat(Head(instr, operands), " : ", FunctionType(instr));
  }
  if (op == Opcode::kReducePrecision) {
    const auto& a = instr.attrs<ReducePrecisionAttrs>();
    return absl::StrCat(Head(instr, operands, absl::StrCat("format = e", a.exponent_bits, "m",
                                                           a.mantissa_bits)),
                        " : ", SameOrFunctionType(instr));
  }
  if (op == Opcode::kBroadcastInDim)
    return absl::StrCat(
        Head(instr, operands,
             absl::StrCat("dims = ", Ints(instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions))),
        " : ", FunctionType(instr));
  if (op == Opcode::kDynamicSlice)
    return absl::StrCat(
        Head(instr, operands,
             absl::StrCat("sizes = ", Ints(instr.attrs<DynamicSliceAttrs>().slice_sizes))),
        " : ", FunctionType(instr));
  if (op == Opcode::kDynamicUpdateSlice)
    return absl::StrCat(Head(instr, operands), " : ", FunctionType(instr));
  if (op == Opcode::kTranspose)
    return absl::StrCat(
        Head(instr, operands,
             absl::StrCat("dims = ", Ints(instr.attrs<TransposeAttrs>().permutation))),
        " : ", FunctionType(instr));
  if (op == Opcode::kReverse)
    return absl::StrCat(
        Head(instr, operands, absl::StrCat("dims = ", Ints(instr.attrs<ReverseAttrs>().dimensions))),
        " : ", SameOrFunctionType(instr));
  if (op == Opcode::kConcatenate)
    return absl::StrCat(
        Head(instr, operands,
             absl::StrCat("dim = ", instr.attrs<ConcatenateAttrs>().dimension)),
        " : ", FunctionType(instr));
  if (op == Opcode::kPad) {
    const auto& a = instr.attrs<PadAttrs>();
    return absl::StrCat(Head(instr, operands,
                             absl::StrCat("low = ", Ints(a.edge_padding_low), ", high = ",
                                          Ints(a.edge_padding_high), ", interior = ",
                                          Ints(a.interior_padding))),
                        " : ", FunctionType(instr));
  }
  if (op == Opcode::kSlice) {
    const auto& a = instr.attrs<SliceAttrs>();
    std::vector<std::string> ranges;
    for (size_t i = 0; i < a.start_indices.size(); ++i) {
      const int64_t stride = i < a.strides.size() ? a.strides[i] : 1;
      ranges.push_back(stride == 1
                           ? absl::StrCat(a.start_indices[i], ":", a.limit_indices[i])
                           : absl::StrCat(a.start_indices[i], ":", a.limit_indices[i], ":",
                                          stride));
    }
    return absl::StrCat("stablehlo.slice ", operands[0], " [", absl::StrJoin(ranges, ", "),
                        "] : ", FunctionType(instr));
  }
  if (op == Opcode::kDotGeneral) {
    const DotDimensionNumbers& d = instr.attrs<DotGeneralAttrs>().dot_dimension_numbers;
    std::vector<std::string> items;
    if (!d.lhs_batching_dimensions.empty() || !d.rhs_batching_dimensions.empty()) {
      items.push_back(absl::StrCat("batching_dims = ", Ints(d.lhs_batching_dimensions), " x ",
                                   Ints(d.rhs_batching_dimensions)));
    }
    items.push_back(absl::StrCat("contracting_dims = ", Ints(d.lhs_contracting_dimensions),
                                 " x ", Ints(d.rhs_contracting_dimensions)));
    return absl::StrCat(Head(instr, operands, absl::StrJoin(items, ", ")), " : ",
                        FunctionType(instr));
  }
  if (op == Opcode::kRngBitGenerator)
    return absl::StrCat(
        Head(instr, operands,
             absl::StrCat("algorithm = ",
                          EnumName(instr.attrs<RngBitGeneratorAttrs>().rng_algorithm))),
        " : ", FunctionType(instr));
  if (op == Opcode::kFft) {  // issue 11 (h-fft)
    const FftAttrs& a = instr.attrs<FftAttrs>();
    return absl::StrCat(Head(instr, operands, absl::StrCat("type = ", EnumName(a.fft_type),
                                                           ", length = ", Ints(a.fft_length))),
                        " : ", FunctionType(instr));
  }
  if (op == Opcode::kReduce)
    return PrettyReduce(instr, operands);
  if (op == Opcode::kCholesky)  // StableHLO prints `lower = true` only when set
    return absl::StrCat(
        Head(instr, operands, instr.attrs<CholeskyAttrs>().lower ? "lower = true" : ""), " : ",
        SameOrFunctionType(instr));
  if (op == Opcode::kGetTupleElement)
    return absl::StrCat("stablehlo.get_tuple_element ", operands[0], "[",
                        instr.attrs<GetTupleElementAttrs>().index, "] : ", FunctionType(instr));
  if (op == Opcode::kTuple)
    return absl::StrCat(Head(instr, operands), " : ", instr.shape().ToString());
  if (op == Opcode::kReshape || op == Opcode::kBitcastConvert || op == Opcode::kConvert ||
      op == Opcode::kUniformQuantize || op == Opcode::kUniformDequantize)
    return absl::StrCat(Head(instr, operands), " : ", FunctionType(instr));
  if (IsElementwise(op) && NumRegions(op) == 0) {
    return absl::StrCat(Head(instr, operands), " : ", SameOrFunctionType(instr));
  }
  return std::nullopt;
}

}  // namespace xjit::text
