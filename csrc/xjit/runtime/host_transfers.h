// In-process host transfers of the host platforms (cpu, reference): per
// device, an infeed queue (host -> program, read by `infeed`) and an outfeed
// queue (program -> host, written by `outfeed`); and send/recv channels keyed
// by (platform, channel handle): `send` appends to the channel, `recv` takes
// from it, and the host may do either (Python: Device.transfer_to_infeed,
// transfer_from_outfeed, send_to_channel, receive_from_channel).
//
// A program learns which device it runs on from RunningDeviceScope, which the
// runtime sets around each run (executable.cc); a program run directly
// (tests, no runtime) uses device 0 of platform "".
//
// A read from an empty queue waits (as XLA's infeed does) but not forever:
// after HostTransferTimeout() (XJIT_HOST_TRANSFER_TIMEOUT_S, default 60 s) it
// fails with DeadlineExceeded naming the queue, so a program waiting for data
// the host never sends ends with an error instead of hanging.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "xjit/ir/literal.h"

namespace xjit {

// A blocking FIFO of arrays.
class HostTransferQueue {
 public:
  explicit HostTransferQueue(std::string name) : name_(std::move(name)) {}
  void Push(Literal value);
  // The oldest value; waits up to `timeout` for one. The value must have type
  // `expected` (else InvalidArgument, and the value stays queued).
  absl::StatusOr<Literal> Pop(const Shape& expected, absl::Duration timeout);
  size_t size() const;
  const std::string& name() const { return name_; }

 private:
  const std::string name_;  // "infeed of cpu:0", for messages
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Literal> values_;
};

HostTransferQueue& InfeedQueue(const std::string& platform, int device);
HostTransferQueue& OutfeedQueue(const std::string& platform, int device);
HostTransferQueue& ChannelQueue(const std::string& platform, int64_t handle);

absl::Duration HostTransferTimeout();

// The device whose program the current thread runs, for the scope's lifetime.
class RunningDeviceScope {
 public:
  RunningDeviceScope(const std::string* platform, int device);
  ~RunningDeviceScope();
  RunningDeviceScope(const RunningDeviceScope&) = delete;
  RunningDeviceScope& operator=(const RunningDeviceScope&) = delete;

 private:
  const std::string* saved_platform_;
  int saved_device_;
};
const std::string& RunningPlatform();
int RunningDevice();

}  // namespace xjit
