// A one-shot ready event with a status, like PJRT's PJRT_Event.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "absl/status/status.h"

namespace xjit {

class Event {
 public:
  static std::shared_ptr<Event> MakeReady(absl::Status status = absl::OkStatus());

  void SetReady(absl::Status status = absl::OkStatus());
  // Lock-free: dispatch checks every argument's event on each call.
  bool IsReady() const { return ready_.load(std::memory_order_acquire); }
  // Blocks until ready; returns the status the producer set.
  absl::Status Await() const;
  // Await for a caller about to destroy the event: also waits until a setter
  // on another thread (an asynchronous transfer) has let go of it.
  absl::Status AwaitSettled() const;

 private:
  // ready_ is published (release) after status_ is written, so a reader that
  // sees it set may read status_ without the lock. The mutex orders setters
  // and sleepers; the condvar is signalled only when someone sleeps on it.
  std::atomic<bool> ready_{false};
  absl::Status status_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable int sleepers_ = 0;  // guarded by mu_
};

}  // namespace xjit
