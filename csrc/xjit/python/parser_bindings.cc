#include "xjit/python/parser_bindings.h"

#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "xjit/python/status_casters.h"
#include "xjit/text/parser.h"

namespace xjit::python {

namespace py = pybind11;

void RegisterParserBindings(py::module_& m) {
  m.def(
      "parse_module",
      [](const std::string& text, std::optional<std::string> entry) -> std::shared_ptr<Module> {
        absl::StatusOr<std::unique_ptr<Module>> module;
        {
          py::gil_scoped_release release;
          module = entry ? ParseModule(text, *entry) : ParseModule(text);
        }
        // Malformed text is a bad value, not a bad type: ValueError with the
        // parser's "line:column: ..." message. Ops or types xjit lacks stay
        // NotImplementedError through the usual mapping.
        if (module.status().code() == absl::StatusCode::kInvalidArgument ||
            module.status().code() == absl::StatusCode::kNotFound) {
          ThrowIfError(absl::FailedPreconditionError(module.status().message()));
        }
        return std::shared_ptr<Module>(ValueOrThrow(std::move(module)));
      },
      py::arg("text"), py::arg("entry") = py::none(),
      "Parses StableHLO text (generic or pretty form, as Module.as_text() and JAX print it) into "
      "a verified Module whose entry is `entry`, or @main, or the only function.");
  m.def(
      "parse_test_function",
      [](const std::string& text, const std::string& entry) {
        absl::StatusOr<ParsedTest> test;
        {
          py::gil_scoped_release release;
          test = ParseTestFunction(text, entry);
        }
        if (test.status().code() == absl::StatusCode::kInvalidArgument ||
            test.status().code() == absl::StatusCode::kNotFound) {
          ThrowIfError(absl::FailedPreconditionError(test.status().message()));
        }
        ParsedTest t = ValueOrThrow(std::move(test));
        py::list checks;
        for (const ParsedCheck& c : t.checks) {
          py::dict options;
          for (const auto& [name, value] : c.options) options[py::str(name)] = value;
          checks.append(py::make_tuple(c.kind, c.location, options));
        }
        return py::make_tuple(std::shared_ptr<Module>(std::move(t.module)), t.num_results,
                              checks);
      },
      py::arg("text"), py::arg("entry"),
      "Parses function `entry` of a StableHLO interpreter test file: (module, number of the "
      "function's own results, [(kind, 'line:col', options)] of its check ops). The module's "
      "results are the function's, then each check's actual and expected value.");
  m.def(
      "parse_ops",
      [](const std::string& text) {
        absl::StatusOr<ParsedOps> parsed;
        {
          py::gil_scoped_release release;
          parsed = ParseOps(text);
        }
        if (parsed.status().code() == absl::StatusCode::kInvalidArgument) {
          ThrowIfError(absl::FailedPreconditionError(parsed.status().message()));
        }
        ParsedOps p = ValueOrThrow(std::move(parsed));
        return py::make_tuple(std::shared_ptr<Module>(std::move(p.module)), p.parameter_names,
                              p.result_names);
      },
      py::arg("text"),
      "Parses the spec examples' form, ops outside any function: (module, names of the free "
      "values that became its parameters, names of the last op's results).");
}

}  // namespace xjit::python
