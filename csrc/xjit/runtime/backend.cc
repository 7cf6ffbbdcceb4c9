// The compiler registry. Backends register from static initializers, so the
// registry lives behind a function-local static (initialization-order safe).
#include "xjit/runtime/backend.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, CompilerFactory> factories;
  // Created on first use and kept for the process: executables hold raw
  // Compiler* only during Compile, but clients may be asked from any thread.
  std::map<std::string, std::unique_ptr<Compiler>> instances;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used at exit
  return *registry;
}

}  // namespace

void RegisterCompiler(const std::string& platform, CompilerFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[platform] = std::move(factory);
  r.instances.erase(platform);
}

absl::StatusOr<Compiler*> GetCompiler(const std::string& platform) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto inst = r.instances.find(platform);
  if (inst != r.instances.end()) return inst->second.get();
  auto it = r.factories.find(platform);
  if (it == r.factories.end()) {
    std::string known;
    for (const auto& [name, f] : r.factories) absl::StrAppend(&known, known.empty() ? "" : ", ", name);
    return absl::NotFoundError(
        absl::StrCat("Unknown platform '", platform, "'; registered platforms: [", known, "]"));
  }
  std::unique_ptr<Compiler> compiler = it->second();
  if (compiler == nullptr) {
    return absl::InternalError(absl::StrCat("Compiler factory for '", platform, "' returned null"));
  }
  Compiler* raw = compiler.get();
  r.instances[platform] = std::move(compiler);
  return raw;
}

std::vector<std::string> RegisteredPlatforms() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [name, f] : r.factories) out.push_back(name);
  // "cpu" first: it is the default platform, as in JAX.
  std::stable_partition(out.begin(), out.end(), [](const std::string& s) { return s == "cpu"; });
  return out;
}

}  // namespace xjit
