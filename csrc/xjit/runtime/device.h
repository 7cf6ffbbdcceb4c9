// A device and the client that owns the devices of one platform.
// Each device runs enqueued work in order on its own thread (a stream); its
// memory and transfers belong to the platform (platform.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace xjit {

class Client;
class Platform;
class WorkQueue;

class Device {
 public:
  Device(Client* client, int id);
  ~Device();

  int id() const { return id_; }
  Client* client() const { return client_; }
  // The platform's name ("cpu"): what Python sees as Device.platform.
  const std::string& platform() const;
  // The platform itself: allocator, transfers, compiler.
  Platform& platform_impl() const { return *platform_impl_; }
  // "cpu", "reference": what JAX calls device_kind.
  std::string device_kind() const;
  std::string ToString() const;  // "CpuDevice(id=0)"

  // Runs `task` after all previously enqueued tasks, on the device's thread.
  void Enqueue(std::function<void()> task);
  // Runs `task` on the calling thread if the device has nothing queued or
  // running (see WorkQueue::TryRunInline); false when it is busy.
  bool TryRunInline(absl::FunctionRef<void()> task);
  // See WorkQueue::ReleaseRunningTask: a task calls it before publishing.
  void ReleaseRunningTask();
  // Blocks until everything enqueued so far has run (WorkQueue::WaitUntilIdle).
  void WaitUntilIdle();

 private:
  Client* client_;
  Platform* platform_impl_;
  int id_;
  std::unique_ptr<WorkQueue> queue_;
};

class Client {
 public:
  // Shared client for a registered platform ("cpu", "reference"), with the
  // platform's DeviceCount() devices.
  static absl::StatusOr<Client*> Get(const std::string& platform);
  // Waits until every device of every client made so far is idle. Called
  // before the process exits: the clients are never destroyed, and a worker
  // still running a kernel would find its libraries (OpenBLAS, libgomp)
  // already torn down by exit handlers.
  static void WaitUntilAllIdle();

  const std::string& platform() const;
  Platform& platform_impl() const { return *platform_; }
  const std::vector<std::unique_ptr<Device>>& devices() const { return devices_; }

 private:
  explicit Client(Platform* platform);
  Platform* platform_;
  std::vector<std::unique_ptr<Device>> devices_;
};

}  // namespace xjit
