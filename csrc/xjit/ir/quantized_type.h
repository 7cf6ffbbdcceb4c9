// StableHLO's quantized element type, !quant.uniform<...>: integers of a
// storage type that stand for expressed-type values (q - zero_point) * scale,
// per tensor or per slice along one dimension. A quantized Shape keeps its
// storage type as dtype (buffers and byte moves need nothing else) and these
// parameters beside it. passes/quantized_op_expansion turns every op on them
// into storage-type and expressed-type ops, so backends never see them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xjit/ir/dtype.h"

namespace xjit {

struct QuantizedType {
  DType storage = DType::kS8;
  DType expressed = DType::kF32;
  int64_t storage_min = 0;
  int64_t storage_max = 0;
  int64_t quantized_dimension = -1;  // -1: one scale for the whole tensor
  std::vector<double> scales;
  std::vector<int64_t> zero_points;

  bool per_axis() const { return quantized_dimension >= 0; }
  bool operator==(const QuantizedType& o) const;
  bool operator!=(const QuantizedType& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const QuantizedType& q) {
    return H::combine(std::move(h), q.storage, q.expressed, q.storage_min, q.storage_max,
                      q.quantized_dimension, q.scales, q.zero_points);
  }
  // !quant.uniform<i8:f32, 0.5:-3>, !quant.uniform<i8<-127:127>:f32:1, {0.1:2,0.2:0}>
  std::string ToString() const;
};

// The full range of an integer storage type.
int64_t StorageMin(DType storage);
int64_t StorageMax(DType storage);

// Checks the spec's constraints on the type alone (C1-C9 of quantized
// element types) and on its use in a tensor of `rank` dims whose quantized
// dimension has `axis_size` elements (-1: not checked).
absl::Status CheckQuantizedType(const QuantizedType& q, int64_t rank, int64_t axis_size);

}  // namespace xjit
