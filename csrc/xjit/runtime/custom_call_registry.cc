#include "xjit/runtime/custom_call_registry.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace xjit {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::shared_ptr<const CustomCallTarget>> targets
      ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

void RegisterCustomCallTarget(std::string name, CustomCallTarget target) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  r.targets[std::move(name)] = std::make_shared<const CustomCallTarget>(std::move(target));
}

std::shared_ptr<const CustomCallTarget> FindCustomCallTarget(absl::string_view name) {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.targets.find(name);
  return it == r.targets.end() ? nullptr : it->second;
}

std::vector<std::string> CustomCallTargetNames() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  std::vector<std::string> names;
  for (const auto& [name, unused] : r.targets) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace xjit
