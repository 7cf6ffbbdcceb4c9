// Reads the custom_call attributes xjit keeps as text (CustomCallAttrs): the
// backend_config, a string or a dictionary of scalars and arrays (JAX's FFI
// attributes, LAPACK's `{uplo = 76 : ui8}`), and the operand and result
// layouts (minor-to-major dimension lists). Read once, when a backend
// compiles the call.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/shape.h"

namespace xjit {

// One dictionary entry's value: an integer (any width; `type` keeps its
// MLIR type such as "ui8" or "i64"), a float, a bool, a string, or an
// array<T: ...> of integers or floats.
struct CustomCallValue {
  std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>> value;
  std::string type;  // "i64", "ui8", "f32", "" for strings and bools
};

class CustomCallConfig {
 public:
  CustomCallConfig() = default;
  // The dictionary of mhlo.backend_config, else of backend_config when it is
  // one; text() holds a string backend_config.
  static absl::StatusOr<CustomCallConfig> FromAttrs(const CustomCallAttrs& attrs);
  // Parses "{name = value, ...}".
  static absl::StatusOr<CustomCallConfig> FromDictionary(absl::string_view text);

  bool Has(absl::string_view name) const { return Find(name) != nullptr; }
  const CustomCallValue* Find(absl::string_view name) const;
  // Typed reads: an error names the attribute when it is absent or of another kind.
  absl::StatusOr<int64_t> GetInt(absl::string_view name) const;
  absl::StatusOr<double> GetFloat(absl::string_view name) const;  // ints convert
  absl::StatusOr<bool> GetBool(absl::string_view name) const;
  absl::StatusOr<std::string> GetString(absl::string_view name) const;
  absl::StatusOr<std::vector<int64_t>> GetInts(absl::string_view name) const;

  const std::vector<std::pair<std::string, CustomCallValue>>& entries() const { return entries_; }
  const std::string& text() const { return text_; }

 private:
  std::vector<std::pair<std::string, CustomCallValue>> entries_;
  std::string text_;
};

// The layouts of `layouts_text` (`[dense<[1, 0]> : tensor<2xindex>, ...]`),
// one per shape, each a permutation of the shape's dimensions from minor to
// major; the default row-major layout ({rank-1, ..., 0}) for each when the
// text is empty. `what` names the attribute in errors.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseCustomCallLayouts(
    const AttrText& layouts_text, absl::Span<const Shape> shapes, absl::string_view what);

// Whether `minor_to_major` is the row-major layout of a rank-`rank` array.
bool IsRowMajorLayout(absl::Span<const int64_t> minor_to_major);

}  // namespace xjit
