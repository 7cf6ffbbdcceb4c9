#include "xjit/transforms/collectives.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

constexpr absl::string_view kPrefix = "xjit_collective_";

// The id of the axis the innermost running Vmap binds; -1: none.
thread_local int64_t current_axis = -1;

absl::string_view KindName(Collective::Kind k) {
  switch (k) {
    case Collective::Kind::kPsum: return "psum";
    case Collective::Kind::kPmax: return "pmax";
    case Collective::Kind::kPmin: return "pmin";
    case Collective::Kind::kIndex: return "axis_index";
  }
  return "collective";
}

// max/min over the batch dimension of `x`.
ValueOr ReduceBatch(Emitter& e, Value x, Opcode op) {
  DType dtype = x->shape().dtype;
  XJIT_TF_ASSIGN_OR_RETURN(Computation * body, e.ScalarBody(op, dtype));
  std::optional<Literal> identity = BodyIdentity(op, dtype);
  if (!identity.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("vmap: pmax/pmin of ", NumpyName(dtype), " values is not supported"));
  }
  Value init = e.builder().Constant(*std::move(identity));
  ReduceAttrs attrs;
  attrs.dimensions = {0};
  return e.builder().Add(Opcode::kReduce, {x, init}, attrs, {body});
}

// The marked call again, on `operand` (batched over another axis): a callee
// of the operand's new type, the same marker.
ValueOr Rebind(Emitter& e, const Instruction& call, Value operand) {
  const Computation& callee = *call.called_computations()[0];
  ComputationBuilder* nb = e.module().NewComputation(absl::StrCat(callee.name(), "_vmap"));
  if (nb == nullptr) return absl::FailedPreconditionError("vmap: the module was already built");
  Value p = nb->Parameter(operand->shape());
  XJIT_TF_ASSIGN_OR_RETURN(Computation * body, nb->Finish({p}));
  return e.builder().Add(Opcode::kCall, {operand}, {}, {body}, call.source_location());
}

}  // namespace

std::optional<Collective> AsCollective(const Computation& callee) {
  if (!absl::StartsWith(callee.name(), kPrefix)) return std::nullopt;
  std::vector<absl::string_view> parts =
      absl::StrSplit(callee.name().substr(kPrefix.size()), '_');
  if (parts.size() < 2) return std::nullopt;
  Collective c;
  if (parts[0] == "psum") {
    c.kind = Collective::Kind::kPsum;
  } else if (parts[0] == "pmax") {
    c.kind = Collective::Kind::kPmax;
  } else if (parts[0] == "pmin") {
    c.kind = Collective::Kind::kPmin;
  } else if (parts[0] == "index") {
    c.kind = Collective::Kind::kIndex;
  } else {
    return std::nullopt;
  }
  if (!absl::SimpleAtoi(parts[1], &c.axis)) return std::nullopt;
  return c;
}

bool BindsCurrentAxis(const Instruction& instr) {
  if (current_axis < 0 || instr.opcode() != Opcode::kCall) return false;
  std::optional<Collective> c = AsCollective(*instr.called_computations()[0]);
  return c.has_value() && c->axis == current_axis;
}

ScopedVmapAxis::ScopedVmapAxis(int64_t id) : previous_(current_axis) { current_axis = id; }
ScopedVmapAxis::~ScopedVmapAxis() { current_axis = previous_; }

absl::StatusOr<BatchOut> CollectiveBatch(BatchContext& ctx, const Collective& c) {
  Emitter& e = ctx.e;
  if (c.axis != current_axis) {
    if (c.kind == Collective::Kind::kIndex || !ctx.batched[0]) {
      XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(e.builder(), ctx.old, ctx.operands));
      return BatchOut{{v}, {false}};
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value v, Rebind(e, ctx.old, ctx.operands[0]));
    return BatchOut{{v}, {true}};
  }
  if (c.kind == Collective::Kind::kIndex) {
    IotaAttrs attrs;
    attrs.iota_dimension = 0;
    XJIT_TF_ASSIGN_OR_RETURN(Value v, e.builder().AddWithResultType(
                                          Opcode::kIota, Shape(DType::kS32, {ctx.axis_size}),
                                          {}, attrs));
    return BatchOut{{v}, {true}};
  }
  Value x = ctx.operands[0];
  if (!ctx.batched[0]) {
    if (c.kind != Collective::Kind::kPsum) return BatchOut{{x}, {false}};
    XJIT_TF_ASSIGN_OR_RETURN(Value n, e.Full(x->shape().dtype, x->shape().dims,
                                             static_cast<double>(ctx.axis_size)));
    XJIT_TF_ASSIGN_OR_RETURN(Value v, e.Mul(x, n));
    return BatchOut{{v}, {false}};
  }
  Value v = nullptr;
  switch (c.kind) {
    case Collective::Kind::kPsum: {
      XJIT_TF_ASSIGN_OR_RETURN(v, e.ReduceSum(x, std::vector<int64_t>{0}));
      break;
    }
    case Collective::Kind::kPmax: {
      XJIT_TF_ASSIGN_OR_RETURN(v, ReduceBatch(e, x, Opcode::kMaximum));
      break;
    }
    case Collective::Kind::kPmin: {
      XJIT_TF_ASSIGN_OR_RETURN(v, ReduceBatch(e, x, Opcode::kMinimum));
      break;
    }
    case Collective::Kind::kIndex: break;
  }
  return BatchOut{{v}, {false}};
}

absl::StatusOr<JvpOut> CollectiveJvp(JvpContext& ctx, const Collective& c) {
  ComputationBuilder& b = ctx.e.builder();
  std::vector<Value> primals;
  for (const Parts& p : ctx.primal_operands) primals.push_back(p[0]);
  XJIT_TF_ASSIGN_OR_RETURN(Value y, CloneOnto(b, ctx.old, primals));
  JvpOut out{{y}, {nullptr}};
  if (c.kind == Collective::Kind::kIndex || ctx.t(0) == nullptr) return out;
  if (c.kind != Collective::Kind::kPsum) {
    return absl::UnimplementedError(
        absl::StrCat("jvp: no JVP rule for '", KindName(c.kind), "' yet"));
  }
  XJIT_TF_ASSIGN_OR_RETURN(out.tangents[0], CloneOnto(b, ctx.old, {ctx.t(0)}));
  return out;
}

absl::StatusOr<std::vector<Value>> CollectiveTranspose(Emitter& e, const Instruction& call,
                                                       const Collective& c, Value ct) {
  if (c.kind != Collective::Kind::kPsum) {
    return absl::UnimplementedError(
        absl::StrCat("vjp: no transpose rule for '", KindName(c.kind), "'"));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value v, CloneOnto(e.builder(), call, {ct}));
  return std::vector<Value>{v};
}

}  // namespace xjit::transforms
