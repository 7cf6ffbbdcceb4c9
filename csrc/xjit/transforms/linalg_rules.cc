// Rules of the linear-algebra ops, after JAX's (jax/_src/lax/linalg.py).
//
// cholesky (lower): A = L L^H reads only the lower triangle of A, so the
// tangent of the matrix it sees is S = tril(dA, -1) + tril(dA, -1)^H +
// Re(diag(dA)) (the imaginary part of the diagonal is not read); then
// (Murray, arXiv:1602.07527) dL = L phi(L^-1 S L^-H), phi = the lower
// triangle with its diagonal halved, computed with two triangular solves.
// lower = false reads the upper triangle and returns U = L^H: the same rule
// on the adjoints.
//
// triangular_solve: X = op(A)^-1 B (left side) or B op(A)^-1. Linear in B:
// dX = solve(A, dB), and the transpose of B -> solve(A, B) is the solve with
// op(A)^T (op = transpose <-> no transpose; adjoint -> conj(A), no transpose).
// In A, only the triangle read (without the diagonal when it is unit)
// matters: dX = -solve(A, op(dA_tri) X) (left) or -solve(A, X op(dA_tri)).
#include "xjit/transforms/linalg_rules.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

JvpOut One(Value t) {
  JvpOut out;
  out.tangents = {t};
  return out;
}

// The permutation swapping the two innermost dimensions.
std::vector<int64_t> SwapLast(int64_t rank) {
  std::vector<int64_t> p(rank);
  for (int64_t i = 0; i < rank; ++i) p[i] = i;
  std::swap(p[rank - 1], p[rank - 2]);
  return p;
}

ValueOr Conj(Emitter& e, Value x) {
  if (!IsComplex(x->shape().dtype)) return x;
  XJIT_TF_ASSIGN_OR_RETURN(Value re, e.Unary(Opcode::kReal, x));
  XJIT_TF_ASSIGN_OR_RETURN(Value im, e.Unary(Opcode::kImag, x));
  XJIT_TF_ASSIGN_OR_RETURN(Value neg_im, e.Neg(im));
  return e.Binary(Opcode::kComplex, re, neg_im);
}

ValueOr MatrixTranspose(Emitter& e, Value x) { return e.Transpose(x, SwapLast(x->shape().rank())); }

ValueOr Adjoint(Emitter& e, Value x) {
  XJIT_TF_ASSIGN_OR_RETURN(Value t, MatrixTranspose(e, x));
  return Conj(e, t);
}

// A predicate of x's shape, true where column - row <= k (lower) or
// column - row >= k (upper): jnp.tril(x, k) / jnp.triu(x, k) keep those.
ValueOr TriangleMask(Emitter& e, const Shape& shape, bool lower, int64_t k) {
  const int64_t r = shape.rank();
  const int64_t m = shape.dims[r - 2], n = shape.dims[r - 1];
  ComputationBuilder& b = e.builder();
  XJIT_TF_ASSIGN_OR_RETURN(Value row, b.AddWithResultType(Opcode::kIota, Shape(DType::kS64, {m, n}),
                                                          {}, IotaAttrs{0}));
  XJIT_TF_ASSIGN_OR_RETURN(Value col, b.AddWithResultType(Opcode::kIota, Shape(DType::kS64, {m, n}),
                                                          {}, IotaAttrs{1}));
  XJIT_TF_ASSIGN_OR_RETURN(Value diff, e.Sub(col, row));
  XJIT_TF_ASSIGN_OR_RETURN(Value kk, e.Full(DType::kS64, {m, n}, static_cast<double>(k)));
  XJIT_TF_ASSIGN_OR_RETURN(
      Value mask, e.Compare(lower ? ComparisonDirection::kLe : ComparisonDirection::kGe, diff, kk));
  return e.BroadcastInDim(mask, Shape(DType::kPred, shape.dims).dims, {r - 2, r - 1});
}

// x where the mask holds, zero elsewhere (linear in x).
ValueOr Triangle(Emitter& e, Value x, bool lower, int64_t k) {
  XJIT_TF_ASSIGN_OR_RETURN(Value mask, TriangleMask(e, x->shape(), lower, k));
  XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(x->shape()));
  return e.Select(mask, x, zeros);
}

ValueOr Solve(Emitter& e, Value a, Value b, TriangularSolveAttrs attrs) {
  return e.builder().Add(Opcode::kTriangularSolve, {a, b}, attrs);
}

// Batched matmul over the two innermost dimensions.
ValueOr MatMul(Emitter& e, Value x, Value y) {
  const int64_t r = x->shape().rank();
  DotDimensionNumbers d;
  for (int64_t i = 0; i + 2 < r; ++i) {
    d.lhs_batching_dimensions.push_back(i);
    d.rhs_batching_dimensions.push_back(i);
  }
  d.lhs_contracting_dimensions = {r - 1};
  d.rhs_contracting_dimensions = {r - 2};
  return e.DotGeneral(x, y, d);
}

}  // namespace

absl::StatusOr<JvpOut> CholeskyJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  if (ctx.t(0) == nullptr) return One(nullptr);
  const bool lower = ctx.old.attrs<CholeskyAttrs>().lower;
  // The factor as L (lower) and the tangent of the Hermitian matrix read.
  Value l = ctx.y();
  if (!lower) {
    XJIT_TF_ASSIGN_OR_RETURN(l, Adjoint(e, l));
  }
  // The op reads the triangle and only the real part of the diagonal.
  XJIT_TF_ASSIGN_OR_RETURN(Value tri, Triangle(e, ctx.t(0), lower, 0));
  XJIT_TF_ASSIGN_OR_RETURN(Value strict, Triangle(e, ctx.t(0), lower, lower ? -1 : 1));
  XJIT_TF_ASSIGN_OR_RETURN(Value diag, e.Sub(tri, strict));
  if (IsComplex(diag->shape().dtype)) {
    XJIT_TF_ASSIGN_OR_RETURN(Value re, e.Unary(Opcode::kReal, diag));
    XJIT_TF_ASSIGN_OR_RETURN(Value zero, e.ZerosLike(re->shape()));
    XJIT_TF_ASSIGN_OR_RETURN(diag, e.Binary(Opcode::kComplex, re, zero));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value strict_h, Adjoint(e, strict));
  XJIT_TF_ASSIGN_OR_RETURN(Value off, e.Add(strict, strict_h));
  XJIT_TF_ASSIGN_OR_RETURN(Value sigma, e.Add(off, diag));
  // tmp = sigma L^-H, then L^-1 tmp.
  TriangularSolveAttrs right{/*left_side=*/false, /*lower=*/true, /*unit_diagonal=*/false,
                             TransposeKind::kAdjoint};
  TriangularSolveAttrs left{/*left_side=*/true, /*lower=*/true, /*unit_diagonal=*/false,
                            TransposeKind::kNoTranspose};
  XJIT_TF_ASSIGN_OR_RETURN(Value tmp, Solve(e, l, sigma, right));
  XJIT_TF_ASSIGN_OR_RETURN(Value inner, Solve(e, l, tmp, left));
  // phi: the strictly lower triangle plus half the diagonal.
  XJIT_TF_ASSIGN_OR_RETURN(Value below, Triangle(e, inner, true, -1));
  XJIT_TF_ASSIGN_OR_RETURN(Value diag_mask, TriangleMask(e, inner->shape(), false, 0));
  XJIT_TF_ASSIGN_OR_RETURN(Value half, e.MulConst(inner, 0.5));
  XJIT_TF_ASSIGN_OR_RETURN(Value half_diag, Triangle(e, half, true, 0));
  XJIT_TF_ASSIGN_OR_RETURN(Value zeros, e.ZerosLike(inner->shape()));
  XJIT_TF_ASSIGN_OR_RETURN(half_diag, e.Select(diag_mask, half_diag, zeros));
  XJIT_TF_ASSIGN_OR_RETURN(Value phi, e.Add(below, half_diag));
  XJIT_TF_ASSIGN_OR_RETURN(Value dl, MatMul(e, l, phi));
  if (!lower) {
    XJIT_TF_ASSIGN_OR_RETURN(dl, Adjoint(e, dl));
  }
  return One(dl);
}

absl::StatusOr<JvpOut> TriangularSolveJvp(JvpContext& ctx) {
  Emitter& e = ctx.e;
  const TriangularSolveAttrs& attrs = ctx.old.attrs<TriangularSolveAttrs>();
  Value from_b = nullptr, from_a = nullptr;
  if (ctx.t(1) != nullptr) {
    XJIT_TF_ASSIGN_OR_RETURN(from_b, Solve(e, ctx.x(0), ctx.t(1), attrs));
  }
  if (ctx.t(0) != nullptr) {
    const int64_t k = attrs.unit_diagonal ? 1 : 0;
    XJIT_TF_ASSIGN_OR_RETURN(Value ga, Triangle(e, ctx.t(0), attrs.lower, attrs.lower ? -k : k));
    XJIT_TF_ASSIGN_OR_RETURN(ga, e.Neg(ga));
    if (attrs.transpose_a == TransposeKind::kTranspose) {
      XJIT_TF_ASSIGN_OR_RETURN(ga, MatrixTranspose(e, ga));
    } else if (attrs.transpose_a == TransposeKind::kAdjoint) {
      XJIT_TF_ASSIGN_OR_RETURN(ga, Adjoint(e, ga));
    }
    XJIT_TF_ASSIGN_OR_RETURN(Value prod,
                             attrs.left_side ? MatMul(e, ga, ctx.y()) : MatMul(e, ctx.y(), ga));
    XJIT_TF_ASSIGN_OR_RETURN(from_a, Solve(e, ctx.x(0), prod, attrs));
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value t, e.AddAny(from_a, from_b));
  return One(t);
}

absl::StatusOr<std::vector<Value>> TriangularSolveTranspose(TransposeContext& ctx) {
  if (ctx.linear[0]) {
    return absl::InvalidArgumentError(
        "vjp: 'triangular_solve' is linear in b only; its matrix a depends on a tangent");
  }
  Emitter& e = ctx.e;
  TriangularSolveAttrs attrs = ctx.old.attrs<TriangularSolveAttrs>();
  Value a = ctx.primal[0];
  switch (attrs.transpose_a) {
    case TransposeKind::kNoTranspose: attrs.transpose_a = TransposeKind::kTranspose; break;
    case TransposeKind::kTranspose: attrs.transpose_a = TransposeKind::kNoTranspose; break;
    case TransposeKind::kAdjoint:
    case TransposeKind::kTransposeInvalid:
      XJIT_TF_ASSIGN_OR_RETURN(a, Conj(e, a));
      attrs.transpose_a = TransposeKind::kNoTranspose;
      break;
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value ct_b, Solve(e, a, ctx.ct, attrs));
  return std::vector<Value>{nullptr, ct_b};
}

absl::StatusOr<BatchOut> LinalgBatch(BatchContext& ctx) {
  std::vector<Value> operands;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    operands.push_back(v);
  }
  XJIT_TF_ASSIGN_OR_RETURN(Value r, ctx.e.builder().Add(ctx.old.opcode(), operands,
                                                        ctx.old.attributes()));
  BatchOut out;
  out.values = {r};
  out.batched = {true};
  return out;
}

namespace {

// The layouts of `shapes` with a new outermost dimension: each minor-to-major
// list shifted by one, the new dimension most major.
absl::StatusOr<AttrText> BatchedLayouts(const AttrText& text, const std::vector<Shape>& shapes,
                                        absl::string_view what) {
  if (text.text.empty()) return text;  // row-major stays row-major
  absl::StatusOr<std::vector<std::vector<int64_t>>> layouts =
      ParseCustomCallLayouts(text, shapes, what);
  if (!layouts.ok()) return layouts.status();
  std::vector<std::string> items;
  for (const std::vector<int64_t>& l : *layouts) {
    std::vector<int64_t> shifted;
    for (int64_t d : l) shifted.push_back(d + 1);
    shifted.push_back(0);
    items.push_back(absl::StrCat("dense<[", absl::StrJoin(shifted, ", "), "]> : tensor<",
                                 shifted.size(), "xindex>"));
  }
  return AttrText{absl::StrCat("[", absl::StrJoin(items, ", "), "]")};
}

}  // namespace

bool IsLapackTarget(absl::string_view target) {
  return absl::StartsWith(target, "lapack_") && absl::EndsWith(target, "_ffi");
}

absl::StatusOr<BatchOut> LapackCustomCallBatch(BatchContext& ctx) {
  CustomCallAttrs attrs = ctx.old.attrs<CustomCallAttrs>();
  const std::string& name = attrs.call_target_name;
  if (!IsLapackTarget(name)) {
    return absl::UnimplementedError(absl::StrCat(
        "vmap: no batching rule for custom_call @", name,
        " (a host function sees whole arrays; only the LAPACK targets batch)"));
  }
  std::vector<Value> operands;
  std::vector<Shape> old_operands;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    XJIT_TF_ASSIGN_OR_RETURN(Value v, ctx.Batched(static_cast<int>(i)));
    operands.push_back(v);
    old_operands.push_back(ctx.old.operand(i)->shape());
  }
  const Shape& old_shape = ctx.old.shape();
  std::vector<Shape> old_results =
      old_shape.is_tuple ? old_shape.tuple_shapes : std::vector<Shape>{old_shape};
  std::vector<Shape> new_results;
  for (const Shape& s : old_results) {
    std::vector<int64_t> dims = {ctx.axis_size};
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    new_results.emplace_back(s.dtype, dims);
  }
  XJIT_TF_ASSIGN_OR_RETURN(attrs.operand_layouts,
                           BatchedLayouts(attrs.operand_layouts, old_operands, "operand_layouts"));
  XJIT_TF_ASSIGN_OR_RETURN(attrs.result_layouts,
                           BatchedLayouts(attrs.result_layouts, old_results, "result_layouts"));
  const Shape declared = old_shape.is_tuple ? Shape::Tuple(new_results) : new_results[0];
  XJIT_TF_ASSIGN_OR_RETURN(
      Value r, ctx.e.builder().AddWithResultType(Opcode::kCustomCall, declared, operands, attrs));
  BatchOut out;
  if (!r->shape().is_tuple) {
    out.values = {r};
    out.batched = {true};
    return out;
  }
  XJIT_TF_ASSIGN_OR_RETURN(std::vector<Value> parts, SplitTuple(ctx.e.builder(), r));
  out.values = parts;
  out.batched.assign(parts.size(), true);
  return out;
}

}  // namespace xjit::transforms
