#include "xjit/backends/cpu/scalar_evaluator.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace xjit::cpu {

absl::StatusOr<ScalarEvaluator> ScalarEvaluator::Compile(const Computation& region) {
  ScalarEvaluator ev;
  // Value index of each instruction; a value either owns a cell (same index)
  // or aliases another value (parameters are bound per call).
  absl::flat_hash_map<const Instruction*, int32_t> value_of;
  absl::flat_hash_map<const Instruction*, std::vector<int32_t>> tuple_of;
  const int32_t n = static_cast<int32_t>(region.instructions().size());
  ev.initial_cells_.assign(n, ScalarCell{});
  ev.num_parameters_ = static_cast<int64_t>(region.parameters().size());
  ev.parameter_values_.assign(ev.num_parameters_, -1);
  auto fail = [&](const Instruction& instr, absl::string_view why) {
    return absl::UnimplementedError(absl::StrCat("region '", region.name(), "': ",
                                                 OpcodeName(instr.opcode()), " ", why,
                                                 " is not supported by the cpu backend"));
  };
  for (int32_t i = 0; i < n; ++i) {
    const Instruction& instr = *region.instructions()[i];
    if (instr.shape().is_tuple) {
      if (instr.opcode() != Opcode::kTuple) return fail(instr, "with a tuple result");
      std::vector<int32_t> leaves;
      for (const Instruction* o : instr.operands()) leaves.push_back(value_of.at(o));
      tuple_of[&instr] = std::move(leaves);
      continue;
    }
    if (instr.shape().num_elements() != 1) return fail(instr, "on non-scalar values");
    switch (instr.opcode()) {
      case Opcode::kParameter:
        ev.parameter_values_[instr.attrs<ParameterAttrs>().number] = i;
        value_of[&instr] = i;
        break;
      case Opcode::kConstant:
        std::memcpy(ev.initial_cells_[i].bytes, instr.attrs<ConstantAttrs>().value.data(),
                    ByteWidth(instr.shape().dtype));
        value_of[&instr] = i;
        break;
      case Opcode::kReshape:
      case Opcode::kBroadcastInDim: {
        const int32_t cell = value_of.at(instr.operand(0));  // same single element
        value_of[&instr] = cell;  // (read first: the insert may rehash)
        break;
      }
      case Opcode::kGetTupleElement: {
        auto it = tuple_of.find(instr.operand(0));
        if (it == tuple_of.end()) return fail(instr, "of a non-tuple");
        value_of[&instr] = it->second[instr.attrs<GetTupleElementAttrs>().index];
        break;
      }
      XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE) {
        auto kernel = GetElementwiseKernel(instr);
        if (!kernel.ok()) return kernel.status();
        Step step{*kernel, {0, 0, 0}, static_cast<int32_t>(instr.operands().size()), i, {1, 1, 1}};
        // An op's integer parameters follow its operands' strides (elementwise.h).
        std::vector<int64_t> params = KernelParameters(instr);
        for (size_t k = 0; k < params.size() && step.num_inputs + k < 3; ++k) {
          step.strides[step.num_inputs + k] = params[k];
        }
        for (int32_t k = 0; k < step.num_inputs; ++k) step.inputs[k] = value_of.at(instr.operand(k));
        ev.steps_.push_back(step);
        value_of[&instr] = i;
        break;
      }
      case Opcode::kIota: case Opcode::kTranspose: case Opcode::kSlice: case Opcode::kConcatenate:
      case Opcode::kPad: case Opcode::kReverse: case Opcode::kDotGeneral: case Opcode::kReduce:
      case Opcode::kTuple: case Opcode::kCall: case Opcode::kFusion:
      case Opcode::kRngBitGenerator:
      case Opcode::kSort:
      case Opcode::kMap: case Opcode::kBitcastConvert:
      XJIT_INDEXING_OPS(XJIT_OPCODE_CASE)
      case Opcode::kWhile: case Opcode::kIf: case Opcode::kCase:
      case Opcode::kConvolution: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
      XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
      case Opcode::kCustomCall:
      XJIT_SPECTRAL_OPS(XJIT_OPCODE_CASE)
      XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
      XJIT_SPECIAL_OPS(XJIT_OPCODE_CASE)
      case Opcode::kRng:
        return fail(instr, "");
    }
  }
  std::vector<const Instruction*> results(region.results().begin(), region.results().end());
  for (const Instruction* r : results) {
    auto t = tuple_of.find(r);
    if (t != tuple_of.end()) {
      ev.results_.insert(ev.results_.end(), t->second.begin(), t->second.end());
    } else {
      ev.results_.push_back(value_of.at(r));
    }
  }
  for (int32_t p : ev.parameter_values_) {
    if (p < 0) return absl::InvalidArgumentError(absl::StrCat("reduce body '", region.name(), "' has a gap in its parameter numbers"));
  }
  return ev;
}

ScalarEvaluator::Frame ScalarEvaluator::NewFrame() const {
  Frame f;
  f.cells = initial_cells_;
  f.values.resize(f.cells.size());
  for (size_t i = 0; i < f.cells.size(); ++i) f.values[i] = f.cells[i].bytes;
  return f;
}

void ScalarEvaluator::Evaluate(Frame& frame, const void* const* params) const {
  for (int64_t p = 0; p < num_parameters_; ++p) frame.values[parameter_values_[p]] = params[p];
  for (const Step& s : steps_) {
    const void* in[3] = {frame.values[s.inputs[0]], frame.values[s.inputs[1]],
                         frame.values[s.inputs[2]]};
    s.kernel(in, s.strides, frame.cells[s.output].bytes, 0, 1);
  }
}

}  // namespace xjit::cpu
