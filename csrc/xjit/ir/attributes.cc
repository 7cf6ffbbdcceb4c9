#include "xjit/ir/attributes.h"

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {
constexpr const char* kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr const char* kTypes[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
}  // namespace

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
