// Host side of the in-process host transfers (runtime/host_transfers.h):
// push to a device's infeed, pop from its outfeed, and send to / receive from
// a channel. Waits release the GIL: the program that feeds or drains the
// queue runs on the device's thread and may need the GIL itself (callbacks).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xjit/python/bindings.h"
#include "xjit/python/device_put.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/status_casters.h"
#include "xjit/runtime/device.h"
#include "xjit/runtime/host_transfers.h"

namespace xjit::python {
namespace {

Literal LiteralFromValue(py::handle value, std::optional<DType> dtype, absl::string_view what) {
  py::array a = AsContiguousArray(py::reinterpret_borrow<py::object>(value), dtype);
  absl::StatusOr<DType> t = FromNumpyDType(a.dtype());
  if (!t.ok()) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": ", t.status().message())));
  }
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  return Literal(Shape(*t, std::move(dims)), a.data());
}

py::array NumpyFromLiteral(const Literal& l) {
  std::vector<py::ssize_t> dims(l.shape().dims.begin(), l.shape().dims.end());
  py::array out(ToNumpyDType(l.shape().dtype), dims);
  if (l.size_bytes() > 0) std::memcpy(out.mutable_data(), l.data(), l.size_bytes());
  return out;
}

Shape ExpectedShape(py::handle dtype, const std::vector<int64_t>& shape, absl::string_view what) {
  absl::StatusOr<DType> t = DTypeFromPython(dtype);
  if (!t.ok()) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": ", t.status().message())));
  }
  for (int64_t d : shape) {
    if (d < 0) ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": negative dimension")));
  }
  Shape s(*t, shape);
  ThrowIfError(CheckShapeSize(s, what));
  return s;
}

absl::Duration Timeout(std::optional<double> seconds) {
  if (!seconds) return HostTransferTimeout();
  if (*seconds < 0) ThrowIfError(absl::InvalidArgumentError("timeout must be >= 0"));
  return absl::Seconds(*seconds);
}

py::array Pop(HostTransferQueue& queue, const Shape& expected, std::optional<double> timeout) {
  absl::Duration wait = Timeout(timeout);
  absl::StatusOr<Literal> value;
  {
    py::gil_scoped_release release;
    value = queue.Pop(expected, wait);
  }
  return NumpyFromLiteral(ValueOrThrow(std::move(value)));
}

}  // namespace

void RegisterHostTransferBindings(py::module_& m) {
  m.def(
      "transfer_to_infeed",
      [](Device* device, py::handle value, py::object dtype) {
        std::optional<DType> t;
        if (!dtype.is_none()) t = ValueOrThrow(DTypeFromPython(dtype));
        InfeedQueue(device->platform(), device->id())
            .Push(LiteralFromValue(value, t, "transfer_to_infeed"));
      },
      py::arg("device"), py::arg("value"), py::arg("dtype") = py::none(),
      "Appends one array to the device's infeed queue.");
  m.def(
      "transfer_from_outfeed",
      [](Device* device, py::handle dtype, const std::vector<int64_t>& shape,
         std::optional<double> timeout) {
        Shape s = ExpectedShape(dtype, shape, "transfer_from_outfeed");
        return Pop(OutfeedQueue(device->platform(), device->id()), s, timeout);
      },
      py::arg("device"), py::arg("dtype"), py::arg("shape"), py::arg("timeout") = py::none(),
      "Takes the oldest array of the device's outfeed queue, which must have this type.");
  m.def(
      "send_to_channel",
      [](Device* device, int64_t handle, py::handle value, py::object dtype) {
        std::optional<DType> t;
        if (!dtype.is_none()) t = ValueOrThrow(DTypeFromPython(dtype));
        ChannelQueue(device->platform(), handle).Push(LiteralFromValue(value, t, "send_to_channel"));
      },
      py::arg("device"), py::arg("handle"), py::arg("value"), py::arg("dtype") = py::none());
  m.def(
      "receive_from_channel",
      [](Device* device, int64_t handle, py::handle dtype, const std::vector<int64_t>& shape,
         std::optional<double> timeout) {
        Shape s = ExpectedShape(dtype, shape, "receive_from_channel");
        return Pop(ChannelQueue(device->platform(), handle), s, timeout);
      },
      py::arg("device"), py::arg("handle"), py::arg("dtype"), py::arg("shape"),
      py::arg("timeout") = py::none());
  m.def("host_queue_sizes", [](Device* device) {
    py::dict out;
    out["infeed"] = InfeedQueue(device->platform(), device->id()).size();
    out["outfeed"] = OutfeedQueue(device->platform(), device->id()).size();
    return out;
  });
}

}  // namespace xjit::python
