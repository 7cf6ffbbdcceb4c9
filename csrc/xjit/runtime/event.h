// A one-shot ready event with a status, like PJRT's PJRT_Event.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>

#include "absl/status/status.h"

namespace xjit {

class Event {
 public:
  static std::shared_ptr<Event> MakeReady(absl::Status status = absl::OkStatus());

  void SetReady(absl::Status status = absl::OkStatus());
  bool IsReady() const;
  // Blocks until ready; returns the status the producer set.
  absl::Status Await() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool ready_ = false;
  absl::Status status_;
};

}  // namespace xjit
