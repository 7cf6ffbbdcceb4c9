#include "xjit/python/schema_bindings.h"

#include <string>
#include <vector>

#include "xjit/backends/cpu/supported_ops.h"
#include "xjit/backends/reference/supported_ops.h"
#include "xjit/ir/attributes.h"
#include "xjit/ir/opcode.h"
#include "xjit/transforms/rule_coverage.h"

namespace xjit::python {
namespace {

namespace py = pybind11;

absl::string_view FieldUseName(FieldUse use) {
  switch (use) {
    case FieldUse::kRequired: return "required";
    case FieldUse::kOptional: return "optional";
    case FieldUse::kDefaulted: return "defaulted";
  }
  return "?";
}

py::dict FieldToPython(const FieldInfo& f) {
  py::dict d;
  d["name"] = f.name;
  d["kind"] = std::string(FieldKindName(f.kind));
  d["type"] = f.type;
  d["use"] = std::string(FieldUseName(f.use));
  d["enum_values"] = f.enum_values;
  py::list fields;
  for (const FieldInfo& n : f.fields) fields.append(FieldToPython(n));
  d["fields"] = fields;
  return d;
}

py::dict OpToPython(Opcode op) {
  const OpTraits& t = GetOpTraits(op);
  py::dict d;
  d["name"] = std::string(t.name);
  d["family"] = std::string(OpFamilyName(t.family));
  d["arity"] = std::string(OpArityName(t.arity));
  d["regions"] = t.num_regions;
  d["elementwise"] = IsElementwise(op);
  d["commutative"] = IsCommutative(op);
  d["multiple_results"] = HasMultipleResults(op);
  d["side_effects"] = HasSideEffects(op);
  d["declares_result_type"] = DeclaresResultType(op);
  d["calls_function"] = CallsFunction(op);
  d["attrs"] = std::string(AttrsKindName(t.attrs));
  py::list fields;
  for (const FieldInfo& f : DescribeAttrsFields(t.attrs)) fields.append(FieldToPython(f));
  d["fields"] = fields;
  py::list backends;
  if (cpu::SupportsOp(op)) backends.append("cpu");
  if (reference::SupportsOp(op)) backends.append("reference");
  d["backends"] = backends;
  py::list transforms;
  for (const std::string& rule : transforms::RulesFor(op)) transforms.append(rule);
  d["transforms"] = transforms;
  return d;
}

}  // namespace

void RegisterSchemaBindings(py::module_& m) {
  m.def(
      "op_schema",
      [] {
        py::list ops;
        for (int i = 0; i < kNumOpcodes; ++i) ops.append(OpToPython(static_cast<Opcode>(i)));
        return ops;
      },
      "Every op of ir/opcode.h, in enum order, as a dict: name, family, arity, regions, "
      "the trait flags, attrs (the attribute struct), fields, backends, transforms.");
}

}  // namespace xjit::python
