#include "xjit/runtime/device.h"

#include <cctype>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xjit/runtime/platform.h"
#include "xjit/runtime/work_queue.h"

namespace xjit {

Device::Device(Client* client, int id)
    : client_(client),
      platform_impl_(&client->platform_impl()),
      id_(id),
      queue_(std::make_unique<WorkQueue>(absl::StrCat(client->platform(), ":", id))) {}

Device::~Device() = default;

const std::string& Device::platform() const { return client_->platform(); }

std::string Device::device_kind() const { return client_->platform(); }

std::string Device::ToString() const {
  // JAX's spelling: CpuDevice(id=0); other platforms follow the same pattern.
  std::string kind = client_->platform();
  if (!kind.empty()) kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
  return absl::StrCat(kind, "Device(id=", id_, ")");
}

void Device::Enqueue(std::function<void()> task) { queue_->Enqueue(std::move(task)); }

bool Device::TryRunInline(absl::FunctionRef<void()> task) { return queue_->TryRunInline(task); }

void Device::ReleaseRunningTask() { queue_->ReleaseRunningTask(); }

void Device::WaitUntilIdle() { queue_->WaitUntilIdle(); }

const std::string& Client::platform() const { return platform_->name(); }

Client::Client(Platform* platform) : platform_(platform) {
  const int n = platform->DeviceCount();
  for (int i = 0; i < n; ++i) devices_.push_back(std::make_unique<Device>(this, i));
}

namespace {

// Clients live for the whole process: their worker threads may still be
// draining at exit, and Python holds raw Device* through Arrays.
struct ClientTable {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Client>> clients;
};
ClientTable& Clients() {
  static auto* table = new ClientTable();
  return *table;
}

}  // namespace

void Client::WaitUntilAllIdle() {
  std::vector<Device*> devices;
  {
    std::lock_guard<std::mutex> lock(Clients().mu);
    for (const auto& [name, client] : Clients().clients) {
      for (const auto& d : client->devices()) devices.push_back(d.get());
    }
  }
  for (Device* d : devices) d->WaitUntilIdle();
}

absl::StatusOr<Client*> Client::Get(const std::string& platform) {
  std::lock_guard<std::mutex> lock(Clients().mu);
  auto* clients = &Clients().clients;
  auto it = clients->find(platform);
  if (it != clients->end()) return it->second.get();
  absl::StatusOr<Platform*> impl = GetPlatform(platform);
  if (!impl.ok()) {
    std::string list;
    for (const std::string& p : RegisteredPlatforms()) {
      absl::StrAppend(&list, list.empty() ? "" : ", ", p);
    }
    if (impl.status().code() != absl::StatusCode::kNotFound) return impl.status();
    return absl::NotFoundError(absl::StrCat("Unknown backend '", platform,
                                            "'; available platforms: [", list, "]"));
  }
  Client* raw = new Client(*impl);
  clients->emplace(platform, std::unique_ptr<Client>(raw));
  return raw;
}

}  // namespace xjit
