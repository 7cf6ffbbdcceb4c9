#include "xjit/backends/cuda/nvrtc_compile.h"

#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xjit/backends/cuda/cuda_status.h"

namespace xjit::cuda {
namespace {

std::string DiskCacheDir() {
  if (const char* dir = std::getenv("XJIT_CUDA_CACHE_DIR")) return dir;  // "" = off
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return absl::StrCat(xdg, "/xjit/cuda");
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return absl::StrCat(home, "/.cache/xjit/cuda");
  }
  return "";
}

std::vector<std::string> Options(ComputeCapability target, DeviceCodeKind kind) {
  // sm_XY for a cubin (SASS for exactly this GPU), compute_XY for PTX.
  std::string arch = absl::StrCat(kind == DeviceCodeKind::kCubin ? "sm_" : "compute_",
                                  target.major, target.minor);
  // No fast-math flags: the kernels round as docs/semantics.md says (IEEE
  // division and square root, denormals kept), like the cpu backend.
  return {absl::StrCat("--gpu-architecture=", arch), "-std=c++17", "--device-as-default-execution-space",
          absl::StrCat("-I", CudaIncludeDir())};
}

std::string WithLineNumbers(const std::string& source) {
  std::string out;
  int line = 1;
  for (absl::string_view text : absl::StrSplit(source, '\n')) {
    absl::StrAppend(&out, line++, ": ", text, "\n");
  }
  return out;
}

absl::StatusOr<std::string> CompileUncached(const std::string& source,
                                            const std::vector<std::string>& options,
                                            DeviceCodeKind kind) {
  nvrtcProgram program;
  XJIT_CUDA_RETURN_IF_ERROR(NvrtcStatus(
      nvrtcCreateProgram(&program, source.c_str(), "xjit_kernels.cu", 0, nullptr, nullptr),
      "nvrtcCreateProgram"));
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(program, log.data());
  if (compiled != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&program);
    return absl::InvalidArgumentError(absl::StrCat(
        "NVRTC could not compile a generated kernel (an xjit bug; please report it): ",
        nvrtcGetErrorString(compiled), "\n", log, "\nSource:\n", WithLineNumbers(source)));
  }
  size_t size = 0;
  std::string code;
  absl::Status status;
  if (kind == DeviceCodeKind::kCubin) {
    status = NvrtcStatus(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize");
    code.resize(size);
    if (status.ok()) status = NvrtcStatus(nvrtcGetCUBIN(program, code.data()), "nvrtcGetCUBIN");
  } else {
    status = NvrtcStatus(nvrtcGetPTXSize(program, &size), "nvrtcGetPTXSize");
    code.resize(size);
    if (status.ok()) status = NvrtcStatus(nvrtcGetPTX(program, code.data()), "nvrtcGetPTX");
  }
  nvrtcDestroyProgram(&program);
  if (!status.ok()) return status;
  return code;
}

struct MemoryCache {
  std::mutex mu;
  absl::flat_hash_map<std::string, std::string> code;  // key -> device code
};

MemoryCache& Cache() {
  static MemoryCache* cache = new MemoryCache();  // used at exit by worker threads
  return *cache;
}

}  // namespace

std::string CudaIncludeDir() {
  if (const char* env = std::getenv("XJIT_CUDA_INCLUDE_DIR")) return env;
#ifdef XJIT_CUDA_INCLUDE_DIR
  return XJIT_CUDA_INCLUDE_DIR;
#else
  return "/usr/local/cuda/include";
#endif
}

std::string NvrtcVersion() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<std::string> CompileCudaSource(const std::string& source, ComputeCapability target,
                                              DeviceCodeKind kind) {
  const std::vector<std::string> options = Options(target, kind);
  std::string key = absl::StrCat(NvrtcVersion(), "\n", absl::StrJoin(options, " "), "\n", source);
  {
    std::lock_guard<std::mutex> lock(Cache().mu);
    if (auto it = Cache().code.find(key); it != Cache().code.end()) return it->second;
  }
  const std::string dir = DiskCacheDir();
  std::string path;
  if (!dir.empty()) {
    // The file name is a hash; the key stored in the file is compared in
    // full, so a hash collision only costs a compile.
    path = absl::StrCat(dir, "/", std::hash<std::string>{}(key),
                        kind == DeviceCodeKind::kCubin ? ".cubin" : ".ptx");
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream contents;
      contents << in.rdbuf();
      std::string stored = contents.str();
      if (stored.size() > key.size() + 1 && stored.compare(0, key.size(), key) == 0 &&
          stored[key.size()] == '\0') {
        std::string code = stored.substr(key.size() + 1);
        std::lock_guard<std::mutex> lock(Cache().mu);
        Cache().code.emplace(key, code);
        return code;
      }
    }
  }
  absl::StatusOr<std::string> code = CompileUncached(source, options, kind);
  if (!code.ok()) return code.status();
  if (!path.empty()) {
    // Written under a temporary name and renamed: readers never see half a file.
    std::string tmp = absl::StrCat(path, ".tmp", std::hash<std::string>{}(*code));
    std::error_code ignored;  // an unwritable cache only costs compiles
    std::filesystem::create_directories(dir, ignored);
    std::ofstream out(tmp, std::ios::binary);
    if (out) {
      out.write(key.data(), key.size());
      out.put('\0');
      out.write(code->data(), code->size());
      out.close();
      if (out) std::rename(tmp.c_str(), path.c_str());
      else std::remove(tmp.c_str());
    }
  }
  std::lock_guard<std::mutex> lock(Cache().mu);
  Cache().code.emplace(key, *code);
  return *code;
}

}  // namespace xjit::cuda
