// numpy dtypes are looked up once per DType and kept for the process: the
// jit path converts dtypes on every call and must not import or allocate.
#include "xjit/python/dtype_conversion.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace xjit::python {
namespace {

// Leaked on purpose: destroying Python objects after interpreter shutdown
// would crash, and the table lives as long as the module.
std::array<py::object*, kNumDTypes>& DTypeTable() {
  static std::array<py::object*, kNumDTypes> table{};
  return table;
}

py::dtype MakeNumpyDType(DType t) {
  if (t == DType::kBF16) {
    return py::dtype::from_args(py::module_::import("ml_dtypes").attr("bfloat16"));
  }
  return py::dtype(std::string(NumpyName(t)));
}

int BFloat16TypeNum() {
  static int num = ToNumpyDType(DType::kBF16).num();
  return num;
}

}  // namespace

py::dtype ToNumpyDType(DType t) {
  py::object*& slot = DTypeTable()[static_cast<int>(t)];
  if (slot == nullptr) slot = new py::object(MakeNumpyDType(t));
  return py::reinterpret_borrow<py::dtype>(*slot);
}

bool IsByteSwapped(const py::dtype& dt) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  constexpr char kForeign = '<';
#else
  constexpr char kForeign = '>';
#endif
  return py::detail::array_descriptor_proxy(dt.ptr())->byteorder == kForeign;
}

py::dtype NativeByteOrder(const py::dtype& dt) {
  return py::reinterpret_borrow<py::dtype>(dt.attr("newbyteorder")("="));
}

absl::StatusOr<DType> FromNumpyDType(const py::dtype& dt) {
  const ssize_t size = dt.itemsize();
  switch (dt.kind()) {
    case 'b': return DType::kPred;
    case 'i':
      switch (size) {
        case 1: return DType::kS8;
        case 2: return DType::kS16;
        case 4: return DType::kS32;
        case 8: return DType::kS64;
      }
      break;
    case 'u':
      switch (size) {
        case 1: return DType::kU8;
        case 2: return DType::kU16;
        case 4: return DType::kU32;
        case 8: return DType::kU64;
      }
      break;
    case 'f':
      switch (size) {
        case 2: return DType::kF16;
        case 4: return DType::kF32;
        case 8: return DType::kF64;
      }
      break;
    case 'c':
      switch (size) {
        case 8: return DType::kC64;
        case 16: return DType::kC128;
      }
      break;
    default:
      // ml_dtypes registers bfloat16 as a user type ('V' kind); match its number.
      if (size == 2 && dt.num() == BFloat16TypeNum()) return DType::kBF16;
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unsupported dtype ", py::str(static_cast<const py::handle&>(dt)).cast<std::string>(),
      "; xjit supports bool, int8-64, uint8-64, float16, bfloat16, float32, float64, "
      "complex64 and complex128"));
}

absl::StatusOr<DType> DTypeFromPython(py::handle obj) {
  if (py::isinstance<py::str>(obj)) {
    std::string name = obj.cast<std::string>();
    absl::StatusOr<DType> t = ParseDType(name);
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Unknown dtype name '", name, "'"));
    }
    return t;
  }
  py::dtype dt;
  try {
    dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(obj));
  } catch (py::error_already_set&) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot interpret ", py::repr(obj).cast<std::string>(), " as a dtype"));
  }
  return FromNumpyDType(dt);
}

}  // namespace xjit::python
