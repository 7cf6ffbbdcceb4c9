#include "xjit/runtime/custom_call_runner.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

// dst = transpose(src, order): dst's dimension i is src's dimension order[i];
// both dense row-major, elements of `width` bytes.
void Transpose(const unsigned char* src, absl::Span<const int64_t> dims,
               absl::Span<const int64_t> order, int64_t width, unsigned char* dst) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> src_strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) src_strides[d] = src_strides[d + 1] * dims[d + 1];
  std::vector<int64_t> out_dims(rank), strides(rank);  // src stride of each dst dimension
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i) {
    out_dims[i] = dims[order[i]];
    strides[i] = src_strides[order[i]];
    n *= out_dims[i];
  }
  if (n == 0) return;
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(dst + k * width, src + offset * width, width);
    for (int64_t i = rank - 1; i >= 0; --i) {
      offset += strides[i];
      if (++index[i] < out_dims[i]) break;
      offset -= strides[i] * out_dims[i];
      index[i] = 0;
    }
  }
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
  // Values in another layout than row-major live in scratch copies.
  std::vector<std::vector<unsigned char>> scratch;
  std::vector<CustomCallBuffer> in, out;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& s = operand_shapes_[i];
    void* data = const_cast<void*>(operands[i]);
    if (!operand_orders_[i].empty()) {
      const int64_t width = ByteWidth(s.dtype);
      scratch.emplace_back(s.num_elements() * width);
      Transpose(static_cast<const unsigned char*>(operands[i]), s.dims, operand_orders_[i], width,
                scratch.back().data());
      data = scratch.back().data();
    }
    in.push_back({s.dtype, s.dims, data});
  }
  std::vector<size_t> result_scratch(results.size(), SIZE_MAX);
  for (size_t i = 0; i < results.size(); ++i) {
    const Shape& s = result_shapes_[i];
    void* data = results[i];
    if (!result_orders_[i].empty()) {
      result_scratch[i] = scratch.size();
      scratch.emplace_back(s.num_elements() * ByteWidth(s.dtype));
      data = scratch.back().data();
    }
    out.push_back({s.dtype, s.dims, data});
  }
  // scratch may have grown: refresh the addresses taken from it.
  {
    size_t k = 0;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (!operand_orders_[i].empty()) in[i].data = scratch[k++].data();
    }
    for (size_t i = 0; i < results.size(); ++i) {
      if (!result_orders_[i].empty()) out[i].data = scratch[result_scratch[i]].data();
    }
  }
  CustomCallContext ctx{name_, in, out, *config_, api_version_};
  if (absl::Status s = (*target_)(ctx); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("custom_call @", name_, ": ", s.message()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (result_orders_[i].empty()) continue;
    const Shape& s = result_shapes_[i];
    const std::vector<int64_t> physical = Permuted(s.dims, result_orders_[i]);
    Transpose(scratch[result_scratch[i]].data(), physical, Inverse(result_orders_[i]),
              ByteWidth(s.dtype), static_cast<unsigned char*>(results[i]));
  }
  return absl::OkStatus();
}

}  // namespace xjit
