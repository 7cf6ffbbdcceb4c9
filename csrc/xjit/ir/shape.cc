#include "xjit/ir/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit {

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.is_tuple = true;
  s.tuple_shapes = std::move(elements);
  return s;
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t Shape::total_elements() const {
  if (!is_tuple) return num_elements();
  int64_t n = 0;
  for (const Shape& e : tuple_shapes) n += e.total_elements();
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (is_tuple != o.is_tuple) return false;
  if (is_tuple) return tuple_shapes == o.tuple_shapes;
  return dtype == o.dtype && dims == o.dims;
}

std::string Shape::ToString() const {
  if (is_tuple) {
    std::vector<std::string> parts;
    for (const Shape& s : tuple_shapes) parts.push_back(s.ToString());
    return absl::StrCat("tuple<", absl::StrJoin(parts, ", "), ">");
  }
  std::string out = "tensor<";
  for (int64_t d : dims) absl::StrAppend(&out, d, "x");
  absl::StrAppend(&out, StableHloName(dtype), ">");
  return out;
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

}  // namespace xjit
