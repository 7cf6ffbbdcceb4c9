#include "xjit/runtime/custom_call_runner.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/runtime/layout_transpose.h"

namespace xjit {
namespace {

// Major-to-minor dimension order of a layout, or {} when it is row-major.
std::vector<std::vector<int64_t>> Orders(const std::vector<std::vector<int64_t>>& layouts) {
  std::vector<std::vector<int64_t>> orders;
  for (const auto& minor_to_major : layouts) {
    if (IsRowMajorLayout(minor_to_major)) {
      orders.emplace_back();
    } else {
      orders.emplace_back(minor_to_major.rbegin(), minor_to_major.rend());
    }
  }
  return orders;
}

std::vector<int64_t> Inverse(absl::Span<const int64_t> order) {
  std::vector<int64_t> inv(order.size());
  for (size_t i = 0; i < order.size(); ++i) inv[order[i]] = static_cast<int64_t>(i);
  return inv;
}

std::vector<int64_t> Permuted(absl::Span<const int64_t> dims, absl::Span<const int64_t> order) {
  std::vector<int64_t> out;
  for (int64_t d : order) out.push_back(dims[d]);
  return out;
}

}  // namespace

absl::StatusOr<CustomCallRunner> CustomCallRunner::Create(const Instruction& instr) {
  const auto& attrs = instr.attrs<CustomCallAttrs>();
  CustomCallRunner r;
  r.name_ = attrs.call_target_name;
  r.target_ = FindCustomCallTarget(attrs.call_target_name);
  if (r.target_ == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "custom_call: no target named '", attrs.call_target_name,
        "' is registered (register one with xjit.ffi.register_ffi_target)"));
  }
  absl::StatusOr<CustomCallConfig> config = CustomCallConfig::FromAttrs(attrs);
  if (!config.ok()) return config.status();
  r.config_ = std::make_shared<const CustomCallConfig>(*std::move(config));
  r.api_version_ = attrs.api_version;
  r.has_side_effect_ = attrs.has_side_effect;
  for (const Instruction* o : instr.operands()) r.operand_shapes_.push_back(o->shape());
  if (instr.shape().is_tuple) {
    r.result_shapes_ = instr.shape().tuple_shapes;
  } else {
    r.result_shapes_.push_back(instr.shape());
  }
  absl::StatusOr<std::vector<std::vector<int64_t>>> in =
      ParseCustomCallLayouts(attrs.operand_layouts, r.operand_shapes_, "operand_layouts");
  if (!in.ok()) return in.status();
  absl::StatusOr<std::vector<std::vector<int64_t>>> out =
      ParseCustomCallLayouts(attrs.result_layouts, r.result_shapes_, "result_layouts");
  if (!out.ok()) return out.status();
  r.operand_orders_ = Orders(*in);
  r.result_orders_ = Orders(*out);
  return r;
}

absl::Status CustomCallRunner::Run(absl::Span<const void* const> operands,
                                   absl::Span<void* const> results) const {
  if (operands.size() != operand_shapes_.size() || results.size() != result_shapes_.size()) {
    return absl::InternalError(absl::StrCat("custom_call @", name_, ": called with ",
                                            operands.size(), " operands and ", results.size(),
                                            " results"));
  }
  // Values in another layout than row-major live in scratch copies (left
  // uninitialized: each is written in full before it is read).
  std::vector<std::unique_ptr<unsigned char[]>> scratch;
  auto new_scratch = [&scratch](const Shape& s) {
    scratch.emplace_back(new unsigned char[s.num_elements() * ByteWidth(s.dtype)]);
    return scratch.back().get();
  };
  std::vector<CustomCallBuffer> in, out;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& s = operand_shapes_[i];
    void* data = const_cast<void*>(operands[i]);
    if (!operand_orders_[i].empty()) {
      data = new_scratch(s);
      TransposeDense(operands[i], s.dims, operand_orders_[i], ByteWidth(s.dtype), data);
    }
    in.push_back({s.dtype, s.dims, data});
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Shape& s = result_shapes_[i];
    out.push_back({s.dtype, s.dims, result_orders_[i].empty() ? results[i] : new_scratch(s)});
  }
  CustomCallContext ctx{name_, in, out, *config_, api_version_};
  if (absl::Status s = (*target_)(ctx); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("custom_call @", name_, ": ", s.message()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (result_orders_[i].empty()) continue;
    const Shape& s = result_shapes_[i];
    const std::vector<int64_t> physical = Permuted(s.dims, result_orders_[i]);
    TransposeDense(out[i].data, physical, Inverse(result_orders_[i]), ByteWidth(s.dtype),
                   results[i]);
  }
  return absl::OkStatus();
}

}  // namespace xjit
