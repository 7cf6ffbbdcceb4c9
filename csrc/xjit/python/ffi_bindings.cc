// xjit.ffi's registration: a PyCapsule holding a C function pointer (or a
// dict of them, one per FFI execution stage) becomes a custom_call target
// (runtime/ffi_target.h).
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "xjit/python/bindings.h"
#include "xjit/python/status_casters.h"
#include "xjit/runtime/custom_call_registry.h"
#include "xjit/runtime/ffi_target.h"

namespace xjit::python {
namespace {

void* CapsulePointer(py::handle fn, const std::string& what) {
  if (!PyCapsule_CheckExact(fn.ptr())) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        what, " must be a PyCapsule holding a function pointer (xjit.ffi.pycapsule(fn)), got ",
        std::string(py::str(py::type::of(fn).attr("__name__"))))));
  }
  void* p = PyCapsule_GetPointer(fn.ptr(), PyCapsule_GetName(fn.ptr()));
  if (p == nullptr) throw py::error_already_set();
  return p;
}

XLA_FFI_Handler* HandlerOf(py::handle fn, const std::string& what) {
  return reinterpret_cast<XLA_FFI_Handler*>(CapsulePointer(fn, what));
}

}  // namespace

void RegisterFfiBindings(py::module_& m) {
  m.def(
      "register_ffi_target",
      [](const std::string& name, py::object fn, int api_version) {
        if (name.empty()) ThrowIfError(absl::InvalidArgumentError("target name must not be empty"));
        const std::string what = absl::StrCat("register_ffi_target(", name, "): fn");
        if (api_version == 0) {
          auto f = reinterpret_cast<ffi::LegacyCpuFunction>(CapsulePointer(fn, what));
          RegisterCustomCallTarget(name, ffi::MakeLegacyTarget(f));
          return;
        }
        if (api_version != 1) {
          ThrowIfError(absl::OutOfRangeError(absl::StrCat(
              "register_ffi_target(", name, "): api_version must be 0 (legacy custom call) or "
              "1 (typed FFI), got ", api_version)));
        }
        ffi::HandlerBundle bundle;
        if (py::isinstance<py::dict>(fn)) {
          for (auto item : py::reinterpret_borrow<py::dict>(fn)) {
            std::string stage = py::str(item.first);
            XLA_FFI_Handler* h = HandlerOf(item.second, absl::StrCat(what, "['", stage, "']"));
            if (stage == "instantiate") {
              bundle.instantiate = h;
            } else if (stage == "prepare") {
              bundle.prepare = h;
            } else if (stage == "initialize") {
              bundle.initialize = h;
            } else if (stage == "execute") {
              bundle.execute = h;
            } else {
              ThrowIfError(absl::OutOfRangeError(absl::StrCat(
                  what, ": unknown stage '", stage,
                  "' (instantiate, prepare, initialize or execute)")));
            }
          }
        } else {
          bundle.execute = HandlerOf(fn, what);
        }
        CustomCallTarget target;
        {
          absl::StatusOr<CustomCallTarget> made = ffi::MakeFfiTarget(name, bundle);
          target = ValueOrThrow(std::move(made));
        }
        RegisterCustomCallTarget(name, std::move(target));
      },
      py::arg("name"), py::arg("fn"), py::arg("api_version") = 1);
  m.def("custom_call_target_names", &CustomCallTargetNames);
}

}  // namespace xjit::python
