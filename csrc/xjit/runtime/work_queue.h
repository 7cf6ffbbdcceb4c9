// A device's stream: one worker thread that runs tasks in submission order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "absl/functional/function_ref.h"

namespace xjit {

class WorkQueue {
 public:
  explicit WorkQueue(std::string name);
  // Runs what is still queued, then joins the worker.
  ~WorkQueue();

  // Thread-safe. With XJIT_SYNC_DISPATCH=1, or in a forked child (which has
  // no worker thread), the task runs inline instead; so does a task enqueued
  // from inside a running task of this queue (on the worker or inline),
  // which would otherwise wait behind the task that waits for it.
  void Enqueue(std::function<void()> task);

  // Runs `task` on the calling thread, now, if the queue is idle: nothing
  // queued, no task running and no other inline task. Tasks enqueued while it
  // runs wait for it, so it takes its place in the queue's order. Returns
  // false, without running it, when the queue is busy.
  bool TryRunInline(absl::FunctionRef<void()> task);

  // Called by the running task, on the worker thread, once what is left of it
  // only publishes results (sets events, drops references): inline runs may
  // start from then on. Without it, a caller woken by those events usually
  // finds the task still "running" and queues its next call too, so one
  // queued call would keep every later one off the inline path.
  // A no-op on any other thread.
  void ReleaseRunningTask();

  // Blocks until every task enqueued before the call has run. A no-op inside
  // a task of this queue (a task waiting for its own queue would deadlock).
  void WaitUntilIdle();

 private:
  void WorkerLoop();

  std::string name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  bool worker_sleeping_ = false;  // guarded by mu_
  bool worker_running_ = false;   // guarded by mu_: a popped task still runs
  bool inline_running_ = false;   // guarded by mu_: TryRunInline holds the queue
  std::thread worker_;
};

// True when XJIT_SYNC_DISPATCH=1 (read once per process).
bool SyncDispatchEnabled();

}  // namespace xjit
