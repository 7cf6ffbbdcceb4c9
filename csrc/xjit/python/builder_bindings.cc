// Graph construction from Python. Every Python object (builders, values,
// computations) shares one BuilderState, so an Instruction* can never outlive
// its storage: before build() the ModuleBuilder owns the instructions, after
// it the built Module does, and the state keeps both alive.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xjit/builder/builder.h"
#include "xjit/builder/rewriter.h"
#include "xjit/passes/pipeline.h"
#include "xjit/python/bindings.h"
#include "xjit/python/device_put.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/status_casters.h"
#include "xjit/text/printer.h"
#include "xjit/transforms/batching.h"
#include "xjit/transforms/jvp.h"
#include "xjit/transforms/transpose.h"

namespace xjit::python {
namespace {

struct ComputationRecord {
  ComputationBuilder* builder;  // invalid once the module is built
  Computation* finished = nullptr;
};

struct BuilderState {
  std::string name;
  std::unique_ptr<ModuleBuilder> builder;
  std::shared_ptr<Module> module;  // set by build()
  std::vector<ComputationRecord> computations;
  bool built() const { return module != nullptr; }
};

struct PyComputationBuilder {
  std::shared_ptr<BuilderState> state;
  size_t index;
};

struct PyValue {
  std::shared_ptr<BuilderState> state;
  size_t computation;
  Instruction* instr;
};

struct PyComputation {
  std::shared_ptr<BuilderState> state;
  Computation* computation;
};

struct PyModuleBuilder {
  std::shared_ptr<BuilderState> state;
};

absl::Status NotBuilt(const BuilderState& s, absl::string_view what) {
  if (!s.built()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(what, ": module '", s.name, "' was already built"));
}

// Checks the value's instruction still exists (values of computations left
// unfinished are destroyed by build()).
const Instruction& Checked(const PyValue& v) {
  const ComputationRecord& rec = v.state->computations[v.computation];
  if (v.state->built() && rec.finished == nullptr) {
    ThrowIfError(absl::FailedPreconditionError(
        "This value belongs to a computation that was not finished before build(); it no "
        "longer exists"));
  }
  return *v.instr;
}

ComputationBuilder& LiveBuilder(const PyComputationBuilder& cb, absl::string_view what) {
  ThrowIfError(NotBuilt(*cb.state, what));
  const ComputationRecord& rec = cb.state->computations[cb.index];
  if (rec.finished != nullptr) {
    ThrowIfError(absl::FailedPreconditionError(absl::StrCat(
        what, ": computation '", rec.finished->name(), "' is already finished")));
  }
  return *rec.builder;
}

// An index-like Python int as int64; one outside int64 is a ValueError
// naming `what` and the whole value (pybind11 would say "Unable to cast").
int64_t Int64FromIndex(py::handle d, absl::string_view what, py::handle whole) {
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(d.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) {
    ThrowIfError(absl::OutOfRangeError(absl::StrCat(
        what, " ", py::repr(whole).cast<std::string>(), ": ", py::repr(index).cast<std::string>(),
        " does not fit in int64")));
  }
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

std::vector<int64_t> DimsFromPython(py::handle obj, absl::string_view what) {
  std::vector<int64_t> dims;
  if (py::isinstance<py::int_>(obj)) {
    // A bare int for a shape is a common slip; numpy accepts it, so do we.
    dims.push_back(Int64FromIndex(obj, what, obj));
    return dims;
  }
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) {
    ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
        what, " must be a sequence of ints, got ", py::repr(obj).cast<std::string>())));
  }
  for (py::handle d : py::reinterpret_borrow<py::sequence>(obj)) {
    if (!PyIndex_Check(d.ptr()) || PyBool_Check(d.ptr())) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          what, " must be a sequence of ints, got ", py::repr(obj).cast<std::string>())));
    }
    dims.push_back(Int64FromIndex(d, what, obj));
  }
  return dims;
}

int64_t IntFromPython(py::handle obj, absl::string_view what) {
  if (!PyIndex_Check(obj.ptr()) || PyBool_Check(obj.ptr())) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must be an int, got ", py::repr(obj).cast<std::string>())));
  }
  return Int64FromIndex(obj, what, obj);
}

bool BoolFromPython(py::handle obj, absl::string_view what) {
  if (!PyBool_Check(obj.ptr())) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must be a bool, got ", py::repr(obj).cast<std::string>())));
  }
  return obj.ptr() == Py_True;
}

// A real number (Python or numpy float or int, not bool) rounded to f32.
float F32FromPython(py::handle obj, absl::string_view what) {
  if (PyBool_Check(obj.ptr()) || !(PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()) ||
                                   py::hasattr(obj, "__float__"))) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must be a float, got ", py::repr(obj).cast<std::string>())));
  }
  const double x = PyFloat_AsDouble(obj.ptr());
  if (x == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<float>(x);
}

std::string StrFromPython(py::handle obj, absl::string_view what) {
  if (!py::isinstance<py::str>(obj)) {
    ThrowIfError(absl::InvalidArgumentError(
        absl::StrCat(what, " must be a str, got ", py::repr(obj).cast<std::string>())));
  }
  return obj.cast<std::string>();
}

Shape ShapeFromPython(py::handle dtype, py::handle dims, absl::string_view what) {
  if (py::isinstance<py::str>(dtype) && dtype.cast<std::string>() == "token") return Shape::Token();
  absl::StatusOr<DType> t = DTypeFromPython(dtype);
  if (!t.ok()) ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": ", t.status().message())));
  std::vector<int64_t> d = DimsFromPython(dims, absl::StrCat(what, ": shape"));
  for (int64_t x : d) {
    if (x < 0) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          what, ": negative dimension in shape ", py::repr(dims).cast<std::string>())));
    }
  }
  return Shape(*t, std::move(d));
}

Literal LiteralFromNumpy(py::handle value) {
  py::module_ np = py::module_::import("numpy");
  // asarray(order="C"), not ascontiguousarray, which makes 0-d arrays 1-d.
  py::object arr = np.attr("asarray")(value, py::arg("order") = "C");
  py::array a = py::reinterpret_borrow<py::array>(arr);
  if (IsByteSwapped(a.dtype())) {  // the literal copies raw bytes: make them native
    a = py::reinterpret_borrow<py::array>(
        np.attr("asarray")(a, py::arg("dtype") = NativeByteOrder(a.dtype()), py::arg("order") = "C"));
  }
  absl::StatusOr<DType> t = FromNumpyDType(a.dtype());
  if (!t.ok()) ThrowIfError(absl::InvalidArgumentError(absl::StrCat("constant: ", t.status().message())));
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  return Literal(Shape(*t, std::move(dims)), a.data());
}

std::string KeyList(const std::vector<std::string>& keys) {
  return keys.empty() ? "it takes none" : absl::StrCat("known: ", absl::StrJoin(keys, ", "));
}

// Reads one attribute value of kind KindOfMember<M>() from Python.
template <typename M>
void FieldFromPython(py::handle v, const std::string& what, M& out) {
  constexpr FieldKind kind = KindOfMember<M>();
  if constexpr (kind == FieldKind::kInt) {
    out = IntFromPython(v, what);
  } else if constexpr (kind == FieldKind::kBool) {
    out = BoolFromPython(v, what);
  } else if constexpr (kind == FieldKind::kFloat) {
    out = F32FromPython(v, what);
  } else if constexpr (kind == FieldKind::kIntList) {
    out = DimsFromPython(v, what);
  } else if constexpr (kind == FieldKind::kEnum) {
    absl::StatusOr<M> e = ParseEnum<M>(StrFromPython(v, what));
    if (!e.ok()) ThrowIfError(absl::OutOfRangeError(absl::StrCat(what, ": ", e.status().message())));
    out = *e;
  } else if constexpr (kind == FieldKind::kString) {
    out = StrFromPython(v, what);
  } else if constexpr (kind == FieldKind::kText) {
    out.text = StrFromPython(v, what);
  } else if constexpr (kind == FieldKind::kLiteral) {
    py::object arr = py::module_::import("numpy").attr("asarray")(v);
    if (!FromNumpyDType(arr.attr("dtype").cast<py::dtype>()).ok()) {  // name the attribute
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          what, " must be an array of a supported dtype, got ", py::repr(v).cast<std::string>())));
    }
    out = LiteralFromNumpy(arr);
  } else {
    static_assert(kind != FieldKind::kStruct, "nested structs are flattened by FieldSetters");
  }
}

using Setter = std::function<void(py::handle, const std::string&)>;

// One setter per Python key of struct `s`: a nested struct's fields are keys
// of their own (dot_general takes lhs_batching_dimensions, ... directly).
template <typename S>
void FieldSetters(S& s, std::vector<std::pair<std::string, Setter>>& out) {
  ForEachField<S>([&](const auto& field) {
    using M = typename std::decay_t<decltype(field)>::Member;
    M* target = &(s.*field.member);
    if constexpr (KindOfMember<M>() == FieldKind::kStruct) {
      FieldSetters(*target, out);
    } else {
      out.emplace_back(field.name, [target](py::handle v, const std::string& what) {
        FieldFromPython(v, what, *target);
      });
    }
  });
}

struct OpArguments {
  Attributes attrs;
  std::optional<Shape> result_type;  // for ops that declare one
};

// Maps the attribute dict of docs/bindings.md onto the op's attribute struct
// and declared result type (keys "shape" and "dtype"). A key the op does not
// take is a ValueError naming the op and its keys.
OpArguments AttributesFromDict(Opcode opcode, const std::string& op, const py::dict& attrs,
                               const std::vector<Instruction*>& operands) {
  OpArguments out{Attributes::Default(OpcodeAttrsKind(opcode)), std::nullopt};
  std::vector<std::pair<std::string, Setter>> setters;
  out.attrs.Visit([&setters](auto& s) { FieldSetters(s, setters); });
  std::vector<std::string> known;
  for (const auto& kv : setters) known.push_back(kv.first);
  const bool declares = DeclaresResultType(opcode);
  if (declares) {
    known.push_back("shape");
    known.push_back("dtype");
    known.push_back("result_types");
  }
  std::optional<Shape> result_types;
  std::optional<DType> dtype;
  std::optional<std::vector<int64_t>> shape;
  for (auto item : attrs) {
    if (!py::isinstance<py::str>(item.first)) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          op, ": attribute names must be str, got ", py::repr(item.first).cast<std::string>())));
    }
    std::string key = item.first.cast<std::string>();
    py::handle v = item.second;
    std::string what = absl::StrCat(op, ": attribute '", key, "'");
    auto it = std::find_if(setters.begin(), setters.end(),
                           [&key](const auto& kv) { return kv.first == key; });
    if (it != setters.end()) {
      it->second(v, what);
    } else if (declares && key == "result_types") {
      // [(dtype, shape), ...]: one array result, or a tuple of several (or none).
      std::vector<Shape> shapes;
      for (py::handle pair : py::iter(v)) {
        py::tuple t = py::reinterpret_borrow<py::object>(pair).cast<py::tuple>();
        if (t.size() != 2) {
          ThrowIfError(absl::InvalidArgumentError(
              absl::StrCat(what, ": expected (dtype, shape) pairs")));
        }
        shapes.push_back(ShapeFromPython(t[0], t[1], what));
      }
      result_types = shapes.size() == 1 ? shapes[0] : Shape::Tuple(std::move(shapes));
    } else if (declares && key == "shape") {
      shape = DimsFromPython(v, what);
    } else if (declares && key == "dtype") {
      absl::StatusOr<DType> t = DTypeFromPython(v);
      if (!t.ok()) ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": ", t.status().message())));
      dtype = *t;
    } else {
      ThrowIfError(absl::OutOfRangeError(
          absl::StrCat(op, ": unknown attribute '", key, "' (", KeyList(known), ")")));
    }
  }
  if (result_types) {
    if (dtype || shape) {
      ThrowIfError(absl::InvalidArgumentError(
          absl::StrCat(op, ": give result_types or shape/dtype, not both")));
    }
    out.result_type = *std::move(result_types);
    return out;
  }
  if (dtype || shape) {
    // A missing half of the result type comes from the first operand; the
    // builder normalises further (reshape keeps the operand's dtype).
    const Shape* first = (!operands.empty() && !operands[0]->shape().is_tuple)
                             ? &operands[0]->shape() : nullptr;
    if (!dtype && first == nullptr) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(op, ": attribute 'dtype' is required")));
    }
    // convert with dtype only: keep dims empty, which the builder fills in.
    out.result_type = Shape(dtype ? *dtype : first->dtype, shape ? *shape : std::vector<int64_t>{});
  }
  return out;
}

std::vector<Instruction*> InstructionsOf(const PyComputationBuilder& cb,
                                         const std::vector<PyValue*>& values, absl::string_view what) {
  std::vector<Instruction*> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const PyValue* v = values[i];
    if (v == nullptr) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(what, ": operand ", i, " is None")));
    }
    if (v->state != cb.state || v->computation != cb.index) {
      ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
          what, ": operand ", i, " belongs to another computation (values cannot cross "
          "computations or modules; pass them as parameters)")));
    }
    out.push_back(v->instr);
  }
  return out;
}

py::object ValueDType(const PyValue& v) {
  const Shape& s = Checked(v).shape();
  if (s.is_tuple) return py::none();
  if (s.is_token) return py::str("token");
  return py::str(std::string(NumpyName(s.dtype)));
}

py::list ShapeList(const std::vector<Shape>& shapes) {
  py::list out;
  for (const Shape& s : shapes) out.append(ShapeToPython(s));
  return out;
}

std::vector<std::string> TypeTexts(const std::vector<Shape>& shapes) {
  std::vector<std::string> out;
  for (const Shape& s : shapes) out.push_back(s.ToString());
  return out;
}

}  // namespace

py::tuple ShapeToPython(const Shape& shape) {
  if (shape.is_tuple) {
    py::list elems;
    for (const Shape& e : shape.tuple_shapes) elems.append(ShapeToPython(e));
    return py::make_tuple(py::none(), elems);
  }
  if (shape.is_token) return py::make_tuple("token", py::tuple());
  return py::make_tuple(std::string(NumpyName(shape.dtype)),
                        py::tuple(py::cast(shape.dims)));
}

void RegisterBuilderBindings(py::module_& m) {
  py::class_<PyValue>(m, "Value")
      .def_property_readonly("shape",
                             [](const PyValue& v) {
                               const Shape& s = Checked(v).shape();
                               return py::tuple(py::cast(s.dims));
                             })
      .def_property_readonly("dtype", &ValueDType)
      // (dtype name, shape) in one call, as ShapeToPython: tracing reads it per op.
      .def_property_readonly("signature",
                             [](const PyValue& v) { return ShapeToPython(Checked(v).shape()); })
      .def_property_readonly("is_tuple", [](const PyValue& v) { return Checked(v).shape().is_tuple; })
      .def_property_readonly("tuple_shapes",
                             [](const PyValue& v) {
                               py::list out;
                               for (const Shape& e : Checked(v).shape().tuple_shapes) {
                                 out.append(ShapeToPython(e));
                               }
                               return out;
                             })
      .def_property_readonly("op",
                             [](const PyValue& v) { return std::string(OpcodeName(Checked(v).opcode())); })
      .def_property_readonly("type", [](const PyValue& v) { return Checked(v).shape().ToString(); })
      .def("__eq__", [](const PyValue& a, py::object b) {
             PyValue* o = py::isinstance<PyValue>(b) ? b.cast<PyValue*>() : nullptr;
             return o != nullptr && o->instr == a.instr;
           })
      .def("__hash__", [](const PyValue& v) { return std::hash<const void*>()(v.instr); })
      .def("__repr__", [](const PyValue& v) {
        const Instruction& i = Checked(v);
        return absl::StrCat("Value(%", i.id(), " = ", OpcodeName(i.opcode()), " : ",
                            i.shape().ToString(), ")");
      });

  py::class_<PyComputation>(m, "Computation")
      .def_property_readonly("name", [](const PyComputation& c) { return c.computation->name(); })
      .def_property_readonly("num_parameters",
                             [](const PyComputation& c) { return c.computation->parameters().size(); })
      .def("__repr__", [](const PyComputation& c) {
        return absl::StrCat("Computation(@", c.computation->name(), ")");
      });

  py::class_<Module, std::shared_ptr<Module>>(m, "Module")
      .def_property_readonly("name", &Module::name)
      .def(
          "as_text", [](const Module& mod, bool pretty) { return PrintModule(mod, pretty); },
          py::arg("pretty") = false)
      .def("__str__", [](const Module& mod) { return PrintModule(mod); })
      // The module after the backend-neutral passes (what a backend compiles).
      .def("optimized",
           [](const Module& mod) {
             return std::shared_ptr<Module>(ValueOrThrow(passes::RunDefaultPipeline(mod)));
           })
      .def_property_readonly("parameter_shapes",
                             [](const Module& mod) { return ShapeList(mod.ParameterShapes()); })
      .def_property_readonly("result_shapes",
                             [](const Module& mod) { return ShapeList(mod.ResultShapes()); })
      // The StableHLO text of each type (quantized types included).
      .def_property_readonly("parameter_types",
                             [](const Module& mod) { return TypeTexts(mod.ParameterShapes()); })
      .def_property_readonly("result_types",
                             [](const Module& mod) { return TypeTexts(mod.ResultShapes()); })
      .def_property_readonly("num_instructions", [](const Module& mod) {
        size_t n = 0;
        for (const auto& c : mod.computations()) n += c->instructions().size();
        return n;
      });

  py::class_<PyComputationBuilder>(m, "ComputationBuilder")
      .def_property_readonly("name",
                             [](const PyComputationBuilder& cb) {
                               const ComputationRecord& r = cb.state->computations[cb.index];
                               if (r.finished) return r.finished->name();
                               ThrowIfError(NotBuilt(*cb.state, "name"));
                               return r.builder->computation()->name();
                             })
      .def_property_readonly("finished",
                             [](const PyComputationBuilder& cb) {
                               return cb.state->computations[cb.index].finished != nullptr;
                             })
      .def(
          "parameter",
          [](const PyComputationBuilder& cb, py::object dtype, py::object shape) {
            ComputationBuilder& b = LiveBuilder(cb, "parameter");
            Shape s = ShapeFromPython(dtype, shape, "parameter");
            Instruction* instr = b.Parameter(std::move(s));
            return PyValue{cb.state, cb.index, instr};
          },
          py::arg("dtype"), py::arg("shape"))
      .def(
          "constant",
          [](const PyComputationBuilder& cb, py::object value) {
            ComputationBuilder& b = LiveBuilder(cb, "constant");
            Instruction* instr = b.Constant(LiteralFromNumpy(value));
            return PyValue{cb.state, cb.index, instr};
          },
          py::arg("value"))
      .def(
          "op",
          [](const PyComputationBuilder& cb, const std::string& name,
             const std::vector<PyValue*>& operands, py::object attrs,
             const std::vector<PyComputation*>& called, std::string source_location) {
            ComputationBuilder& b = LiveBuilder(cb, name);
            absl::StatusOr<Opcode> op = ParseOpcode(name);
            if (!op.ok()) {
              ThrowIfError(absl::OutOfRangeError(absl::StrCat("Unknown op '", name, "'")));
            }
            if (*op == Opcode::kParameter || *op == Opcode::kConstant) {
              ThrowIfError(absl::OutOfRangeError(
                  absl::StrCat(name, ": use ComputationBuilder.", name, "() instead of op()")));
            }
            std::vector<Instruction*> ins = InstructionsOf(cb, operands, name);
            py::dict attr_dict;
            if (!attrs.is_none()) {
              if (!py::isinstance<py::dict>(attrs)) {
                ThrowIfError(absl::InvalidArgumentError(
                    absl::StrCat(name, ": attributes must be a dict")));
              }
              attr_dict = py::reinterpret_borrow<py::dict>(attrs);
            }
            OpArguments args = AttributesFromDict(*op, name, attr_dict, ins);
            std::vector<Computation*> comps;
            for (size_t i = 0; i < called.size(); ++i) {
              if (called[i] == nullptr || called[i]->state != cb.state) {
                ThrowIfError(absl::InvalidArgumentError(absl::StrCat(
                    name, ": called computation ", i, " is not a finished computation of this module")));
              }
              comps.push_back(called[i]->computation);
            }
            Instruction* instr = ValueOrThrow(
                args.result_type
                    ? b.AddWithResultType(*op, *std::move(args.result_type), std::move(ins),
                                          std::move(args.attrs), std::move(comps),
                                          std::move(source_location))
                    : b.Add(*op, std::move(ins), std::move(args.attrs), std::move(comps),
                            std::move(source_location)));
            return PyValue{cb.state, cb.index, instr};
          },
          py::arg("name"), py::arg("operands"), py::arg("attrs") = py::dict(),
          py::arg("called") = std::vector<PyComputation*>{}, py::arg("source_location") = "")
      .def("finish", [](const PyComputationBuilder& cb, const std::vector<PyValue*>& results) {
        ComputationBuilder& b = LiveBuilder(cb, "finish");
        std::vector<Instruction*> ins = InstructionsOf(cb, results, "finish");
        Computation* c = ValueOrThrow(b.Finish(std::move(ins)));
        cb.state->computations[cb.index].finished = c;
        return PyComputation{cb.state, c};
      });

  py::class_<PyModuleBuilder>(m, "ModuleBuilder")
      .def(py::init([](std::string name) {
             auto state = std::make_shared<BuilderState>();
             state->name = name;
             state->builder = std::make_unique<ModuleBuilder>(std::move(name));
             return PyModuleBuilder{std::move(state)};
           }),
           py::arg("name"))
      .def(
          "computation",
          [](const PyModuleBuilder& mb, std::string name) {
            ThrowIfError(NotBuilt(*mb.state, "computation"));
            ComputationBuilder* b = mb.state->builder->NewComputation(std::move(name));
            if (b == nullptr) ThrowIfError(absl::FailedPreconditionError("computation: module already built"));
            mb.state->computations.push_back(ComputationRecord{b, nullptr});
            return PyComputationBuilder{mb.state, mb.state->computations.size() - 1};
          },
          py::arg("name"))
      .def("build",
           [](const PyModuleBuilder& mb, py::object entry) {
             ThrowIfError(NotBuilt(*mb.state, "build"));
             Computation* c = nullptr;
             if (py::isinstance<PyComputationBuilder>(entry)) {
               const PyComputationBuilder& cb = entry.cast<const PyComputationBuilder&>();
               if (cb.state == mb.state) c = mb.state->computations[cb.index].finished;
             } else if (py::isinstance<PyComputation>(entry)) {
               const PyComputation& pc = entry.cast<const PyComputation&>();
               if (pc.state == mb.state) c = pc.computation;
             } else {
               ThrowIfError(absl::InvalidArgumentError(
                   "build: entry must be a ComputationBuilder or a Computation"));
             }
             if (c == nullptr) {
               ThrowIfError(absl::FailedPreconditionError(
                   "build: the entry must be a finished computation of this module builder"));
             }
             std::unique_ptr<Module> module = ValueOrThrow(mb.state->builder->Build(c));
             // Build destroyed the computation builders: forget them.
             for (ComputationRecord& r : mb.state->computations) r.builder = nullptr;
             mb.state->module = std::shared_ptr<Module>(std::move(module));
             return mb.state->module;
           })
      .def_property_readonly("built", [](const PyModuleBuilder& mb) { return mb.state->built(); })
      // Transforms (csrc/xjit/transforms/): each builds new computations of
      // this module from one of its finished computations.
      .def(
          "clone_computation",
          [](const PyModuleBuilder& mb, const PyComputation& c) {
            ThrowIfError(NotBuilt(*mb.state, "clone_computation"));
            if (c.state == mb.state) return c;
            Cloner cloner(*mb.state->builder);
            Computation* clone = ValueOrThrow(cloner.CloneComputation(*c.computation));
            return PyComputation{mb.state, clone};
          },
          py::arg("computation"))
      .def(
          "jvp",
          [](const PyModuleBuilder& mb, const PyComputation& c, std::vector<bool> wants,
             const std::string& name) {
            ThrowIfError(NotBuilt(*mb.state, "jvp"));
            if (c.state != mb.state) {
              ThrowIfError(absl::InvalidArgumentError("jvp: computation of another module"));
            }
            transforms::JvpResult r =
                ValueOrThrow(transforms::Jvp(*c.computation, wants, *mb.state->builder, name));
            return py::make_tuple(PyComputation{mb.state, r.computation}, r.result_has_tangent);
          },
          py::arg("computation"), py::arg("wants_tangent"), py::arg("name"))
      .def(
          "vjp",
          [](const PyModuleBuilder& mb, const PyComputation& c, std::vector<bool> wants,
             const std::string& name) {
            ThrowIfError(NotBuilt(*mb.state, "vjp"));
            if (c.state != mb.state) {
              ThrowIfError(absl::InvalidArgumentError("vjp: computation of another module"));
            }
            transforms::VjpResult r =
                ValueOrThrow(transforms::Vjp(*c.computation, wants, *mb.state->builder, name));
            return py::make_tuple(PyComputation{mb.state, r.forward},
                                  PyComputation{mb.state, r.backward}, r.num_residuals,
                                  r.result_has_cotangent);
          },
          py::arg("computation"), py::arg("wants_cotangent"), py::arg("name"))
      .def(
          "vmap",
          [](const PyModuleBuilder& mb, const PyComputation& c, std::vector<int64_t> in_axes,
             int64_t axis_size, std::vector<int64_t> out_axes, const std::string& name,
             int64_t axis_id) {
            ThrowIfError(NotBuilt(*mb.state, "vmap"));
            if (c.state != mb.state) {
              ThrowIfError(absl::InvalidArgumentError("vmap: computation of another module"));
            }
            Computation* r = ValueOrThrow(transforms::Vmap(
                *c.computation, in_axes, axis_size, out_axes, *mb.state->builder, name, axis_id));
            return PyComputation{mb.state, r};
          },
          py::arg("computation"), py::arg("in_axes"), py::arg("axis_size"), py::arg("out_axes"),
          py::arg("name"), py::arg("axis_id") = -1);
}

}  // namespace xjit::python
