#include "xjit/backends/cpu/jit_fusion.h"

#include <atomic>

#include "xjit/backends/cpu/jit_region.h"

namespace xjit::cpu {
namespace {

std::atomic<bool> jit_enabled{true};
std::atomic<int64_t> kernels_generated{0};

}  // namespace

void SetFusionJitEnabled(bool enabled) { jit_enabled = enabled; }

bool FusionJitEnabled() { return jit_enabled; }

int64_t NumJitFusionKernels() { return kernels_generated; }

void CountJitKernel() { ++kernels_generated; }

std::unique_ptr<Thunk> MakeJitFusionThunk(const Instruction& fusion,
                                          const std::vector<SlotId>& inputs,
                                          const std::vector<SlotId>& outputs, int64_t* work) {
#if defined(__x86_64__)
  static const bool has_avx512 = __builtin_cpu_supports("avx512f");
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (!jit_enabled || !(has_avx512 || has_avx2)) return nullptr;
  JitRegion region;
  if (!AnalyzeJitRegion(fusion, inputs.size(), &region)) return nullptr;
  std::unique_ptr<Thunk> thunk = has_avx512 ? GenerateAvx512Kernel(region, inputs, outputs)
                                            : GenerateAvx2Kernel(region, inputs, outputs);
  if (thunk == nullptr) return nullptr;
  *work = region.work;
  ++kernels_generated;
  return thunk;
#else
  return nullptr;
#endif
}

}  // namespace xjit::cpu
