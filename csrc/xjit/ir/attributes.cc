#include "xjit/ir/attributes.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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

}  // namespace

std::vector<int64_t> DotDimensionNumbers::LhsFreeDimensions(int64_t rank) const {
  return FreeDimensions(rank, lhs_batching_dimensions, lhs_contracting_dimensions);
}

std::vector<int64_t> DotDimensionNumbers::RhsFreeDimensions(int64_t rank) const {
  return FreeDimensions(rank, rhs_batching_dimensions, rhs_contracting_dimensions);
}

void AttrsKindMismatch(AttrsKind held, AttrsKind wanted) {
  std::fprintf(stderr, "xjit: attributes hold %s, asked for %s\n",
               std::string(AttrsKindName(held)).c_str(), std::string(AttrsKindName(wanted)).c_str());
  std::abort();
}

Attributes Attributes::Default(AttrsKind kind) {
  switch (kind) {
#define XJIT_ATTRS_DEFAULT(s) \
  case AttrsKind::k##s:       \
    return Attributes(s{});
    XJIT_ATTRS_STRUCTS(XJIT_ATTRS_DEFAULT)
#undef XJIT_ATTRS_DEFAULT
  }
  return Attributes();
}

std::vector<FieldInfo> DescribeAttrsFields(AttrsKind kind) {
  switch (kind) {
#define XJIT_ATTRS_DESCRIBE(s) \
  case AttrsKind::k##s:        \
    return DescribeFields<s>();
    XJIT_ATTRS_STRUCTS(XJIT_ATTRS_DESCRIBE)
#undef XJIT_ATTRS_DESCRIBE
  }
  return {};
}

absl::string_view FieldKindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kInt: return "int";
    case FieldKind::kIntList: return "int_list";
    case FieldKind::kEnum: return "enum";
    case FieldKind::kLiteral: return "literal";
    case FieldKind::kStruct: return "struct";
    case FieldKind::kBool: return "bool";
    case FieldKind::kFloat: return "float";
    case FieldKind::kString: return "string";
    case FieldKind::kText: return "text";
  }
  return "?";
}

}  // namespace xjit
