#include "xjit/ir/attributes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

std::vector<int64_t> FreeDimensions(int64_t rank, const std::vector<int64_t>& batch,
                                    const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}
constexpr const char* kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr const char* kTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
}  // namespace

std::vector<int64_t> DotDimensionNumbers::LhsFreeDimensions(int64_t rank) const {
  return FreeDimensions(rank, lhs_batching_dimensions, lhs_contracting_dimensions);
}

std::vector<int64_t> DotDimensionNumbers::RhsFreeDimensions(int64_t rank) const {
  return FreeDimensions(rank, rhs_batching_dimensions, rhs_contracting_dimensions);
}

absl::string_view ComparisonDirectionName(ComparisonDirection d) {
  return kDirections[static_cast<int>(d)];
}
absl::string_view ComparisonTypeName(ComparisonType t) { return kTypes[static_cast<int>(t)]; }

absl::StatusOr<ComparisonDirection> ParseComparisonDirection(absl::string_view s) {
  for (int i = 0; i < 6; ++i) {
    if (s == kDirections[i]) return static_cast<ComparisonDirection>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown comparison direction '", s, "'"));
}

absl::StatusOr<ComparisonType> ParseComparisonType(absl::string_view s) {
  for (int i = 0; i < 5; ++i) {
    if (s == kTypes[i]) return static_cast<ComparisonType>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown compare type '", s, "'"));
}

}  // namespace xjit
