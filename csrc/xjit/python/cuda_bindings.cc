// The CUDA backend's checks that need no GPU, for the Python tests:
// `_xjit.cuda_codegen(text, major, minor)` lowers a StableHLO module for the
// cuda backend and compiles its generated kernels with NVRTC for that
// compute capability (PTX), raising what either step reports. Absent when
// the package was built without the CUDA toolkit.
#include <string>
#include <vector>

#include "xjit/python/bindings.h"
#include "xjit/python/status_casters.h"
#include "xjit/text/parser.h"

#ifdef XJIT_WITH_CUDA
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
#else
  (void)m;
#endif
}

}  // namespace xjit::python
