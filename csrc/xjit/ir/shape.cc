#include "xjit/ir/shape.h"

#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/ir/checked_math.h"

namespace xjit {

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.is_tuple = true;
  s.tuple_shapes = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s(DType::kPred, {});
  s.is_token = true;
  return s;
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n = SaturatingMul(n, d);
  return n;
}

int64_t Shape::byte_size() const { return SaturatingMul(num_elements(), ByteWidth(dtype)); }

int64_t Shape::total_elements() const {
  if (!is_tuple) return num_elements();
  int64_t n = 0;
  for (const Shape& e : tuple_shapes) {
    n = CheckedAdd(n, e.total_elements()).value_or(std::numeric_limits<int64_t>::max());
  }
  return n;
}

absl::Status CheckShapeSize(const Shape& shape, absl::string_view what) {
  if (shape.is_tuple) {
    for (const Shape& e : shape.tuple_shapes) {
      if (absl::Status s = CheckShapeSize(e, what); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // The product of the nonzero dims bounds every row-major stride, so it must
  // fit even when a zero dim makes the array empty.
  int64_t nonzero = 1;
  for (int64_t d : shape.dims) {
    std::optional<int64_t> m = CheckedMul(nonzero, d == 0 ? 1 : d);
    if (!m) {
      return absl::OutOfRangeError(absl::StrCat(
          what, ": shape ", shape.ToString(), " is too large: its element count overflows int64"));
    }
    nonzero = *m;
  }
  std::optional<int64_t> bytes = CheckedMul(nonzero, ByteWidth(shape.dtype));
  if (!bytes || *bytes > kMaxArrayBytes) {
    return absl::OutOfRangeError(absl::StrCat(
        what, ": shape ", shape.ToString(),
        " is too large: it needs more than 2^60 bytes, more than a machine can address"));
  }
  return absl::OkStatus();
}

bool Shape::operator==(const Shape& o) const {
  if (is_tuple != o.is_tuple) return false;
  if (is_tuple) return tuple_shapes == o.tuple_shapes;
  if ((quant == nullptr) != (o.quant == nullptr)) return false;
  if (quant != nullptr && *quant != *o.quant) return false;
  return is_token == o.is_token && dtype == o.dtype && dims == o.dims;
}

std::string Shape::ToString() const {
  if (is_tuple) {
    std::vector<std::string> parts;
    for (const Shape& s : tuple_shapes) parts.push_back(s.ToString());
    return absl::StrCat("tuple<", absl::StrJoin(parts, ", "), ">");
  }
  if (is_token) return "!stablehlo.token";
  std::string out = "tensor<";
  for (int64_t d : dims) absl::StrAppend(&out, d, "x");
  absl::StrAppend(&out, quant != nullptr ? quant->ToString() : std::string(StableHloName(dtype)), ">");
  return out;
}

bool AnyArrayLeaf(const Shape& shape, absl::FunctionRef<bool(const Shape&)> pred) {
  if (shape.is_tuple) {
    for (const Shape& e : shape.tuple_shapes) {
      if (AnyArrayLeaf(e, pred)) return true;
    }
    return false;
  }
  return shape.is_array() && pred(shape);
}

Shape StorageShape(const Shape& shape) {
  if (shape.is_tuple) {
    std::vector<Shape> elements;
    for (const Shape& e : shape.tuple_shapes) elements.push_back(StorageShape(e));
    return Shape::Tuple(std::move(elements));
  }
  Shape s = shape;
  s.quant = nullptr;
  return s;
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = SaturatingMul(strides[i + 1], dims[i + 1]);
  }
  return strides;
}

}  // namespace xjit
