#include "xjit/ir/quantized_type.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xjit {

bool QuantizedType::operator==(const QuantizedType& o) const {
  return storage == o.storage && expressed == o.expressed && storage_min == o.storage_min &&
         storage_max == o.storage_max && quantized_dimension == o.quantized_dimension &&
         scales == o.scales && zero_points == o.zero_points;
}

int64_t StorageMin(DType storage) {
  if (IsUnsignedInt(storage)) return 0;
  const int bits = BitWidth(storage);
  return bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
}

// ui64's range is capped at int64's: scales and zero points are int64.
int64_t StorageMax(DType storage) {
  const int bits = BitWidth(storage);
  if (IsUnsignedInt(storage)) return bits >= 64 ? INT64_MAX : (int64_t{1} << bits) - 1;
  return bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
}

namespace {

// The shortest decimal that reads back as `v`.
std::string ScaleText(double v) {
  for (int digits = 1; digits <= 17; ++digits) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) {
      std::string s = buf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
  }
  return absl::StrCat(v);
}

}  // namespace

std::string QuantizedType::ToString() const {
  std::string out = absl::StrCat("!quant.uniform<", StableHloName(storage));
  if (storage_min != StorageMin(storage) || storage_max != StorageMax(storage)) {
    absl::StrAppend(&out, "<", storage_min, ":", storage_max, ">");
  }
  absl::StrAppend(&out, ":", StableHloName(expressed));
  auto pair = [](double scale, int64_t zp) {
    return zp == 0 ? ScaleText(scale) : absl::StrCat(ScaleText(scale), ":", zp);
  };
  if (per_axis()) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < scales.size(); ++i) parts.push_back(pair(scales[i], zero_points[i]));
    absl::StrAppend(&out, ":", quantized_dimension, ", {", absl::StrJoin(parts, ","), "}>");
  } else {
    absl::StrAppend(&out, ", ", pair(scales[0], zero_points[0]), ">");
  }
  return out;
}

absl::Status CheckQuantizedType(const QuantizedType& q, int64_t rank, int64_t axis_size) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(q.ToString(), ": ", why));
  };
  if (!IsInteger(q.storage)) return bad("the storage type must be an integer type");
  if (!IsFloat(q.expressed) || IsNarrow(q.expressed)) {
    return bad("the expressed type must be f16, bf16, f32 or f64");
  }
  if (q.storage_min < StorageMin(q.storage) || q.storage_max > StorageMax(q.storage) ||
      q.storage_min > q.storage_max) {
    return bad(absl::StrCat("storage range [", q.storage_min, ", ", q.storage_max,
                            "] must lie in ", StableHloName(q.storage), "'s range and not be empty"));
  }
  if (q.scales.empty() || q.scales.size() != q.zero_points.size()) {
    return bad("needs one zero point per scale");
  }
  for (size_t i = 0; i < q.scales.size(); ++i) {
    if (!(q.scales[i] > 0) || !std::isfinite(q.scales[i])) return bad("scales must be positive and finite");
    if (q.zero_points[i] < q.storage_min || q.zero_points[i] > q.storage_max) {
      return bad(absl::StrCat("zero point ", q.zero_points[i], " lies outside the storage range"));
    }
  }
  if (!q.per_axis() && q.scales.size() != 1) return bad("a per-tensor type has one scale");
  if (q.per_axis()) {
    if (rank >= 0 && q.quantized_dimension >= rank) {
      return bad(absl::StrCat("quantized dimension ", q.quantized_dimension, " is not below the rank ", rank));
    }
    if (axis_size >= 0 && static_cast<int64_t>(q.scales.size()) != axis_size) {
      return bad(absl::StrCat("has ", q.scales.size(), " scales for a dimension of size ", axis_size));
    }
  }
  return absl::OkStatus();
}

}  // namespace xjit
