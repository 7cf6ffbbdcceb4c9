// Helpers for the reference backend tests: build literals from initializer
// lists and read them back as std::vector.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "xjit/ir/dtype_dispatch.h"
#include "xjit/ir/literal.h"

namespace xjit::reference::testing {

// Elements given as V (e.g. double for f16 tests) are cast to the storage
// type of `t`.
template <typename V>
Literal Lit(DType t, std::vector<int64_t> dims, const std::vector<V>& values) {
  Literal l(Shape(t, std::move(dims)));
  EXPECT_EQ(static_cast<int64_t>(values.size()), l.shape().num_elements());
  DispatchDType(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = l.mutable_data_as<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (is_complex_v<V> && !is_complex_v<T>) {
        ADD_FAILURE() << "complex values for a real element type";
      } else if constexpr (is_half_v<T>) {
        p[i] = T(static_cast<float>(values[i]));
      } else {
        p[i] = static_cast<T>(values[i]);
      }
    }
  });
  return l;
}

template <typename V>
Literal Vec(DType t, const std::vector<V>& values) {
  return Lit(t, {static_cast<int64_t>(values.size())}, values);
}

template <typename V>
Literal Scalar(DType t, V value) {
  return Lit(t, {}, std::vector<V>{value});
}

// Reads back as V (float for f16/bf16).
template <typename V>
std::vector<V> Read(const Literal& l) {
  std::vector<V> out;
  DispatchDType(l.shape().dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = l.data_as<T>();
    for (int64_t i = 0; i < l.shape().num_elements(); ++i) {
      if constexpr (is_half_v<T>) {
        if constexpr (std::is_arithmetic_v<V>) out.push_back(static_cast<V>(static_cast<float>(p[i])));
      } else if constexpr (std::is_convertible_v<T, V>) {
        out.push_back(static_cast<V>(p[i]));
      }
    }
  });
  EXPECT_EQ(static_cast<int64_t>(out.size()), l.shape().num_elements()) << "unreadable as V";
  return out;
}

}  // namespace xjit::reference::testing
