#include "xjit/runtime/event.h"

namespace xjit {

std::shared_ptr<Event> Event::MakeReady(absl::Status status) {
  auto e = std::make_shared<Event>();
  e->SetReady(std::move(status));
  return e;
}

void Event::SetReady(absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  // One-shot: a second SetReady would let a reader see two different
  // outcomes; keep the first.
  if (ready_.load(std::memory_order_relaxed)) return;
  status_ = std::move(status);
  ready_.store(true, std::memory_order_release);
  // Most events are set before anyone sleeps on them: skip the futex call
  // then. Notifying under the lock keeps the event alive for the call even
  // when a woken waiter drops the last reference right after.
  if (sleepers_ > 0) cv_.notify_all();
}

absl::Status Event::Await() const {
  if (!IsReady()) {
    std::unique_lock<std::mutex> lock(mu_);
    ++sleepers_;
    cv_.wait(lock, [this] { return ready_.load(std::memory_order_relaxed); });
    --sleepers_;
  }
  return status_;
}

absl::Status Event::AwaitSettled() const {
  absl::Status status = Await();
  // SetReady holds mu_ until it is done with the event.
  std::lock_guard<std::mutex> lock(mu_);
  return status;
}

}  // namespace xjit
