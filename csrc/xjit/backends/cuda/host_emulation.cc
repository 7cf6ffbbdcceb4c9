#include "xjit/backends/cuda/host_emulation.h"

#include <dlfcn.h>
#include <unistd.h>

#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "xjit/backends/cuda/nvrtc_compile.h"
#include "xjit/backends/cuda/scalar_source.h"
#include "xjit/ir/dtype_dispatch.h"

namespace xjit::cuda {
namespace {

// CUDA's built-ins as host C++: one block of one thread; the bit casts and
// intrinsics the prelude uses; atomics as plain read-modify-writes.
constexpr const char* kShim = R"(#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __align__(n) alignas(n)
struct XjitDim3 { unsigned x, y, z; };
static const XjitDim3 blockIdx{0, 0, 0}, threadIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
inline void __syncthreads() {}
template <class To, class From> inline To xjit_emu_bits(From f) { To t; std::memcpy(&t, &f, sizeof t); return t; }
inline float __uint_as_float(unsigned u) { return xjit_emu_bits<float>(u); }
inline unsigned __float_as_uint(float f) { return xjit_emu_bits<unsigned>(f); }
inline float __int_as_float(int u) { return xjit_emu_bits<float>(u); }
inline int __float_as_int(float f) { return xjit_emu_bits<int>(f); }
inline double __longlong_as_double(long long u) { return xjit_emu_bits<double>(u); }
inline long long __double_as_longlong(double f) { return xjit_emu_bits<long long>(f); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
template <class T, class U> inline T atomicAdd(T* a, U v) { T o = *a; *a = o + v; return o; }
template <class T, class U> inline T atomicMax(T* a, U v) { T o = *a; if (v > o) *a = v; return o; }
template <class T, class U> inline T atomicMin(T* a, U v) { T o = *a; if (v < o) *a = v; return o; }
template <class T> inline T xjit_emu_arg(void** p, size_t i, long long n) {
  if constexpr (std::is_pointer_v<T>) return static_cast<T>(p[i]); else return static_cast<T>(n);
}
template <class... A, size_t... I>
inline void xjit_emu_call(void (*k)(A...), void** p, long long n, std::index_sequence<I...>) {
  k(xjit_emu_arg<std::tuple_element_t<I, std::tuple<A...>>>(p, I, n)...);
}
template <class... A> inline void xjit_emu_call(void (*k)(A...), void** p, long long n) {
  xjit_emu_call(k, p, n, std::index_sequence_for<A...>{});
}
)";

using KernelFn = void (*)(void**, long long);

// The prelude without its integer typedefs (<cstdint> has them on the host).
std::string HostPrelude() {
  std::string out;
  for (absl::string_view line : absl::StrSplit(ScalarPrelude(), '\n')) {
    if (absl::StartsWith(line, "typedef ") && absl::EndsWith(line, "_t;")) continue;
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

template <typename T>
void HostMatmul(const MatmulPlan& p, const void* lhs_bytes, const void* rhs_bytes, void* out_bytes) {
  using Acc = std::conditional_t<is_half_v<T>, float, T>;
  const T* lhs = static_cast<const T*>(lhs_bytes);
  const T* rhs = static_cast<const T*>(rhs_bytes);
  T* out = static_cast<T*>(out_bytes);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t m = 0; m < p.m; ++m) {
      for (int64_t n = 0; n < p.n; ++n) {
        Acc acc{};
        for (int64_t k = 0; k < p.k; ++k) {
          const T& a = lhs[b * p.lhs_batch_stride +
                           (p.lhs_transposed ? k * p.lhs_ld + m : m * p.lhs_ld + k)];
          const T& c = rhs[b * p.rhs_batch_stride +
                           (p.rhs_transposed ? n * p.rhs_ld + k : k * p.rhs_ld + n)];
          acc += static_cast<Acc>(a) * static_cast<Acc>(c);
        }
        out[(b * p.m + m) * p.n + n] = static_cast<T>(acc);
      }
    }
  }
}

}  // namespace

struct HostEmulation::Program {
  LoweredProgram lowered;
  std::vector<KernelFn> kernels;  // per step
  std::vector<std::unique_ptr<Program>> regions;
};

HostEmulation::~HostEmulation() {
  if (library_ != nullptr) dlclose(library_);
}

absl::StatusOr<std::unique_ptr<HostEmulation>> HostEmulation::Create(LoweredProgram program) {
  std::unique_ptr<HostEmulation> emulation(new HostEmulation());
  // Every program's kernels in a namespace of its own, after one prelude;
  // an extern "C" wrapper per kernel casts the pointer table back to its
  // parameter types.
  std::string source = absl::StrCat(kShim, HostPrelude());
  std::vector<std::pair<Program*, std::string>> names;  // (program, namespace)
  std::vector<Program*> todo;
  emulation->root_ = std::make_unique<Program>();
  emulation->root_->lowered = std::move(program);
  todo.push_back(emulation->root_.get());
  const size_t prelude_size = ScalarPrelude().size();
  int count = 0;
  while (!todo.empty()) {
    Program* p = todo.back();
    todo.pop_back();
    for (LoweredProgram& region : p->lowered.regions) {
      auto child = std::make_unique<Program>();
      child->lowered = std::move(region);
      todo.push_back(child.get());
      p->regions.push_back(std::move(child));
    }
    p->lowered.regions.clear();
    const std::string space = absl::StrCat("xjit_emu_p", count++);
    names.emplace_back(p, space);
    std::string kernels = p->lowered.source.substr(prelude_size);
    absl::StrAppend(&source, "namespace ", space, " {\n",
                    absl::StrReplaceAll(kernels, {{"extern \"C\" __global__", ""}}));
    absl::flat_hash_set<std::string> wrapped;  // a sort's step kernel runs once per stage
    for (const Step& step : p->lowered.steps) {
      if (step.kind != Step::Kind::kKernel || !wrapped.insert(step.launch.name).second) continue;
      absl::StrAppend(&source, "extern \"C\" void ", space, "_", step.launch.name,
                      "(void** p, long long n) { xjit_emu_call(&", step.launch.name, ", p, n); }\n");
    }
    absl::StrAppend(&source, "}  // namespace ", space, "\n");
  }
  char dir_template[] = "/tmp/xjit_cuda_emulation_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return absl::InternalError("host emulation: mkdtemp failed");
  const std::string cc = absl::StrCat(dir, "/kernels.cc"), so = absl::StrCat(dir, "/kernels.so"),
                    log = absl::StrCat(dir, "/log.txt");
  std::ofstream(cc) << source;
  const char* cxx = std::getenv("CXX");
  const std::string command =
      absl::StrCat(cxx != nullptr && *cxx ? cxx : "g++", " -std=c++17 -O1 -ffp-contract=off -w -shared -fPIC -I",
                   CudaIncludeDir(), " -o ", so, " ", cc, " > ", log, " 2>&1");
  if (std::system(command.c_str()) != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return absl::InternalError(absl::StrCat("host emulation: the host compiler failed on ", cc, ":\n",
                                            text.substr(0, 4000)));
  }
  emulation->library_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::remove(so.c_str());
  std::remove(cc.c_str());
  std::remove(log.c_str());
  rmdir(dir);
  if (emulation->library_ == nullptr) {
    return absl::InternalError(absl::StrCat("host emulation: dlopen failed: ", dlerror()));
  }
  for (auto& [p, space] : names) {
    p->kernels.resize(p->lowered.steps.size(), nullptr);
    for (size_t s = 0; s < p->lowered.steps.size(); ++s) {
      const Step& step = p->lowered.steps[s];
      if (step.kind != Step::Kind::kKernel) continue;
      const std::string symbol = absl::StrCat(space, "_", step.launch.name);
      p->kernels[s] = reinterpret_cast<KernelFn>(dlsym(emulation->library_, symbol.c_str()));
      if (p->kernels[s] == nullptr) return absl::InternalError(absl::StrCat("host emulation: no ", symbol));
    }
  }
  return emulation;
}

absl::Status HostEmulation::Run(absl::Span<const void* const> args, absl::Span<void* const> results) {
  return RunProgram(*root_, args, results);
}

absl::Status HostEmulation::RunProgram(const Program& program, absl::Span<const void* const> args,
                                       absl::Span<void* const> results) {
  const LoweredProgram& p = program.lowered;
  if (static_cast<int64_t>(args.size()) != p.num_parameters ||
      static_cast<int64_t>(results.size()) != p.num_results) {
    return absl::InvalidArgumentError("host emulation: wrong number of arguments or results");
  }
  std::vector<char> arena(p.arena_bytes + 256);
  char* base = arena.data() + (256 - reinterpret_cast<uintptr_t>(arena.data()) % 256) % 256;
  std::vector<void*> constants;
  for (const Literal& c : p.constants) constants.push_back(const_cast<uint8_t*>(c.data()));
  const std::vector<void*> address = BindSlots(p, args, results, base, constants);
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const Step& step = p.steps[s];
    std::vector<void*> pointers;
    for (int32_t slot : step.slots) pointers.push_back(address[slot]);
    switch (step.kind) {
      case Step::Kind::kKernel:
        if (step.launch.threads > 0) {
          program.kernels[s](pointers.data(), step.launch.argument >= 0 ? step.launch.argument
                                                                        : step.launch.threads);
        }
        break;
      case Step::Kind::kMatmul: {
        const MatmulPlan& plan = step.matmul;
        bool known = true;
        DispatchDType(plan.dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_floating_point_v<T> || is_half_v<T> || is_complex_v<T>) {
            HostMatmul<T>(plan, pointers[0], pointers[1], pointers[2]);
          } else {
            known = false;
          }
        });
        if (!known) return absl::UnimplementedError("host emulation: matmul type");
        break;
      }
      case Step::Kind::kCopy:
        if (step.bytes > 0 && pointers[0] != pointers[1]) std::memmove(pointers[1], pointers[0], step.bytes);
        break;
      case Step::Kind::kWhile: {
        const Program& cond = *program.regions[step.regions[0]];
        const Program& body = *program.regions[step.regions[1]];
        const int64_t num_in = step.num_operand_leaves;
        const int64_t carried = static_cast<int64_t>(pointers.size()) - num_in;
        std::vector<std::vector<char>> storage(carried);
        std::vector<void*> current(carried), other(carried);
        for (int64_t k = 0; k < carried; ++k) {
          const int64_t bytes = body.lowered.result_bytes[k];
          if (pointers[num_in + k] != pointers[k]) std::memmove(pointers[num_in + k], pointers[k], bytes);
          current[k] = pointers[num_in + k];
          storage[k].resize(bytes + 1);
          other[k] = storage[k].data();
        }
        std::vector<const void*> in(num_in);
        for (int64_t k = carried; k < num_in; ++k) in[k] = pointers[k];
        while (true) {
          for (int64_t k = 0; k < carried; ++k) in[k] = current[k];
          bool go = false;
          void* pred = &go;
          if (absl::Status st = RunProgram(cond, in, absl::MakeSpan(&pred, 1)); !st.ok()) return st;
          if (!go) break;
          if (absl::Status st = RunProgram(body, in, other); !st.ok()) return st;
          std::swap(current, other);
        }
        for (int64_t k = 0; k < carried; ++k) {
          if (current[k] != pointers[num_in + k]) {
            std::memmove(pointers[num_in + k], current[k], body.lowered.result_bytes[k]);
          }
        }
        break;
      }
      case Step::Kind::kBranch: {
        const size_t branch =
            ChooseBranch(step, step.is_if && *static_cast<const bool*>(pointers[0]),
                         step.is_if ? 0 : *static_cast<const int32_t*>(pointers[0]));
        std::vector<const void*> in(pointers.begin() + 1, pointers.begin() + step.num_operand_leaves);
        std::vector<void*> out(pointers.begin() + step.num_operand_leaves, pointers.end());
        if (absl::Status st = RunProgram(*program.regions[step.regions[branch]], in, out); !st.ok()) {
          return st;
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace xjit::cuda
