// The custom_call target of host callbacks ("xjit_python_callback"):
// xjit.pure_callback, xjit.experimental.io_callback, xjit.debug.callback and
// xjit.debug.print (python/xjit/_src/callbacks.py). It runs on the device's
// work-queue thread, takes the GIL, and calls the Python invoker with the
// operands as numpy arrays; the invoker returns one array per result.
//
// Deadlocks: the thread that waits for a program's results (np.asarray,
// block_until_ready, a jit call reading numpy inputs in place) releases the
// GIL while it waits (py_array.cc, jit_function.cc), and programs with side
// effects never run inline on the caller's thread (executable.cc), so the
// device thread can always take the GIL here. A Python exception becomes the
// run's error status, raised where the results are read.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "xjit/python/bindings.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/status_casters.h"
#include "xjit/runtime/custom_call_registry.h"

namespace xjit::python {
namespace {

constexpr char kTarget[] = "xjit_python_callback";

// Set once by callbacks.py at import; leaked so that no destructor runs
// without the GIL at exit.
py::object* invoker = nullptr;

py::array CopyToNumpy(const CustomCallBuffer& b) {
  std::vector<py::ssize_t> dims(b.dims.begin(), b.dims.end());
  py::array out(ToNumpyDType(b.dtype), dims);
  const int64_t bytes = b.num_elements() * ByteWidth(b.dtype);
  if (bytes > 0) std::memcpy(out.mutable_data(), b.data, bytes);
  return out;
}

absl::Status CallPython(const CustomCallContext& ctx) {
  if (invoker == nullptr) {
    return absl::FailedPreconditionError("host callbacks: the Python invoker is not set");
  }
  py::list args;
  for (const CustomCallBuffer& o : ctx.operands) args.append(CopyToNumpy(o));
  py::list result_types;
  for (const CustomCallBuffer& r : ctx.results) {
    result_types.append(py::make_tuple(std::string(NumpyName(r.dtype)),
                                       py::tuple(py::cast(std::vector<int64_t>(r.dims.begin(),
                                                                               r.dims.end())))));
  }
  py::object out = (*invoker)(ctx.config.text(), args, result_types);
  py::list values = py::list(out);
  if (values.size() != ctx.results.size()) {
    return absl::InternalError(absl::StrCat("host callback returned ", values.size(),
                                            " values for ", ctx.results.size(), " results"));
  }
  for (size_t i = 0; i < ctx.results.size(); ++i) {
    const CustomCallBuffer& r = ctx.results[i];
    py::array a = py::array::ensure(values[i], py::array::c_style);
    const int64_t bytes = r.num_elements() * ByteWidth(r.dtype);
    if (!a || a.nbytes() != bytes) {
      return absl::InternalError(absl::StrCat("host callback result ", i, " has ",
                                              a ? a.nbytes() : -1, " bytes, expected ", bytes));
    }
    if (bytes > 0) std::memcpy(r.data, a.data(), bytes);
  }
  return absl::OkStatus();
}

absl::Status RunPythonCallback(const CustomCallContext& ctx) {
  py::gil_scoped_acquire gil;
  try {
    return CallPython(ctx);
  } catch (py::error_already_set& e) {
    // "ValueError: message", without pybind11's appended frames.
    std::string what = e.what();
    if (size_t at = what.find("\n\nAt:"); at != std::string::npos) what.resize(at);
    return absl::InternalError(absl::StrCat("Host callback failed: ", what));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("Host callback failed: ", e.what()));
  }
}

}  // namespace

void RegisterCallbackBindings(py::module_& m) {
  RegisterCustomCallTarget(kTarget, RunPythonCallback);
  m.def("set_python_callback_invoker", [](py::object fn) {
    if (invoker == nullptr) invoker = new py::object();
    *invoker = std::move(fn);
  });
}

}  // namespace xjit::python
