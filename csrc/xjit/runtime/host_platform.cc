#include "xjit/runtime/host_platform.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "xjit/runtime/host_memory_pool.h"

namespace xjit {
namespace {

// Freed blocks the pool may keep: XJIT_HOST_POOL_MB (default 1024, 0 under
// AddressSanitizer; 0 turns recycling off; a malformed value is ignored).
size_t HostPoolBudgetFromEnvironment() {
  const char* text = std::getenv("XJIT_HOST_POOL_MB");
#if defined(__SANITIZE_ADDRESS__)
  int64_t mb = 0;  // AddressSanitizer must see every use after free
#else
  int64_t mb = 1024;
#endif
  int64_t requested = 0;
  if (text != nullptr && absl::SimpleAtoi(text, &requested) && requested >= 0) mb = requested;
  return static_cast<size_t>(mb) << 20;
}

class HostPlatform : public Platform {
 public:
  HostPlatform(std::string name, std::unique_ptr<Compiler> compiler, int device_count)
      : name_(std::move(name)), compiler_(std::move(compiler)), device_count_(device_count) {}

  const std::string& name() const override { return name_; }
  int DeviceCount() const override { return device_count_; }
  Compiler& compiler() override { return *compiler_; }
  bool HostVisibleMemory() const override { return true; }

  absl::StatusOr<void*> Allocate(int, size_t bytes) override {
    void* p = pool_.Allocate(bytes);
    if (p == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("Out of memory allocating ", bytes,
                                                       " bytes on ", name_));
    }
    return p;
  }
  void Deallocate(int, void* memory) override { pool_.Deallocate(memory); }

  void CopyToDevice(int, const void* host, void* memory, size_t bytes, Event* done) override {
    if (bytes != 0) std::memcpy(memory, host, bytes);
    done->SetReady();
  }
  void CopyToHost(int, const void* memory, void* host, size_t bytes, Event* done) override {
    if (bytes != 0) std::memcpy(host, memory, bytes);
    done->SetReady();
  }

 private:
  std::string name_;
  std::unique_ptr<Compiler> compiler_;
  int device_count_;
  HostMemoryPool pool_{HostPoolBudgetFromEnvironment()};
};

}  // namespace

std::unique_ptr<Platform> MakeHostPlatform(std::string name, std::unique_ptr<Compiler> compiler,
                                           int device_count) {
  return std::make_unique<HostPlatform>(std::move(name), std::move(compiler),
                                        device_count < 1 ? 1 : device_count);
}

int ForcedHostDeviceCount(const char* xla_flags) {
  if (xla_flags == nullptr) return 1;
  constexpr absl::string_view kFlag = "--xla_force_host_platform_device_count=";
  int count = 1;
  // Flags are separated by whitespace; a later occurrence wins, as in XLA.
  for (absl::string_view flag : absl::StrSplit(xla_flags, absl::ByAnyChar(" \t\n"),
                                               absl::SkipEmpty())) {
    if (!absl::ConsumePrefix(&flag, kFlag)) continue;
    int n = 0;
    if (absl::SimpleAtoi(flag, &n) && n > 0) count = n;
  }
  return count;
}

int ForcedHostDeviceCountFromEnvironment() { return ForcedHostDeviceCount(std::getenv("XLA_FLAGS")); }

}  // namespace xjit
