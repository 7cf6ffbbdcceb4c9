#include "xjit/backends/cpu/epilogue.h"

#include <cstdint>
#include <cstring>
#include <functional>

namespace xjit::cpu {
namespace {

// The value an operand stands for in the entry: itself, or for a region
// parameter of a fusion, the fusion's operand.
using Outer = std::function<const Instruction*(const Instruction&)>;

// A broadcast_in_dim of a per-feature vector along `feature_dim` of `shape`.
bool IsBias(const Instruction& b, const Shape& shape, int64_t feature_dim) {
  if (b.opcode() != Opcode::kBroadcastInDim || b.shape() != shape) return false;
  const Shape& v = b.operand(0)->shape();
  if (v.is_tuple || v.dtype != shape.dtype || v.num_elements() != shape.dims[feature_dim]) {
    return false;
  }
  const std::vector<int64_t>& dims = b.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != feature_dim && v.dims[k] != 1) return false;
  }
  return true;
}

// A broadcast of one element that is the constant +0.0 (float32).
bool IsPositiveZeroSplat(const Instruction& b, const Outer& outer) {
  if (b.opcode() != Opcode::kBroadcastInDim) return false;
  const Instruction* c = outer(*b.operand(0));
  if (c == nullptr || c->opcode() != Opcode::kConstant || c->shape().num_elements() != 1 ||
      c->shape().dtype != DType::kF32) {
    return false;
  }
  uint32_t bits;
  std::memcpy(&bits, c->attrs<ConstantAttrs>().value.data(), sizeof(bits));
  return bits == 0;
}

// The step `op` applies to `chain`, or nullopt. `first`: no step before it.
std::optional<EpilogueStep> MatchStep(const Instruction& op, const Instruction& chain,
                                      const Outer& outer, int64_t feature_dim, bool first) {
  if (op.operands().size() != 2 || op.shape() != chain.shape()) return std::nullopt;
  const bool lhs = op.operand(0) == &chain;
  if (lhs == (op.operand(1) == &chain)) return std::nullopt;  // not exactly once
  const Instruction& other = *op.operand(lhs ? 1 : 0);
  if (op.opcode() == Opcode::kAdd && first && IsBias(other, op.shape(), feature_dim)) {
    const Instruction* vector = outer(*other.operand(0));
    if (vector == nullptr) return std::nullopt;
    return EpilogueStep{EpilogueStep::Kind::kBias, vector};
  }
  if (op.opcode() == Opcode::kMaximum && IsPositiveZeroSplat(other, outer)) {
    return EpilogueStep{EpilogueStep::Kind::kRelu, nullptr};
  }
  return std::nullopt;
}

// A fusion whose region is exactly a chain of steps from the parameter fed by
// `producer`: its steps, or nullopt.
std::optional<std::vector<EpilogueStep>> MatchFusion(const Instruction& fusion,
                                                     const Instruction& producer,
                                                     int64_t feature_dim, bool first) {
  if (fusion.called_computations().size() != 1) return std::nullopt;
  const Computation& region = *fusion.called_computations()[0];
  if (region.results().size() != 1) return std::nullopt;
  const Instruction* chain = nullptr;
  int64_t feeds = 0;
  for (const Instruction* p : region.parameters()) {
    const int64_t n = p->attrs<ParameterAttrs>().number;
    if (n < 0 || n >= static_cast<int64_t>(fusion.operands().size())) return std::nullopt;
    if (fusion.operand(n) == &producer) {
      chain = p;
      ++feeds;
    }
  }
  if (feeds != 1) return std::nullopt;
  Outer outer = [&](const Instruction& v) -> const Instruction* {
    if (v.opcode() != Opcode::kParameter) return nullptr;  // computed inside the region
    return fusion.operand(v.attrs<ParameterAttrs>().number);
  };
  Users users(region);
  std::vector<EpilogueStep> steps;
  for (const auto& instr : region.instructions()) {
    const Opcode op = instr->opcode();
    if (op == Opcode::kParameter) continue;
    if (op == Opcode::kBroadcastInDim && instr->operand(0)->opcode() == Opcode::kParameter &&
        instr->operand(0) != chain) {
      continue;  // an operand of a step (checked there)
    }
    if (users.of(*chain).size() != 1 || users.IsResult(*chain)) return std::nullopt;
    std::optional<EpilogueStep> step =
        MatchStep(*instr, *chain, outer, feature_dim, first && steps.empty());
    if (!step) return std::nullopt;
    steps.push_back(*step);
    chain = instr.get();
  }
  if (steps.empty() || region.results()[0] != chain || users.of(*chain).size() != 0) {
    return std::nullopt;
  }
  return steps;
}

}  // namespace

std::optional<Epilogue> MatchEpilogue(const Instruction& producer, int64_t feature_dim,
                                      const Users& users) {
  if (producer.shape().is_tuple || producer.shape().dtype != DType::kF32 || feature_dim < 0 ||
      feature_dim >= producer.shape().rank()) {
    return std::nullopt;
  }
  Outer itself = [](const Instruction& v) { return &v; };
  Epilogue e;
  const Instruction* chain = &producer;
  while (users.of(*chain).size() == 1 && !users.IsResult(*chain)) {
    const Instruction& next = *users.of(*chain)[0];
    if (next.opcode() == Opcode::kFusion) {
      std::optional<std::vector<EpilogueStep>> steps =
          MatchFusion(next, *chain, feature_dim, e.steps.empty());
      if (!steps || next.shape() != producer.shape()) break;
      e.steps.insert(e.steps.end(), steps->begin(), steps->end());
      e.absorbed.push_back(&next);
      break;  // a fusion's users are outside the region's match
    }
    std::optional<EpilogueStep> step =
        MatchStep(next, *chain, itself, feature_dim, e.steps.empty());
    if (!step) break;
    e.steps.push_back(*step);
    e.absorbed.push_back(&next);
    chain = &next;
  }
  if (e.steps.empty()) return std::nullopt;
  return e;
}

}  // namespace xjit::cpu
