#include "xjit/backends/cpu/index_wrap.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "xjit/backends/cpu/indexing_geometry.h"

namespace xjit::cpu {
namespace {

// The scalar a region value splats: a broadcast of a one-element constant,
// inside the region or outside (a region parameter bound to either).
const Literal* SplatLiteral(const Instruction& v, const Instruction& fusion) {
  auto outside = [&](const Instruction* x) {
    return x->opcode() == Opcode::kParameter ? fusion.operand(x->attrs<ParameterAttrs>().number)
                                             : x;
  };
  const Instruction* b = outside(&v);
  if (b->opcode() != Opcode::kBroadcastInDim) return nullptr;
  const Instruction* c = b == &v ? outside(b->operand(0)) : b->operand(0);
  if (c->opcode() != Opcode::kConstant || c->shape().num_elements() != 1) return nullptr;
  return &c->attrs<ConstantAttrs>().value;
}

// A compare of signed integers as signed integers (the default type).
bool SignedCompare(const Instruction& cmp) {
  const ComparisonType t = cmp.attrs<CompareAttrs>().compare_type;
  return t == ComparisonType::kNotype || t == ComparisonType::kSigned;
}

// Narrows [lo, hi) by `i DIR c` (or `c DIR i` when `swapped`); false for a
// comparison of another form.
bool NarrowRange(ComparisonDirection dir, bool swapped, int64_t c, int64_t* lo, int64_t* hi) {
  if (swapped) {  // c < i is i > c, and so on
    switch (dir) {
      case ComparisonDirection::kLt: dir = ComparisonDirection::kGt; break;
      case ComparisonDirection::kLe: dir = ComparisonDirection::kGe; break;
      case ComparisonDirection::kGt: dir = ComparisonDirection::kLt; break;
      case ComparisonDirection::kGe: dir = ComparisonDirection::kLe; break;
      default: return false;
    }
  }
  const bool plus_one = dir == ComparisonDirection::kGt || dir == ComparisonDirection::kLe;
  if (plus_one && c == std::numeric_limits<int64_t>::max()) return false;  // c + 1 overflows
  switch (dir) {
    case ComparisonDirection::kGe: *lo = std::max(*lo, c); return true;
    case ComparisonDirection::kGt: *lo = std::max(*lo, c + 1); return true;
    case ComparisonDirection::kLt: *hi = std::min(*hi, c); return true;
    case ComparisonDirection::kLe: *hi = std::min(*hi, c + 1); return true;
    default: return false;
  }
}

// Whether region value `v` is the region parameter bound to `what`, an
// operand of `fusion`.
bool BoundTo(const Instruction* v, const Instruction& fusion, const Instruction& what) {
  return v->opcode() == Opcode::kParameter &&
         fusion.operand(v->attrs<ParameterAttrs>().number) == &what;
}

// [lo, hi) when `both` (a value of `fusion`'s region) is lo <= i && i < hi
// (any two bounds, either operand order) of the region parameter bound to
// `raw`.
bool ValidRange(const Instruction& both, const Instruction& fusion, const Instruction& raw,
                int64_t* lo, int64_t* hi) {
  if (both.opcode() != Opcode::kAnd) return false;
  auto bound_to_raw = [&](const Instruction* v) { return BoundTo(v, fusion, raw); };
  *lo = std::numeric_limits<int64_t>::min();
  *hi = std::numeric_limits<int64_t>::max();
  for (const Instruction* cmp : both.operands()) {
    if (cmp->opcode() != Opcode::kCompare || !SignedCompare(*cmp)) return false;
    const bool swapped = !bound_to_raw(cmp->operand(0));
    const Instruction* other = cmp->operand(swapped ? 0 : 1);
    const Literal* c = SplatLiteral(*other, fusion);
    if ((swapped && !bound_to_raw(cmp->operand(1))) || c == nullptr ||
        !IsInteger(c->shape().dtype) || c->shape().dtype != raw.shape().dtype ||
        !NarrowRange(cmp->attrs<CompareAttrs>().comparison_direction, swapped,
                     LoadIndex(c->shape().dtype, c->data(), 0), lo, hi)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<IndexFill> MatchIndexFill(const Instruction& gather, const Instruction& raw,
                                        const Users& users, bool columns) {
  const std::vector<Instruction*>& u = users.of(gather);
  const int64_t positions =
      columns ? gather.shape().dims.back() : gather.shape().num_elements();
  if (u.size() != 1 || users.IsResult(gather) || u[0]->opcode() != Opcode::kFusion ||
      u[0]->called_computations().size() != 1 || u[0]->shape() != gather.shape() ||
      gather.shape().rank() == 0 || raw.shape().num_elements() != positions) {
    return std::nullopt;
  }
  const Instruction& fusion = *u[0];
  const Computation& region = *fusion.called_computations()[0];
  if (region.results().size() != 1) return std::nullopt;
  const Instruction* select = region.results()[0];
  if (select->opcode() != Opcode::kSelect || !BoundTo(select->operand(1), fusion, gather)) {
    return std::nullopt;
  }
  const Literal* fill = SplatLiteral(*select->operand(2), fusion);
  if (fill == nullptr || fill->shape().dtype != gather.shape().dtype) return std::nullopt;
  IndexFill f{&fusion, 0, 0, 0};
  std::memcpy(&f.bits, fill->data(), std::min<size_t>(sizeof(f.bits), ByteWidth(fill->shape().dtype)));
  const Instruction* both = select->operand(0);
  if (columns) {
    // The mask is a vector over the columns, computed by its own fusion and
    // spread over the rows: where(valid[None, :], gathered, fill).
    const Instruction* p = both->opcode() == Opcode::kBroadcastInDim ? both->operand(0) : nullptr;
    const int64_t last = gather.shape().rank() - 1;
    if (p == nullptr || p->opcode() != Opcode::kParameter ||
        both->attrs<BroadcastInDimAttrs>().broadcast_dimensions != std::vector<int64_t>{last}) {
      return std::nullopt;
    }
    const Instruction& mask = *fusion.operand(p->attrs<ParameterAttrs>().number);
    if (mask.opcode() != Opcode::kFusion || mask.called_computations().size() != 1 ||
        mask.called_computations()[0]->results().size() != 1 ||
        !ValidRange(*mask.called_computations()[0]->results()[0], mask, raw, &f.lo, &f.hi)) {
      return std::nullopt;
    }
    return f;
  }
  if (!ValidRange(*both, fusion, raw, &f.lo, &f.hi)) return std::nullopt;
  return f;
}

std::optional<IndexWrap> MatchIndexWrap(const Instruction& indices, const Users& users) {
  const Instruction* v = &indices;
  while (v->opcode() == Opcode::kReshape) v = v->operand(0);
  // Every value from the fusion to `indices` feeds only the next one, and
  // `indices` only its gather or scatter: the fusion is absorbed, so no
  // other reader may need its buffer (x[idx] and x[idx, 3] share indices).
  for (const Instruction* w = &indices;; w = w->operand(0)) {
    if (users.of(*w).size() != 1 || users.IsResult(*w)) return std::nullopt;
    if (w == v) break;
  }
  if (v->opcode() != Opcode::kFusion || v->called_computations().size() != 1 ||
      users.of(*v).size() != 1 || users.IsResult(*v)) {
    return std::nullopt;
  }
  const Computation& region = *v->called_computations()[0];
  if (region.results().size() != 1) return std::nullopt;
  const Instruction* select = region.results()[0];
  if (select->opcode() != Opcode::kSelect) return std::nullopt;
  const Instruction* i = select->operand(2);
  const Instruction* less = select->operand(0);
  const Instruction* add = select->operand(1);
  if (i->opcode() != Opcode::kParameter || !IsInteger(i->shape().dtype) ||
      less->opcode() != Opcode::kCompare || add->opcode() != Opcode::kAdd ||
      less->attrs<CompareAttrs>().comparison_direction != ComparisonDirection::kLt ||
      !SignedCompare(*less) ||
      less->operand(0) != i || (add->operand(0) != i && add->operand(1) != i)) {
    return std::nullopt;
  }
  const Instruction* n_splat = add->operand(0) == i ? add->operand(1) : add->operand(0);
  const Literal* zero = SplatLiteral(*less->operand(1), *v);
  const Literal* n = SplatLiteral(*n_splat, *v);
  if (zero == nullptr || n == nullptr || zero->shape().dtype != i->shape().dtype ||
      n->shape().dtype != i->shape().dtype || LoadIndex(zero->shape().dtype, zero->data(), 0) != 0 ||
      LoadIndex(n->shape().dtype, n->data(), 0) <= 0) {
    return std::nullopt;
  }
  const Instruction* raw = v->operand(i->attrs<ParameterAttrs>().number);
  if (raw->shape() != v->shape()) return std::nullopt;
  return IndexWrap{raw, v, LoadIndex(n->shape().dtype, n->data(), 0)};
}

}  // namespace xjit::cpu
