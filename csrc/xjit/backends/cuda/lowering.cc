#include "xjit/backends/cuda/lowering.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xjit/backends/cuda/codegen_util.h"
#include "xjit/backends/cuda/sort_source.h"
#include "xjit/passes/buffer_assignment.h"
#include "xjit/passes/dot_canonicalization.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/passes/pipeline.h"
#include "xjit/passes/region_module.h"

namespace xjit::cuda {
namespace {

using passes::BufferAssignment;
using passes::BufferId;
using passes::LogicalBuffer;

// The module the cuda backend lowers: the default pipeline on a copy, every
// dot in matmul form (transposing copies where needed: a kernel each), then
// element-wise clusters fused (no row fusion yet).
absl::StatusOr<std::unique_ptr<Module>> RunPasses(const Module& module) {
  if (module.entry() == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  absl::StatusOr<std::unique_ptr<Module>> lowered = passes::LowerForBackends(module);
  if (!lowered.ok()) return lowered.status();
  const Module& source = *lowered != nullptr ? **lowered : module;
  absl::StatusOr<std::unique_ptr<Module>> simplified = passes::RunDefaultPipeline(source);
  if (!simplified.ok()) return simplified.status();
  absl::StatusOr<bool> dots =
      passes::RunDotCanonicalization(**simplified, passes::DotCanonicalizationOptions{true});
  if (!dots.ok()) return dots.status();
  absl::StatusOr<std::unique_ptr<Module>> fused =
      passes::FuseElementwiseIfChanged(**simplified, passes::FusionOptions{});
  if (!fused.ok()) return fused.status();
  return *fused != nullptr ? *std::move(fused) : *std::move(simplified);
}

class Lowering {
 public:
  absl::StatusOr<LoweredProgram> Lower(const Module& module);

 private:
  absl::Status Emit(const Instruction& instr);
  absl::Status EmitControlFlow(const Instruction& instr);
  std::vector<int32_t> Slots(const Instruction& instr) const {
    absl::Span<const BufferId> l = assignment_->leaves(instr);
    return std::vector<int32_t>(l.begin(), l.end());
  }
  absl::Status AddKernel(const Instruction& instr, absl::StatusOr<KernelLaunch> launch) {
    if (!launch.ok()) return launch.status();
    return AddKernels(instr, std::vector<KernelLaunch>{*std::move(launch)});
  }
  // Launches run in order, each on every operand leaf, then every result leaf.
  absl::Status AddKernels(const Instruction& instr, absl::StatusOr<std::vector<KernelLaunch>> launches,
                          std::vector<int32_t> extra_slots = {}) {
    if (!launches.ok()) return launches.status();
    std::vector<int32_t> slots;
    for (const Instruction* o : instr.operands()) {
      std::vector<int32_t> s = Slots(*o);
      slots.insert(slots.end(), s.begin(), s.end());
    }
    std::vector<int32_t> out = Slots(instr);
    slots.insert(slots.end(), out.begin(), out.end());
    slots.insert(slots.end(), extra_slots.begin(), extra_slots.end());
    for (KernelLaunch& launch : *launches) {
      Step step;
      step.kind = Step::Kind::kKernel;
      step.launch = std::move(launch);
      step.slots = slots;
      program_.steps.push_back(std::move(step));
    }
    return absl::OkStatus();
  }

  std::optional<BufferAssignment> assignment_;
  KernelSource kernels_;
  LoweredProgram program_;
  absl::flat_hash_map<const Instruction*, BufferId> workspace_of_;
  absl::flat_hash_map<const Instruction*, BufferId> scratch_of_;  // a sort's permutation
};

absl::Status Lowering::Emit(const Instruction& instr) {
  switch (instr.opcode()) {
    // Aliases (row-major bytes are unchanged): the same buffers, no step.
    case Opcode::kParameter:
    case Opcode::kReshape:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kOptimizationBarrier:
      return absl::OkStatus();
    case Opcode::kConstant: {
      const Literal& value = instr.attrs<ConstantAttrs>().value;
      if (value.shape() != instr.shape()) {
        return absl::InvalidArgumentError("constant: missing or mistyped literal");
      }
      return absl::OkStatus();  // uploaded with the program (slots)
    }
    case Opcode::kIota:
      return AddKernel(instr, kernels_.AddIota(instr));
    case Opcode::kFusion:
    XJIT_ELEMENTWISE_UNARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_BINARY_OPS(XJIT_OPCODE_CASE)
    XJIT_ELEMENTWISE_TERNARY_OPS(XJIT_OPCODE_CASE)
      return AddKernel(instr, kernels_.AddElementwise(instr));
    case Opcode::kBitcastConvert:
      if (ByteWidth(instr.shape().dtype) != ByteWidth(instr.operand(0)->shape().dtype)) {
        return Unsupported(instr, "a bitcast_convert between widths");
      }
      return AddKernel(instr, kernels_.AddElementwise(instr));
    case Opcode::kBroadcastInDim:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kPad:
    case Opcode::kConcatenate:
      return AddKernel(instr, kernels_.AddDataMovement(instr));
    case Opcode::kReduce:
      return AddKernel(instr, kernels_.AddReduce(instr));
    case Opcode::kWhile:
    case Opcode::kIf:
    case Opcode::kCase:
      return EmitControlFlow(instr);
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      return AddKernel(instr, kernels_.AddDynamicSlice(instr));
    case Opcode::kGather:
      return AddKernel(instr, kernels_.AddGather(instr));
    case Opcode::kScatter:
      return AddKernels(instr, kernels_.AddScatter(instr));
    case Opcode::kSort:
      return AddKernels(instr, kernels_.AddSort(instr), {scratch_of_.at(&instr)});
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kConvolution:
      return AddKernel(instr, kernels_.AddWindowOp(instr));
    case Opcode::kDotGeneral: {
      absl::StatusOr<MatmulPlan> plan = PlanMatmul(instr);
      if (!plan.ok()) return plan.status();
      Step step;
      step.kind = Step::Kind::kMatmul;
      step.matmul = *plan;
      step.slots = {Slots(*instr.operand(0))[0], Slots(*instr.operand(1))[0], Slots(instr)[0],
                    workspace_of_.at(&instr)};
      program_.steps.push_back(std::move(step));
      return absl::OkStatus();
    }
    default:
      return Unsupported(instr, "this op");
  }
}

absl::Status Lowering::EmitControlFlow(const Instruction& instr) {
  Step step;
  step.kind = instr.opcode() == Opcode::kWhile ? Step::Kind::kWhile : Step::Kind::kBranch;
  step.is_if = instr.opcode() == Opcode::kIf;
  for (const Instruction* o : instr.operands()) {
    std::vector<int32_t> s = Slots(*o);
    step.slots.insert(step.slots.end(), s.begin(), s.end());
  }
  step.num_operand_leaves = static_cast<int64_t>(step.slots.size());
  std::vector<int32_t> out = Slots(instr);
  step.slots.insert(step.slots.end(), out.begin(), out.end());
  if (step.kind == Step::Kind::kWhile && static_cast<int64_t>(out.size()) > step.num_operand_leaves) {
    return Unsupported(instr, "a while with more results than operands");
  }
  if (step.kind == Step::Kind::kBranch && step.num_operand_leaves < 1) {
    return Unsupported(instr, "a branch without a predicate");
  }
  for (const Computation* region : instr.called_computations()) {
    absl::StatusOr<std::unique_ptr<Module>> module = passes::RegionAsModule(*region);
    if (!module.ok()) return module.status();
    absl::StatusOr<LoweredProgram> lowered = Lowering().Lower(**module);
    if (!lowered.ok()) return lowered.status();
    step.regions.push_back(static_cast<int>(program_.regions.size()));
    program_.regions.push_back(*std::move(lowered));
  }
  program_.steps.push_back(std::move(step));
  return absl::OkStatus();
}

absl::StatusOr<LoweredProgram> Lowering::Lower(const Module& original) {
  absl::StatusOr<std::unique_ptr<Module>> prepared = RunPasses(original);
  if (!prepared.ok()) return prepared.status();
  const Computation& entry = *(*prepared)->entry();
  passes::BufferAssignmentOptions options;
  options.alignment = 256;  // cuBLASLt and vector loads like 256-byte alignment
  absl::StatusOr<BufferAssignment> assignment = BufferAssignment::Create(entry, options);
  if (!assignment.ok()) return assignment.status();
  assignment_.emplace(*std::move(assignment));
  for (const auto& instr : entry.instructions()) {
    if (instr->opcode() == Opcode::kDotGeneral) {
      workspace_of_[instr.get()] = assignment_->AddScratch(*instr, CublasLtMatmul::kMaxWorkspaceBytes);
    } else if (instr->opcode() == Opcode::kSort) {
      scratch_of_[instr.get()] = assignment_->AddScratch(*instr, std::max<int64_t>(SortScratchBytes(*instr), 4));
    }
  }
  assignment_->AssignOffsets();
  for (const auto& instr : entry.instructions()) {
    if (absl::Status s = Emit(*instr); !s.ok()) return s;
  }
  // Results that are a parameter, a constant or another result: copied at the end.
  for (const BufferAssignment::ResultPlacement& r : assignment_->results()) {
    if (r.copy_from < 0) continue;
    Step step;
    step.kind = Step::Kind::kCopy;
    step.slots = {r.copy_from, r.buffer};
    step.bytes = assignment_->buffer(r.buffer).bytes;
    program_.steps.push_back(std::move(step));
  }
  for (const LogicalBuffer& b : assignment_->buffers()) {
    BufferSlot slot;
    slot.bytes = b.bytes;
    slot.offset = b.offset;
    slot.number = b.number;
    switch (b.kind) {
      case LogicalBuffer::Kind::kParameter: slot.kind = BufferSlot::Kind::kParameter; break;
      case LogicalBuffer::Kind::kResult: slot.kind = BufferSlot::Kind::kResult; break;
      case LogicalBuffer::Kind::kArena: slot.kind = BufferSlot::Kind::kArena; break;
      case LogicalBuffer::Kind::kConstant:
        slot.kind = BufferSlot::Kind::kConstant;
        slot.number = static_cast<int64_t>(program_.constants.size());
        program_.constants.push_back(b.defined_by->attrs<ConstantAttrs>().value);
        break;
    }
    program_.slots.push_back(slot);
  }
  program_.source = kernels_.source();
  program_.arena_bytes = assignment_->arena_bytes();
  program_.num_parameters = static_cast<int64_t>(entry.parameters().size());
  program_.num_results = static_cast<int64_t>(entry.results().size());
  for (const Instruction* r : entry.results()) program_.result_bytes.push_back(r->shape().byte_size());
  return std::move(program_);
}

}  // namespace

absl::StatusOr<LoweredProgram> LowerForCuda(const Module& module) {
  return Lowering().Lower(module);
}

std::vector<void*> BindSlots(const LoweredProgram& program, absl::Span<const void* const> args,
                             absl::Span<void* const> results, char* arena,
                             absl::Span<void* const> constants) {
  std::vector<void*> address(program.slots.size(), nullptr);
  for (size_t i = 0; i < program.slots.size(); ++i) {
    const BufferSlot& slot = program.slots[i];
    switch (slot.kind) {
      case BufferSlot::Kind::kParameter: address[i] = const_cast<void*>(args[slot.number]); break;
      case BufferSlot::Kind::kResult: address[i] = results[slot.number]; break;
      case BufferSlot::Kind::kArena: address[i] = arena + slot.offset; break;
      case BufferSlot::Kind::kConstant: address[i] = constants[slot.number]; break;
    }
  }
  return address;
}

size_t ChooseBranch(const Step& step, bool predicate, int32_t index) {
  if (step.is_if) return predicate ? 0 : 1;
  return (index < 0 || static_cast<size_t>(index) >= step.regions.size()) ? step.regions.size() - 1
                                                                         : static_cast<size_t>(index);
}

}  // namespace xjit::cuda
