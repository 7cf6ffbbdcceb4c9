// Static attributes of an instruction. One struct for all ops; each op reads
// the fields named after its StableHLO attributes and ignores the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "xjit/ir/literal.h"

namespace xjit {

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
// kNotype lets shape inference pick the type the element type requires.
enum class ComparisonType : uint8_t { kNotype, kFloat, kTotalOrder, kSigned, kUnsigned };

absl::string_view ComparisonDirectionName(ComparisonDirection d);  // "EQ"
absl::string_view ComparisonTypeName(ComparisonType t);            // "FLOAT"
absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view s);
absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s);

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batching_dimensions;
  std::vector<int64_t> rhs_batching_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  bool operator==(const DotDimensionNumbers& o) const {
    return lhs_batching_dimensions == o.lhs_batching_dimensions &&
           rhs_batching_dimensions == o.rhs_batching_dimensions &&
           lhs_contracting_dimensions == o.lhs_contracting_dimensions &&
           rhs_contracting_dimensions == o.rhs_contracting_dimensions;
  }
  // The dimensions of an lhs (rhs) of rank `rank` that are neither batching
  // nor contracting, in increasing order: after the batch dimensions, the
  // result has the lhs's free dimensions, then the rhs's.
  std::vector<int64_t> LhsFreeDimensions(int64_t rank) const;
  std::vector<int64_t> RhsFreeDimensions(int64_t rank) const;
};

struct Attributes {
  // broadcast_in_dim: broadcast_dimensions; transpose: permutation;
  // reverse and reduce: dimensions. All stored here.
  std::vector<int64_t> dimensions;
  // concatenate: dimension; iota: iota_dimension; get_tuple_element: index;
  // parameter: parameter number.
  int64_t dimension = 0;
  // slice
  std::vector<int64_t> start_indices, limit_indices, strides;
  // pad
  std::vector<int64_t> edge_padding_low, edge_padding_high, interior_padding;
  // dot_general
  DotDimensionNumbers dot;
  // compare
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType compare_type = ComparisonType::kNotype;
  // constant
  std::optional<Literal> literal;
  // Result type given by the op itself (parameter, iota, reshape,
  // broadcast_in_dim, convert: element type and dims). Shape inference checks it.
  std::optional<Shape> result_shape;
};

}  // namespace xjit
