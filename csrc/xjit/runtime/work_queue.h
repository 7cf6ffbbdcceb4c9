// A device's stream: one worker thread that runs tasks in submission order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace xjit {

class WorkQueue {
 public:
  explicit WorkQueue(std::string name);
  // Runs what is still queued, then joins the worker.
  ~WorkQueue();

  // Thread-safe. With XJIT_SYNC_DISPATCH=1, or in a forked child (which has
  // no worker thread), the task runs inline instead.
  void Enqueue(std::function<void()> task);

 private:
  void WorkerLoop();

  std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  bool worker_sleeping_ = false;  // guarded by mu_
  std::thread worker_;
};

// True when XJIT_SYNC_DISPATCH=1 (read once per process).
bool SyncDispatchEnabled();

}  // namespace xjit
