// Devices, device_put, compile and execute. Execute sits on the dispatch hot
// path: it converts arguments with TryGetPyArray (no attribute lookups) and
// formats strings only on errors.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "xjit/python/bindings.h"
#include "xjit/python/device_put.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/py_array.h"
#include "xjit/python/status_casters.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/executable.h"
#include "xjit/runtime/platform.h"
#include "xjit/text/printer.h"

namespace xjit::python {
namespace {

Device* DefaultDevice(const std::string& platform) {
  Client* client = ValueOrThrow(Client::Get(platform));
  return client->devices().front().get();
}

Device* DeviceOrDefault(Device* device) { return device ? device : DefaultDevice("cpu"); }

std::vector<std::shared_ptr<Buffer>> ArgumentBuffers(const Executable& exe, py::handle args) {
  py::object seq = py::reinterpret_steal<py::object>(
      PySequence_Fast(args.ptr(), "execute: arguments must be a list or tuple"));
  if (!seq) throw py::error_already_set();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  std::vector<std::shared_ptr<Buffer>> buffers;
  buffers.reserve(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyArray* a = TryGetPyArray(items[i])) {
      CheckNotDeleted(*a);
      buffers.push_back(a->buffer);
      continue;
    }
    // numpy arrays and scalars are accepted as is (no dtype conversion:
    // a mismatch is the TypeError from Execute's argument check).
    absl::StatusOr<std::shared_ptr<Buffer>> b = BufferFromPython(items[i], exe.device());
    if (!b.ok()) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat("execute: argument ", i, ": ",
                                                           b.status().message())));
    }
    buffers.push_back(*std::move(b));
  }
  return buffers;
}

using DonationFlags = absl::InlinedVector<bool, 8>;

// One flag per argument from None or a list of bools (empty: nothing
// donated). Arguments passed as numpy arrays or scalars were copied in:
// donating those consumes only the copy. `donated` is a py::object, not an
// optional vector: eager ops pass None on every call, which then costs no
// conversion.
DonationFlags DonationFlagsFor(const std::vector<std::shared_ptr<Buffer>>& buffers,
                               py::handle donated) {
  DonationFlags flags;
  if (donated.is_none()) return flags;
  std::vector<bool> values = donated.cast<std::vector<bool>>();
  if (values.empty()) return flags;
  if (values.size() != buffers.size()) {
    ThrowIfError(absl::OutOfRangeError(absl::StrCat("execute: got ", values.size(),
                                                    " donation flags for ", buffers.size(),
                                                    " arguments")));
  }
  flags.assign(values.begin(), values.end());
  return flags;
}

// A donated array's own numpy view must not keep its memory from reuse.
void DropDonatedViews(py::handle args, const DonationFlags& flags) {
  if (flags.empty()) return;
  py::sequence seq = py::reinterpret_borrow<py::sequence>(args);
  for (size_t i = 0; i < flags.size(); ++i) {
    if (!flags[i]) continue;
    if (PyArray* a = TryGetPyArray(seq[i])) a->numpy_cache = py::object();
  }
}

py::list WrapResults(ResultBuffers results, const bool* weak_flags) {
  py::list out(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    PyList_SET_ITEM(out.ptr(), i,
                    MakePyArray(std::move(results[i]), weak_flags && weak_flags[i]).release().ptr());
  }
  return out;
}

py::list ExecuteWithWeakTypes(Executable& exe, py::handle args,
                              const std::vector<bool>& weak_types, py::handle donated) {
  if (weak_types.size() != exe.result_shapes().size()) {
    ThrowIfError(absl::OutOfRangeError(absl::StrCat("execute_with_weak_types: got ",
                                                    weak_types.size(), " weak_type flags for ",
                                                    exe.result_shapes().size(), " results")));
  }
  std::vector<std::shared_ptr<Buffer>> buffers = ArgumentBuffers(exe, args);
  DonationFlags donation = DonationFlagsFor(buffers, donated);
  DropDonatedViews(args, donation);
  std::unique_ptr<bool[]> flags(new bool[weak_types.size() + 1]);
  for (size_t i = 0; i < weak_types.size(); ++i) flags[i] = weak_types[i];
  return WrapResults(ValueOrThrow(exe.Execute(buffers, donation)), flags.get());
}

py::list ShapeList(const std::vector<Shape>& shapes) {
  py::list out;
  for (const Shape& s : shapes) out.append(ShapeToPython(s));
  return out;
}

}  // namespace

void RegisterRuntimeBindings(py::module_& m) {
  // Devices live as long as the process (Client::Get never frees them).
  py::class_<Device, std::unique_ptr<Device, py::nodelete>>(m, "Device")
      .def_property_readonly("id", &Device::id)
      .def_property_readonly("platform", &Device::platform)
      .def_property_readonly("device_kind", &Device::device_kind)
      .def_property_readonly("process_index", [](const Device&) { return 0; })
      .def("__repr__", &Device::ToString)
      .def("__str__", &Device::ToString)
      .def("__eq__", [](const Device& a, py::object b) {
             return py::isinstance<Device>(b) && b.cast<const Device*>() == &a;
           })
      .def("__hash__", [](const Device& d) { return std::hash<const void*>()(&d); });

  m.def("platforms", &RegisteredPlatforms);
  // Registered with atexit by xjit/__init__.py; without the GIL, so queued
  // host callbacks can still run.
  m.def("wait_until_all_devices_idle", &Client::WaitUntilAllIdle,
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "devices",
      [](std::optional<std::string> platform) {
        Client* client = ValueOrThrow(Client::Get(platform.value_or("cpu")));
        py::list out;
        for (const auto& d : client->devices()) {
          out.append(py::cast(d.get(), py::return_value_policy::reference));
        }
        return out;
      },
      py::arg("platform") = py::none());

  m.def(
      "device_put",
      [](py::handle value, Device* device, bool weak_type, py::object dtype) -> py::object {
        device = DeviceOrDefault(device);
        std::optional<DType> t;
        if (!dtype.is_none()) t = ValueOrThrow(DTypeFromPython(dtype));
        if (PyArray* a = TryGetPyArray(value)) {
          CheckNotDeleted(*a);
          if (a->buffer->device() == device && a->weak_type == weak_type &&
              (!t || *t == a->buffer->shape().dtype)) {
            return py::reinterpret_borrow<py::object>(value);
          }
        }
        return MakePyArray(ValueOrThrow(BufferFromPython(value, device, t)), weak_type);
      },
      py::arg("value"), py::arg("device") = nullptr, py::arg("weak_type") = false,
      py::arg("dtype") = py::none());

  py::class_<Executable, std::shared_ptr<Executable>>(m, "Executable")
      .def("execute",
           [](Executable& exe, py::handle args) {
             std::vector<std::shared_ptr<Buffer>> buffers = ArgumentBuffers(exe, args);
             return WrapResults(ValueOrThrow(exe.Execute(buffers)), nullptr);
           })
      // Eager ops call this on every op: positional arguments only, no
      // defaults, so pybind11 dispatches it at its cheapest.
      .def("execute_with_weak_types",
           [](Executable& exe, py::handle args, const std::vector<bool>& weak_types) {
             return ExecuteWithWeakTypes(exe, args, weak_types, py::none());
           })
      .def("execute_donating",
           [](Executable& exe, py::handle args, const std::vector<bool>& weak_types,
              py::handle donated) { return ExecuteWithWeakTypes(exe, args, weak_types, donated); },
           py::arg("args"), py::arg("weak_types"), py::arg("donated"),
           "execute_with_weak_types that consumes args[i] where donated[i] (one flag per "
           "argument; None or [] donates nothing).")
      .def("as_text", [](const Executable& exe) { return PrintModule(exe.module()); })
      .def_property_readonly("device", &Executable::device, py::return_value_policy::reference)
      .def_property_readonly("name", [](const Executable& exe) { return exe.module().name(); })
      .def_property_readonly("parameter_shapes",
                             [](const Executable& exe) { return ShapeList(exe.parameter_shapes()); })
      .def_property_readonly("result_shapes",
                             [](const Executable& exe) { return ShapeList(exe.result_shapes()); })
      .def_property_readonly("num_results",
                             [](const Executable& exe) { return exe.result_shapes().size(); });

  m.def(
      "compile",
      [](std::shared_ptr<Module> module, Device* device) {
        if (module == nullptr) ThrowIfError(absl::InvalidArgumentError("compile: module is None"));
        device = DeviceOrDefault(device);
        absl::StatusOr<std::shared_ptr<Executable>> exe;
        {
          py::gil_scoped_release release;
          exe = Executable::Compile(std::move(module), device);
        }
        return ValueOrThrow(std::move(exe));
      },
      py::arg("module"), py::arg("device") = nullptr);
}

}  // namespace xjit::python
