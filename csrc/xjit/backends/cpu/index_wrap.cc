#include "xjit/backends/cpu/index_wrap.h"

#include "xjit/backends/cpu/indexing_geometry.h"

namespace xjit::cpu {
namespace {

// A broadcast of a region parameter that is an integer scalar constant
// outside: its value.
std::optional<int64_t> SplatConstant(const Instruction& b, const Instruction& fusion) {
  if (b.opcode() != Opcode::kBroadcastInDim || b.operand(0)->opcode() != Opcode::kParameter) {
    return std::nullopt;
  }
  const Instruction* c = fusion.operand(b.operand(0)->attrs<ParameterAttrs>().number);
  if (c->opcode() != Opcode::kConstant || c->shape().num_elements() != 1 ||
      !IsInteger(c->shape().dtype)) {
    return std::nullopt;
  }
  return LoadIndex(c->shape().dtype, c->attrs<ConstantAttrs>().value.data(), 0);
}

}  // namespace

std::optional<IndexWrap> MatchIndexWrap(const Instruction& indices, const Users& users) {
  const Instruction* v = &indices;
  while (v->opcode() == Opcode::kReshape) v = v->operand(0);
  // Every value from the fusion to `indices` feeds only the next one.
  for (const Instruction* w = &indices;; w = w->operand(0)) {
    if (w != &indices && (users.of(*w).size() != 1 || users.IsResult(*w))) return std::nullopt;
    if (w == v) break;
  }
  if (v->opcode() != Opcode::kFusion || v->called_computations().size() != 1 ||
      users.of(*v).size() != 1 || users.IsResult(*v)) {
    return std::nullopt;
  }
  const Computation& region = *v->called_computations()[0];
  if (region.results().size() != 1 ||
      region.instructions().size() != region.parameters().size() + 5) {
    return std::nullopt;  // the select, compare, add and two broadcasts only
  }
  const Instruction* select = region.results()[0];
  if (select->opcode() != Opcode::kSelect) return std::nullopt;
  const Instruction* i = select->operand(2);
  const Instruction* less = select->operand(0);
  const Instruction* add = select->operand(1);
  if (i->opcode() != Opcode::kParameter || !IsInteger(i->shape().dtype) ||
      less->opcode() != Opcode::kCompare || add->opcode() != Opcode::kAdd ||
      less->attrs<CompareAttrs>().comparison_direction != ComparisonDirection::kLt ||
      less->operand(0) != i) {
    return std::nullopt;
  }
  std::optional<int64_t> zero = SplatConstant(*less->operand(1), *v);
  const Instruction* n_splat = add->operand(0) == i ? add->operand(1) : add->operand(0);
  std::optional<int64_t> n = SplatConstant(*n_splat, *v);
  if (!zero || *zero != 0 || !n || *n <= 0 || (add->operand(0) != i && add->operand(1) != i)) {
    return std::nullopt;
  }
  const Instruction* raw = v->operand(i->attrs<ParameterAttrs>().number);
  if (raw->shape() != v->shape()) return std::nullopt;
  return IndexWrap{raw, v, *n};
}

}  // namespace xjit::cpu
