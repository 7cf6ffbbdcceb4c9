#include "xjit/runtime/event.h"

namespace xjit {

std::shared_ptr<Event> Event::MakeReady(absl::Status status) {
  auto e = std::make_shared<Event>();
  e->ready_ = true;
  e->status_ = std::move(status);
  return e;
}

void Event::SetReady(absl::Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // One-shot: a second SetReady would let a reader see two different
    // outcomes; keep the first.
    if (ready_) return;
    ready_ = true;
    status_ = std::move(status);
  }
  cv_.notify_all();
}

bool Event::IsReady() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ready_;
}

absl::Status Event::Await() const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return ready_; });
  return status_;
}

}  // namespace xjit
