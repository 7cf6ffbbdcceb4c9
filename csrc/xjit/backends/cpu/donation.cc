#include "xjit/backends/cpu/donation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace xjit::cpu {
namespace {

using passes::BufferAssignment;
using passes::BufferId;

bool Reads(const BufferAssignment& assignment, const Instruction& operand, BufferId b) {
  absl::Span<const BufferId> l = assignment.leaves(operand);
  return std::find(l.begin(), l.end(), b) != l.end();
}

// A reverse, slice or transpose of the parameter its consumer may read through
// (operand_reads.h: the producer's operand read in place, at other indices).
bool ReadThroughInPlace(const BufferAssignment& assignment, const Instruction& operand,
                        BufferId parameter) {
  return (operand.opcode() == Opcode::kReverse || operand.opcode() == Opcode::kSlice ||
          operand.opcode() == Opcode::kTranspose) &&
         Reads(assignment, *operand.operand(0), parameter);
}

// A plain element-wise thunk: element i of every operand is read before
// element i of the output is written, unless the operand is broadcast from
// one element (a rank-0 operand of select or clamp: stride 0).
bool ElementwiseReadsOnlyItsIndex(const BufferAssignment& assignment, const Instruction& op,
                                  BufferId parameter) {
  for (const Instruction* o : op.operands()) {
    if (ReadThroughInPlace(assignment, *o, parameter)) return false;
    if (Reads(assignment, *o, parameter) &&
        o->shape().num_elements() != op.shape().num_elements()) {
      return false;
    }
  }
  return true;
}

// A fusion runs its region's ops in order on each tile (FusedElementwiseThunk):
// writing output `output` over the parameter is safe when every region op
// that reads the parameter reads it at its own index and comes no later than
// the op that writes that output. A broadcast of the parameter is read at
// element 0 on every tile: never safe.
bool FusionReadsBeforeWriting(const BufferAssignment& assignment, const Instruction& fusion,
                              BufferId parameter, size_t output) {
  if (fusion.called_computations().size() != 1) return false;
  const Computation& region = *fusion.called_computations()[0];
  if (output >= region.results().size()) return false;
  const Instruction* writer = region.results()[output];
  const int64_t n = writer->shape().num_elements();
  absl::flat_hash_set<const Instruction*> is_parameter;  // region values that are its bytes
  bool written = false;
  for (const auto& instr : region.instructions()) {
    const Opcode op = instr->opcode();
    if (op == Opcode::kParameter) {
      const int64_t number = instr->attrs<ParameterAttrs>().number;
      if (number < 0 || number >= static_cast<int64_t>(fusion.operands().size())) return false;
      const Instruction& operand = *fusion.operand(number);
      if (ReadThroughInPlace(assignment, operand, parameter)) return false;
      if (Reads(assignment, operand, parameter)) is_parameter.insert(instr.get());
      continue;
    }
    bool reads = false;
    for (const Instruction* o : instr->operands()) {
      if (!is_parameter.contains(o)) continue;
      reads = true;
      if (o->shape().num_elements() != n) return false;
    }
    if (!reads) {
      if (instr.get() == writer) written = true;
      continue;
    }
    if (op == Opcode::kReshape) {
      is_parameter.insert(instr.get());
      continue;
    }
    if (written || !IsElementwise(op) || instr->shape().num_elements() != n) return false;
    if (instr.get() == writer) written = true;
  }
  return written;
}

}  // namespace

bool ResultMayReuseParameter(const BufferAssignment& assignment, int64_t result,
                             int64_t parameter) {
  if (result < 0 || result >= static_cast<int64_t>(assignment.results().size())) return false;
  const BufferAssignment::ResultPlacement& placement = assignment.results()[result];
  const BufferId p = assignment.parameter_buffer(parameter);
  if (p >= 0 && assignment.buffer(p).bytes != assignment.buffer(placement.buffer).bytes) {
    return false;
  }
  switch (assignment.ResultWriteVsParameterRead(result, parameter)) {
    case BufferAssignment::ResultWrite::kAfterLastRead: return true;
    case BufferAssignment::ResultWrite::kBeforeLastRead: return false;
    case BufferAssignment::ResultWrite::kAtLastRead: break;
  }
  // The final copies: other copies may still read the parameter, so only a
  // copy of the parameter onto itself is safe.
  if (placement.copy_from >= 0) return placement.copy_from == p;
  const Instruction* writer = assignment.buffer(placement.buffer).defined_by;
  if (writer == nullptr) return false;
  switch (writer->opcode()) {
    XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      return ElementwiseReadsOnlyItsIndex(assignment, *writer, p);
    case Opcode::kFusion: {
      absl::Span<const BufferId> outputs = assignment.leaves(*writer);
      auto it = std::find(outputs.begin(), outputs.end(), placement.buffer);
      if (it == outputs.end()) return false;
      return FusionReadsBeforeWriting(assignment, *writer, p, it - outputs.begin());
    }
    XJIT_STRUCTURAL_OPS(XJIT_OPCODE_CASE)
    XJIT_DATA_MOVEMENT_OPS(XJIT_OPCODE_CASE)
    XJIT_CONTRACTION_OPS(XJIT_OPCODE_CASE)
    XJIT_REDUCTION_OPS(XJIT_OPCODE_CASE)
    XJIT_TUPLE_OPS(XJIT_OPCODE_CASE)
    XJIT_CALL_OPS(XJIT_OPCODE_CASE)
    XJIT_RANDOM_OPS(XJIT_OPCODE_CASE)
    XJIT_SORT_OPS(XJIT_OPCODE_CASE)
    XJIT_MAP_OPS(XJIT_OPCODE_CASE)
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
    XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
    case Opcode::kGather:
    case Opcode::kScatter:
    case Opcode::kDynamicSlice:
    XJIT_CONTROL_FLOW_OPS(XJIT_OPCODE_CASE)
    XJIT_WINDOW_OPS(XJIT_OPCODE_CASE)
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
    XJIT_CUSTOM_CALL_OPS(XJIT_OPCODE_CASE)
    XJIT_SPECTRAL_OPS(XJIT_OPCODE_CASE)
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    XJIT_SPECIAL_OPS(XJIT_OPCODE_CASE)
      return false;
    case Opcode::kDynamicUpdateSlice: {
      // Its kernel updates in place when the result is its operand's buffer
      // (scatter.cc): safe if the parameter is that operand and nothing else.
      for (size_t k = 1; k < writer->operands().size(); ++k) {
        for (BufferId b : assignment.leaves(*writer->operand(k))) {
          if (b == p) return false;
        }
      }
      absl::Span<const BufferId> base = assignment.leaves(*writer->operand(0));
      return base.size() == 1 && base[0] == p;
    }
  }
  return false;
}

std::vector<bool> ReusableResultParameterPairs(const BufferAssignment& assignment,
                                               int64_t num_results, int64_t num_parameters) {
  std::vector<bool> reusable(num_results * num_parameters, false);
  for (int64_t r = 0; r < num_results; ++r) {
    for (int64_t p = 0; p < num_parameters; ++p) {
      reusable[r * num_parameters + p] = ResultMayReuseParameter(assignment, r, p);
    }
  }
  return reusable;
}

}  // namespace xjit::cpu
