#include "xjit/backends/cuda/codegen_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/backends/cuda/scalar_source.h"
#include "xjit/ir/shape.h"

namespace xjit::cuda {

absl::Status Unsupported(const Instruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(OpcodeName(instr.opcode()), ": ", why,
                                               " is not supported by the cuda backend yet (",
                                               instr.shape().ToString(), ")"));
}

std::string GridStrideLoop(absl::string_view var, absl::string_view bound) {
  return absl::StrCat("  for (int64_t ", var, " = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; ",
                      var, " < ", bound, "; ", var, " += (int64_t)gridDim.x * blockDim.x) {\n");
}

// Code that splits the row-major linear index `linear` over `dims` into
// int64_t variables <prefix>0.. (the outermost takes what is left).
std::string SplitIndex(const std::vector<int64_t>& dims, absl::string_view linear,
                       absl::string_view prefix) {
  std::string code = absl::StrCat("    int64_t ", prefix, "_rest = ", linear, ";\n");
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      absl::StrAppend(&code, "    const int64_t ", prefix, d, " = ", prefix, "_rest;\n");
    } else {
      absl::StrAppend(&code, "    const int64_t ", prefix, d, " = ", prefix, "_rest % ", dims[d],
                      "LL; ", prefix, "_rest /= ", dims[d], "LL;\n");
    }
  }
  return code;
}

// The row-major offset of index expressions `index` in an array of `dims`.
std::string Offset(const std::vector<int64_t>& dims, const std::vector<std::string>& index) {
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<std::string> terms;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    terms.push_back(strides[d] == 1 ? absl::StrCat("(", index[d], ")")
                                    : absl::StrCat("(", index[d], ") * ", strides[d], "LL"));
  }
  return terms.empty() ? "0" : absl::StrJoin(terms, " + ");
}

std::vector<std::string> IndexNames(absl::string_view prefix, size_t rank) {
  std::vector<std::string> names;
  for (size_t d = 0; d < rank; ++d) names.push_back(absl::StrCat(prefix, d));
  return names;
}

// `pointers` names each parameter's array (a fusion's operands, indexed
// by "i"); empty for scalar regions (reduce bodies).
absl::StatusOr<RegionCode> EmitRegion(const Computation& region,
                                      const std::vector<std::string>& parameters,
                                      const std::vector<std::string>& pointers,
                                      absl::string_view indent) {
  RegionCode code;
  for (const auto& owned : region.instructions()) {
    const Instruction& instr = *owned;
    std::vector<std::string> operands;
    for (const Instruction* o : instr.operands()) operands.push_back(code.values.at(o));
    switch (instr.opcode()) {
      case Opcode::kParameter: {
        int64_t number = instr.attrs<ParameterAttrs>().number;
        if (number < 0 || number >= static_cast<int64_t>(parameters.size())) {
          return absl::InternalError("region parameter number out of range");
        }
        code.values[&instr] = parameters[number];
        continue;
      }
      case Opcode::kBroadcastInDim:
        if (instr.operand(0)->shape().num_elements() == 1) {  // a splat
          code.values[&instr] = operands[0];
          continue;
        } else {
          // A parameter read in place at the element this one maps to.
          const Instruction& source = *instr.operand(0);
          if (source.opcode() != Opcode::kParameter || pointers.empty()) {
            return Unsupported(instr, "a broadcast of a computed value inside a fusion");
          }
          const std::string prefix = absl::StrCat("b", instr.id(), "_");
          absl::StrAppend(&code.statements, SplitIndex(instr.shape().dims, "i", prefix));
          const auto& map = instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
          const std::vector<int64_t>& dims = source.shape().dims;
          std::vector<std::string> index;
          for (size_t j = 0; j < dims.size(); ++j) {
            index.push_back(dims[j] == 1 ? "0" : absl::StrCat(prefix, map[j]));
          }
          code.values[&instr] =
              absl::StrCat(pointers[source.attrs<ParameterAttrs>().number], "[", Offset(dims, index), "]");
          continue;
        }
      case Opcode::kReshape:
      case Opcode::kOptimizationBarrier:
        code.values[&instr] = operands[0];
        continue;
      case Opcode::kTuple:
        continue;  // the region's results are read from region.results()
      case Opcode::kConstant: {
        // A scalar constant (a body's "2 * b"): its bytes, copied into a
        // variable of its type (exact for every type, halves included).
        const Literal& value = instr.attrs<ConstantAttrs>().value;
        if (instr.shape().num_elements() != 1 || value.size_bytes() != ByteWidth(instr.shape().dtype)) {
          return Unsupported(instr, "a constant of several elements inside a region");
        }
        absl::StatusOr<std::string> type = CudaTypeName(instr.shape().dtype);
        if (!type.ok()) return type.status();
        std::vector<std::string> bytes;
        for (int64_t b = 0; b < value.size_bytes(); ++b) bytes.push_back(std::to_string(value.data()[b]));
        const std::string name = absl::StrCat("v", instr.id());
        absl::StrAppend(&code.statements, indent, *type, " ", name, ";\n", indent,
                        "{ const unsigned char bytes[] = {", absl::StrJoin(bytes, ", "), "}; memcpy(&",
                        name, ", bytes, sizeof(", name, ")); }\n");
        code.values[&instr] = name;
        continue;
      }
      default:
        break;
    }
    if (!instr.shape().is_array()) return Unsupported(instr, "a tuple value inside a fusion");
    absl::StatusOr<std::string> expression = ElementwiseExpression(instr, operands);
    if (!expression.ok()) return expression.status();
    absl::StatusOr<std::string> type = CudaTypeName(instr.shape().dtype);
    if (!type.ok()) return type.status();
    std::string name = absl::StrCat("v", instr.id());
    absl::StrAppend(&code.statements, indent, "const ", *type, " ", name, " = ", *expression, ";\n");
    code.values[&instr] = name;
  }
  return code;
}

// "const T* p0, const U* p1, ..." for the operands, then "R* r0, ..." for
// the results, then "int64_t n".
absl::StatusOr<std::string> Signature(absl::string_view name, const std::vector<DType>& inputs,
                                      const std::vector<DType>& outputs) {
  std::vector<std::string> params;
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StatusOr<std::string> type = CudaTypeName(inputs[i]);
    if (!type.ok()) return type.status();
    params.push_back(absl::StrCat("const ", *type, "* p", i));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    absl::StatusOr<std::string> type = CudaTypeName(outputs[i]);
    if (!type.ok()) return type.status();
    params.push_back(absl::StrCat(*type, "* r", i));
  }
  params.push_back("int64_t n");
  return absl::StrCat("extern \"C\" __global__ void ", name, "(", absl::StrJoin(params, ", "),
                      ") {\n");
}

std::vector<DType> OperandTypes(const Instruction& instr) {
  std::vector<DType> types;
  for (const Instruction* o : instr.operands()) types.push_back(o->shape().dtype);
  return types;
}

std::vector<DType> ResultTypes(const Shape& shape) {
  std::vector<DType> types;
  if (shape.is_tuple) {
    for (const Shape& s : shape.tuple_shapes) types.push_back(s.dtype);
  } else {
    types.push_back(shape.dtype);
  }
  return types;
}

absl::Status CheckArrays(const Instruction& instr) {
  for (const Instruction* o : instr.operands()) {
    if (!o->shape().is_array()) return Unsupported(instr, "a tuple or token operand");
  }
  return absl::OkStatus();
}

}  // namespace xjit::cuda
