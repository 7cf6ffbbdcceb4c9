// The "cpu" compiler: lowers the entry computation to thunks (calls are
// inlined, tuples are resolved to their leaves at compile time, reshape is a
// free alias), then plans every intermediate into one arena with
// liveness-based reuse.
#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "dnnl.hpp"
#include "xjit/backends/cpu/data_movement.h"
#include "xjit/backends/cpu/elementwise.h"
#include "xjit/backends/cpu/matmul.h"
#include "xjit/backends/cpu/program.h"
#include "xjit/backends/cpu/reduce.h"
#include "xjit/backends/cpu/work_estimate.h"
#include "xjit/runtime/backend.h"

namespace xjit::cpu {
namespace {

constexpr int64_t kAlignment = 64;

int64_t LeafCount(const Shape& s) {
  if (!s.is_tuple) return 1;
  int64_t n = 0;
  for (const Shape& e : s.tuple_shapes) n += LeafCount(e);
  return n;
}

using Leaves = std::vector<SlotId>;

class Lowering : public LoweringContext {
 public:
  absl::StatusOr<std::unique_ptr<CpuProgram>> Lower(const Module& module);

  SlotId NewScratch(int64_t bytes) override {
    SlotId s = NewSlot(Slot::Kind::kArena, bytes);
    pending_scratch_.push_back(s);
    return s;
  }

 private:
  SlotId NewSlot(Slot::Kind kind, int64_t bytes, int64_t number = 0) {
    slots_.push_back(Slot{kind, number, bytes, 0});
    return static_cast<SlotId>(slots_.size() - 1);
  }
  SlotId NewConstant(Literal literal) {
    int64_t bytes = literal.size_bytes();
    constants_.push_back(std::move(literal));
    return NewSlot(Slot::Kind::kConstant, bytes, static_cast<int64_t>(constants_.size() - 1));
  }
  // Appends a thunk with the slots it reads and writes, for liveness.
  void AddThunk(std::unique_ptr<Thunk> thunk, const Leaves& reads, const Leaves& writes) {
    Leaves w = writes;
    w.insert(w.end(), pending_scratch_.begin(), pending_scratch_.end());
    Leaves r = reads;
    r.insert(r.end(), pending_scratch_.begin(), pending_scratch_.end());
    pending_scratch_.clear();
    thunks_.push_back(std::move(thunk));
    reads_.push_back(std::move(r));
    writes_.push_back(std::move(w));
  }

  absl::StatusOr<std::vector<Leaves>> EmitComputation(const Computation& c,
                                                      const std::vector<Leaves>& params);
  absl::StatusOr<Leaves> EmitInstruction(const Instruction& instr,
                                         absl::flat_hash_map<const Instruction*, Leaves>& values,
                                         const std::vector<Leaves>& params);
  std::vector<int64_t> FuseElementwiseRuns();
  int64_t PlanArena(const std::vector<int64_t>& time, int64_t num_steps);

  std::vector<Slot> slots_;
  std::vector<Literal> constants_;
  ThunkList thunks_;
  std::vector<Leaves> reads_, writes_;
  Leaves pending_scratch_;
  std::vector<bool> tile_local_;  // lives in a fused chain's tile buffers
  // Broadcasts of one element, emitted only if a consumer needs the full
  // array: binary element-wise ops, select and clamp read the source directly.
  struct DeferredSplat {
    const Instruction* instr;
    SlotId source;
  };
  absl::flat_hash_map<SlotId, DeferredSplat> deferred_splats_;
  absl::Status Materialize(const Leaves& slots);
  int depth_ = 0;
  int64_t work_ = 0;  // EstimateInstructionWork summed over the thunks
};

absl::Status Unsupported(const Instruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(OpcodeName(instr.opcode()), ": ", why,
                                               " is not supported by the cpu backend (",
                                               instr.shape().ToString(), ")"));
}

absl::StatusOr<Leaves> Lowering::EmitInstruction(
    const Instruction& instr, absl::flat_hash_map<const Instruction*, Leaves>& values,
    const std::vector<Leaves>& params) {
  // Array operands are single slots; tuple operands appear only where allowed.
  Leaves in;
  for (const Instruction* o : instr.operands()) {
    const Leaves& l = values.at(o);
    in.insert(in.end(), l.begin(), l.end());
  }
  const Opcode op = instr.opcode();
  std::vector<bool> splat(in.size(), false);
  const bool reads_splats = IsElementwiseBinary(op) || IsElementwiseTernary(op);
  if (reads_splats && !instr.shape().is_tuple) {
    for (size_t i = 0; i < in.size(); ++i) {
      auto it = deferred_splats_.find(in[i]);
      if (it == deferred_splats_.end()) continue;
      in[i] = it->second.source;
      splat[i] = true;
    }
  } else if (OpcodeFamily(op) != OpFamily::kTuple && OpcodeFamily(op) != OpFamily::kCall) {
    absl::Status st = Materialize(in);
    if (!st.ok()) return st;
  }
  if (op == Opcode::kBroadcastInDim && instr.operand(0)->shape().num_elements() == 1 &&
      instr.shape().num_elements() > 1) {
    SlotId out = NewSlot(Slot::Kind::kArena, instr.shape().byte_size());
    deferred_splats_[out] = DeferredSplat{&instr, in[0]};
    return Leaves{out};
  }
  switch (op) {
    case Opcode::kParameter: {
      int64_t number = instr.attrs<ParameterAttrs>().number;
      if (number < 0 || number >= static_cast<int64_t>(params.size())) {
        return absl::InvalidArgumentError(absl::StrCat("parameter number ", number, " out of range"));
      }
      return params[number];
    }
    case Opcode::kConstant:
      if (instr.attrs<ConstantAttrs>().value.shape() != instr.shape()) {
        return absl::InvalidArgumentError("constant: missing or mistyped literal");
      }
      return Leaves{NewConstant(instr.attrs<ConstantAttrs>().value)};
    case Opcode::kIota: {
      auto lit = EvaluateIota(instr.shape(), instr.attrs<IotaAttrs>().iota_dimension);
      if (!lit.ok()) return lit.status();
      return Leaves{NewConstant(std::move(*lit))};
    }
    case Opcode::kTuple:
      return in;
    case Opcode::kGetTupleElement: {
      const Shape& t = instr.operand(0)->shape();
      int64_t index = instr.attrs<GetTupleElementAttrs>().index;
      if (!t.is_tuple || index < 0 || index >= static_cast<int64_t>(t.tuple_shapes.size())) {
        return absl::InvalidArgumentError("get_tuple_element: index out of range");
      }
      int64_t first = 0;
      for (int64_t i = 0; i < index; ++i) first += LeafCount(t.tuple_shapes[i]);
      return Leaves(in.begin() + first, in.begin() + first + LeafCount(t.tuple_shapes[index]));
    }
    case Opcode::kCall: {
      if (instr.called_computations().size() != 1) return Unsupported(instr, "a call without one callee");
      if (++depth_ > 64) return Unsupported(instr, "call nesting deeper than 64");
      std::vector<Leaves> args;
      for (const Instruction* o : instr.operands()) args.push_back(values.at(o));
      auto results = EmitComputation(*instr.called_computations()[0], args);
      --depth_;
      if (!results.ok()) return results.status();
      Leaves out;
      for (const Leaves& r : *results) out.insert(out.end(), r.begin(), r.end());
      return out;
    }
    case Opcode::kReshape:
      return in;  // row-major bytes are unchanged: the same slot
    XJIT_ELEMENTWISE_OPS(XJIT_OPCODE_CASE)
    case Opcode::kBroadcastInDim: case Opcode::kTranspose: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse:
    case Opcode::kDotGeneral: case Opcode::kReduce:
      break;  // a kernel, below
  }
  if (instr.shape().is_tuple && !HasMultipleResults(op)) {
    return Unsupported(instr, "a tuple result");
  }
  for (const Instruction* o : instr.operands()) {
    if (o->shape().is_tuple) return Unsupported(instr, "a tuple operand");
  }
  if (op == Opcode::kReduce) {
    Leaves outs;
    int64_t n = static_cast<int64_t>(instr.operands().size()) / 2;
    for (int64_t i = 0; i < n; ++i) {
      const Shape& s = instr.shape().is_tuple ? instr.shape().tuple_shapes[i] : instr.shape();
      outs.push_back(NewSlot(Slot::Kind::kArena, s.byte_size()));
    }
    auto thunk = MakeReduceThunk(instr, in, outs);
    if (!thunk.ok()) return thunk.status();
    AddThunk(std::move(*thunk), in, outs);
    work_ += EstimateInstructionWork(instr);
    return outs;
  }
  SlotId out = NewSlot(Slot::Kind::kArena, instr.shape().byte_size());
  absl::StatusOr<std::unique_ptr<Thunk>> thunk;
  if (IsElementwise(op)) {
    thunk = MakeElementwiseThunk(instr, in, out, splat);
  } else if (op == Opcode::kDotGeneral) {
    thunk = MakeDotGeneralThunk(instr, in[0], in[1], out, *this);
  } else if (op == Opcode::kBroadcastInDim || op == Opcode::kTranspose || op == Opcode::kSlice ||
             op == Opcode::kReverse || op == Opcode::kConcatenate || op == Opcode::kPad) {
    thunk = MakeDataMovementThunk(instr, in, out);
  } else {
    return Unsupported(instr, "this op");
  }
  if (!thunk.ok()) {
    pending_scratch_.clear();
    return thunk.status();
  }
  AddThunk(std::move(*thunk), in, {out});
  work_ += EstimateInstructionWork(instr);
  return Leaves{out};
}

absl::StatusOr<std::vector<Leaves>> Lowering::EmitComputation(const Computation& c,
                                                              const std::vector<Leaves>& params) {
  // Dead code elimination on the fly: an instruction no result depends on
  // gets no thunk (ops have no side effects). Instructions are in SSA order,
  // so one backward sweep marks everything live.
  const auto& instrs = c.instructions();
  std::vector<bool> live(instrs.size(), false);
  for (const Instruction* r : c.results()) live[r->id()] = true;
  for (size_t i = instrs.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (const Instruction* o : instrs[i]->operands()) live[o->id()] = true;
  }
  absl::flat_hash_map<const Instruction*, Leaves> values;
  for (const auto& instr : instrs) {
    if (!live[instr->id()]) continue;
    auto leaves = EmitInstruction(*instr, values, params);
    if (!leaves.ok()) return leaves.status();
    values[instr.get()] = std::move(*leaves);
  }
  std::vector<Leaves> results;
  for (const Instruction* r : c.results()) {
    absl::Status st = Materialize(values.at(r));
    if (!st.ok()) return st;
    results.push_back(values.at(r));
  }
  return results;
}

absl::Status Lowering::Materialize(const Leaves& slots) {
  for (SlotId s : slots) {
    auto it = deferred_splats_.find(s);
    if (it == deferred_splats_.end()) continue;
    const DeferredSplat splat = it->second;
    deferred_splats_.erase(it);
    auto thunk = MakeDataMovementThunk(*splat.instr, {splat.source}, s);
    if (!thunk.ok()) return thunk.status();
    AddThunk(std::move(*thunk), {splat.source}, {s});
    work_ += EstimateInstructionWork(*splat.instr);
  }
  return absl::OkStatus();
}

// Replaces each maximal run of consecutive element-wise thunks of one size by
// a fused thunk. Returns, per original thunk, the step that now runs it.
std::vector<int64_t> Lowering::FuseElementwiseRuns() {
  // Last thunk reading each slot, to find values that never leave a chain.
  std::vector<int64_t> last_read(slots_.size(), -1);
  for (size_t t = 0; t < reads_.size(); ++t) {
    for (SlotId s : reads_[t]) last_read[s] = std::max<int64_t>(last_read[s], t);
  }
  tile_local_.assign(slots_.size(), false);
  ThunkList out;
  std::vector<int64_t> step(thunks_.size());
  size_t t = 0;
  while (t < thunks_.size()) {
    auto* first = dynamic_cast<ElementwiseThunk*>(thunks_[t].get());
    size_t end = t + 1;
    while (first != nullptr && end < thunks_.size()) {
      auto* next = dynamic_cast<ElementwiseThunk*>(thunks_[end].get());
      if (next == nullptr || next->num_elements() != first->num_elements()) break;
      ++end;
    }
    if (end - t >= 2) {
      std::vector<std::unique_ptr<ElementwiseThunk>> chain;
      std::vector<SlotId> local;
      for (size_t i = t; i < end; ++i) {
        chain.emplace_back(static_cast<ElementwiseThunk*>(thunks_[i].release()));
        SlotId o = chain.back()->output();
        if (slots_[o].kind == Slot::Kind::kArena && last_read[o] >= static_cast<int64_t>(t) &&
            last_read[o] < static_cast<int64_t>(end)) {
          local.push_back(o);
          tile_local_[o] = true;
        }
      }
      out.push_back(std::make_unique<FusedElementwiseThunk>(std::move(chain), local));
    } else {
      out.push_back(std::move(thunks_[t]));
    }
    for (size_t i = t; i < end; ++i) step[i] = static_cast<int64_t>(out.size()) - 1;
    t = end;
  }
  thunks_ = std::move(out);
  return step;
}

// First-fit over the arena: a slot lives from the step that writes it to the
// last step that reads it; a step's outputs never share bytes with its inputs.
// Steps, not thunks: a fused chain interleaves its ops tile by tile, so all
// its buffers must live for the whole chain.
int64_t Lowering::PlanArena(const std::vector<int64_t>& time, int64_t num_steps) {
  const int64_t n = static_cast<int64_t>(slots_.size());
  std::vector<int64_t> def(n, -1), last(n, -1);
  for (size_t t = 0; t < time.size(); ++t) {
    for (SlotId s : writes_[t]) {
      if (def[s] < 0) def[s] = time[t];
      last[s] = std::max<int64_t>(last[s], time[t]);
    }
    for (SlotId s : reads_[t]) last[s] = std::max<int64_t>(last[s], time[t]);
  }
  std::vector<std::vector<SlotId>> born(num_steps), dies(num_steps);
  for (SlotId s = 0; s < n; ++s) {
    if (slots_[s].kind != Slot::Kind::kArena || def[s] < 0 || tile_local_[s]) continue;
    born[def[s]].push_back(s);
    dies[last[s]].push_back(s);
  }
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
  for (int64_t t = 0; t < num_steps; ++t) {
    for (SlotId s : born[t]) {
      int64_t size = std::max<int64_t>(kAlignment, (slots_[s].bytes + kAlignment - 1) / kAlignment * kAlignment);
      auto fit = std::find_if(free_blocks.begin(), free_blocks.end(),
                              [&](const auto& b) { return b.second >= size; });
      if (fit != free_blocks.end()) {
        int64_t offset = fit->first, left = fit->second - size;
        free_blocks.erase(fit);
        if (left > 0) free_blocks.emplace(offset + size, left);
        slots_[s].offset = offset;
      } else if (!free_blocks.empty() && std::prev(free_blocks.end())->first +
                                                 std::prev(free_blocks.end())->second == arena_end) {
        // Grow the trailing free block instead of leaving it stranded.
        auto tail = std::prev(free_blocks.end());
        slots_[s].offset = tail->first;
        arena_end = tail->first + size;
        free_blocks.erase(tail);
      } else {
        slots_[s].offset = arena_end;
        arena_end += size;
      }
    }
    for (SlotId s : dies[t]) {
      int64_t size = std::max<int64_t>(kAlignment, (slots_[s].bytes + kAlignment - 1) / kAlignment * kAlignment);
      release(slots_[s].offset, size);
    }
  }
  return arena_end;
}

absl::StatusOr<std::unique_ptr<CpuProgram>> Lowering::Lower(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  std::vector<Leaves> params;
  for (size_t i = 0; i < entry->parameters().size(); ++i) {
    const Instruction* p = entry->parameters()[i];
    if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat("parameter ", i, " is missing"));
    if (p->shape().is_tuple) return Unsupported(*p, "a tuple parameter of the entry");
    params.push_back({NewSlot(Slot::Kind::kParameter, p->shape().byte_size(), i)});
  }
  auto results = EmitComputation(*entry, params);
  if (!results.ok()) return results.status();
  // A result written by a thunk is written straight into the caller's buffer;
  // parameters, constants and repeated results are copied at the end.
  for (size_t i = 0; i < results->size(); ++i) {
    const Leaves& leaves = (*results)[i];
    const Instruction* r = entry->results()[i];
    if (leaves.size() != 1) return Unsupported(*r, "a tuple result of the entry");
    SlotId s = leaves[0];
    if (slots_[s].kind == Slot::Kind::kArena) {
      slots_[s].kind = Slot::Kind::kResult;
      slots_[s].number = static_cast<int64_t>(i);
    } else {
      SlotId dst = NewSlot(Slot::Kind::kResult, slots_[s].bytes, i);
      AddThunk(MakeCopyThunk(s, dst, slots_[s].bytes), {s}, {dst});
      work_ += r->shape().num_elements();
    }
  }
  std::vector<int64_t> step = FuseElementwiseRuns();
  int64_t arena = PlanArena(step, static_cast<int64_t>(thunks_.size()));
  return std::make_unique<CpuProgram>(std::move(slots_), std::move(thunks_), std::move(constants_),
                                      arena, static_cast<int64_t>(params.size()),
                                      static_cast<int64_t>(results->size()), work_);
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
  RegisterCompiler("cpu", [] { return std::make_unique<CpuCompiler>(); });
  return true;
}();

}  // namespace
}  // namespace xjit::cpu
