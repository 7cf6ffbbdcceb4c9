#include "xjit/passes/algebraic_simplification.h"

#include <complex>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/walk.h"

namespace xjit::passes {
namespace {

enum class Splat { kOne, kZero, kNegativeZero };

// The bytes of one element of `dtype` with the value `splat` has.
Literal Element(DType dtype, Splat splat) {
  return DispatchDType(dtype, [splat, dtype](auto tag) {
    using T = typename decltype(tag)::type;
    T v{};
    if constexpr (std::is_same_v<T, bool>) {
      v = splat == Splat::kOne;
    } else if constexpr (is_half_v<T>) {
      v = T(splat == Splat::kOne ? 1.0f : splat == Splat::kZero ? 0.0f : -0.0f);
    } else if constexpr (is_complex_v<T>) {
      using R = typename T::value_type;
      R r = splat == Splat::kOne ? R(1) : splat == Splat::kZero ? R(0) : -R(0);
      v = T(r, splat == Splat::kNegativeZero ? -R(0) : R(0));
    } else if constexpr (std::is_floating_point_v<T>) {
      v = splat == Splat::kOne ? T(1) : splat == Splat::kZero ? T(0) : -T(0);
    } else {
      v = splat == Splat::kOne ? T(1) : T(0);
    }
    return Literal::Scalar<T>(dtype, v);
  });
}

// Whether every element of `value` is `splat`: a constant, or a
// broadcast_in_dim of one.
bool IsSplat(const Instruction* value, Splat splat) {
  while (value->opcode() == Opcode::kBroadcastInDim) value = value->operand(0);
  if (value->opcode() != Opcode::kConstant) return false;
  const Literal& lit = value->attrs<ConstantAttrs>().value;
  if (lit.shape().is_tuple) return false;
  Literal want = Element(lit.shape().dtype, splat);
  const int64_t width = want.size_bytes();
  for (int64_t i = 0; i < lit.shape().num_elements(); ++i) {
    if (std::memcmp(lit.data() + i * width, want.data(), width) != 0) return false;
  }
  return true;
}

bool IsIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// When `to` is `from` (no unit dimensions) with unit dimensions inserted,
// the position in `to` of each dimension of `from`.
std::optional<std::vector<int64_t>> UnitDimensionsAdded(const std::vector<int64_t>& from,
                                                        const std::vector<int64_t>& to) {
  std::vector<int64_t> positions;
  size_t i = 0;
  for (size_t j = 0; j < to.size(); ++j) {
    if (i < from.size() && to[j] == from[i]) {
      if (from[i] == 1) return std::nullopt;
      positions.push_back(static_cast<int64_t>(j));
      ++i;
    } else if (to[j] != 1) {
      return std::nullopt;
    }
  }
  if (i != from.size()) return std::nullopt;
  return positions;
}

// The value of an element-wise binary `op` on (a, b) when one side is a
// neutral element, or null.
Instruction* DropNeutral(Opcode op, Instruction* a, Instruction* b) {
  const DType t = a->shape().dtype;
  const bool integer = IsInteger(t), exact_float = IsFloat(t) || IsComplex(t);
  if (op == Opcode::kMultiply) {
    if (IsComplex(t) || IsPred(t)) return nullptr;
    if (IsSplat(b, Splat::kOne)) return a;
    return IsSplat(a, Splat::kOne) ? b : nullptr;
  }
  if (op == Opcode::kDivide) {
    return !IsComplex(t) && !IsPred(t) && IsSplat(b, Splat::kOne) ? a : nullptr;
  }
  if (!integer && !exact_float) return nullptr;
  if (op == Opcode::kAdd) {
    const Splat zero = integer ? Splat::kZero : Splat::kNegativeZero;
    if (IsSplat(b, zero)) return a;
    return IsSplat(a, zero) ? b : nullptr;
  }
  if (op == Opcode::kSubtract) return IsSplat(b, Splat::kZero) ? a : nullptr;
  return nullptr;
}

// Either a value to use, or an op to build on one operand (with the
// replaced instruction's type, when the op declares its result type).
struct Simplified {
  Instruction* value = nullptr;
  Opcode op = Opcode::kReshape;
  Instruction* operand = nullptr;
  Attributes attrs;
};

Simplified SimplifyTranspose(const Instruction& instr, Instruction* x) {
  const std::vector<int64_t>& permutation = instr.attrs<TransposeAttrs>().permutation;
  if (IsIdentityPermutation(permutation)) return {x};
  if (x->opcode() != Opcode::kTranspose) return {};
  // Result dimension i is x's dimension p[i], which is x's operand's
  // dimension inner[p[i]].
  const std::vector<int64_t>& inner = x->attrs<TransposeAttrs>().permutation;
  TransposeAttrs composed;
  for (int64_t d : permutation) composed.permutation.push_back(inner[d]);
  if (IsIdentityPermutation(composed.permutation)) return {x->operand(0)};
  return {nullptr, Opcode::kTranspose, x->operand(0), composed};
}

Simplified SimplifyBroadcast(const Instruction& instr, Instruction* x) {
  const std::vector<int64_t>& outer = instr.attrs<BroadcastInDimAttrs>().broadcast_dimensions;
  if (x->shape() == instr.shape() && IsIdentityPermutation(outer)) return {x};
  if (x->opcode() == Opcode::kReshape) {
    // A reshape that only adds unit dimensions to y (as keepdims does)
    // feeding a broadcast: broadcast y directly.
    std::optional<std::vector<int64_t>> dims =
        UnitDimensionsAdded(x->operand(0)->shape().dims, x->shape().dims);
    if (!dims) return {};
    BroadcastInDimAttrs direct;
    for (int64_t d : *dims) direct.broadcast_dimensions.push_back(outer[d]);
    return {nullptr, Opcode::kBroadcastInDim, x->operand(0), direct};
  }
  if (x->opcode() != Opcode::kBroadcastInDim) return {};
  // x's operand dimension i went to x's dimension inner[i], which goes to
  // dimension outer[inner[i]] here.
  BroadcastInDimAttrs composed;
  for (int64_t d : x->attrs<BroadcastInDimAttrs>().broadcast_dimensions) {
    composed.broadcast_dimensions.push_back(outer[d]);
  }
  return {nullptr, Opcode::kBroadcastInDim, x->operand(0), composed};
}

Simplified SimplifyReshape(const Instruction& instr, Instruction* x) {
  if (x->shape() == instr.shape()) return {x};
  if (x->opcode() == Opcode::kReshape) return {nullptr, Opcode::kReshape, x->operand(0), {}};
  return {};
}

bool AllZero(const std::vector<int64_t>& v) {
  for (int64_t x : v) {
    if (x != 0) return false;
  }
  return true;
}

// The operand, when slice, reverse, pad or concatenate leaves it as it is;
// null otherwise.
Instruction* UnmovedOperand(const Instruction& instr, absl::Span<Instruction* const> operands) {
  const Opcode op = instr.opcode();
  if (op == Opcode::kConcatenate) return operands.size() == 1 ? operands[0] : nullptr;
  Instruction* x = operands.empty() ? nullptr : operands[0];
  if (op == Opcode::kSlice) {
    // A slice as large as its operand takes all of it, in order.
    return x->shape() == instr.shape() ? x : nullptr;
  }
  if (op == Opcode::kReverse) {
    for (int64_t d : instr.attrs<ReverseAttrs>().dimensions) {
      if (x->shape().dims[d] != 1) return nullptr;
    }
    return x;
  }
  if (op == Opcode::kPad) {
    const PadAttrs& pad = instr.attrs<PadAttrs>();
    return AllZero(pad.edge_padding_low) && AllZero(pad.edge_padding_high) &&
                   AllZero(pad.interior_padding)
               ? x
               : nullptr;
  }
  return nullptr;
}

// What `instr` (with these operands) simplifies to; both fields null when
// it does not.
Simplified Simplify(const Instruction& instr, absl::Span<Instruction* const> operands) {
  const Opcode op = instr.opcode();
  if (instr.shape().is_tuple) return {};
  if (IsElementwiseBinary(op) && op != Opcode::kCompare) {
    return {DropNeutral(op, operands[0], operands[1])};
  }
  if (Instruction* x = UnmovedOperand(instr, operands)) return {x};
  // select(p, true, false) is p (tril of a bool matrix: where(mask, ones, False)).
  if (op == Opcode::kSelect && instr.shape().dtype == DType::kPred &&
      operands[0]->shape() == instr.shape() && IsSplat(operands[1], Splat::kOne) &&
      IsSplat(operands[2], Splat::kZero)) {
    return {operands[0]};
  }
  // p != false and p == true are p (jnp's floor modulo compares a sign test
  // with the divisor's, a constant).
  if (op == Opcode::kCompare && operands[0]->shape().dtype == DType::kPred) {
    const ComparisonDirection d = instr.attrs<CompareAttrs>().comparison_direction;
    const Splat keeps = d == ComparisonDirection::kNe ? Splat::kZero : Splat::kOne;
    if (d == ComparisonDirection::kNe || d == ComparisonDirection::kEq) {
      if (IsSplat(operands[1], keeps)) return {operands[0]};
      if (IsSplat(operands[0], keeps)) return {operands[1]};
    }
  }
  const bool moves_data = op == Opcode::kReshape || op == Opcode::kTranspose ||
                          op == Opcode::kBroadcastInDim || op == Opcode::kSlice ||
                          op == Opcode::kReverse;
  if (!moves_data && op != Opcode::kConvert && op != Opcode::kNegate) return {};
  Instruction* x = operands[0];
  if (x->shape().is_tuple) return {};
  // Moving a broadcast scalar around is broadcasting it to the new shape:
  // backends read such splats in place.
  if (moves_data && op != Opcode::kBroadcastInDim && x->opcode() == Opcode::kBroadcastInDim &&
      x->operand(0)->shape().rank() == 0) {
    return {nullptr, Opcode::kBroadcastInDim, x->operand(0), BroadcastInDimAttrs{}};
  }
  if (op == Opcode::kNegate) return {x->opcode() == Opcode::kNegate ? x->operand(0) : nullptr};
  if (op == Opcode::kConvert) return {x->shape() == instr.shape() ? x : nullptr};
  if (op == Opcode::kReshape) return SimplifyReshape(instr, x);
  if (op == Opcode::kTranspose) return SimplifyTranspose(instr, x);
  if (op == Opcode::kBroadcastInDim) return SimplifyBroadcast(instr, x);
  return {};
}

bool Simplifies(const Simplified& s) { return s.value != nullptr || s.operand != nullptr; }

// A float division by a broadcast of fewer elements, a / broadcast(b): it
// becomes a * broadcast(1 / b), one division per element of b (a row's sum
// in softmax, a scalar) instead of one per element of a. XLA rewrites it so
// too, so JAX programs see the same roundings (a multiply by a rounded
// reciprocal: within an ulp of the quotient, exact for powers of two).
bool DividesByBroadcast(const Instruction& instr, absl::Span<Instruction* const> operands) {
  if (instr.opcode() != Opcode::kDivide || instr.shape().is_tuple) return false;
  const DType t = instr.shape().dtype;
  if (t != DType::kF32 && t != DType::kF64 && t != DType::kF16 && t != DType::kBF16) return false;
  const Instruction* b = operands[1];
  return b->opcode() == Opcode::kBroadcastInDim &&
         b->operand(0)->shape().num_elements() < instr.shape().num_elements();
}

absl::StatusOr<Instruction*> MultiplyByReciprocal(const CloneContext& ctx) {
  Instruction* a = ctx.operands[0];
  const Instruction* b = ctx.operands[1];
  Instruction* small = b->operand(0);
  const std::string& where = ctx.old.source_location();
  Instruction* one = ctx.builder.Constant(Element(small->shape().dtype, Splat::kOne));
  absl::StatusOr<Instruction*> ones = ctx.builder.AddWithResultType(
      Opcode::kBroadcastInDim, small->shape(), {one}, BroadcastInDimAttrs{}, {}, where);
  if (!ones.ok()) return ones.status();
  absl::StatusOr<Instruction*> reciprocal =
      ctx.builder.Add(Opcode::kDivide, {*ones, small}, {}, {}, where);
  if (!reciprocal.ok()) return reciprocal.status();
  absl::StatusOr<Instruction*> spread = ctx.builder.AddWithResultType(
      Opcode::kBroadcastInDim, b->shape(), {*reciprocal}, b->attrs<BroadcastInDimAttrs>(), {},
      where);
  if (!spread.ok()) return spread.status();
  return ctx.builder.Add(Opcode::kMultiply, {a, *spread}, {}, {}, where);
}

// An iota of several dims with more than one element across its own: the
// iota of that dim alone, spread by a broadcast (tril's row and column
// numbers). Backends read such broadcasts in place (a vector, not a matrix
// of indices written out or kept as a constant).
bool SpreadsIota(const Instruction& instr) {
  if (instr.opcode() != Opcode::kIota || instr.shape().is_tuple) return false;
  const int64_t d = instr.attrs<IotaAttrs>().iota_dimension;
  const Shape& s = instr.shape();
  return s.rank() >= 2 && d >= 0 && d < s.rank() && s.num_elements() > s.dims[d];
}

absl::StatusOr<Instruction*> SpreadIota(const CloneContext& ctx) {
  const Shape& s = ctx.old.shape();
  const int64_t d = ctx.old.attrs<IotaAttrs>().iota_dimension;
  const std::string& where = ctx.old.source_location();
  Shape line = s;
  line.dims = {s.dims[d]};
  absl::StatusOr<Instruction*> iota =
      ctx.builder.AddWithResultType(Opcode::kIota, line, {}, IotaAttrs{0}, {}, where);
  if (!iota.ok()) return iota.status();
  return ctx.builder.AddWithResultType(Opcode::kBroadcastInDim, s, {*iota},
                                       BroadcastInDimAttrs{{d}}, {}, where);
}

// An element-wise op whose operands are all spread by one broadcast from
// values of one smaller shape, or are splats: the op on those values, spread
// (XLA's simplifier sinks broadcasts so too; the same ops on the same values,
// so the same bits). take_along_axis's fill mask then compares each row's
// index once, not every element of the spread index matrix. Returns one of
// the spreading broadcasts, or null.
const Instruction* SharedSpread(const Instruction& instr, absl::Span<Instruction* const> operands) {
  if (!IsElementwise(instr.opcode()) || instr.shape().is_tuple) return nullptr;
  const Instruction* model = nullptr;
  for (const Instruction* o : operands) {
    if (o->opcode() != Opcode::kBroadcastInDim || o->operand(0)->shape().is_tuple) return nullptr;
    const Shape& from = o->operand(0)->shape();
    if (from.rank() == 0) continue;  // a splat
    if (model == nullptr) {
      model = o;
    } else if (from.dims != model->operand(0)->shape().dims ||
               o->attrs<BroadcastInDimAttrs>().broadcast_dimensions !=
                   model->attrs<BroadcastInDimAttrs>().broadcast_dimensions) {
      return nullptr;
    }
  }
  if (model == nullptr ||
      model->operand(0)->shape().num_elements() >= instr.shape().num_elements()) {
    return nullptr;
  }
  return model;
}

absl::StatusOr<Instruction*> SinkSpread(const CloneContext& ctx, const Instruction& spread) {
  const std::vector<int64_t>& small = spread.operand(0)->shape().dims;
  const std::string& where = ctx.old.source_location();
  std::vector<Instruction*> values;
  for (Instruction* o : ctx.operands) {
    Instruction* from = o->operand(0);
    if (from->shape().rank() == 0) {  // the splat at the small shape
      absl::StatusOr<Instruction*> splat =
          ctx.builder.AddWithResultType(Opcode::kBroadcastInDim, Shape(from->shape().dtype, small),
                                        {from}, BroadcastInDimAttrs{}, {}, where);
      if (!splat.ok()) return splat.status();
      from = *splat;
    }
    values.push_back(from);
  }
  const Opcode op = ctx.old.opcode();
  absl::StatusOr<Instruction*> value =
      DeclaresResultType(op)
          ? ctx.builder.AddWithResultType(op, Shape(ctx.old.shape().dtype, small), values,
                                          ctx.old.attributes(), {}, where)
          : ctx.builder.Add(op, values, ctx.old.attributes(), {}, where);
  if (!value.ok()) return value.status();
  return ctx.builder.AddWithResultType(Opcode::kBroadcastInDim, ctx.old.shape(), {*value},
                                       spread.attrs<BroadcastInDimAttrs>(), {}, where);
}

class AlgebraicSimplification : public RewriteRule {
 public:
  bool Prepare(const Module& module) override {
    // Fusion regions take no new constants (a backend may compile an
    // already fused module): the reciprocal rewrite stays out of them.
    fusion_regions_.clear();
    const auto order = ComputationPostOrder(module);
    for (const Computation* c : order) {
      for (const auto& instr : c->instructions()) {
        if (instr->opcode() != Opcode::kFusion) continue;
        for (const Computation* called : instr->called_computations()) {
          fusion_regions_.insert(called);
        }
      }
    }
    for (const Computation* c : order) {
      for (const auto& instr : c->instructions()) {
        if (Simplifies(Simplify(*instr, instr->operands())) ||
            (!fusion_regions_.contains(c) && (DividesByBroadcast(*instr, instr->operands()) ||
                                              SpreadsIota(*instr) ||
                                              SharedSpread(*instr, instr->operands())))) {
          return true;
        }
      }
    }
    return false;
  }
  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) override {
    Simplified s = Simplify(ctx.old, ctx.operands);
    if (s.value != nullptr) return CloneAction::Replace(s.value);
    if (s.operand == nullptr && !fusion_regions_.contains(&ctx.source) &&
        DividesByBroadcast(ctx.old, ctx.operands)) {
      absl::StatusOr<Instruction*> product = MultiplyByReciprocal(ctx);
      if (!product.ok()) return product.status();
      return CloneAction::Replace(*product);
    }
    if (s.operand == nullptr && !fusion_regions_.contains(&ctx.source)) {
      if (const Instruction* spread = SharedSpread(ctx.old, ctx.operands)) {
        absl::StatusOr<Instruction*> sunk = SinkSpread(ctx, *spread);
        if (!sunk.ok()) return sunk.status();
        return CloneAction::Replace(*sunk);
      }
    }
    if (!fusion_regions_.contains(&ctx.source) && SpreadsIota(ctx.old)) {
      absl::StatusOr<Instruction*> spread = SpreadIota(ctx);
      if (!spread.ok()) return spread.status();
      return CloneAction::Replace(*spread);
    }
    if (s.operand == nullptr) return CloneAction::Clone();
    // The rebuilt op has the replaced instruction's type.
    absl::StatusOr<Instruction*> rebuilt =
        DeclaresResultType(s.op)
            ? ctx.builder.AddWithResultType(s.op, ctx.old.shape(), {s.operand}, s.attrs, {},
                                            ctx.old.source_location())
            : ctx.builder.Add(s.op, {s.operand}, s.attrs, {}, ctx.old.source_location());
    if (!rebuilt.ok()) return rebuilt.status();
    return CloneAction::Replace(*rebuilt);
  }

 private:
  absl::flat_hash_set<const Computation*> fusion_regions_;
};

}  // namespace

std::unique_ptr<RewriteRule> MakeAlgebraicSimplificationRule() { return std::make_unique<AlgebraicSimplification>(); }

absl::StatusOr<bool> RunAlgebraicSimplification(Module& module) {
  AlgebraicSimplification rule;
  return RunRule(module, rule);
}

}  // namespace xjit::passes
