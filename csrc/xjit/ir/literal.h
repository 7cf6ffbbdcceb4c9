// A constant array value: shape plus row-major bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "xjit/ir/shape.h"

namespace xjit {

class Literal {
 public:
  Literal() = default;
  explicit Literal(Shape shape) : shape_(std::move(shape)), bytes_(shape_.byte_size()) {}
  Literal(Shape shape, const void* data) : Literal(std::move(shape)) {
    if (!bytes_.empty()) std::memcpy(bytes_.data(), data, bytes_.size());
  }
  template <typename T>
  static Literal Scalar(DType dtype, T value) {
    Literal l(Shape(dtype, {}));
    std::memcpy(l.bytes_.data(), &value, sizeof(T));
    return l;
  }

  const Shape& shape() const { return shape_; }
  const uint8_t* data() const { return bytes_.data(); }
  uint8_t* mutable_data() { return bytes_.data(); }
  int64_t size_bytes() const { return static_cast<int64_t>(bytes_.size()); }
  template <typename T> const T* data_as() const { return reinterpret_cast<const T*>(bytes_.data()); }
  template <typename T> T* mutable_data_as() { return reinterpret_cast<T*>(bytes_.data()); }

  bool operator==(const Literal& o) const { return shape_ == o.shape_ && bytes_ == o.bytes_; }
  bool operator!=(const Literal& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const Literal& l) {
    return H::combine(std::move(h), l.shape_, l.bytes_);
  }

  // StableHLO dense attribute text: dense<[[1, 2], [3, 4]]> (splat as dense<0.0>).
  std::string ToString() const;
  // Text of element i (row-major) alone, e.g. "1.5", "true", "(1.0, 2.0)".
  std::string ElementToString(int64_t i) const;

 private:
  Shape shape_;
  std::vector<uint8_t> bytes_;
};

}  // namespace xjit
