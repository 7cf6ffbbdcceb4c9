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
  // bfloat16 and the narrow types are ml_dtypes' (JAX's) numpy types.
  if (t == DType::kBF16 || IsNarrow(t)) {
    return py::dtype::from_args(py::module_::import("ml_dtypes").attr(std::string(NumpyName(t)).c_str()));
  }
  return py::dtype(std::string(NumpyName(t)));
}

// ml_dtypes registers its types as user types ('V' kind, but float8_e5m2 is
// 'f'): they are told apart by their type numbers.
absl::StatusOr<DType> FromMlDTypesNumber(const py::dtype& dt) {
  static const std::array<int, kNumDTypes> nums = [] {
    std::array<int, kNumDTypes> n{};
    for (int i = 0; i < kNumDTypes; ++i) {
      const DType t = static_cast<DType>(i);
      n[i] = t == DType::kBF16 || IsNarrow(t) ? ToNumpyDType(t).num() : -1;
    }
    return n;
  }();
  for (int i = 0; i < kNumDTypes; ++i) {
    if (nums[i] == dt.num()) return static_cast<DType>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Unsupported dtype ", py::str(static_cast<const py::handle&>(dt)).cast<std::string>(),
      "; xjit supports bool, int2-64, uint2-64, the float8/6/4 types of ml_dtypes, float16, "
      "bfloat16, float32, float64, complex64 and complex128"));
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
      break;
  }
  return FromMlDTypesNumber(dt);
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
