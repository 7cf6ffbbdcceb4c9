// The platform registry. Backends register from static initializers, so the
// registry lives behind a function-local static (initialization-order safe).
#include "xjit/runtime/platform.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, PlatformFactory> factories;
  // Created on first use and kept for the process: devices and buffers hold
  // raw Platform pointers, and worker threads may still run at exit.
  std::map<std::string, std::unique_ptr<Platform>> instances;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used at exit
  return *registry;
}

}  // namespace

void RegisterPlatform(const std::string& name, PlatformFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[name] = std::move(factory);
}

absl::StatusOr<Platform*> GetPlatform(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto inst = r.instances.find(name);
  if (inst != r.instances.end()) return inst->second.get();
  auto it = r.factories.find(name);
  if (it == r.factories.end()) {
    std::string known;
    for (const auto& [n, f] : r.factories) absl::StrAppend(&known, known.empty() ? "" : ", ", n);
    return absl::NotFoundError(
        absl::StrCat("Unknown platform '", name, "'; registered platforms: [", known, "]"));
  }
  std::unique_ptr<Platform> platform = it->second();
  if (platform == nullptr || platform->name() != name) {
    return absl::InternalError(
        absl::StrCat("The platform factory for '", name, "' returned ",
                     platform == nullptr ? std::string("null") : "'" + platform->name() + "'"));
  }
  Platform* raw = platform.get();
  r.instances[name] = std::move(platform);
  return raw;
}

absl::StatusOr<Compiler*> GetCompiler(const std::string& platform) {
  absl::StatusOr<Platform*> p = GetPlatform(platform);
  if (!p.ok()) return p.status();
  return &(*p)->compiler();
}

std::vector<std::string> RegisteredPlatforms() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [name, f] : r.factories) out.push_back(name);
  std::stable_partition(out.begin(), out.end(), [](const std::string& s) { return s == "cpu"; });
  return out;
}

}  // namespace xjit
