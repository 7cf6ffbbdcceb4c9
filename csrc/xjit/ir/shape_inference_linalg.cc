// cholesky and triangular_solve: the spec's constraints, batched over every
// dimension but the two innermost (the matrices).
#include "absl/strings/str_cat.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

absl::Status CheckMatrixOperand(Opcode op, absl::string_view name, const Shape& x) {
  if (x.is_tuple || !(IsFloat(x.dtype) || IsComplex(x.dtype))) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpcodeName(op), ": ", name,
                     " must be a tensor of a floating-point or complex type, got ", x.ToString()));
  }
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": ", name, " must have rank >= 2 (a batch of matrices), got ",
        x.ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckSquare(Opcode op, absl::string_view name, const Shape& x) {
  const int64_t r = x.rank();
  if (x.dims[r - 2] != x.dims[r - 1]) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": ", name, " must be a batch of square matrices (its two innermost "
                                    "dimensions equal), got ", x.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferCholesky(const Shape& a, const CholeskyAttrs&) {
  if (absl::Status s = CheckMatrixOperand(Opcode::kCholesky, "a", a); !s.ok()) return s;
  if (absl::Status s = CheckSquare(Opcode::kCholesky, "a", a); !s.ok()) return s;
  return a;
}

absl::StatusOr<Shape> InferTriangularSolve(const Shape& a, const Shape& b,
                                           const TriangularSolveAttrs& attrs) {
  constexpr Opcode op = Opcode::kTriangularSolve;
  if (absl::Status s = CheckMatrixOperand(op, "a", a); !s.ok()) return s;
  if (absl::Status s = CheckMatrixOperand(op, "b", b); !s.ok()) return s;
  if (a.dtype != b.dtype) {  // C1
    return absl::InvalidArgumentError(
        absl::StrCat("triangular_solve: a and b must have the same element type, got ",
                     a.ToString(), " and ", b.ToString()));
  }
  if (a.rank() != b.rank()) {  // C2
    return absl::InvalidArgumentError(absl::StrCat(
        "triangular_solve: a and b must have the same rank, got ", a.ToString(), " and ",
        b.ToString()));
  }
  const int64_t r = a.rank();
  for (int64_t i = 0; i + 2 < r; ++i) {  // C3: the batch dimensions agree
    if (a.dims[i] != b.dims[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "triangular_solve: batch dimensions of a and b must be equal, got ", a.ToString(),
          " and ", b.ToString()));
    }
  }
  if (absl::Status s = CheckSquare(op, "a", a); !s.ok()) return s;  // C4
  const int64_t b_dim = attrs.left_side ? b.dims[r - 2] : b.dims[r - 1];
  if (a.dims[r - 1] != b_dim) {  // C5
    return absl::InvalidArgumentError(absl::StrCat(
        "triangular_solve: with left_side = ", attrs.left_side ? "true" : "false",
        ", the size of a's matrices (", a.dims[r - 1], ") must equal b's ",
        attrs.left_side ? "rows" : "columns", " (", b_dim, "); got ", a.ToString(), " and ",
        b.ToString()));
  }
  if (attrs.transpose_a == TransposeKind::kTransposeInvalid) {
    return absl::InvalidArgumentError(
        "triangular_solve: transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got "
        "TRANSPOSE_INVALID");
  }
  return b;
}

}  // namespace shape_inference
}  // namespace xjit
