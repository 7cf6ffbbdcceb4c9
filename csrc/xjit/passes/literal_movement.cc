#include "xjit/passes/literal_movement.h"

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::passes {
namespace {

// out[index] = in[base + sum_d index[d] * in_stride[d]] for every result
// index, element by element (the literals are small). Strides may be
// negative (reverse) or zero (broadcast).
Literal Gather(const Literal& in, const Shape& shape, const std::vector<int64_t>& in_stride,
               int64_t base = 0) {
  Literal out(shape);
  const int64_t width = ByteWidth(shape.dtype), n = shape.num_elements(), rank = shape.rank();
  std::vector<int64_t> index(rank, 0);
  int64_t source = base;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.mutable_data() + i * width, in.data() + source * width, width);
    // Odometer step over the result index, keeping `source` in sync.
    for (int64_t d = rank - 1; d >= 0; --d) {
      source += in_stride[d];
      if (++index[d] < shape.dims[d]) break;
      source -= in_stride[d] * index[d];
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> IotaLiteral(const Shape& shape, int64_t iota_dimension) {
  if (shape.is_tuple || IsPred(shape.dtype) || iota_dimension < 0 ||
      iota_dimension >= shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("iota: cannot fold ", shape.ToString(),
                                                    " along dimension ", iota_dimension));
  }
  Literal lit(shape);
  const int64_t n = shape.num_elements();
  const int64_t stride = RowMajorStrides(shape.dims)[iota_dimension];
  const int64_t size = shape.dims[iota_dimension];
  DispatchDType(shape.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = lit.mutable_data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = (i / stride) % size;
      if constexpr (is_half_v<T>) {
        out[i] = T(static_cast<float>(v));
      } else if constexpr (is_complex_v<T>) {
        out[i] = T(static_cast<typename T::value_type>(v), 0);
      } else {
        out[i] = static_cast<T>(v);
      }
    }
  });
  return lit;
}

Literal ReshapeLiteral(const Literal& literal, const Shape& shape) {
  return Literal(shape, literal.data());
}

Literal BroadcastLiteral(const Literal& literal, const Shape& shape,
                         absl::Span<const int64_t> dims) {
  const Shape& in = literal.shape();
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims);
  std::vector<int64_t> stride(shape.rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    stride[dims[i]] = in.dims[i] == 1 ? 0 : in_strides[i];
  }
  return Gather(literal, shape, stride);
}

Literal TransposeLiteral(const Literal& literal, absl::Span<const int64_t> permutation) {
  const Shape& in = literal.shape();
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims);
  Shape shape(in.dtype, {});
  std::vector<int64_t> stride;
  for (int64_t p : permutation) {
    shape.dims.push_back(in.dims[p]);
    stride.push_back(in_strides[p]);
  }
  return Gather(literal, shape, stride);
}

Literal SliceLiteral(const Literal& literal, const Shape& shape,
                     absl::Span<const int64_t> start_indices, absl::Span<const int64_t> strides) {
  std::vector<int64_t> in_strides = RowMajorStrides(literal.shape().dims);
  std::vector<int64_t> stride(shape.rank());
  int64_t base = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    stride[d] = in_strides[d] * strides[d];
    base += start_indices[d] * in_strides[d];
  }
  return Gather(literal, shape, stride, base);
}

Literal ReverseLiteral(const Literal& literal, absl::Span<const int64_t> dimensions) {
  const Shape& shape = literal.shape();
  std::vector<int64_t> stride = RowMajorStrides(shape.dims);
  int64_t base = 0;
  for (int64_t d : dimensions) {
    base += (shape.dims[d] - 1) * stride[d];
    stride[d] = -stride[d];
  }
  return Gather(literal, shape, stride, base);
}

Literal ConcatenateLiterals(absl::Span<const Literal* const> parts, int64_t dimension) {
  Shape shape = parts[0]->shape();
  shape.dims[dimension] = 0;
  for (const Literal* p : parts) shape.dims[dimension] += p->shape().dims[dimension];
  Literal out(shape);
  // Rows: everything before `dimension`; each part contributes one
  // contiguous block per row.
  int64_t rows = 1;
  for (int64_t d = 0; d < dimension; ++d) rows *= shape.dims[d];
  uint8_t* dst = out.mutable_data();
  for (int64_t r = 0; r < rows; ++r) {
    for (const Literal* p : parts) {
      const int64_t block = p->size_bytes() / (rows == 0 ? 1 : rows);
      std::memcpy(dst, p->data() + r * block, block);
      dst += block;
    }
  }
  return out;
}

}  // namespace xjit::passes
