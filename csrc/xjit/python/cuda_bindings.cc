// The CUDA backend's checks that need no GPU, for the Python tests:
// `_xjit.cuda_codegen(text, major, minor)` lowers a StableHLO module for the
// cuda backend and compiles its generated kernels with NVRTC for that
// compute capability (PTX), raising what either step reports. Absent when
// the package was built without the CUDA toolkit.
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "xjit/python/bindings.h"
#include "xjit/python/dtype_conversion.h"
#include "xjit/python/status_casters.h"
#include "xjit/text/parser.h"

#ifdef XJIT_WITH_CUDA
#include "xjit/backends/cuda/host_emulation.h"
#include "xjit/backends/cuda/lowering.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#endif

namespace xjit::python {

void RegisterCudaBindings(py::module_& m) {
#ifdef XJIT_WITH_CUDA
  m.def(
      "cuda_codegen",
      [](const std::string& text, int major, int minor) {
        std::unique_ptr<Module> module = ValueOrThrow(ParseModule(text));
        cuda::LoweredProgram lowered = ValueOrThrow(cuda::LowerForCuda(*module));
        // The program and the programs of its while/if/case regions.
        size_t ptx_bytes = 0, steps = 0, programs = 0;
        std::string source;
        std::vector<const cuda::LoweredProgram*> todo = {&lowered};
        while (!todo.empty()) {
          const cuda::LoweredProgram* p = todo.back();
          todo.pop_back();
          ptx_bytes += ValueOrThrow(cuda::CompileCudaSource(
                                        p->source, cuda::ComputeCapability{major, minor},
                                        cuda::DeviceCodeKind::kPtx))
                           .size();
          steps += p->steps.size();
          ++programs;
          source += p->source;
          for (const cuda::LoweredProgram& r : p->regions) todo.push_back(&r);
        }
        py::dict out;
        out["source"] = source;
        out["ptx_bytes"] = ptx_bytes;
        out["steps"] = steps;
        out["programs"] = programs;
        return out;
      },
      py::arg("text"), py::arg("major") = 8, py::arg("minor") = 0,
      "Lower a StableHLO module for the cuda backend and compile its kernels with NVRTC (no GPU "
      "needed); returns {'source', 'ptx_bytes', 'steps'}.");
  m.def("cuda_nvrtc_version", &cuda::NvrtcVersion);
  m.def(
      "cuda_emulate",
      [](const std::string& text, const std::vector<py::array>& args) {
        std::unique_ptr<Module> module = ValueOrThrow(ParseModule(text));
        const std::vector<Shape> params = module->ParameterShapes();
        const std::vector<Shape> results = module->ResultShapes();
        if (args.size() != params.size()) {
          throw py::value_error("cuda_emulate: wrong number of arguments");
        }
        std::vector<py::array> inputs;
        std::vector<const void*> in;
        for (size_t i = 0; i < args.size(); ++i) {
          py::array a = py::array::ensure(args[i], py::array::c_style | py::array::forcecast);
          if (!a.dtype().is(ToNumpyDType(params[i].dtype)) ||
              a.size() != params[i].num_elements()) {
            throw py::value_error("cuda_emulate: argument " + std::to_string(i) +
                                  " does not match " + params[i].ToString());
          }
          in.push_back(a.data());
          inputs.push_back(std::move(a));
        }
        std::vector<py::array> outputs;
        std::vector<void*> out;
        for (const Shape& s : results) {
          outputs.emplace_back(ToNumpyDType(s.dtype), std::vector<py::ssize_t>(s.dims.begin(), s.dims.end()));
          out.push_back(outputs.back().mutable_data());
        }
        std::unique_ptr<cuda::HostEmulation> emulation =
            ValueOrThrow(cuda::HostEmulation::Create(ValueOrThrow(cuda::LowerForCuda(*module))));
        ThrowIfError(emulation->Run(in, out));
        return outputs;
      },
      py::arg("text"), py::arg("args"),
      "Lower a StableHLO module for the cuda backend and run its generated kernels on the host "
      "(one thread, compiled with g++): checks the generated code without a GPU.");
#else
  (void)m;
#endif
}

}  // namespace xjit::python
