#include "xjit/passes/narrow_type_expansion.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/narrow_convert.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/built_value.h"

namespace xjit::passes {
namespace {

bool IsNarrowLeaf(const Shape& leaf) { return IsNarrow(leaf.dtype); }

bool HasNarrow(const Shape& s) { return AnyArrayLeaf(s, IsNarrowLeaf); }

Shape Widen(const Shape& s) {
  if (s.is_tuple) {
    std::vector<Shape> elements;
    for (const Shape& e : s.tuple_shapes) elements.push_back(Widen(e));
    return Shape::Tuple(std::move(elements));
  }
  if (s.is_token) return s;
  return Shape(NarrowComputeType(s.dtype), s.dims);
}

bool Touches(const Instruction& instr) { return AnyArrayLeafOfTypes(instr, IsNarrowLeaf); }

// Every narrow type stores its code in the low bits of a byte, so a bitcast
// between types of one bit width copies bytes. Width-changing bitcasts of
// whole-byte types regroup bytes; sub-byte ones would regroup bits.
bool IsByteBitcast(const Shape& from, const Shape& to) {
  if (BitWidth(from.dtype) < 8 || BitWidth(to.dtype) < 8) {
    return BitWidth(from.dtype) == BitWidth(to.dtype) && from.dims == to.dims;
  }
  return true;
}

class Expander {
 public:
  explicit Expander(const Module& module)
      : target_(module.name()),
        cloner_(target_, CloneOptions{[this](const CloneContext& ctx) { return Rewrite(ctx); }}) {}

  absl::StatusOr<std::unique_ptr<Module>> Run(const Module& module) {
    absl::StatusOr<Computation*> entry = cloner_.CloneComputation(*module.entry());
    if (!entry.ok()) return entry.status();
    return target_.Build(*entry);
  }

 private:
  absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) {
    const Instruction& old = ctx.old;
    if (RunsOnNarrowStorage(old)) return CloneAction::Clone();
    ComputationBuilder& b = ctx.builder;
    Built replaced = [&]() -> Built {
      switch (old.opcode()) {
        case Opcode::kConvert: return ConvertChain(b, ctx.operands[0], old.shape().dtype);
        case Opcode::kBitcastConvert:
          return absl::UnimplementedError(absl::StrCat(
              "bitcast_convert: from ", old.operand(0)->shape().ToString(), " to ",
              old.shape().ToString(), " regroups sub-byte elements, which is not supported"));
        case Opcode::kRng:
        case Opcode::kRngBitGenerator:
          return absl::UnimplementedError(absl::StrCat(
              OpcodeName(old.opcode()), ": random values of a narrow element type (",
              old.shape().ToString(), ") are not supported; generate a wider type and convert"));
        default: return WidenOp(ctx);
      }
    }();
    if (!replaced.ok()) return replaced.status();
    return CloneAction::Replace(*replaced);
  }

  Built Convert(ComputationBuilder& b, Instruction* x, DType to) {
    if (x->shape().dtype == to) return x;
    return b.AddWithResultType(Opcode::kConvert, Shape(to, x->shape().dims), {x});
  }

  // The compute-type value of `v` (converted once per value).
  Built Wide(ComputationBuilder& b, Instruction* v) {
    if (!HasNarrow(v->shape())) return v;
    if (!v->shape().is_array()) {
      return absl::UnimplementedError(absl::StrCat("a tuple operand with narrow element types (",
                                                   v->shape().ToString(), ") is not supported"));
    }
    auto it = wide_.find(v);
    if (it != wide_.end()) return it->second;
    Built w = Convert(b, v, NarrowComputeType(v->shape().dtype));
    if (w.ok()) wide_[v] = *w;
    return w;
  }

  // `w` (of Widen(shape)) back in `shape`: rounded or wrapped per element.
  Built Narrowed(ComputationBuilder& b, Instruction* w, const Shape& shape) {
    if (!HasNarrow(shape)) return w;
    if (!shape.is_tuple) return Convert(b, w, shape.dtype);
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes.size()); ++i) {
      XJIT_ASSIGN_OR_RETURN(e, b.Add(Opcode::kGetTupleElement, {w}, GetTupleElementAttrs{i}));
      XJIT_ASSIGN_OR_RETURN(n, Narrowed(b, e, shape.tuple_shapes[i]));
      elements.push_back(n);
    }
    return b.Add(Opcode::kTuple, std::move(elements));
  }

  // Bit ops see only a sub-byte integer's own bits: they run on its code,
  // zero-extended (the unsigned type of its width), and clz does not count
  // the extension.
  static bool IsSubByteBitOp(const Instruction& instr) {
    const Opcode op = instr.opcode();
    return (op == Opcode::kPopcnt || op == Opcode::kCountLeadingZeros ||
            op == Opcode::kShiftRightLogical) &&
           instr.shape().is_array() && IsNarrow(instr.shape().dtype) && IsInteger(instr.shape().dtype);
  }

  Built SubByteBitOp(const CloneContext& ctx) {
    const Instruction& old = ctx.old;
    ComputationBuilder& b = ctx.builder;
    const DType t = old.shape().dtype;
    const int bits = BitWidth(t);
    const DType code_type = bits == 2 ? DType::kU2 : DType::kU4;
    std::vector<Instruction*> operands;
    for (Instruction* o : ctx.operands) {
      XJIT_ASSIGN_OR_RETURN(code, ConvertChain(b, o, code_type));
      XJIT_ASSIGN_OR_RETURN(w, Wide(b, code));
      operands.push_back(w);
    }
    XJIT_ASSIGN_OR_RETURN(r, b.Add(old.opcode(), std::move(operands), old.attributes()));
    Instruction* result = r;
    if (old.opcode() == Opcode::kCountLeadingZeros) {
      Instruction* k = b.Constant(Literal::Scalar(DType::kU8, static_cast<uint8_t>(8 - bits)));
      XJIT_ASSIGN_OR_RETURN(splat, b.AddWithResultType(Opcode::kBroadcastInDim, r->shape(), {k},
                                                       BroadcastInDimAttrs{}));
      XJIT_ASSIGN_OR_RETURN(d, b.Add(Opcode::kSubtract, {r, splat}));
      result = d;
    }
    XJIT_ASSIGN_OR_RETURN(code, ConvertChain(b, result, code_type));
    return ConvertChain(b, code, t);
  }

  Built WidenOp(const CloneContext& ctx) {
    const Instruction& old = ctx.old;
    ComputationBuilder& b = ctx.builder;
    if (IsSubByteBitOp(old)) return SubByteBitOp(ctx);
    std::vector<Instruction*> operands;
    for (Instruction* o : ctx.operands) {
      XJIT_ASSIGN_OR_RETURN(w, Wide(b, o));
      operands.push_back(w);
    }
    std::vector<Computation*> called;
    for (const Computation* callee : old.called_computations()) {
      absl::StatusOr<Computation*> region = WidenedRegion(*callee);
      if (!region.ok()) return region.status();
      called.push_back(*region);
    }
    Built w = DeclaresResultType(old.opcode())
                  ? b.AddWithResultType(old.opcode(), Widen(old.shape()), std::move(operands),
                                        old.attributes(), std::move(called), old.source_location())
                  : b.Add(old.opcode(), std::move(operands), old.attributes(), std::move(called),
                          old.source_location());
    if (!w.ok()) return w.status();
    return Narrowed(b, *w, old.shape());
  }

  // A region over element values (reduce, sort, scatter, ...) taking and
  // returning compute-type values. Its parameters are exact narrow values,
  // so they serve as their own wide values; each op inside rounds.
  absl::StatusOr<Computation*> WidenedRegion(const Computation& body) {
    auto it = regions_.find(&body);
    if (it != regions_.end()) return it->second;
    ComputationBuilder* rb = target_.NewComputation(absl::StrCat(body.name(), "_wide"));
    ValueMap map;
    std::vector<Instruction*> params;
    for (const Instruction* p : body.parameters()) params.push_back(rb->Parameter(Widen(p->shape())));
    for (size_t i = 0; i < params.size(); ++i) {
      const Shape& shape = body.parameters()[i]->shape();
      if (!HasNarrow(shape)) {
        map[body.parameters()[i]] = params[i];
        continue;
      }
      XJIT_ASSIGN_OR_RETURN(n, Narrowed(*rb, params[i], shape));
      if (shape.is_array()) wide_[n] = params[i];
      map[body.parameters()[i]] = n;
    }
    absl::StatusOr<std::vector<Instruction*>> results = cloner_.CloneBody(body, *rb, map);
    if (!results.ok()) return results.status();
    std::vector<Instruction*> wide_results;
    for (Instruction* r : *results) {
      XJIT_ASSIGN_OR_RETURN(w, Wide(*rb, r));
      wide_results.push_back(w);
    }
    absl::StatusOr<Computation*> region = rb->Finish(std::move(wide_results));
    if (region.ok()) regions_[&body] = *region;
    return region;
  }

  // convert(x -> to) from direct conversions: into the source's compute type
  // (exact), then to the target through the type it converts from directly
  // (f64 for 64-bit and 32-bit integers and f64, so a small float is rounded
  // once; s8/u8 for sub-byte integers, which then wrap).
  Built ConvertChain(ComputationBuilder& b, Instruction* x, DType to) {
    DType from = x->shape().dtype;
    if (from == to || IsDirectNarrowConvert(from, to)) return Convert(b, x, to);
    if (IsNarrow(from)) {
      XJIT_ASSIGN_OR_RETURN(w, Convert(b, x, NarrowComputeType(from)));
      return ConvertChain(b, w, to);
    }
    if (!IsNarrow(to)) return Convert(b, x, to);
    DType via = NarrowComputeType(to);
    if (IsNarrowFloat(to)) {
      const bool wide_source = BitWidth(from) >= 32 && from != DType::kF32 && from != DType::kC64;
      via = wide_source ? DType::kF64 : DType::kF32;
    }
    XJIT_ASSIGN_OR_RETURN(v, Convert(b, x, via));
    return Convert(b, v, to);
  }

  ModuleBuilder target_;
  Cloner cloner_;
  absl::flat_hash_map<const Instruction*, Instruction*> wide_;
  absl::flat_hash_map<const Computation*, Computation*> regions_;
};

}  // namespace

bool RunsOnNarrowStorage(const Instruction& instr) {
  if (!Touches(instr)) return true;
  switch (instr.opcode()) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kBroadcastInDim:
    case Opcode::kReshape: case Opcode::kTranspose: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse:
    case Opcode::kTuple: case Opcode::kGetTupleElement: case Opcode::kCall:
    case Opcode::kWhile: case Opcode::kIf: case Opcode::kCase: case Opcode::kComposite:
    case Opcode::kOptimizationBarrier: case Opcode::kGather: case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice: case Opcode::kSelect: case Opcode::kAfterAll:
    case Opcode::kInfeed: case Opcode::kOutfeed: case Opcode::kSend: case Opcode::kRecv:
    case Opcode::kCustomCall:
      return true;
    case Opcode::kConvert:
      return IsDirectNarrowConvert(instr.operand(0)->shape().dtype, instr.shape().dtype);
    case Opcode::kBitcastConvert:
      return !instr.shape().is_tuple && !instr.operand(0)->shape().is_tuple &&
             IsByteBitcast(instr.operand(0)->shape(), instr.shape());
    default:
      return false;
  }
}

bool HasNarrowTypes(const Module& module) { return AnyResultLeaf(module, IsNarrowLeaf); }

absl::StatusOr<std::unique_ptr<Module>> ExpandNarrowTypes(const Module& module) {
  if (module.entry() == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  Expander expander(module);
  return expander.Run(module);
}

}  // namespace xjit::passes
