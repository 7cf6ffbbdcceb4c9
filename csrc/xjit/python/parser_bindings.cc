#include "xjit/python/parser_bindings.h"

#include <memory>
#include <string>

#include "xjit/python/status_casters.h"
#include "xjit/text/parser.h"

namespace xjit::python {

namespace py = pybind11;

void RegisterParserBindings(py::module_& m) {
  m.def(
      "parse_module",
      [](const std::string& text) -> std::shared_ptr<Module> {
        absl::StatusOr<std::unique_ptr<Module>> module;
        {
          py::gil_scoped_release release;
          module = ParseModule(text);
        }
        // Malformed text is a bad value, not a bad type: ValueError with the
        // parser's "line:column: ..." message. Ops or types xjit lacks stay
        // NotImplementedError through the usual mapping.
        if (module.status().code() == absl::StatusCode::kInvalidArgument) {
          ThrowIfError(absl::FailedPreconditionError(module.status().message()));
        }
        return std::shared_ptr<Module>(ValueOrThrow(std::move(module)));
      },
      py::arg("text"),
      "Parses StableHLO text (the generic syntax Module.as_text() prints) into a verified Module.");
}

}  // namespace xjit::python
