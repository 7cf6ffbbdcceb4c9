#include "xjit/passes/quantized_op_expansion.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/builder/rewriter.h"
#include "xjit/ir/walk.h"
#include "xjit/passes/built_value.h"

namespace xjit::passes {
namespace {

bool IsQuantizedLeaf(const Shape& leaf) { return leaf.is_quantized(); }

bool Involves(const Instruction& instr) { return AnyArrayLeafOfTypes(instr, IsQuantizedLeaf); }

// Ops that pass values along without computing on them.
bool Forwards(Opcode op) {
  switch (op) {
    case Opcode::kTuple: case Opcode::kGetTupleElement: case Opcode::kCall: case Opcode::kWhile:
    case Opcode::kIf: case Opcode::kCase: case Opcode::kComposite: case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

struct Emit {
  ComputationBuilder& b;

  Built Convert(Instruction* x, DType to) {
    if (x->shape().dtype == to) return x;
    return b.AddWithResultType(Opcode::kConvert, Shape(to, x->shape().dims), {x});
  }

  // The per-tensor or per-slice values of `q` (scales or zero points),
  // converted to `type` and spread over `dims`.
  Built Params(const QuantizedType& q, const std::vector<double>& values, DType type,
               const std::vector<int64_t>& dims) {
    Literal lit(q.per_axis() ? Shape(DType::kF64, {static_cast<int64_t>(values.size())})
                             : Shape(DType::kF64, {}));
    for (size_t i = 0; i < values.size(); ++i) lit.mutable_data_as<double>()[i] = values[i];
    XJIT_ASSIGN_OR_RETURN(c, Convert(b.Constant(std::move(lit)), type));
    BroadcastInDimAttrs attrs;
    if (q.per_axis()) attrs.broadcast_dimensions = {q.quantized_dimension};
    return b.AddWithResultType(Opcode::kBroadcastInDim, Shape(type, dims), {c}, attrs);
  }

  static std::vector<double> ZeroPoints(const QuantizedType& q) {
    return std::vector<double>(q.zero_points.begin(), q.zero_points.end());
  }

  // (convert(x) - zero_point) * scale
  Built Dequantize(Instruction* storage, const QuantizedType& q) {
    const std::vector<int64_t>& dims = storage->shape().dims;
    XJIT_ASSIGN_OR_RETURN(x, Convert(storage, q.expressed));
    XJIT_ASSIGN_OR_RETURN(zp, Params(q, ZeroPoints(q), q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(scale, Params(q, q.scales, q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(shifted, b.Add(Opcode::kSubtract, {x, zp}));
    return b.Add(Opcode::kMultiply, {shifted, scale});
  }

  // convert(clamp(min, round_nearest_even(x / scale) + zero_point, max))
  Built Quantize(Instruction* x, const QuantizedType& q) {
    const std::vector<int64_t>& dims = x->shape().dims;
    XJIT_ASSIGN_OR_RETURN(e, Convert(x, q.expressed));
    XJIT_ASSIGN_OR_RETURN(scale, Params(q, q.scales, q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(scaled, b.Add(Opcode::kDivide, {e, scale}));
    XJIT_ASSIGN_OR_RETURN(rounded, b.Add(Opcode::kRoundNearestEven, {scaled}));
    XJIT_ASSIGN_OR_RETURN(zp, Params(q, ZeroPoints(q), q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(shifted, b.Add(Opcode::kAdd, {rounded, zp}));
    QuantizedType bounds = q;  // one "scale" each: the storage range
    bounds.quantized_dimension = -1;
    XJIT_ASSIGN_OR_RETURN(lo, Params(bounds, {static_cast<double>(q.storage_min)}, q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(hi, Params(bounds, {static_cast<double>(q.storage_max)}, q.expressed, dims));
    XJIT_ASSIGN_OR_RETURN(clamped, b.Add(Opcode::kClamp, {lo, shifted, hi}));
    return Convert(clamped, q.storage);
  }
};

absl::StatusOr<CloneAction> Rewrite(const CloneContext& ctx) {
  const Instruction& old = ctx.old;
  if (!Involves(old)) return CloneAction::Clone();
  Emit e{ctx.builder};
  const Opcode op = old.opcode();
  const std::string name(OpcodeName(op));
  auto done = [](Built r) -> absl::StatusOr<CloneAction> {
    if (!r.ok()) return r.status();
    return CloneAction::Replace(*r);
  };
  if (op == Opcode::kParameter) return CloneAction::Replace(ctx.builder.Parameter(StorageShape(old.shape())));
  if (op == Opcode::kConstant) {
    const Literal& value = old.attrs<ConstantAttrs>().value;
    return CloneAction::Replace(ctx.builder.Constant(Literal(StorageShape(value.shape()), value.data())));
  }
  if (Forwards(op)) return CloneAction::Clone();
  if (op == Opcode::kUniformDequantize) return done(e.Dequantize(ctx.operands[0], *old.operand(0)->shape().quant));
  if (op == Opcode::kUniformQuantize) {
    Instruction* x = ctx.operands[0];
    if (old.operand(0)->shape().is_quantized()) {
      XJIT_ASSIGN_OR_RETURN(d, e.Dequantize(x, *old.operand(0)->shape().quant));
      x = d;
    }
    return done(e.Quantize(x, *old.shape().quant));
  }
  if (!old.called_computations().empty() || op == Opcode::kCustomCall || old.shape().is_tuple) {
    return absl::UnimplementedError(absl::StrCat(
        name, ": quantized operands or results are supported on element-wise, data-movement, "
        "dot and convolution ops; this op's are not (", old.shape().ToString(), ")"));
  }
  std::vector<Instruction*> operands;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    const Shape& s = old.operand(i)->shape();
    if (s.is_quantized()) {
      XJIT_ASSIGN_OR_RETURN(d, e.Dequantize(ctx.operands[i], *s.quant));
      operands.push_back(d);
    } else {
      operands.push_back(ctx.operands[i]);
    }
  }
  const Shape& result = old.shape();
  Shape expressed = result.is_quantized() ? Shape(result.quant->expressed, result.dims) : result;
  Built r = DeclaresResultType(op)
                ? ctx.builder.AddWithResultType(op, expressed, std::move(operands), old.attributes())
                : ctx.builder.Add(op, std::move(operands), old.attributes());
  if (!r.ok() || !result.is_quantized()) return done(r);
  return done(e.Quantize(*r, *result.quant));
}

}  // namespace

bool HasQuantizedTypes(const Module& module) { return AnyResultLeaf(module, IsQuantizedLeaf); }

absl::StatusOr<std::unique_ptr<Module>> ExpandQuantizedOps(const Module& module) {
  return CloneModule(module, CloneOptions{Rewrite});
}

}  // namespace xjit::passes
