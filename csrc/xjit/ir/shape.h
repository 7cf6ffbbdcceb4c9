// Static shapes: an array type (element type + dims), a tuple of shapes, or
// StableHLO's token (!stablehlo.token: orders side effects, carries no data).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xjit/ir/dtype.h"
#include "xjit/ir/quantized_type.h"

namespace xjit {

struct Shape {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  bool is_tuple = false;
  std::vector<Shape> tuple_shapes;  // only for tuples
  // A token is stored like a scalar i1 (dtype kPred, no dims): one placeholder
  // byte that nothing reads, so buffers, literals and copies need no special
  // case; only the type (equality, printing, shape rules) tells it apart.
  bool is_token = false;
  // A quantized tensor (ir/quantized_type.h): dtype is its storage type.
  std::shared_ptr<const QuantizedType> quant;

  Shape() = default;
  Shape(DType t, std::vector<int64_t> d) : dtype(t), dims(std::move(d)) {}
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  // An array: neither a tuple nor a token.
  bool is_array() const { return !is_tuple && !is_token; }
  bool is_quantized() const { return quant != nullptr; }

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // Saturate instead of overflowing; CheckShapeSize keeps every shape that
  // xjit makes far from saturation.
  int64_t num_elements() const;
  // Elements of an array, or summed over a tuple's leaves.
  int64_t total_elements() const;
  int64_t byte_size() const;
  bool SameDims(const Shape& o) const { return !is_tuple && !o.is_tuple && dims == o.dims; }
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    // As operator==: a tuple is its elements, an array its dtype and dims.
    if (s.is_tuple) return H::combine(std::move(h), true, s.tuple_shapes);
    h = H::combine(std::move(h), false, s.is_token, s.dtype, s.dims, s.quant != nullptr);
    if (s.quant != nullptr) h = H::combine(std::move(h), *s.quant);
    return h;
  }

  // StableHLO type: tensor<2x3xf32>, tuple<tensor<f32>, tensor<2xi32>>, !stablehlo.token.
  std::string ToString() const;
};

// OutOfRange ("<what>: shape ... is too large ...") when the element count of
// `shape` (or of a tuple leaf) overflows int64 or its bytes exceed
// kMaxArrayBytes (ir/checked_math.h). Called wherever a shape is made from
// user-controlled sizes: shape inference, the parser, the Python bindings.
absl::Status CheckShapeSize(const Shape& shape, absl::string_view what);

// Whether `pred` holds for an array of `shape` (itself, or a tuple leaf).
bool AnyArrayLeaf(const Shape& shape, absl::FunctionRef<bool(const Shape&)> pred);

// `shape` with each quantized type replaced by its storage type: the type of
// the buffer that holds it.
Shape StorageShape(const Shape& shape);

// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

}  // namespace xjit
