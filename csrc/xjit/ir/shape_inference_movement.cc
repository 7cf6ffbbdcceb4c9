// Creation and data-movement ops: iota, broadcast_in_dim, reshape, transpose,
// reverse, slice, concatenate, pad. They keep the element type and only
// rearrange dims, so most checks are on attribute values (OutOfRange).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xjit/ir/checked_math.h"
#include "xjit/ir/shape_inference_internal.h"

namespace xjit {
namespace shape_inference {
namespace {

absl::Status CheckLength(Opcode op, absl::string_view what, absl::Span<const int64_t> values,
                         const Shape& x) {
  if (static_cast<int64_t>(values.size()) == x.rank()) return absl::OkStatus();
  return absl::OutOfRangeError(absl::StrCat(OpcodeName(op), ": ", what, " ", DimsToString(values),
                                            " must have one entry per dim of ", x.ToString()));
}

// The declared result type of `op`: present, an array, dims >= 0.
absl::StatusOr<Shape> DeclaredArray(Opcode op, const Shape* declared) {
  if (declared == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": missing result shape"));
  }
  if (declared->is_tuple) {
    return absl::InvalidArgumentError(absl::StrCat(
        OpcodeName(op), ": result shape must be an array, got ", declared->ToString()));
  }
  for (int64_t d : declared->dims) {
    if (d < 0) {
      return absl::OutOfRangeError(absl::StrCat(OpcodeName(op), ": result dims must be >= 0, got ",
                                                DimsToString(declared->dims)));
    }
  }
  if (absl::Status s = CheckShapeSize(*declared, OpcodeName(op)); !s.ok()) return s;
  return *declared;
}

// The declared result of an op that moves elements without converting them
// (broadcast_in_dim, reshape): an array of the operand's element type.
absl::StatusOr<Shape> DeclaredResultOfOperandType(Opcode op, const Shape& x,
                                                  const Shape* declared) {
  absl::StatusOr<Shape> r = DeclaredArray(op, declared);
  if (!r.ok()) return r.status();
  if (r->dtype != x.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(OpcodeName(op), ": result ", r->ToString(),
                                                   " must have the element type of the operand ",
                                                   x.ToString()));
  }
  return r;
}

}  // namespace

absl::StatusOr<Shape> InferIota(const IotaAttrs& attrs, const Shape* declared) {
  absl::StatusOr<Shape> result = DeclaredArray(Opcode::kIota, declared);
  if (!result.ok()) return result.status();
  const Shape& r = *result;
  if (r.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("iota: result must have rank >= 1, got ", r.ToString()));
  }
  if (IsPred(r.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "iota: expected integer, floating-point or complex element type, got ", r.ToString()));
  }
  if (attrs.iota_dimension < 0 || attrs.iota_dimension >= r.rank()) {
    return absl::OutOfRangeError(absl::StrCat("iota: iota_dimension ", attrs.iota_dimension,
                                              " out of range for ", r.ToString()));
  }
  return r;
}

absl::StatusOr<Shape> InferBroadcastInDim(const Shape& x, const BroadcastInDimAttrs& attrs,
                                          const Shape* declared) {
  absl::StatusOr<Shape> result =
      DeclaredResultOfOperandType(Opcode::kBroadcastInDim, x, declared);
  if (!result.ok()) return result.status();
  const Shape& r = *result;
  const std::vector<int64_t>& bd = attrs.broadcast_dimensions;
  if (static_cast<int64_t>(bd.size()) != x.rank()) {
    return absl::OutOfRangeError(
        absl::StrCat("broadcast_in_dim: broadcast_dimensions ", DimsToString(bd),
                     " must have one entry per dim of the operand ", x.ToString()));
  }
  if (absl::Status s = CheckAxes(Opcode::kBroadcastInDim, "broadcast_dimensions", bd, r.rank());
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < bd.size(); ++i) {
    if (x.dims[i] != 1 && x.dims[i] != r.dims[bd[i]]) {
      return absl::InvalidArgumentError(
          absl::StrCat("broadcast_in_dim: operand ", x.ToString(), " dim ", i, " (size ", x.dims[i],
                       ") must be 1 or equal to result ", r.ToString(), " dim ", bd[i]));
    }
  }
  return r;
}

absl::StatusOr<Shape> InferReshape(const Shape& x, const Shape* declared) {
  absl::StatusOr<Shape> result = DeclaredResultOfOperandType(Opcode::kReshape, x, declared);
  if (!result.ok()) return result.status();
  const Shape& r = *result;
  if (r.num_elements() != x.num_elements()) {
    return absl::InvalidArgumentError(absl::StrCat("reshape: cannot reshape ", x.ToString(), " (",
                                                   x.num_elements(), " elements) to ", r.ToString(),
                                                   " (", r.num_elements(), " elements)"));
  }
  return r;
}

absl::StatusOr<Shape> InferTranspose(const Shape& x, const TransposeAttrs& attrs) {
  const std::vector<int64_t>& perm = attrs.permutation;
  bool ok = static_cast<int64_t>(perm.size()) == x.rank() &&
            CheckAxes(Opcode::kTranspose, "permutation", perm, x.rank()).ok();
  if (!ok) {
    return absl::OutOfRangeError(absl::StrCat("transpose: permutation ", DimsToString(perm),
                                              " is not a permutation of the dims of ",
                                              x.ToString()));
  }
  Shape r(x.dtype, std::vector<int64_t>(perm.size()));
  for (size_t d = 0; d < perm.size(); ++d) r.dims[d] = x.dims[perm[d]];
  return r;
}

absl::StatusOr<Shape> InferReverse(const Shape& x, const ReverseAttrs& attrs) {
  if (absl::Status s = CheckAxes(Opcode::kReverse, "dimensions", attrs.dimensions, x.rank());
      !s.ok()) {
    return s;
  }
  return x;
}

absl::StatusOr<Shape> InferSlice(const Shape& x, const SliceAttrs& attrs) {
  std::vector<int64_t> strides = attrs.strides;
  if (strides.empty()) strides.assign(x.rank(), 1);
  for (const auto& [what, v] :
       {std::pair<const char*, const std::vector<int64_t>*>{"start_indices", &attrs.start_indices},
        {"limit_indices", &attrs.limit_indices},
        {"strides", &strides}}) {
    if (absl::Status s = CheckLength(Opcode::kSlice, what, *v, x); !s.ok()) return s;
  }
  Shape r(x.dtype, std::vector<int64_t>(x.rank()));
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t start = attrs.start_indices[d], limit = attrs.limit_indices[d];
    if (start < 0 || start > limit || limit > x.dims[d] || strides[d] < 1) {
      return absl::OutOfRangeError(absl::StrCat(
          "slice: dim ", d, " of ", x.ToString(), " needs 0 <= start <= limit <= ", x.dims[d],
          " and stride >= 1, got start ", start, ", limit ", limit, ", stride ", strides[d]));
    }
    // ceil((limit - start) / stride) without overflowing for a huge stride.
    r.dims[d] = limit == start ? 0 : (limit - start - 1) / strides[d] + 1;
  }
  return r;
}

absl::StatusOr<Shape> InferConcatenate(Operands operands, const ConcatenateAttrs& attrs) {
  if (operands.empty()) {
    return absl::InvalidArgumentError("concatenate: expected at least one operand");
  }
  const Shape& first = *operands[0];
  if (first.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("concatenate: operands must have rank >= 1, got ", first.ToString()));
  }
  int64_t axis = attrs.dimension;
  if (axis < 0 || axis >= first.rank()) {
    return absl::OutOfRangeError(
        absl::StrCat("concatenate: dimension ", axis, " out of range for ", first.ToString()));
  }
  Shape r = first;
  r.dims[axis] = 0;
  for (const Shape* s : operands) {
    bool ok = s->dtype == first.dtype && s->rank() == first.rank();
    for (int64_t d = 0; ok && d < first.rank(); ++d) ok = d == axis || s->dims[d] == first.dims[d];
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "concatenate: operands must have the same element type and dims except dimension ", axis,
          ", got ", ShapesToString(operands)));
    }
    std::optional<int64_t> sum = CheckedAdd(r.dims[axis], s->dims[axis]);
    if (!sum) {
      return absl::OutOfRangeError(absl::StrCat("concatenate: dimension ", axis,
                                                " of the result overflows int64, operands ",
                                                ShapesToString(operands)));
    }
    r.dims[axis] = *sum;
  }
  return r;
}

absl::StatusOr<Shape> InferPad(const Shape& x, const Shape& padding_value,
                               const PadAttrs& attrs) {
  if (padding_value.rank() != 0 || padding_value.dtype != x.dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("pad: padding_value must be a scalar with the element type of the operand ",
                     x.ToString(), ", got ", padding_value.ToString()));
  }
  for (const auto& [what, v] : {std::pair<const char*, const std::vector<int64_t>*>{
                                    "edge_padding_low", &attrs.edge_padding_low},
                                {"edge_padding_high", &attrs.edge_padding_high},
                                {"interior_padding", &attrs.interior_padding}}) {
    if (absl::Status s = CheckLength(Opcode::kPad, what, *v, x); !s.ok()) return s;
  }
  // A padding amount beyond kMaxArrayBytes describes no addressable array
  // (and a negative one that large would overflow the kernels' offsets).
  for (const auto& [what, v] : {std::pair<const char*, const std::vector<int64_t>*>{
                                    "edge_padding_low", &attrs.edge_padding_low},
                                {"edge_padding_high", &attrs.edge_padding_high},
                                {"interior_padding", &attrs.interior_padding}}) {
    for (int64_t p : *v) {
      if (p > kMaxArrayBytes || p < -kMaxArrayBytes) {
        return absl::OutOfRangeError(absl::StrCat("pad: ", what, " ", DimsToString(*v),
                                                  " of ", x.ToString(),
                                                  " has an entry beyond +-2^60"));
      }
    }
  }
  Shape r(x.dtype, std::vector<int64_t>(x.rank()));
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t interior = attrs.interior_padding[d];
    if (interior < 0) {
      return absl::OutOfRangeError(absl::StrCat(
          "pad: interior_padding ", DimsToString(attrs.interior_padding), " must be >= 0"));
    }
    // low + dim + max(dim - 1, 0) * interior + high, each step checked.
    std::optional<int64_t> size = CheckedMul(std::max<int64_t>(x.dims[d] - 1, 0), interior);
    if (size) size = CheckedAdd(*size, x.dims[d]);
    if (size) size = CheckedAdd(*size, attrs.edge_padding_low[d]);
    if (size) size = CheckedAdd(*size, attrs.edge_padding_high[d]);
    if (!size) {
      return absl::OutOfRangeError(absl::StrCat(
          "pad: padding of ", x.ToString(), " with edge_padding_low ",
          DimsToString(attrs.edge_padding_low), ", edge_padding_high ",
          DimsToString(attrs.edge_padding_high), ", interior_padding ",
          DimsToString(attrs.interior_padding), " overflows int64 in dim ", d));
    }
    if (*size < 0) {
      return absl::OutOfRangeError(absl::StrCat("pad: padding of ", x.ToString(),
                                                " gives negative size ", *size, " in dim ", d));
    }
    r.dims[d] = *size;
  }
  return r;
}

}  // namespace shape_inference
}  // namespace xjit
