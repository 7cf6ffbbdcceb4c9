// The "cpu" compiler: runs the passes (calls inlined, element-wise clusters
// fused, buffers assigned; see passes/), then lowers each instruction of the
// entry to a thunk over the assigned buffers. A fusion instruction becomes one
// tiled chain (fusion.h); reshape, tuple and get_tuple_element are aliases and
// get no thunk; constants and iotas are owned by the program.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/control_flow.h"
#include "xjit/backends/cpu/custom_call.h"
#include "xjit/backends/cpu/batch_norm.h"
#include "xjit/backends/cpu/convolution.h"
#include "xjit/backends/cpu/data_movement.h"
#include "xjit/backends/cpu/donation.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/backends/cpu/epilogue.h"
#include "xjit/backends/cpu/fft.h"
#include "xjit/backends/cpu/fusion.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/gather.h"
#include "xjit/backends/cpu/index_wrap.h"
#include "xjit/backends/cpu/linalg.h"
#include "xjit/backends/cpu/map.h"
#include "xjit/backends/cpu/matmul.h"
#include "xjit/backends/cpu/operand_reads.h"
#include "xjit/backends/cpu/program.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/backends/cpu/rng_bit_generator.h"
#include "xjit/backends/cpu/scatter.h"
#include "xjit/backends/cpu/sort.h"
#include "xjit/backends/cpu/window.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/backends/cpu/host_io.h"
#include "xjit/passes/buffer_assignment.h"
#include "xjit/passes/elementwise_fusion.h"
#include "xjit/passes/pipeline.h"
#include "xjit/passes/reduction_splitting.h"
#include "xjit/passes/region_module.h"
#include "xjit/ir/users.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/host_platform.h"

namespace xjit::cpu {
namespace {

using passes::BufferAssignment;
using passes::BufferAssignmentOptions;
using passes::BufferId;
using passes::LogicalBuffer;

absl::Status Unsupported(const Instruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(OpcodeName(instr.opcode()), ": ", why,
                                               " is not supported by the cpu backend (",
                                               instr.shape().ToString(), ")"));
}

// The module the cpu lowers: the default pipeline (calls inlined, dead code
// dropped, folding, CSE, ...), then element-wise clusters fused. Each step
// copies only when it changes something; `module` points at the latest.
struct PreparedModule {
  std::unique_ptr<Module> owned;
  const Module* module = nullptr;

  absl::Status Take(absl::StatusOr<std::unique_ptr<Module>> next) {
    if (!next.ok()) return next.status();
    if (*next == nullptr) return absl::OkStatus();  // unchanged
    owned = *std::move(next);
    module = owned.get();
    return absl::OkStatus();
  }
};

absl::StatusOr<PreparedModule> RunPasses(const Module& module) {
  if (module.entry() == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  PreparedModule prepared{nullptr, &module};
  // Dynamic shapes, quantized and narrow types lowered first (issues 10, 11).
  if (absl::Status s = prepared.Take(passes::LowerForBackends(module)); !s.ok()) return s;
  if (absl::Status s = prepared.Take(passes::RunDefaultPipelineIfChanged(*prepared.module));
      !s.ok()) {
    return s;
  }
  // Long full reductions split into rows, which fuse with their producers
  // and run in parallel (passes/reduction_splitting.h).
  if (absl::Status s = prepared.Take(passes::SplitReductionsIfChanged(*prepared.module));
      !s.ok()) {
    return s;
  }
  passes::FusionOptions fusion;
  // Row fusion where the typed reduce kernel exists (row_fusion.h).
  fusion.row_reduce = [](const Instruction& reduce) { return GetRowReduceKernel(reduce) != nullptr; };
  // Column fusion likewise, for columns whose block buffers fit the scratch
  // (row_fusion.h).
  fusion.column_reduce = [max = fusion.max_row_size](const Instruction& reduce) {
    return GetColumnReduceKernel(reduce) != nullptr &&
           reduce.shape().num_elements() <= max;
  };
  if (absl::Status s = prepared.Take(passes::FuseElementwiseIfChanged(*prepared.module, fusion));
      !s.ok()) {
    return s;
  }
  return prepared;
}

absl::StatusOr<std::unique_ptr<CpuProgram>> CompileRegion(const Computation& region);

class Lowering : public LoweringContext {
 public:
  absl::StatusOr<std::unique_ptr<CpuProgram>> Lower(const Module& module);

  SlotId NewScratch(int64_t bytes) override { return assignment_->AddScratch(*current_, bytes); }

 private:
  absl::Status EmitInstruction(const Instruction& instr);
  // The thunks of a consumer of operand_reads_: its generated kernel reading
  // the producers in place (true), or the producers' own thunks (false: the
  // consumer's plain thunk follows).
  absl::StatusOr<bool> EmitReadingInPlace(const Instruction& instr, const std::vector<SlotId>& in,
                                          const std::vector<SlotId>& out,
                                          const std::vector<InPlaceRead>& reads);
  void AddConstant(const Instruction& instr, Literal literal) {
    constant_of_[assignment_->leaves(instr)[0]] = static_cast<int64_t>(constants_.size());
    constants_.push_back(std::move(literal));
  }
  std::vector<SlotId> Leaves(const Instruction& instr) const {
    absl::Span<const BufferId> l = assignment_->leaves(instr);
    return std::vector<SlotId>(l.begin(), l.end());
  }
  std::vector<Slot> MakeSlots() const;
  void PlanEpilogues(const Computation& entry);
  void PlanIndexWraps(const Computation& entry);
  void PlanSplatUpdates(const Computation& entry);
  void PlanSortPrefixes(const Computation& entry);

  std::optional<BufferAssignment> assignment_;  // slot ids are buffer ids
  const Instruction* current_ = nullptr;
  std::vector<Literal> constants_;
  absl::flat_hash_map<BufferId, int64_t> constant_of_;
  ThunkList thunks_;
  // Convolutions that apply their consumers' bias/ReLU (epilogue.h), and the
  // absorbed consumers, which the convolution computes into its own buffer.
  absl::flat_hash_map<const Instruction*, Epilogue> epilogue_of_;
  absl::flat_hash_map<const Instruction*, const Instruction*> computed_by_;
  // Row gathers/scatters that wrap their raw indices (index_wrap.h).
  absl::flat_hash_map<const Instruction*, IndexWrap> wrap_of_;
  // Instructions a consumer's thunk computes (no thunk of their own): index
  // normalisations absorbed by row gathers/scatters, broadcast updates by
  // dynamic_update_slices (splat_update_of_).
  absl::flat_hash_set<const Instruction*> absorbed_;
  // Row gathers that apply JAX's fill mode (index_wrap.h) into the buffer
  // of the fill's fusion (in computed_by_).
  absl::flat_hash_map<const Instruction*, IndexFill> fill_of_;
  // dynamic_update_slices whose update is a broadcast of one element used
  // nowhere else: the slice fills its box from the element (x.at[box].set(scalar)).
  absl::flat_hash_map<const Instruction*, const Instruction*> splat_update_of_;
  // Fusions and element-wise ops reading an operand through a reverse or a
  // slice used nowhere else (operand_reads.h).
  OperandReadPlan operand_reads_;
  // Sorts whose results are read only in their first elements along the
  // sort dimension (top_k), and how many (sort.h's prefix).
  absl::flat_hash_map<const Instruction*, int64_t> sort_prefix_;
  int64_t work_ = 0;  // InlineWork summed over the thunks
};

absl::Status Lowering::EmitInstruction(const Instruction& instr) {
  const Opcode op = instr.opcode();
  std::vector<SlotId> in;
  for (const Instruction* o : instr.operands()) {
    absl::Span<const BufferId> l = assignment_->leaves(*o);
    in.insert(in.end(), l.begin(), l.end());
  }
  const std::vector<SlotId> out = Leaves(instr);
  auto array_operands = [&]() {
    for (const Instruction* o : instr.operands()) {
      if (o->shape().is_tuple) return Unsupported(instr, "a tuple operand");
    }
    if (instr.shape().is_tuple && !HasMultipleResults(op)) return Unsupported(instr, "a tuple result");
    return absl::OkStatus();
  };
  if (computed_by_.contains(&instr)) return absl::OkStatus();  // in its producer's thunk
  if (absorbed_.contains(&instr)) return absl::OkStatus();  // in its consumer's
  const IndexWrap* wrap = nullptr;
  if (auto it = wrap_of_.find(&instr); it != wrap_of_.end()) {
    wrap = &it->second;
    in[1] = Leaves(*wrap->raw)[0];  // the raw indices (operand 1 of both)
  }
  absl::StatusOr<std::unique_ptr<Thunk>> thunk;
  int64_t work = EstimateInstructionWork(instr);
  if (auto it = operand_reads_.find(&instr); it != operand_reads_.end()) {
    if (absl::Status s = array_operands(); !s.ok()) return s;
    absl::StatusOr<bool> done = EmitReadingInPlace(instr, in, out, it->second);
    if (!done.ok() || *done) return done.status();
  }
  switch (op) {
    // Aliases (row-major bytes are unchanged): the same buffers, no thunk.
    case Opcode::kParameter:
    case Opcode::kReshape:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kOptimizationBarrier:
      return absl::OkStatus();
    case Opcode::kReplicaId:  // one process: replica 0, partition 0
    case Opcode::kPartitionId:
      AddConstant(instr, Literal::Scalar(DType::kU32, uint32_t{0}));
      return absl::OkStatus();
    case Opcode::kFft:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeFftThunk(instr, in[0], out[0]);
      break;
    XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kRng:
    case Opcode::kUniformQuantize:
    case Opcode::kUniformDequantize:
      return Unsupported(instr, "lowered before compiling (passes::LowerForBackends)");
    case Opcode::kConstant: {
      const Literal& value = instr.attrs<ConstantAttrs>().value;
      if (value.shape() != instr.shape()) {
        return absl::InvalidArgumentError("constant: missing or mistyped literal");
      }
      AddConstant(instr, value);
      return absl::OkStatus();
    }
    case Opcode::kIota: {
      auto lit = EvaluateIota(instr.shape(), instr.attrs<IotaAttrs>().iota_dimension);
      if (!lit.ok()) return lit.status();
      AddConstant(instr, *std::move(lit));
      return absl::OkStatus();
    }
    case Opcode::kCall:
    case Opcode::kComposite:
      return Unsupported(instr, "a call left after inlining");
    case Opcode::kFusion:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeFusionThunk(instr, in, out, &work);
      break;
    case Opcode::kReduce:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeReduceThunk(instr, in, out);
      break;
    case Opcode::kRngBitGenerator:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeRngBitGeneratorThunk(instr, in[0], out[0], out[1]);
      break;
    case Opcode::kSort:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeSortThunk(instr, in, out,
                            sort_prefix_.contains(&instr) ? sort_prefix_.at(&instr) : 0);
      break;
    case Opcode::kMap:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeMapThunk(instr, in, out[0]);
      break;
    case Opcode::kGather:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      if (auto it = fill_of_.find(&instr); it != fill_of_.end()) {
        thunk = MakeGatherThunk(instr, in, out[0], wrap != nullptr ? wrap->n : 0, &it->second);
      } else {
        thunk = MakeGatherThunk(instr, in, out[0], wrap != nullptr ? wrap->n : 0);
      }
      break;
    case Opcode::kDynamicSlice:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeDynamicSliceThunk(instr, in, out[0]);
      break;
    case Opcode::kScatter:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeScatterThunk(instr, in, out, wrap != nullptr ? wrap->n : 0);
      break;
    case Opcode::kDynamicUpdateSlice: {
      if (absl::Status s = array_operands(); !s.ok()) return s;
      auto splat = splat_update_of_.find(&instr);
      if (splat != splat_update_of_.end()) in[1] = Leaves(*splat->second)[0];
      thunk = MakeDynamicUpdateSliceThunk(instr, in, out[0], splat != splat_update_of_.end());
      break;
    }
    case Opcode::kWhile:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeWhileThunk(instr, in, out, *this, CompileRegion);
      break;
    case Opcode::kIf:
    case Opcode::kCase:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeBranchThunk(instr, in, out, CompileRegion);
      break;
    case Opcode::kConvolution:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      if (auto it = epilogue_of_.find(&instr); it != epilogue_of_.end()) {
        std::vector<SlotId> step_inputs;
        for (const EpilogueStep& s : it->second.steps) {
          step_inputs.push_back(s.operand != nullptr ? Leaves(*s.operand)[0] : SlotId{-1});
        }
        thunk = MakeConvolutionThunk(instr, in[0], in[1], out[0], *this, &it->second,
                                     step_inputs);
      } else {
        thunk = MakeConvolutionThunk(instr, in[0], in[1], out[0], *this);
      }
      break;
    case Opcode::kReduceWindow:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeReduceWindowThunk(instr, in, out);
      break;
    case Opcode::kSelectAndScatter:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeSelectAndScatterThunk(instr, in, out[0], *this);
      break;
    XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeBatchNormThunk(instr, in, out, *this);
      break;
    XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      thunk = MakeHostIoThunk(instr, in, out);
      break;
    XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeLinalgThunk(instr, in, out[0]);
      break;
    case Opcode::kCustomCall:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeCustomCallThunk(instr, in, out);
      break;
    case Opcode::kBitcastConvert:  // the same little-endian bytes, retyped
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeCopyThunk(in[0], out[0], instr.shape().byte_size());
      break;
    XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      if (absl::Status s = array_operands(); !s.ok()) return s;
      if (in.size() == 1) {
        if (std::unique_ptr<Thunk> jit = MakeJitUnaryThunk(instr, in[0], out[0], &work)) {
          thunk = std::move(jit);
          break;
        }
      }
      thunk = MakeElementwiseThunk(instr, in, out[0]);
      break;
    case Opcode::kDotGeneral:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeDotGeneralThunk(instr, in[0], in[1], out[0], *this);
      break;
    case Opcode::kBroadcastInDim:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kPad:
      if (absl::Status s = array_operands(); !s.ok()) return s;
      thunk = MakeDataMovementThunk(instr, in, out[0]);
      break;
  }
  if (!thunk.ok()) return thunk.status();
  thunks_.push_back(std::move(*thunk));
  work_ += InlineWork(instr, work);
  return absl::OkStatus();
}

absl::StatusOr<bool> Lowering::EmitReadingInPlace(const Instruction& instr,
                                                  const std::vector<SlotId>& in,
                                                  const std::vector<SlotId>& out,
                                                  const std::vector<InPlaceRead>& reads) {
  std::vector<SlotId> through = in;  // array operands: one slot each
  std::vector<OperandRead> how(instr.operands().size());
  for (size_t i = 0; i < instr.operands().size(); ++i) {
    for (const InPlaceRead& r : reads) {
      if (r.producer != instr.operand(i)) continue;
      through[i] = Leaves(*r.producer->operand(0))[0];
      how[i] = r.read;
    }
  }
  int64_t work = EstimateInstructionWork(instr);
  std::unique_ptr<Thunk> jit =
      instr.opcode() == Opcode::kFusion ? MakeJitFusionThunk(instr, through, out, &work, how)
                                        : MakeJitLoneOpThunk(instr, through, out[0], &work, how);
  if (jit != nullptr) {
    thunks_.push_back(std::move(jit));
    work_ += InlineWork(instr, work);
    return true;
  }
  for (const InPlaceRead& r : reads) {  // not generated: the producers first
    auto produce = MakeDataMovementThunk(*r.producer, Leaves(*r.producer->operand(0)),
                                         Leaves(*r.producer)[0]);
    if (!produce.ok()) return produce.status();
    thunks_.push_back(std::move(*produce));
    work_ += InlineWork(*r.producer, r.producer->shape().num_elements());
  }
  return false;
}

// Each convolution whose consumers form an epilogue absorbs them, when the
// values the steps read are computed before it.
void Lowering::PlanEpilogues(const Computation& entry) {
  Users users(entry);
  absl::flat_hash_map<const Instruction*, int64_t> position;
  for (const auto& instr : entry.instructions()) {
    position[instr.get()] = static_cast<int64_t>(position.size());
  }
  for (const auto& instr : entry.instructions()) {
    if (instr->opcode() != Opcode::kConvolution) continue;
    const int64_t feature =
        instr->attrs<ConvolutionAttrs>().dimension_numbers.output_feature_dimension;
    std::optional<Epilogue> e = MatchEpilogue(*instr, feature, users);
    if (!e) continue;
    bool ready = true;
    for (const EpilogueStep& s : e->steps) {
      if (s.operand == nullptr) continue;
      const Instruction* v = s.operand;  // a reshape has no step: where its bytes come from
      while (v->opcode() == Opcode::kReshape) v = v->operand(0);
      auto it = position.find(v);
      ready = ready && it != position.end() && it->second < position[instr.get()] &&
              !s.operand->shape().is_tuple;
    }
    if (!ready) continue;
    for (const Instruction* a : e->absorbed) computed_by_[a] = instr.get();
    epilogue_of_[instr.get()] = *std::move(e);
  }
}

// A dynamic_update_slice whose update is a broadcast of one element, used
// nowhere else, fills its box from the element (x.at[box].set(scalar)).
void Lowering::PlanSplatUpdates(const Computation& entry) {
  Users users(entry);
  for (const auto& instr : entry.instructions()) {
    if (instr->opcode() != Opcode::kDynamicUpdateSlice) continue;
    const Instruction* update = instr->operand(1);
    if (update->opcode() != Opcode::kBroadcastInDim || update == instr->operand(0) ||
        update->operand(0)->shape().num_elements() != 1 || update->operand(0)->shape().is_tuple ||
        users.IsResult(*update) || users.of(*update).size() != 1) {
      continue;
    }
    splat_update_of_[instr.get()] = update->operand(0);
    absorbed_.insert(update);
  }
}

// A sort whose every result is read only by slices of its first k elements
// along the sort dimension (all of every other dim) sorts only those.
void Lowering::PlanSortPrefixes(const Computation& entry) {
  Users users(entry);
  for (const auto& instr : entry.instructions()) {
    if (instr->opcode() != Opcode::kSort || users.IsResult(*instr)) continue;
    const int64_t rank = instr->operand(0)->shape().rank();
    int64_t d = instr->attrs<SortAttrs>().dimension;
    if (d < 0) d += rank;
    int64_t prefix = 0;
    bool only_prefixes = true;
    auto read_by_slices = [&](const Instruction& v) {
      if (users.IsResult(v) || users.of(v).empty()) return false;
      for (const Instruction* u : users.of(v)) {
        if (u->opcode() != Opcode::kSlice) return false;
        const SliceAttrs& a = u->attrs<SliceAttrs>();
        for (int64_t k = 0; k < rank; ++k) {
          const int64_t step = a.strides.empty() ? 1 : a.strides[k];
          const bool whole = a.start_indices[k] == 0 && step == 1 &&
                             (k == d || a.limit_indices[k] == v.shape().dims[k]);
          if (!whole) return false;
        }
        prefix = std::max(prefix, a.limit_indices[d]);
      }
      return true;
    };
    if (instr->shape().is_tuple) {
      for (const Instruction* u : users.of(*instr)) {
        only_prefixes &= u->opcode() == Opcode::kGetTupleElement && read_by_slices(*u);
      }
    } else {
      only_prefixes = read_by_slices(*instr);
    }
    if (only_prefixes && prefix > 0) sort_prefix_[instr.get()] = prefix;
  }
}

// Each gather/scatter of rows whose indices are JAX's normalisation of
// negative indices, used by nothing else, reads the raw indices instead; a
// gather of scalars followed by JAX's fill applies the fill itself, and so
// does a gather of columns (both wrap and fill, or neither).
void Lowering::PlanIndexWraps(const Computation& entry) {
  Users users(entry);
  for (const auto& instr : entry.instructions()) {
    const Opcode op = instr->opcode();
    if (op == Opcode::kGather && GatherOfColumns(*instr)) {
      // x[..., idx] in fill mode (jnp.take's default along the last axis):
      // the gather wraps the raw indices and writes the fill itself.
      std::optional<IndexWrap> w = MatchIndexWrap(*instr->operand(1), users);
      if (!w || w->n != instr->operand(0)->shape().dims.back() || w->raw->shape().is_tuple) {
        continue;
      }
      std::optional<IndexFill> f = MatchIndexFill(*instr, *w->raw, users, /*columns=*/true);
      if (!f) continue;
      absorbed_.insert(w->fusion);
      wrap_of_[instr.get()] = *w;
      computed_by_[f->fusion] = instr.get();
      fill_of_[instr.get()] = *f;
      continue;
    }
    const bool rows = (op == Opcode::kGather && GatherOfRows(*instr)) ||
                      (op == Opcode::kScatter && ScatterOfRows(*instr));
    if (!rows) continue;  // both read their indices as operand 1
    std::optional<IndexWrap> w = MatchIndexWrap(*instr->operand(1), users);
    const bool wraps =
        w && w->n == instr->operand(0)->shape().dims[0] && !w->raw->shape().is_tuple;
    if (wraps) {
      absorbed_.insert(w->fusion);
      wrap_of_[instr.get()] = *w;
    }
    if (op != Opcode::kGather || !GatherFillsRows(*instr)) continue;
    const Instruction* raw = instr->operand(1);
    while (raw->opcode() == Opcode::kReshape) raw = raw->operand(0);
    if (wraps) raw = w->raw;
    if (std::optional<IndexFill> f = MatchIndexFill(*instr, *raw, users)) {
      computed_by_[f->fusion] = instr.get();
      fill_of_[instr.get()] = *f;
    }
  }
}

std::vector<Slot> Lowering::MakeSlots() const {
  std::vector<Slot> slots;
  const std::vector<LogicalBuffer>& buffers = assignment_->buffers();
  for (BufferId b = 0; b < static_cast<BufferId>(buffers.size()); ++b) {
    const LogicalBuffer& buffer = buffers[b];
    Slot slot{Slot::Kind::kArena, buffer.number, buffer.bytes, buffer.offset};
    switch (buffer.kind) {
      case LogicalBuffer::Kind::kParameter: slot.kind = Slot::Kind::kParameter; break;
      case LogicalBuffer::Kind::kResult: slot.kind = Slot::Kind::kResult; break;
      case LogicalBuffer::Kind::kConstant:
        slot.kind = Slot::Kind::kConstant;
        slot.number = constant_of_.at(b);
        break;
      case LogicalBuffer::Kind::kArena: break;
    }
    slots.push_back(slot);
  }
  return slots;
}

absl::StatusOr<std::unique_ptr<CpuProgram>> Lowering::Lower(const Module& module) {
  auto prepared = RunPasses(module);
  if (!prepared.ok()) return prepared.status();
  const Computation& entry = *prepared->module->entry();
  PlanEpilogues(entry);
  PlanIndexWraps(entry);
  PlanSplatUpdates(entry);
  absl::flat_hash_set<const Instruction*> taken = absorbed_;
  for (const auto& [instr, by] : computed_by_) taken.insert(instr);
  operand_reads_ = PlanOperandReads(entry, taken);
  for (const auto& [consumer, reads] : operand_reads_) {
    for (const InPlaceRead& r : reads) absorbed_.insert(r.producer);
  }
  PlanSortPrefixes(entry);
  BufferAssignmentOptions options;
  options.extra_reads = [this](const Instruction& instr) {
    std::vector<const Instruction*> reads;
    if (auto it = wrap_of_.find(&instr); it != wrap_of_.end()) reads.push_back(it->second.raw);
    // An absorbed reverse's or slice's operand is read by its consumer.
    if (auto it = operand_reads_.find(&instr); it != operand_reads_.end()) {
      for (const InPlaceRead& r : it->second) reads.push_back(r.producer->operand(0));
    }
    // The absorbed broadcast's element is read by the slice, not the broadcast.
    if (auto it = splat_update_of_.find(&instr); it != splat_update_of_.end()) {
      reads.push_back(it->second);
    }
    return reads;
  };
  options.computed_by = [this](const Instruction& instr) -> const Instruction* {
    auto it = computed_by_.find(&instr);
    return it == computed_by_.end() ? nullptr : it->second;
  };
  // iota is evaluated at compile time: the program owns it like a constant.
  options.is_constant = [](const Instruction& instr) {
    return instr.opcode() == Opcode::kConstant || instr.opcode() == Opcode::kIota ||
           instr.opcode() == Opcode::kReplicaId || instr.opcode() == Opcode::kPartitionId;
  };
  auto assignment = BufferAssignment::Create(entry, options);
  if (!assignment.ok()) return assignment.status();
  assignment_.emplace(*std::move(assignment));
  for (const auto& instr : entry.instructions()) {
    current_ = instr.get();
    if (absl::Status s = EmitInstruction(*instr); !s.ok()) return s;
  }
  // Results that are parameters, constants or repeated results are copied in.
  for (size_t i = 0; i < assignment_->results().size(); ++i) {
    const BufferAssignment::ResultPlacement& r = assignment_->results()[i];
    if (r.copy_from < 0) continue;
    thunks_.push_back(MakeCopyThunk(r.copy_from, r.buffer, assignment_->buffer(r.buffer).bytes));
    work_ += entry.results()[i]->shape().num_elements();
  }
  assignment_->AssignOffsets();
  const auto num_parameters = static_cast<int64_t>(entry.parameters().size());
  const auto num_results = static_cast<int64_t>(entry.results().size());
  return std::make_unique<CpuProgram>(
      MakeSlots(), std::move(thunks_), std::move(constants_), assignment_->arena_bytes(),
      num_parameters, num_results, work_,
      ReusableResultParameterPairs(*assignment_, num_results, num_parameters));
}

// A region of while/if/case as a program of its own: cloned into a module
// whose entry it is, then optimised and lowered like any entry.
absl::StatusOr<std::unique_ptr<CpuProgram>> CompileRegion(const Computation& region) {
  absl::StatusOr<std::unique_ptr<Module>> module = passes::RegionAsModule(region);
  if (!module.ok()) return module.status();
  Lowering lowering;
  return lowering.Lower(**module);
}

class CpuCompiler : public Compiler {
 public:
  absl::StatusOr<std::unique_ptr<CompiledProgram>> Compile(const Module& module) override {
    try {
      Lowering lowering;
      auto program = lowering.Lower(module);
      if (!program.ok()) return program.status();
      return std::unique_ptr<CompiledProgram>(std::move(*program));
    } catch (const dnnl::error& e) {
      return absl::InternalError(absl::StrCat("oneDNN failed while compiling: ", e.what()));
    }
  }
};

const bool kRegistered = [] {
  // JAX's XLA_FLAGS=--xla_force_host_platform_device_count=N gives N devices.
  RegisterPlatform("cpu", [] {
    return MakeHostPlatform("cpu", std::make_unique<CpuCompiler>(),
                            ForcedHostDeviceCountFromEnvironment());
  });
  return true;
}();

}  // namespace
}  // namespace xjit::cpu
