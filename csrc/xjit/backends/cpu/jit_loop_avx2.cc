#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "xjit/backends/cpu/counter_condition.h"
#include "xjit/backends/cpu/jit_fusion.h"
#include "xjit/backends/cpu/jit_loop.h"
#include "xjit/backends/cpu/jit_region.h"
#include "xjit/backends/cpu/parallel.h"

#if defined(__x86_64__)
#include "xjit/backends/cpu/jit_avx2_code.h"
#endif

namespace xjit::cpu {

#if defined(__x86_64__)
namespace {

constexpr int kLanes = Avx2Code::kLanes;

// A value of the loop body as a trip sees it.
struct LoopValue {
  enum class Kind {
    kCounter,    // the counter parameter (read only by its increment)
    kIncrement,  // counter + 1
    kIntConstant,
    kState,      // a carried float32 array: in a register across the trips
    kInvariant,  // a float32 array the loop does not change: read from memory
    kSplat,      // a float32 scalar the loop does not change: 8 copies on the stack
    kConstant,   // a float32 constant
    kComputed,   // an op of this trip
  } kind;
  int operand = -1;  // kState, kInvariant, kSplat: the while operand
  float constant = 0;
  int64_t int_constant = 0;
  int32_t slot = -1;  // kSplat: stack offset
};

struct LoopOp {
  Opcode opcode;
  std::vector<int> operands;  // value ids
  int value;                  // its own value id
};

class LoopAnalysis {
 public:
  bool Analyze(const Instruction& w);

  std::vector<LoopValue> values;
  std::vector<LoopOp> ops;
  std::vector<int> state_operands;  // carried float32 arrays, by while operand
  std::vector<int> state_results;   // the value each becomes after a trip
  int counter = -1;
  DType counter_type = DType::kS32;
  std::optional<int64_t> bound_constant;
  int bound_operand = -1;
  int64_t n = 0;  // elements of each state
  int32_t frame = 0;

 private:
  int Add(LoopValue v) {
    values.push_back(v);
    return static_cast<int>(values.size()) - 1;
  }
  // The values of `c`'s results, its parameters being `params`; false when
  // the body is not of the covered form.
  bool Walk(const Computation& c, const std::vector<int>& params, std::vector<int>* results);
  bool Float(const Instruction& x, bool array) const {
    return x.shape().dtype == DType::kF32 && x.shape().is_array() &&
           (array ? x.shape().num_elements() > 1 : x.shape().num_elements() == 1);
  }
};

bool IsInvariant(const Computation& body, int64_t p, size_t carried) {
  if (p >= static_cast<int64_t>(carried)) return true;  // a captured operand
  const Instruction* r = body.results()[p];
  return r->opcode() == Opcode::kParameter && r->attrs<ParameterAttrs>().number == p;
}

bool LoopAnalysis::Walk(const Computation& c, const std::vector<int>& params,
                        std::vector<int>* results) {
  absl::flat_hash_map<const Instruction*, std::vector<int>> id;  // tuples: one per element
  auto one = [&](const Instruction* x) { return id.at(x).size() == 1 ? id.at(x)[0] : -1; };
  for (const auto& owned : c.instructions()) {
    const Instruction& x = *owned;
    switch (x.opcode()) {
      case Opcode::kParameter: {
        const int64_t p = x.attrs<ParameterAttrs>().number;
        if (p < 0 || p >= static_cast<int64_t>(params.size())) return false;
        id[&x] = {params[p]};
        continue;
      }
      case Opcode::kConstant: {
        if (x.shape().is_tuple || x.shape().num_elements() != 1) return false;
        const void* data = x.attrs<ConstantAttrs>().value.data();
        if (x.shape().dtype == DType::kF32) {
          LoopValue v{LoopValue::Kind::kConstant};
          std::memcpy(&v.constant, data, 4);
          id[&x] = {Add(v)};
        } else if (x.shape().dtype == counter_type) {
          LoopValue v{LoopValue::Kind::kIntConstant};
          v.int_constant = CounterCondition::Load(counter_type, data);
          id[&x] = {Add(v)};
        } else {
          return false;
        }
        continue;
      }
      case Opcode::kBroadcastInDim:
      case Opcode::kReshape:
        // A splat, or the same elements: the operand's value.
        if (x.operand(0)->shape().num_elements() != 1 &&
            x.operand(0)->shape().num_elements() != x.shape().num_elements()) {
          return false;
        }
        if (one(x.operand(0)) < 0) return false;
        id[&x] = {one(x.operand(0))};
        continue;
      case Opcode::kFusion: {
        if (x.called_computations().size() != 1) return false;
        std::vector<int> inner;
        for (const Instruction* o : x.operands()) {
          if (one(o) < 0) return false;
          inner.push_back(one(o));
        }
        std::vector<int> out;
        if (!Walk(*x.called_computations()[0], inner, &out)) return false;
        id[&x] = out;
        continue;
      }
      case Opcode::kGetTupleElement: {
        const std::vector<int>& t = id.at(x.operand(0));
        const int64_t i = x.attrs<GetTupleElementAttrs>().index;
        if (i < 0 || i >= static_cast<int64_t>(t.size())) return false;
        id[&x] = {t[i]};
        continue;
      }
      default:
        break;
    }
    if (x.opcode() == Opcode::kAdd && x.shape().dtype == counter_type) {  // the increment
      const LoopValue& a = values[one(x.operand(0))];
      const LoopValue& b = values[one(x.operand(1))];
      const bool counter_plus_one =
          (a.kind == LoopValue::Kind::kCounter && b.kind == LoopValue::Kind::kIntConstant &&
           b.int_constant == 1) ||
          (b.kind == LoopValue::Kind::kCounter && a.kind == LoopValue::Kind::kIntConstant &&
           a.int_constant == 1);
      if (!counter_plus_one) return false;
      id[&x] = {Add(LoopValue{LoopValue::Kind::kIncrement})};
      continue;
    }
    if (!JitCovers(x.opcode()) || !Float(x, true)) return false;
    if (n == 0) n = x.shape().num_elements();
    if (x.shape().num_elements() != n) return false;
    LoopOp op{x.opcode(), {}, -1};
    bool reads_array = false;
    for (const Instruction* o : x.operands()) {
      const int v = one(o);
      if (v < 0) return false;
      switch (values[v].kind) {
        case LoopValue::Kind::kState: case LoopValue::Kind::kInvariant:
        case LoopValue::Kind::kComputed:
          reads_array = true;
          break;
        case LoopValue::Kind::kSplat: case LoopValue::Kind::kConstant:
          break;
        default:
          return false;  // the counter or an integer
      }
      op.operands.push_back(v);
    }
    if (!reads_array) return false;  // an op of splats only: not an array per element
    op.value = Add(LoopValue{LoopValue::Kind::kComputed});
    id[&x] = {op.value};
    ops.push_back(std::move(op));
  }
  for (const Instruction* r : c.results()) {
    if (one(r) < 0) return false;
    results->push_back(one(r));
  }
  return true;
}

bool LoopAnalysis::Analyze(const Instruction& w) {
  const Computation& cond = *w.called_computations()[0];
  const Computation& body = *w.called_computations()[1];
  const size_t carried = w.shape().is_tuple ? w.shape().tuple_shapes.size() : 1;
  if (body.results().size() != carried || body.parameters().size() != w.operands().size() ||
      cond.results().size() != 1) {
    return false;
  }
  // The condition: compare(counter, bound) LT, signed.
  const Instruction* cmp = cond.results()[0];
  if (cmp->opcode() != Opcode::kCompare ||
      cmp->attrs<CompareAttrs>().comparison_direction != ComparisonDirection::kLt ||
      cmp->operand(0)->opcode() != Opcode::kParameter) {
    return false;
  }
  counter_type = cmp->operand(0)->shape().dtype;
  if ((counter_type != DType::kS32 && counter_type != DType::kS64) ||
      cmp->attrs<CompareAttrs>().compare_type == ComparisonType::kUnsigned) {
    return false;
  }
  counter = static_cast<int>(cmp->operand(0)->attrs<ParameterAttrs>().number);
  if (counter < 0 || counter >= static_cast<int>(carried)) return false;
  const Instruction* bound = cmp->operand(1);
  if (bound->opcode() == Opcode::kConstant) {
    bound_constant = CounterCondition::Load(counter_type, bound->attrs<ConstantAttrs>().value.data());
  } else if (bound->opcode() == Opcode::kParameter) {
    bound_operand = static_cast<int>(bound->attrs<ParameterAttrs>().number);
    if (bound_operand == counter || !IsInvariant(body, bound_operand, carried)) return false;
  } else {
    return false;
  }
  // The body's parameters.
  std::vector<int> params;
  for (size_t p = 0; p < w.operands().size(); ++p) {
    const Shape& s = w.operand(p)->shape();
    if (static_cast<int>(p) == counter) {
      params.push_back(Add(LoopValue{LoopValue::Kind::kCounter}));
    } else if (IsInvariant(body, p, carried)) {
      LoopValue v{s.dtype == DType::kF32 && s.is_array() && s.num_elements() == 1
                      ? LoopValue::Kind::kSplat
                      : LoopValue::Kind::kInvariant};
      v.operand = static_cast<int>(p);
      if (v.kind == LoopValue::Kind::kSplat) {
        v.slot = frame;
        frame += 32;
      }
      params.push_back(Add(v));
    } else {
      if (s.dtype != DType::kF32 || !s.is_array() || s.num_elements() < kLanes) return false;
      LoopValue v{LoopValue::Kind::kState};
      v.operand = static_cast<int>(p);
      params.push_back(Add(v));
      state_operands.push_back(static_cast<int>(p));
    }
  }
  std::vector<int> results;
  if (state_operands.empty() || !Walk(body, params, &results)) return false;
  if (values[results[counter]].kind != LoopValue::Kind::kIncrement) return false;
  for (int p : state_operands) {
    if (values[results[p]].kind != LoopValue::Kind::kComputed) return false;
    state_results.push_back(results[p]);
    if (w.operand(p)->shape().num_elements() != n) return false;
  }
  // Invariant arrays the ops read are n elements too (they are read per element).
  for (const LoopOp& op : ops) {
    for (int v : op.operands) {
      if (values[v].kind == LoopValue::Kind::kInvariant &&
          w.operand(values[v].operand)->shape() != w.operand(state_operands[0])->shape()) {
        return false;
      }
    }
  }
  return n % kLanes == 0;
}

// fn(const void* const* operands, void* const* results, int64_t elements,
// int64_t trips), elements a multiple of 8.
void EmitLoop(const LoopAnalysis& a, Avx2Code& g) {
  using namespace Xbyak::util;
  const Xbyak::Reg64 gprs[] = {rbx, rbp, r12, r13, r14, r15};
  absl::flat_hash_map<int, Xbyak::Reg64> gpr_of;  // invariant arrays' while operand
  for (const LoopOp& op : a.ops) {
    for (int v : op.operands) {
      const LoopValue& value = a.values[v];
      if (value.kind != LoopValue::Kind::kInvariant || gpr_of.contains(value.operand)) continue;
      if (gpr_of.size() == std::size(gprs)) throw Xbyak::Error(Xbyak::ERR_BAD_PARAMETER);
      gpr_of.emplace(value.operand, gprs[gpr_of.size()]);
    }
  }
  for (const Xbyak::Reg64& r : gprs) g.push(r);
  g.sub(rsp, std::max<int32_t>(a.frame, 32));
  g.mov(r11, reinterpret_cast<size_t>(g.table()));
  g.mov(r9, rcx);  // trips
  for (const auto& [operand, gpr] : gpr_of) g.mov(gpr, g.qword[rdi + 8 * operand]);
  for (const LoopValue& v : a.values) {
    if (v.kind != LoopValue::Kind::kSplat) continue;
    g.mov(r10, g.qword[rdi + 8 * v.operand]);
    g.vbroadcastss(Ymm(0), g.dword[r10]);
    g.vmovups(g.yword[rsp + v.slot], Ymm(0));
  }
  // The states' registers, then what a trip needs besides.
  const int states = static_cast<int>(a.state_operands.size());
  Avx2RegisterPool pool;
  absl::flat_hash_map<int, size_t> last_use;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    for (int v : a.ops[i].operands) last_use[v] = i;
  }
  for (int v : a.state_results) last_use[v] = a.ops.size();
  g.xor_(eax, eax);
  Xbyak::Label vectors, trip, trips_done, done;
  g.L(vectors);
  g.cmp(rax, rdx);
  g.jge(done, Xbyak::CodeGenerator::T_NEAR);
  for (int k = 0; k < states; ++k) {
    g.mov(r10, g.qword[rdi + 8 * a.state_operands[k]]);
    g.vmovups(Ymm(k), g.yword[r10 + rax * 4]);
  }
  g.mov(r8, r9);
  g.L(trip);
  g.test(r8, r8);
  g.jz(trips_done, Xbyak::CodeGenerator::T_NEAR);
  pool.Clear();
  for (int k = 0; k < states; ++k) pool.Reserve(k);
  absl::flat_hash_map<int, int> reg_of;  // computed value -> register
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const LoopOp& op = a.ops[i];
    std::vector<Avx2Operand> in;
    for (int v : op.operands) {
      const LoopValue& value = a.values[v];
      switch (value.kind) {
        case LoopValue::Kind::kState: {
          const int k = static_cast<int>(
              std::find(a.state_operands.begin(), a.state_operands.end(), value.operand) -
              a.state_operands.begin());
          in.push_back(Avx2Operand::Register(k));
          break;
        }
        case LoopValue::Kind::kComputed: in.push_back(Avx2Operand::Register(reg_of.at(v))); break;
        case LoopValue::Kind::kInvariant:
          in.push_back(Avx2Operand::Memory(g.yword[gpr_of.at(value.operand) + rax * 4]));
          break;
        case LoopValue::Kind::kSplat:
          in.push_back(Avx2Operand::Memory(g.yword[rsp + value.slot]));
          break;
        default:  // kConstant
          in.push_back(Avx2Operand::Constant(g, value.constant));
      }
    }
    reg_of[op.value] = EmitAvx2Op(g, pool, op.opcode, in);
    if (!last_use.contains(op.value)) pool.Free(reg_of[op.value]);
    for (int v : op.operands) {
      if (a.values[v].kind == LoopValue::Kind::kComputed && last_use.at(v) == i) {
        pool.Free(reg_of.at(v));
      }
    }
  }
  for (int k = 0; k < states; ++k) g.vmovaps(Ymm(k), Ymm(reg_of.at(a.state_results[k])));
  g.dec(r8);
  g.jmp(trip, Xbyak::CodeGenerator::T_NEAR);
  g.L(trips_done);
  for (int k = 0; k < states; ++k) {
    g.mov(r10, g.qword[rsi + 8 * a.state_operands[k]]);
    g.vmovups(g.yword[r10 + rax * 4], Ymm(k));
  }
  g.add(rax, kLanes);
  g.jmp(vectors, Xbyak::CodeGenerator::T_NEAR);
  g.L(done);
  g.add(rsp, std::max<int32_t>(a.frame, 32));
  for (int i = static_cast<int>(std::size(gprs)) - 1; i >= 0; --i) g.pop(gprs[i]);
  g.vzeroupper();
  g.ret();
  g.EmitColdPaths();
}

class Avx2Loop : public GeneratedLoop {
 public:
  using Fn = void (*)(const void* const*, void* const*, int64_t, int64_t);

  Avx2Loop(std::unique_ptr<Avx2Code> code, LoopAnalysis a, size_t num_operands,
           std::vector<int64_t> result_bytes)
      : code_(std::move(code)), fn_(code_->getCode<Fn>()), a_(std::move(a)),
        num_operands_(num_operands), result_bytes_(std::move(result_bytes)),
        copied_(result_bytes_.size(), true) {
    // What each run offsets per chunk, and which results it copies through.
    for (int p : a_.state_operands) copied_[p] = false;
    copied_[a_.counter] = false;
    for (const LoopValue& v : a_.values) {
      if (v.kind == LoopValue::Kind::kInvariant) invariant_arrays_.push_back(v.operand);
    }
  }

  void Run(const void* const* operands, void* const* results) const override {
    const int64_t i0 = CounterCondition::Load(a_.counter_type, operands[a_.counter]);
    const int64_t bound = a_.bound_constant
                              ? *a_.bound_constant
                              : CounterCondition::Load(a_.counter_type, operands[a_.bound_operand]);
    const int64_t trips = i0 < bound ? bound - i0 : 0;
    // Chunks of whole vectors; each reads its states before writing them, so
    // a result may be its operand's buffer.
    const size_t num = result_bytes_.size();
    const int64_t ops = static_cast<int64_t>(a_.ops.size());
    // 1K elements a chunk at least: a few vectors' trips are too short to
    // share with another thread.
    ParallelFor(a_.n / kLanes, 128, a_.n * std::max<int64_t>(trips, 1) * ops,
                [&](int64_t begin, int64_t end) {
      absl::InlinedVector<const void*, 8> in(operands, operands + num_operands_);
      absl::InlinedVector<void*, 8> out(results, results + num);
      for (int p : a_.state_operands) {
        in[p] = static_cast<const float*>(operands[p]) + begin * kLanes;
        out[p] = static_cast<float*>(results[p]) + begin * kLanes;
      }
      for (int p : invariant_arrays_) {
        in[p] = static_cast<const float*>(operands[p]) + begin * kLanes;
      }
      fn_(in.data(), out.data(), (end - begin) * kLanes, trips);
    });
    const int64_t last = i0 < bound ? bound : i0;
    if (a_.counter_type == DType::kS32) {
      *static_cast<int32_t*>(results[a_.counter]) = static_cast<int32_t>(last);
    } else {
      *static_cast<int64_t*>(results[a_.counter]) = last;
    }
    for (size_t j = 0; j < num; ++j) {  // the invariant carried values
      if (copied_[j] && results[j] != operands[j]) {
        std::memcpy(results[j], operands[j], result_bytes_[j]);
      }
    }
  }

 private:
  std::unique_ptr<Avx2Code> code_;
  Fn fn_;
  LoopAnalysis a_;
  size_t num_operands_;
  std::vector<int64_t> result_bytes_;  // per carried value
  std::vector<bool> copied_;           // per carried value: invariant, copied through
  std::vector<int> invariant_arrays_;  // operands read per element
};

}  // namespace
#endif  // __x86_64__

std::unique_ptr<GeneratedLoop> GeneratedLoop::Make(const Instruction& while_instr) {
#if defined(__x86_64__)
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!has_avx2 || !FusionJitEnabled() || while_instr.opcode() != Opcode::kWhile ||
      while_instr.called_computations().size() != 2) {
    return nullptr;
  }
  LoopAnalysis a;
  if (!a.Analyze(while_instr)) return nullptr;
  auto code = std::make_unique<Avx2Code>(16384 + 2048 * a.ops.size());
  try {
    EmitLoop(a, *code);
    code->readyRE();
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
  std::vector<int64_t> bytes;
  if (while_instr.shape().is_tuple) {
    for (const Shape& s : while_instr.shape().tuple_shapes) bytes.push_back(s.byte_size());
  } else {
    bytes.push_back(while_instr.shape().byte_size());
  }
  CountJitKernel();
  return std::make_unique<Avx2Loop>(std::move(code), std::move(a),
                                    while_instr.operands().size(), std::move(bytes));
#else
  return nullptr;
#endif
}

}  // namespace xjit::cpu
