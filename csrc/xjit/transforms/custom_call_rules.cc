#include "xjit/transforms/custom_call_rules.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "xjit/ir/custom_call_config.h"
#include "xjit/transforms/linalg_rules.h"
#include "xjit/transforms/status_macros.h"

namespace xjit::transforms {
namespace {

constexpr char kPythonCallback[] = "xjit_python_callback";

std::vector<int64_t> WithLeading(int64_t n, const std::vector<int64_t>& dims) {
  std::vector<int64_t> out{n};
  out.insert(out.end(), dims.begin(), dims.end());
  return out;
}

// The callback's config "<id>:<vmap_method>[/<level>...]" (callbacks.py).
absl::StatusOr<std::string> CallbackConfig(const CustomCallAttrs& attrs) {
  absl::StatusOr<CustomCallConfig> config = CustomCallConfig::FromAttrs(attrs);
  if (!config.ok()) return config.status();
  return config->text();
}

absl::string_view VmapMethod(absl::string_view config) {
  size_t colon = config.find(':');
  if (colon == absl::string_view::npos) return "";
  absl::string_view rest = config.substr(colon + 1);
  return rest.substr(0, rest.find('/'));
}

}  // namespace

absl::StatusOr<JvpOut> CustomCallJvp(JvpContext& ctx) {
  const CustomCallAttrs& attrs = ctx.old.attrs<CustomCallAttrs>();
  if (attrs.call_target_name == kPythonCallback) {
    return absl::FailedPreconditionError(
        attrs.has_side_effect
            ? "IO callbacks do not support JVP."
            : "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks "
              "while taking gradients.");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("The FFI call to `", attrs.call_target_name,
                   "` cannot be differentiated. You can use `jax.custom_jvp` or "
                   "`jax.custom_vjp` to add support."));
}

// JAX's vmap_method, for a call whose operands have the batch in front (or
// none): "expand_dims" gives unbatched operands a leading 1, "broadcast_all"
// a leading B, "legacy_vectorized" leaves them; the callback is then called
// once with the batched arrays. "sequential" leaves the operands as they are
// and records the level, and the callback's runner loops over it
// (callbacks.py). Each level appends "/<kind><B>:<mask>" to the config, the
// mask saying which operands got the level's leading axis.
absl::StatusOr<BatchOut> CustomCallBatch(BatchContext& ctx) {
  CustomCallAttrs attrs = ctx.old.attrs<CustomCallAttrs>();
  // The LAPACK factorizations batch over their leading dimensions.
  if (IsLapackTarget(attrs.call_target_name)) return LapackCustomCallBatch(ctx);
  if (attrs.call_target_name != kPythonCallback) {
    return absl::UnimplementedError(absl::StrCat(
        "vmap: custom_call @", attrs.call_target_name,
        " has no batching rule (xjit.ffi.ffi_call takes no vmap_method yet; use "
        "xjit.lax.map or a batched target)"));
  }
  XJIT_TF_ASSIGN_OR_RETURN(std::string config, CallbackConfig(attrs));
  const absl::string_view method = VmapMethod(config);
  char kind;
  if (method == "sequential" || method == "sequential_unrolled") {
    kind = 'S';
  } else if (method == "expand_dims") {
    kind = 'E';
  } else if (method == "broadcast_all") {
    kind = 'B';
  } else if (method == "legacy_vectorized") {
    kind = 'L';
  } else {
    return absl::UnimplementedError(
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        "'legacy_vectorized'. Got vmap_method=None.");
  }
  const int64_t b = ctx.axis_size;
  std::vector<Value> operands;
  std::string mask;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    Value v = ctx.operands[i];
    bool leading = ctx.batched[i];
    if (!leading && (kind == 'E' || kind == 'B')) {
      const Shape& s = v->shape();
      std::vector<int64_t> dims(s.rank());
      for (int64_t d = 0; d < s.rank(); ++d) dims[d] = d + 1;
      XJIT_TF_ASSIGN_OR_RETURN(
          v, ctx.e.BroadcastInDim(v, WithLeading(kind == 'B' ? b : 1, s.dims), dims));
      leading = true;
    }
    operands.push_back(v);
    mask.push_back(leading ? '1' : '0');
  }
  attrs.backend_config.text = absl::StrCat("\"", config, "/", std::string(1, kind), b, ":", mask, "\"");
  const Shape& old = ctx.old.shape();
  Shape result;
  if (old.is_tuple) {
    std::vector<Shape> parts;
    for (const Shape& p : old.tuple_shapes) parts.push_back(Shape(p.dtype, WithLeading(b, p.dims)));
    result = Shape::Tuple(std::move(parts));
  } else {
    result = Shape(old.dtype, WithLeading(b, old.dims));
  }
  XJIT_TF_ASSIGN_OR_RETURN(
      Value r, ctx.e.builder().AddWithResultType(Opcode::kCustomCall, result, std::move(operands),
                                                 std::move(attrs), {}));
  if (!result.is_tuple) return BatchOut{{r}, {true}};
  BatchOut out;
  for (size_t i = 0; i < result.tuple_shapes.size(); ++i) {
    GetTupleElementAttrs g;
    g.index = static_cast<int64_t>(i);
    XJIT_TF_ASSIGN_OR_RETURN(Value part, ctx.e.builder().Add(Opcode::kGetTupleElement, {r}, g));
    out.values.push_back(part);
    out.batched.push_back(true);
  }
  return out;
}

}  // namespace xjit::transforms
