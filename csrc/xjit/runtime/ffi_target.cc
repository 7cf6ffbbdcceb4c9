#include "xjit/runtime/ffi_target.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/runtime/xla_ffi_api.h"

namespace xjit::ffi {
namespace {

XLA_FFI_DataType FfiType(DType t) {
  switch (t) {
    case DType::kPred: return XLA_FFI_DataType_PRED;
    case DType::kS8: return XLA_FFI_DataType_S8;
    case DType::kS16: return XLA_FFI_DataType_S16;
    case DType::kS32: return XLA_FFI_DataType_S32;
    case DType::kS64: return XLA_FFI_DataType_S64;
    case DType::kU8: return XLA_FFI_DataType_U8;
    case DType::kU16: return XLA_FFI_DataType_U16;
    case DType::kU32: return XLA_FFI_DataType_U32;
    case DType::kU64: return XLA_FFI_DataType_U64;
    case DType::kF16: return XLA_FFI_DataType_F16;
    case DType::kBF16: return XLA_FFI_DataType_BF16;
    case DType::kF32: return XLA_FFI_DataType_F32;
    case DType::kF64: return XLA_FFI_DataType_F64;
    case DType::kC64: return XLA_FFI_DataType_C64;
    case DType::kC128: return XLA_FFI_DataType_C128;
    // Not in the FFI ABI xjit implements: such a buffer is rejected.
    XJIT_NARROW_DTYPE_CASES return XLA_FFI_DataType_INVALID;
  }
  return XLA_FFI_DataType_INVALID;
}

// The FFI type and byte width of an attribute's MLIR type ("i32", "ui8", "f64").
std::pair<XLA_FFI_DataType, size_t> AttrType(const std::string& type, bool is_float) {
  if (type == "i1") return {XLA_FFI_DataType_PRED, 1};
  if (type == "i8" || type == "si8") return {XLA_FFI_DataType_S8, 1};
  if (type == "i16" || type == "si16") return {XLA_FFI_DataType_S16, 2};
  if (type == "i32" || type == "si32") return {XLA_FFI_DataType_S32, 4};
  if (type == "ui8") return {XLA_FFI_DataType_U8, 1};
  if (type == "ui16") return {XLA_FFI_DataType_U16, 2};
  if (type == "ui32") return {XLA_FFI_DataType_U32, 4};
  if (type == "ui64") return {XLA_FFI_DataType_U64, 8};
  if (type == "f32") return {XLA_FFI_DataType_F32, 4};
  if (type == "f16") return {XLA_FFI_DataType_F16, 2};
  if (is_float) return {XLA_FFI_DataType_F64, 8};
  return {XLA_FFI_DataType_S64, 8};
}

// Stores `v` (an int64 or a double) at width `width` of type `t`.
void StoreNumber(std::vector<char>& out, XLA_FFI_DataType t, size_t width, int64_t i, double d,
                 bool is_float) {
  size_t at = out.size();
  out.resize(at + width);
  char* p = out.data() + at;
  if (t == XLA_FFI_DataType_F32) {
    float f = static_cast<float>(is_float ? d : static_cast<double>(i));
    std::memcpy(p, &f, 4);
  } else if (t == XLA_FFI_DataType_F64) {
    double f = is_float ? d : static_cast<double>(i);
    std::memcpy(p, &f, 8);
  } else if (t == XLA_FFI_DataType_F16) {
    uint16_t h = 0;  // f16 attributes are rare; passed as zero bits when float
    std::memcpy(p, &h, 2);
  } else {
    int64_t v = is_float ? static_cast<int64_t>(d) : i;
    std::memcpy(p, &v, width);  // little-endian: the low bytes
  }
}

// The call frame of one call and the storage it points into.
class CallFrame {
 public:
  CallFrame(const CustomCallContext& ctx) {
    for (const CustomCallBuffer& b : ctx.operands) AddBuffer(b, args_);
    for (const CustomCallBuffer& b : ctx.results) AddBuffer(b, rets_);
    std::vector<const std::pair<std::string, CustomCallValue>*> sorted;
    for (const auto& e : ctx.config.entries()) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* e : sorted) AddAttr(e->first, e->second);
    frame_.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_CallFrame, attrs);
    frame_.api = Api();
    frame_.args = {XJIT_FFI_STRUCT_SIZE(XLA_FFI_Args, args), nullptr,
                   static_cast<int64_t>(args_.size()), arg_types_.data(), args_.data()};
    frame_.rets = {XJIT_FFI_STRUCT_SIZE(XLA_FFI_Rets, rets), nullptr,
                   static_cast<int64_t>(rets_.size()), ret_types_.data(), rets_.data()};
    frame_.attrs = {XJIT_FFI_STRUCT_SIZE(XLA_FFI_Attrs, attrs), nullptr,
                    static_cast<int64_t>(attrs_.size()), attr_types_.data(), name_ptrs_.data(),
                    attrs_.data()};
    arg_types_.assign(args_.size(), XLA_FFI_ArgType_BUFFER);
    ret_types_.assign(rets_.size(), XLA_FFI_RetType_BUFFER);
    frame_.args.types = arg_types_.data();
    frame_.rets.types = ret_types_.data();
  }

  XLA_FFI_CallFrame* frame(XLA_FFI_ExecutionStage stage) {
    frame_.stage = stage;
    return &frame_;
  }

 private:
  void AddBuffer(const CustomCallBuffer& b, std::vector<void*>& list) {
    dims_.emplace_back(b.dims.begin(), b.dims.end());
    XLA_FFI_Buffer buf{};
    buf.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_Buffer, dims);
    buf.dtype = FfiType(b.dtype);
    buf.data = b.data;
    buf.rank = static_cast<int64_t>(b.dims.size());
    buf.dims = dims_.back().data();
    buffers_.push_back(buf);
    list.push_back(&buffers_.back());
  }

  void AddAttr(const std::string& name, const CustomCallValue& v) {
    names_.push_back({name.data(), name.size()});
    name_ptrs_.push_back(&names_.back());
    storage_.emplace_back();
    std::vector<char>& bytes = storage_.back();
    if (const auto* s = std::get_if<std::string>(&v.value)) {
      spans_.push_back({s->data(), s->size()});
      attr_types_.push_back(XLA_FFI_AttrType_STRING);
      attrs_.push_back(&spans_.back());
      return;
    }
    if (const auto* b = std::get_if<bool>(&v.value)) {
      bytes.push_back(*b ? 1 : 0);
      scalars_.push_back({XLA_FFI_DataType_PRED, bytes.data()});
      attr_types_.push_back(XLA_FFI_AttrType_SCALAR);
      attrs_.push_back(&scalars_.back());
      return;
    }
    const bool is_float = std::holds_alternative<double>(v.value) ||
                          std::holds_alternative<std::vector<double>>(v.value);
    auto [type, width] = AttrType(v.type, is_float);
    if (const auto* i = std::get_if<int64_t>(&v.value)) {
      StoreNumber(bytes, type, width, *i, 0, false);
    } else if (const auto* d = std::get_if<double>(&v.value)) {
      StoreNumber(bytes, type, width, 0, *d, true);
    } else {
      size_t n = 0;
      if (const auto* is = std::get_if<std::vector<int64_t>>(&v.value)) {
        for (int64_t x : *is) StoreNumber(bytes, type, width, x, 0, false);
        n = is->size();
      } else if (const auto* ds = std::get_if<std::vector<double>>(&v.value)) {
        for (double x : *ds) StoreNumber(bytes, type, width, 0, x, true);
        n = ds->size();
      }
      arrays_.push_back({type, n, bytes.data()});
      attr_types_.push_back(XLA_FFI_AttrType_ARRAY);
      attrs_.push_back(&arrays_.back());
      return;
    }
    scalars_.push_back({type, bytes.data()});
    attr_types_.push_back(XLA_FFI_AttrType_SCALAR);
    attrs_.push_back(&scalars_.back());
  }

  // Deques: elements never move, so the pointers handed out stay valid.
  std::deque<std::vector<int64_t>> dims_;
  std::deque<XLA_FFI_Buffer> buffers_;
  std::deque<XLA_FFI_ByteSpan> names_, spans_;
  std::deque<std::vector<char>> storage_;
  std::deque<XLA_FFI_Scalar> scalars_;
  std::deque<XLA_FFI_Array> arrays_;
  std::vector<void*> args_, rets_, attrs_;
  std::vector<XLA_FFI_ArgType> arg_types_;
  std::vector<XLA_FFI_RetType> ret_types_;
  std::vector<XLA_FFI_AttrType> attr_types_;
  std::vector<XLA_FFI_ByteSpan*> name_ptrs_;
  XLA_FFI_CallFrame frame_{};
};

absl::Status Annotate(const std::string& name, absl::Status s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("the FFI handler failed: ", s.message()));
}

}  // namespace

absl::StatusOr<CustomCallTarget> MakeFfiTarget(const std::string& name, HandlerBundle bundle) {
  if (bundle.execute == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("register_ffi_target(", name, "): the execute handler is required"));
  }
  // The metadata call: a frame whose extension asks for the handler's version.
  XLA_FFI_Metadata metadata{};
  metadata.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_Metadata, traits);
  XLA_FFI_Metadata_Extension extension{};
  extension.extension_base.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_Metadata_Extension, metadata);
  extension.extension_base.type = XLA_FFI_Extension_Metadata;
  extension.metadata = &metadata;
  XLA_FFI_CallFrame frame{};
  frame.struct_size = XJIT_FFI_STRUCT_SIZE(XLA_FFI_CallFrame, attrs);
  frame.extension_start = &extension.extension_base;
  frame.api = Api();
  frame.stage = XLA_FFI_ExecutionStage_EXECUTE;
  if (absl::Status s = ConsumeError(bundle.execute(&frame)); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "register_ffi_target(", name, "): the handler failed its metadata call (is it an XLA "
        "FFI handler, XLA_FFI_DEFINE_HANDLER, built against XLA FFI API 0.x?): ", s.message()));
  }
  if (metadata.api_version.major_version != kXlaFfiApiMajor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "register_ffi_target(", name, "): the handler was built for XLA FFI API ",
        metadata.api_version.major_version, ".", metadata.api_version.minor_version,
        "; xjit implements ", kXlaFfiApiMajor, ".", kXlaFfiApiMinor));
  }
  return CustomCallTarget([name, bundle](const CustomCallContext& ctx) -> absl::Status {
    CallFrame call(ctx);
    const std::pair<XLA_FFI_Handler*, XLA_FFI_ExecutionStage> stages[] = {
        {bundle.instantiate, XLA_FFI_ExecutionStage_INSTANTIATE},
        {bundle.prepare, XLA_FFI_ExecutionStage_PREPARE},
        {bundle.initialize, XLA_FFI_ExecutionStage_INITIALIZE},
        {bundle.execute, XLA_FFI_ExecutionStage_EXECUTE}};
    for (const auto& [handler, stage] : stages) {
      if (handler == nullptr) continue;
      if (absl::Status s = ConsumeError(handler(call.frame(stage))); !s.ok()) {
        return Annotate(name, s);
      }
    }
    return absl::OkStatus();
  });
}

CustomCallTarget MakeLegacyTarget(LegacyCpuFunction fn) {
  return [fn](const CustomCallContext& ctx) -> absl::Status {
    std::vector<const void*> in;
    for (const CustomCallBuffer& b : ctx.operands) in.push_back(b.data);
    std::vector<void*> out;
    for (const CustomCallBuffer& b : ctx.results) out.push_back(b.data);
    void* out_arg = out.size() == 1 ? out[0] : static_cast<void*>(out.data());
    fn(out_arg, in.data());
    return absl::OkStatus();
  };
}

}  // namespace xjit::ffi
