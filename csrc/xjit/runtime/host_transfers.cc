#include "xjit/runtime/host_transfers.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xjit {
namespace {

thread_local const std::string* running_platform = nullptr;
thread_local int running_device = 0;

enum class QueueKind { kInfeed, kOutfeed, kChannel };

// Queues live for the process (like a device's); handed out by reference.
HostTransferQueue& Queue(QueueKind kind, const std::string& platform, int64_t key) {
  static std::mutex mu;
  static auto* queues =
      new std::map<std::tuple<QueueKind, std::string, int64_t>, std::unique_ptr<HostTransferQueue>>;
  std::lock_guard<std::mutex> lock(mu);
  auto& q = (*queues)[{kind, platform, key}];
  if (q == nullptr) {
    const std::string where = platform.empty() ? "host" : platform;
    std::string name = kind == QueueKind::kInfeed    ? absl::StrCat("infeed queue of ", where, ":", key)
                       : kind == QueueKind::kOutfeed ? absl::StrCat("outfeed queue of ", where, ":", key)
                                                     : absl::StrCat("channel ", key, " of ", where);
    q = std::make_unique<HostTransferQueue>(std::move(name));
  }
  return *q;
}

}  // namespace

void HostTransferQueue::Push(Literal value) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    values_.push_back(std::move(value));
  }
  cv_.notify_all();
}

absl::StatusOr<Literal> HostTransferQueue::Pop(const Shape& expected, absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  const bool got = cv_.wait_for(lock, std::chrono::microseconds(absl::ToInt64Microseconds(timeout)),
                                [&] { return !values_.empty(); });
  if (!got) {
    return absl::DeadlineExceededError(absl::StrCat(
        "no value arrived in the ", name_, " within ", absl::FormatDuration(timeout),
        " (waiting for ", expected.ToString(), "; XJIT_HOST_TRANSFER_TIMEOUT_S sets the wait)"));
  }
  if (values_.front().shape() != expected) {
    return absl::InvalidArgumentError(absl::StrCat("the ", name_, " holds a ",
                                                   values_.front().shape().ToString(),
                                                   " next, but the program reads a ",
                                                   expected.ToString()));
  }
  Literal out = std::move(values_.front());
  values_.pop_front();
  return out;
}

size_t HostTransferQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_.size();
}

HostTransferQueue& InfeedQueue(const std::string& platform, int device) {
  return Queue(QueueKind::kInfeed, platform, device);
}
HostTransferQueue& OutfeedQueue(const std::string& platform, int device) {
  return Queue(QueueKind::kOutfeed, platform, device);
}
HostTransferQueue& ChannelQueue(const std::string& platform, int64_t handle) {
  return Queue(QueueKind::kChannel, platform, handle);
}

absl::Duration HostTransferTimeout() {
  static const absl::Duration timeout = [] {
    double seconds = 60;
    if (const char* env = std::getenv("XJIT_HOST_TRANSFER_TIMEOUT_S")) {
      double parsed = 0;
      if (absl::SimpleAtod(env, &parsed) && parsed >= 0) seconds = parsed;
    }
    return absl::Seconds(seconds);
  }();
  return timeout;
}

RunningDeviceScope::RunningDeviceScope(const std::string* platform, int device)
    : saved_platform_(running_platform), saved_device_(running_device) {
  running_platform = platform;
  running_device = device;
}

RunningDeviceScope::~RunningDeviceScope() {
  running_platform = saved_platform_;
  running_device = saved_device_;
}

const std::string& RunningPlatform() {
  static const std::string* none = new std::string();
  return running_platform != nullptr ? *running_platform : *none;
}

int RunningDevice() { return running_device; }

}  // namespace xjit
