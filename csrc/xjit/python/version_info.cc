#include "xjit/python/version_info.h"

#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"
#include "xjit/runtime/platform.h"

namespace xjit::python {

inline constexpr const char kXjitVersion[] = "0.1.0";

void RegisterVersionInfo(py::module_& m) {
  m.attr("__version__") = kXjitVersion;
  m.def("version_info", [] {
    const dnnl_version_t* v = dnnl_version();
    py::dict info;
    info["xjit"] = kXjitVersion;
    info["onednn"] = absl::StrCat(v->major, ".", v->minor, ".", v->patch);
    info["onednn_hash"] = std::string(v->hash ? v->hash : "");
    info["backends"] = RegisteredPlatforms();
#if defined(__clang__)
    info["compiler"] = absl::StrCat("clang ", __clang_version__);
#elif defined(__GNUC__)
    info["compiler"] = absl::StrCat("gcc ", __VERSION__);
#else
    info["compiler"] = "unknown";
#endif
    info["cplusplus"] = static_cast<long>(__cplusplus);
    return info;
  });
}

}  // namespace xjit::python
