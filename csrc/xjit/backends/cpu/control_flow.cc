#include "xjit/backends/cpu/control_flow.h"

#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/container/inlined_vector.h"
#include "xjit/backends/cpu/counter_condition.h"
#include "xjit/backends/cpu/jit_loop.h"

namespace xjit::cpu {
namespace {

std::vector<Shape> ResultLeaves(const Instruction& instr) {
  if (instr.shape().is_tuple) return instr.shape().tuple_shapes;
  return {instr.shape()};
}

class WhileThunk : public Thunk {
 public:
  WhileThunk(std::unique_ptr<CpuProgram> cond, std::optional<CounterCondition> counter,
             std::unique_ptr<CpuProgram> body, std::vector<SlotId> in, std::vector<SlotId> out,
             std::vector<SlotId> alt, std::vector<int64_t> bytes, SlotId pred)
      : cond_(std::move(cond)), counter_(std::move(counter)), body_(std::move(body)),
        in_(std::move(in)), out_(std::move(out)), alt_(std::move(alt)), bytes_(std::move(bytes)),
        pred_(pred) {
    // A carried value the body may update in place (it reads the old value
    // before writing the new one: donation.h) lives in its result buffer.
    for (size_t i = 0; i < out_.size(); ++i) {
      in_place_.push_back(body_->ResultMayReuseParameter(static_cast<int>(i), static_cast<int>(i)));
    }
  }

  void SetGenerated(std::unique_ptr<GeneratedLoop> generated) { generated_ = std::move(generated); }

  void Execute(void* const* buffers) const override {
    const size_t n = out_.size(), total = in_.size();
    if (generated_) {  // the whole loop as one function (jit_loop.h)
      absl::InlinedVector<const void*, 8> operands(total);
      absl::InlinedVector<void*, 8> results(n);
      for (size_t i = 0; i < total; ++i) operands[i] = buffers[in_[i]];
      for (size_t i = 0; i < n; ++i) results[i] = buffers[out_[i]];
      generated_->Run(operands.data(), results.data());
      return;
    }
    // args: the carry being read (first the operands themselves), then the
    // captured operands, which never change.
    std::vector<const void*> args(total);
    for (size_t i = 0; i < total; ++i) args[i] = buffers[in_[i]];
    std::vector<void*> sets[2] = {std::vector<void*>(n), std::vector<void*>(n)};
    for (size_t i = 0; i < n; ++i) {
      sets[0][i] = buffers[out_[i]];
      sets[1][i] = in_place_[i] ? buffers[out_[i]] : buffers[alt_[i]];
      if (in_place_[i]) {  // copied in once; every iteration then reads and writes it
        if (bytes_[i] > 0) std::memcpy(buffers[out_[i]], args[i], bytes_[i]);
        args[i] = buffers[out_[i]];
      }
    }
    int written = -1;  // the set holding the carry; -1: still the operands
    if (!counter_ || !RunFlattened(args, sets, &written)) RunPrograms(buffers, args, sets, &written);
    if (written == 0) return;
    for (size_t i = 0; i < n; ++i) {  // the carry ended in the operands or the scratch set
      if (args[i] != buffers[out_[i]] && bytes_[i] > 0) {
        std::memcpy(buffers[out_[i]], args[i], bytes_[i]);
      }
    }
  }

 private:
  // The loop with a counter condition and a body whose thunks all flatten
  // into kernel calls (CpuProgram::FlattenRegion): three lists, one per way
  // the carry is placed (read from the operands, from set 0, from set 1),
  // run with no dispatch between the calls. False, running nothing, when
  // the body does not flatten. On return `args` reads the final carry.
  bool RunFlattened(std::vector<const void*>& args, std::vector<void*> (&sets)[2],
                    int* written) const {
    const size_t n = out_.size();
    std::vector<const void*> reads[2] = {args, args};
    for (size_t i = 0; i < n; ++i) {
      reads[0][i] = sets[0][i];
      reads[1][i] = sets[1][i];
    }
    std::vector<KernelStep> first, from_set[2];  // from_set[s]: reads set s, writes the other
    if (!body_->FlattenRegion(args.data(), sets[0].data(), &first) ||
        !body_->FlattenRegion(reads[0].data(), sets[1].data(), &from_set[0]) ||
        !body_->FlattenRegion(reads[1].data(), sets[0].data(), &from_set[1])) {
      return false;
    }
    const std::vector<KernelStep>* steps = &first;
    const void* const* current = args.data();
    while (counter_->Evaluate(current)) {
      for (const KernelStep& k : *steps) k.kernel(k.in, k.strides, k.out, 0, k.count);
      const int target = *written == 0 ? 1 : 0;
      *written = target;
      current = reads[target].data();
      steps = &from_set[target];
    }
    if (*written >= 0) args = reads[*written];
    return true;
  }

  // The loop running the condition (unless it is a counter) and the body as
  // programs.
  void RunPrograms(void* const* buffers, std::vector<const void*>& args,
                   std::vector<void*> (&sets)[2], int* written) const {
    const size_t n = out_.size();
    bool* pred = static_cast<bool*>(buffers[pred_]);
    void* pred_result[1] = {pred};
    while (true) {
      if (counter_) {
        if (!counter_->Evaluate(args.data())) break;
      } else {
        cond_->RunRegion(args.data(), pred_result);
        if (!*pred) break;
      }
      const int target = *written == 0 ? 1 : 0;
      body_->RunRegion(args.data(), sets[target].data());
      for (size_t i = 0; i < n; ++i) args[i] = sets[target][i];
      *written = target;
    }
  }

  std::unique_ptr<CpuProgram> cond_;
  std::optional<CounterCondition> counter_;  // set: cond_ is not run
  std::unique_ptr<CpuProgram> body_;
  std::vector<SlotId> in_, out_, alt_;
  std::vector<int64_t> bytes_;
  SlotId pred_;
  std::vector<bool> in_place_;
  std::unique_ptr<GeneratedLoop> generated_;
};

class BranchThunk : public Thunk {
 public:
  BranchThunk(bool is_if, std::vector<std::unique_ptr<CpuProgram>> branches,
              std::vector<SlotId> in, std::vector<SlotId> out)
      : is_if_(is_if), branches_(std::move(branches)), in_(std::move(in)), out_(std::move(out)) {}

  void Execute(void* const* buffers) const override {
    size_t branch;
    if (is_if_) {
      branch = *static_cast<const bool*>(buffers[in_[0]]) ? 0 : 1;
    } else {
      const int32_t i = *static_cast<const int32_t*>(buffers[in_[0]]);
      // Out of range selects the last branch (the spec's semantics).
      branch = (i < 0 || static_cast<size_t>(i) >= branches_.size()) ? branches_.size() - 1
                                                                     : static_cast<size_t>(i);
    }
    std::vector<const void*> args(in_.size() - 1);
    for (size_t i = 1; i < in_.size(); ++i) args[i - 1] = buffers[in_[i]];
    std::vector<void*> results(out_.size());
    for (size_t i = 0; i < out_.size(); ++i) results[i] = buffers[out_[i]];
    branches_[branch]->RunRegion(args.data(), results.data());
  }

 private:
  bool is_if_;
  std::vector<std::unique_ptr<CpuProgram>> branches_;
  std::vector<SlotId> in_, out_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Thunk>> MakeWhileThunk(const Instruction& instr,
                                                      std::vector<SlotId> in,
                                                      std::vector<SlotId> out,
                                                      LoweringContext& context,
                                                      const RegionCompiler& compile) {
  const auto& called = instr.called_computations();
  const std::vector<Shape> leaves = ResultLeaves(instr);
  if (called.size() != 2 || in.size() != instr.operands().size() || out.size() != leaves.size() ||
      out.size() > in.size()) {
    return absl::InternalError("while: operand or result count mismatch in the cpu lowering");
  }
  absl::StatusOr<std::unique_ptr<CpuProgram>> cond = compile(*called[0]);
  if (!cond.ok()) return cond.status();
  absl::StatusOr<std::unique_ptr<CpuProgram>> body = compile(*called[1]);
  if (!body.ok()) return body.status();
  std::vector<SlotId> alt;
  std::vector<int64_t> bytes;
  for (const Shape& s : leaves) {
    bytes.push_back(s.byte_size());
    alt.push_back(context.NewScratch(s.byte_size()));
  }
  SlotId pred = context.NewScratch(1);
  auto thunk = std::make_unique<WhileThunk>(*std::move(cond), CounterCondition::Match(*called[0]),
                                            *std::move(body), std::move(in), std::move(out),
                                            std::move(alt), std::move(bytes), pred);
  thunk->SetGenerated(GeneratedLoop::Make(instr));
  return std::unique_ptr<Thunk>(std::move(thunk));
}

absl::StatusOr<std::unique_ptr<Thunk>> MakeBranchThunk(const Instruction& instr,
                                                       std::vector<SlotId> in,
                                                       std::vector<SlotId> out,
                                                       const RegionCompiler& compile) {
  if (in.empty() || in.size() != instr.operands().size() ||
      out.size() != ResultLeaves(instr).size()) {
    return absl::InternalError(absl::StrCat(OpcodeName(instr.opcode()),
                                            ": operand or result count mismatch in the cpu "
                                            "lowering"));
  }
  std::vector<std::unique_ptr<CpuProgram>> branches;
  for (const Computation* c : instr.called_computations()) {
    absl::StatusOr<std::unique_ptr<CpuProgram>> p = compile(*c);
    if (!p.ok()) return p.status();
    branches.push_back(*std::move(p));
  }
  if (branches.empty()) return absl::InternalError("case: no branches in the cpu lowering");
  return std::unique_ptr<Thunk>(new BranchThunk(instr.opcode() == Opcode::kIf,
                                                std::move(branches), std::move(in),
                                                std::move(out)));
}

}  // namespace xjit::cpu
