#include "xjit/backends/cpu/counter_condition.h"

#include <cstdint>

namespace xjit::cpu {
namespace {

// An integer scalar as int64_t; the types Match accepts all fit.
int64_t Load(DType type, const void* p) {
  switch (type) {
    case DType::kS8: return *static_cast<const int8_t*>(p);
    case DType::kS16: return *static_cast<const int16_t*>(p);
    case DType::kS32: return *static_cast<const int32_t*>(p);
    case DType::kS64: return *static_cast<const int64_t*>(p);
    case DType::kU8: return *static_cast<const uint8_t*>(p);
    case DType::kU16: return *static_cast<const uint16_t*>(p);
    case DType::kU32: return *static_cast<const uint32_t*>(p);
    default: return 0;  // excluded by Match
  }
}

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

int64_t CounterCondition::Read(const Side& side, const void* const* args) const {
  return side.parameter < 0 ? side.constant : Load(type_, args[side.parameter]);
}

bool CounterCondition::Compare(int64_t a, int64_t b) const {
  switch (direction_) {
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kLt: return a < b;
  }
  return false;
}

}  // namespace xjit::cpu
