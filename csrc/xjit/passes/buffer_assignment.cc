#include "xjit/passes/buffer_assignment.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xjit::passes {
namespace {

int64_t LeafCount(const Shape& s) {
  if (!s.is_tuple) return 1;
  int64_t n = 0;
  for (const Shape& e : s.tuple_shapes) n += LeafCount(e);
  return n;
}

void AppendLeafBytes(const Shape& s, std::vector<int64_t>& out) {
  if (!s.is_tuple) {
    out.push_back(s.byte_size());
    return;
  }
  for (const Shape& e : s.tuple_shapes) AppendLeafBytes(e, out);
}

absl::Status Unsupported(const Instruction& instr, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("buffer assignment: ", OpcodeName(instr.opcode()),
                                                 " (instruction %", instr.id(), "): ", why));
}

}  // namespace

BufferId BufferAssignment::NewBuffer(LogicalBuffer::Kind kind, int64_t bytes,
                                     const Instruction* defined_by, int64_t step) {
  buffers_.push_back(LogicalBuffer{kind, 0, bytes, 0, defined_by});
  first_step_.push_back(step);
  last_step_.push_back(step);
  return static_cast<BufferId>(buffers_.size() - 1);
}

absl::StatusOr<BufferAssignment> BufferAssignment::Create(const Computation& entry,
                                                          const BufferAssignmentOptions& options) {
  BufferAssignment a;
  a.alignment_ = std::max<int64_t>(1, options.alignment);
  const auto& instrs = entry.instructions();
  a.num_steps_ = static_cast<int64_t>(instrs.size()) + 1;  // + the final result copies
  for (size_t t = 0; t < instrs.size(); ++t) {
    const Instruction& instr = *instrs[t];
    const int64_t step = static_cast<int64_t>(t);
    std::vector<BufferId>& leaves = a.leaves_[&instr];
    if (const Instruction* by = options.computed_by ? options.computed_by(instr) : nullptr) {
      auto it = a.leaves_.find(by);
      if (it == a.leaves_.end() || by == &instr) {
        return Unsupported(instr, "computed by an instruction that does not come before it");
      }
      for (const Instruction* o : instr.operands()) {
        for (BufferId b : a.leaves_.at(o)) a.last_step_[b] = std::max(a.last_step_[b], step);
      }
      leaves = it->second;
      continue;
    }
    switch (instr.opcode()) {
      case Opcode::kCall:
      case Opcode::kComposite:
        return Unsupported(instr, "calls must be inlined before buffer assignment");
      case Opcode::kUniformQuantize:
      case Opcode::kUniformDequantize:
        return Unsupported(instr, "quantized types must be expanded before buffer assignment");
      case Opcode::kParameter: {
        if (instr.shape().is_tuple) return Unsupported(instr, "a tuple parameter of the entry");
        BufferId b = a.NewBuffer(LogicalBuffer::Kind::kParameter, instr.shape().byte_size(), &instr, step);
        const int64_t number = instr.attrs<ParameterAttrs>().number;
        a.buffers_[b].number = number;
        if (number >= 0) {
          if (number >= static_cast<int64_t>(a.parameter_buffers_.size())) {
            a.parameter_buffers_.resize(number + 1, -1);
          }
          a.parameter_buffers_[number] = b;
        }
        leaves.push_back(b);
        continue;
      }
      case Opcode::kReshape:
        leaves = a.leaves_.at(instr.operand(0));
        continue;
      case Opcode::kTuple:
      case Opcode::kOptimizationBarrier:  // the identity: its operands' buffers
        for (const Instruction* o : instr.operands()) {
          const std::vector<BufferId>& l = a.leaves_.at(o);
          leaves.insert(leaves.end(), l.begin(), l.end());
        }
        continue;
      case Opcode::kGetTupleElement: {
        const Shape& t = instr.operand(0)->shape();
        const int64_t index = instr.attrs<GetTupleElementAttrs>().index;
        if (!t.is_tuple || index < 0 || index >= static_cast<int64_t>(t.tuple_shapes.size())) {
          return Unsupported(instr, "index out of range");
        }
        int64_t first = 0;
        for (int64_t i = 0; i < index; ++i) first += LeafCount(t.tuple_shapes[i]);
        const std::vector<BufferId>& l = a.leaves_.at(instr.operand(0));
        leaves.assign(l.begin() + first, l.begin() + first + LeafCount(t.tuple_shapes[index]));
        continue;
      }
      // Ops that compute new values: buffers of their own, below.
      case Opcode::kConstant:
      case Opcode::kIota:
      XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
      case Opcode::kBroadcastInDim:
      case Opcode::kTranspose:
      case Opcode::kSlice:
      case Opcode::kConcatenate:
      case Opcode::kPad:
      case Opcode::kReverse:
      case Opcode::kBitcastConvert:
      XJIT_SORT_OPS(XJIT_OPCODE_CASE)
      XJIT_MAP_OPS(XJIT_OPCODE_CASE)
      XJIT_NORMALIZATION_OPS(XJIT_OPCODE_CASE)
      XJIT_LINEAR_ALGEBRA_OPS(XJIT_OPCODE_CASE)
      XJIT_INDEXING_OPS(XJIT_OPCODE_CASE)
      XJIT_CONTROL_FLOW_OPS(XJIT_OPCODE_CASE)
      XJIT_WINDOW_OPS(XJIT_OPCODE_CASE)
      XJIT_CONTRACTION_OPS(XJIT_OPCODE_CASE)
      XJIT_REDUCTION_OPS(XJIT_OPCODE_CASE)
      XJIT_FUSION_OPS(XJIT_OPCODE_CASE)
      XJIT_RANDOM_OPS(XJIT_OPCODE_CASE)
      XJIT_HOST_IO_OPS(XJIT_OPCODE_CASE)
      XJIT_CUSTOM_CALL_OPS(XJIT_OPCODE_CASE)
      XJIT_SPECTRAL_OPS(XJIT_OPCODE_CASE)
      case Opcode::kReplicaId:
      case Opcode::kPartitionId:
        break;
      XJIT_DYNAMIC_SHAPE_OPS(XJIT_OPCODE_CASE)
        return Unsupported(instr, "dynamic-shape ops must be lowered before buffer assignment");
    }
    const bool constant = options.is_constant ? options.is_constant(instr)
                                              : instr.opcode() == Opcode::kConstant;
    // Operands are read at this step: they live at least until here.
    for (const Instruction* o : instr.operands()) {
      for (BufferId b : a.leaves_.at(o)) a.last_step_[b] = std::max(a.last_step_[b], step);
    }
    if (options.extra_reads) {
      for (const Instruction* o : options.extra_reads(instr)) {
        auto it = a.leaves_.find(o);
        if (it == a.leaves_.end()) return Unsupported(instr, "reads a value defined after it");
        for (BufferId b : it->second) a.last_step_[b] = std::max(a.last_step_[b], step);
      }
    }
    std::vector<int64_t> bytes;
    AppendLeafBytes(instr.shape(), bytes);
    for (int64_t size : bytes) {
      leaves.push_back(a.NewBuffer(
          constant ? LogicalBuffer::Kind::kConstant : LogicalBuffer::Kind::kArena, size, &instr, step));
    }
  }
  const int64_t end = a.num_steps_ - 1;
  for (size_t i = 0; i < entry.results().size(); ++i) {
    const Instruction& r = *entry.results()[i];
    const std::vector<BufferId>& l = a.leaves_.at(&r);
    if (r.shape().is_tuple || l.size() != 1) return Unsupported(r, "a tuple result of the entry");
    BufferId b = l[0];
    if (a.buffers_[b].kind == LogicalBuffer::Kind::kArena) {
      a.buffers_[b].kind = LogicalBuffer::Kind::kResult;
      a.buffers_[b].number = static_cast<int64_t>(i);
      a.results_.push_back({b, -1});
      continue;
    }
    BufferId copy = a.NewBuffer(LogicalBuffer::Kind::kResult, a.buffers_[b].bytes, nullptr, end);
    a.buffers_[copy].number = static_cast<int64_t>(i);
    a.last_step_[b] = end;
    a.results_.push_back({copy, b});
  }
  return a;
}

BufferId BufferAssignment::AddScratch(const Instruction& instr, int64_t bytes) {
  return NewBuffer(LogicalBuffer::Kind::kArena, bytes, &instr, instr.id());
}

absl::Span<const BufferId> BufferAssignment::leaves(const Instruction& instr) const {
  auto it = leaves_.find(&instr);
  if (it == leaves_.end()) return {};
  return it->second;
}

BufferId BufferAssignment::parameter_buffer(int64_t parameter) const {
  if (parameter < 0 || parameter >= static_cast<int64_t>(parameter_buffers_.size())) return -1;
  return parameter_buffers_[parameter];
}

BufferAssignment::ResultWrite BufferAssignment::ResultWriteVsParameterRead(
    int64_t result, int64_t parameter) const {
  if (result < 0 || result >= static_cast<int64_t>(results_.size())) {
    return ResultWrite::kBeforeLastRead;
  }
  const BufferId p = parameter_buffer(parameter);
  // A parameter is born at its own step and read only at later ones.
  if (p < 0 || last_step_[p] == first_step_[p]) return ResultWrite::kAfterLastRead;
  const int64_t write = first_step_[results_[result].buffer];
  if (write > last_step_[p]) return ResultWrite::kAfterLastRead;
  if (write == last_step_[p]) return ResultWrite::kAtLastRead;
  return ResultWrite::kBeforeLastRead;
}

// First fit: at each step the buffers born there are placed before those
// dying there are released, so an instruction's outputs (and scratch) never
// share bytes with its inputs.
void BufferAssignment::AssignOffsets() {
  if (offsets_assigned_) return;
  offsets_assigned_ = true;
  const int64_t n = static_cast<int64_t>(buffers_.size());
  std::vector<std::vector<BufferId>> born(num_steps_), dies(num_steps_);
  for (BufferId b = 0; b < n; ++b) {
    if (buffers_[b].kind != LogicalBuffer::Kind::kArena) continue;
    born[first_step_[b]].push_back(b);
    dies[last_step_[b]].push_back(b);
  }
  auto aligned = [&](BufferId b) {
    return std::max(alignment_, (buffers_[b].bytes + alignment_ - 1) / alignment_ * alignment_);
  };
  std::map<int64_t, int64_t> free_blocks;  // offset -> size
  int64_t arena_end = 0;
  auto release = [&](int64_t offset, int64_t size) {
    auto it = free_blocks.emplace(offset, size).first;
    auto next = std::next(it);
    if (next != free_blocks.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_blocks.erase(next);
    }
    if (it != free_blocks.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_blocks.erase(it);
      }
    }
  };
  for (int64_t t = 0; t < num_steps_; ++t) {
    for (BufferId b : born[t]) {
      const int64_t size = aligned(b);
      auto fit = std::find_if(free_blocks.begin(), free_blocks.end(),
                              [&](const auto& block) { return block.second >= size; });
      if (fit != free_blocks.end()) {
        const int64_t offset = fit->first, left = fit->second - size;
        free_blocks.erase(fit);
        if (left > 0) free_blocks.emplace(offset + size, left);
        buffers_[b].offset = offset;
      } else if (!free_blocks.empty() &&
                 std::prev(free_blocks.end())->first + std::prev(free_blocks.end())->second ==
                     arena_end) {
        // Grow the trailing free block instead of leaving it stranded.
        auto tail = std::prev(free_blocks.end());
        buffers_[b].offset = tail->first;
        arena_end = tail->first + size;
        free_blocks.erase(tail);
      } else {
        buffers_[b].offset = arena_end;
        arena_end += size;
      }
    }
    for (BufferId b : dies[t]) release(buffers_[b].offset, aligned(b));
  }
  arena_bytes_ = arena_end;
}

}  // namespace xjit::passes
