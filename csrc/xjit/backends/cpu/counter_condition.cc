#include "xjit/backends/cpu/counter_condition.h"

#include <cstdint>

namespace xjit::cpu {
namespace {

// The types Load reads, compared as the spec says for them (signed or
// unsigned; kNotype lets the element type decide).
bool Accepted(DType t, ComparisonType how) {
  switch (t) {
    case DType::kS8: case DType::kS16: case DType::kS32: case DType::kS64:
      return how == ComparisonType::kSigned || how == ComparisonType::kNotype;
    case DType::kU8: case DType::kU16: case DType::kU32:
      return how == ComparisonType::kUnsigned || how == ComparisonType::kNotype;
    default:
      return false;
  }
}

}  // namespace

std::optional<CounterCondition> CounterCondition::Match(const Computation& condition) {
  if (condition.results().size() != 1) return std::nullopt;
  const Instruction* cmp = condition.results()[0];
  if (cmp->opcode() != Opcode::kCompare || cmp->shape().rank() != 0) return std::nullopt;
  CounterCondition c;
  c.type_ = cmp->operand(0)->shape().dtype;
  const CompareAttrs& attrs = cmp->attrs<CompareAttrs>();
  if (!Accepted(c.type_, attrs.compare_type) || cmp->operand(1)->shape().dtype != c.type_) {
    return std::nullopt;
  }
  c.direction_ = attrs.comparison_direction;
  Side* sides[2] = {&c.lhs_, &c.rhs_};
  for (int i = 0; i < 2; ++i) {
    const Instruction* o = cmp->operand(i);
    if (o->opcode() == Opcode::kParameter) {
      sides[i]->parameter = o->attrs<ParameterAttrs>().number;
    } else if (o->opcode() == Opcode::kConstant) {
      sides[i]->constant = Load(c.type_, o->attrs<ConstantAttrs>().value.data());
    } else {
      return std::nullopt;
    }
  }
  return c;
}

}  // namespace xjit::cpu
