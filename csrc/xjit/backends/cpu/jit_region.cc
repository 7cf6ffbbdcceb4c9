#include "xjit/backends/cpu/jit_region.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/parallel.h"
#include "xjit/backends/cpu/work_estimate.h"

namespace xjit::cpu {

const Instruction* JitRegion::Root(const Instruction* v) const {
  for (auto it = alias_of.find(v); it != alias_of.end(); it = alias_of.find(v)) v = it->second;
  return v;
}

bool JitCovers(Opcode op) {
  switch (op) {
    case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kNegate: case Opcode::kAbs:
    case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kExponential: case Opcode::kTanh:
    case Opcode::kLog: case Opcode::kLogPlusOne: case Opcode::kLogistic:
    case Opcode::kExponentialMinusOne:
      return true;
    default:
      return false;
  }
}

bool AnalyzeJitRegion(const Instruction& fusion, size_t num_inputs, JitRegion* region) {
  if (fusion.called_computations().size() != 1) return false;
  const Computation& body = *fusion.called_computations()[0];
  if (body.results().empty() || body.results().size() > 64 || num_inputs > 64) return false;
  JitRegion& r = *region;
  r.n = body.results()[0]->shape().num_elements();
  if (r.n < kMinJitElements) return false;
  for (size_t j = 0; j < body.results().size(); ++j) {
    const Instruction* x = body.results()[j];
    if (!JitCovers(x->opcode()) || !r.result_of.emplace(x, static_cast<int>(j)).second) {
      return false;
    }
  }
  r.input_splat.assign(num_inputs, false);
  const auto& instrs = body.instructions();
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instruction* x = instrs[i].get();
    if (x->shape().dtype != DType::kF32 || !x->shape().is_array()) return false;
    const int64_t elements = x->shape().num_elements();
    switch (x->opcode()) {
      case Opcode::kParameter: {
        const int64_t number = x->attrs<ParameterAttrs>().number;
        if ((elements != r.n && elements != 1) || number < 0 ||
            number >= static_cast<int64_t>(num_inputs)) {
          return false;
        }
        r.input_splat[number] = elements == 1 && r.n != 1;
        if (r.input_splat[number] && number < static_cast<int64_t>(fusion.operands().size())) {
          const Instruction* outer = fusion.operand(number);
          if (outer->opcode() == Opcode::kConstant && outer->shape().dtype == DType::kF32 &&
              !outer->shape().is_tuple && outer->shape().num_elements() == 1) {
            float value;
            std::memcpy(&value, outer->attrs<ConstantAttrs>().value.data(), sizeof(value));
            r.splat_constant[static_cast<int>(number)] = value;
          }
        }
        r.parameters.push_back(x);
        r.input_number[x] = static_cast<int>(number);
        continue;
      }
      case Opcode::kReshape:
        r.alias_of[x] = x->operand(0);
        continue;
      case Opcode::kBroadcastInDim:
        if (x->operand(0)->shape().num_elements() != 1) return false;
        r.alias_of[x] = x->operand(0);
        continue;
      default:
        break;
    }
    if (!JitCovers(x->opcode()) || elements != r.n) return false;
    const size_t position = r.ops.size();
    for (const Instruction* o : x->operands()) {
      const Instruction* v = r.Root(o);
      if (v->shape().dtype != DType::kF32) return false;
      r.last_use[v] = position;
    }
    r.ops.push_back(x);
    r.work += EstimateInstructionWork(*x);
  }
  return true;
}

bool AnalyzeJitUnaryOp(const Instruction& op, JitRegion* region) {
  if (op.operands().size() != 1 || !JitCovers(op.opcode()) || op.shape().dtype != DType::kF32 ||
      !op.shape().is_array() || op.operand(0)->shape().dtype != DType::kF32) {
    return false;
  }
  JitRegion& r = *region;
  r.n = op.shape().num_elements();
  if (r.n < kMinJitElements) return false;
  const Instruction* x = op.operand(0);
  r.parameters = {x};
  r.input_number[x] = 0;
  r.input_splat = {false};
  r.ops = {&op};
  r.result_of[&op] = 0;
  r.last_use[x] = 0;
  r.work = EstimateInstructionWork(op);
  return true;
}

namespace {

#if defined(__x86_64__)
constexpr int64_t kChunk = 16 * 1024;  // elements per parallel chunk

class JitKernelThunk : public Thunk {
 public:
  JitKernelThunk(std::unique_ptr<Xbyak::CodeGenerator> code, JitKernelFn fn,
                 std::vector<SlotId> inputs, std::vector<bool> input_splat,
                 std::vector<SlotId> outputs, int64_t n,
                 std::unique_ptr<Xbyak::CodeGenerator> streaming_code, JitKernelFn streaming_fn)
      : code_(std::move(code)), fn_(fn), inputs_(std::move(inputs)),
        input_splat_(std::move(input_splat)), outputs_(std::move(outputs)), n_(n),
        streaming_code_(std::move(streaming_code)), streaming_fn_(streaming_fn) {}

  void Execute(void* const* buffers) const override {
    const size_t ni = inputs_.size(), no = outputs_.size();
    // Chunks start at multiples of kChunk elements: aligned bases stay aligned.
    JitKernelFn fn = fn_;
    if (streaming_fn_ != nullptr &&
        std::all_of(outputs_.begin(), outputs_.end(),
                    [&](SlotId s) { return StreamingAligned(buffers[s]); })) {
      fn = streaming_fn_;
    }
    ParallelFor(n_, kChunk, n_ * 8, [&](int64_t begin, int64_t end) {
      const void* in[64];
      void* out[64];
      for (size_t i = 0; i < ni; ++i) {
        const float* base = static_cast<const float*>(buffers[inputs_[i]]);
        in[i] = input_splat_[i] ? base : base + begin;
      }
      for (size_t j = 0; j < no; ++j) out[j] = static_cast<float*>(buffers[outputs_[j]]) + begin;
      fn(in, out, end - begin);
    });
  }

 private:
  std::unique_ptr<Xbyak::CodeGenerator> code_;
  JitKernelFn fn_;
  std::vector<SlotId> inputs_;
  std::vector<bool> input_splat_;
  std::vector<SlotId> outputs_;
  int64_t n_;
  std::unique_ptr<Xbyak::CodeGenerator> streaming_code_;
  JitKernelFn streaming_fn_;
};
#endif

}  // namespace

#if defined(__x86_64__)
bool WritesPastTheCache(const JitRegion& region) {
  return region.n * 4 * static_cast<int64_t>(region.result_of.size()) >= StreamingStoreBytes();
}

std::unique_ptr<Thunk> MakeJitKernelThunk(std::unique_ptr<Xbyak::CodeGenerator> code,
                                          JitKernelFn fn, const JitRegion& region,
                                          std::vector<SlotId> inputs,
                                          std::vector<SlotId> outputs,
                                          std::unique_ptr<Xbyak::CodeGenerator> streaming_code,
                                          JitKernelFn streaming_fn) {
  return std::make_unique<JitKernelThunk>(std::move(code), fn, std::move(inputs),
                                          region.input_splat, std::move(outputs), region.n,
                                          std::move(streaming_code), streaming_fn);
}
#endif

}  // namespace xjit::cpu
