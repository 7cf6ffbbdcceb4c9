#include "xjit/runtime/work_queue.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <exception>
#include <future>

#include <pthread.h>

namespace xjit {
namespace {

// A task must never take the process down: backends return statuses, but an
// allocation failure or a library exception inside a task would otherwise
// escape the worker thread and call std::terminate.
template <typename Task>
void RunGuarded(const std::string& name, Task& task) {
  try {
    task();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xjit: uncaught exception in %s task: %s\n", name.c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "xjit: uncaught exception in %s task\n", name.c_str());
  }
}

// A forked child has none of the parent's worker threads: queuing there would
// hang forever, so the child runs every task inline instead.
std::atomic<bool> g_in_forked_child{false};

// The queue whose task this thread is running (as its worker, or inline),
// and how many tasks run nested inside that task (see Enqueue).
thread_local const WorkQueue* t_running_queue = nullptr;
thread_local int t_nested_tasks = 0;

void RegisterForkHandlerOnce() {
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { g_in_forked_child.store(true); });
    return true;
  }();
  (void)registered;
}

}  // namespace

bool SyncDispatchEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("XJIT_SYNC_DISPATCH");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return enabled;
}

WorkQueue::WorkQueue(std::string name) : name_(std::move(name)) {
  RegisterForkHandlerOnce();
  worker_ = std::thread([this] { WorkerLoop(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void WorkQueue::Enqueue(std::function<void()> task) {
  if (SyncDispatchEnabled() || g_in_forked_child.load(std::memory_order_relaxed)) {
    RunGuarded(name_, task);
    return;
  }
  if (t_running_queue == this) {
    // A task enqueuing work on its own queue (a host callback that runs xjit
    // ops) runs it now: queued behind itself, it would never run while the
    // callback waits for its result.
    ++t_nested_tasks;
    RunGuarded(name_, task);
    --t_nested_tasks;
    return;
  }
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    wake = worker_sleeping_;
  }
  // A busy worker finds the task when it next looks; skipping the notify
  // saves a futex call per dispatch while work is queued.
  if (wake) cv_.notify_one();
}

bool WorkQueue::TryRunInline(absl::FunctionRef<void()> task) {
  if (SyncDispatchEnabled() || g_in_forked_child.load(std::memory_order_relaxed)) {
    RunGuarded(name_, task);  // what Enqueue does in these modes anyway
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || worker_running_ || inline_running_ || !tasks_.empty()) return false;
    inline_running_ = true;
  }
  const WorkQueue* outer = t_running_queue;
  t_running_queue = this;
  RunGuarded(name_, task);
  t_running_queue = outer;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    inline_running_ = false;
    wake = worker_sleeping_ && !tasks_.empty();
  }
  if (wake) cv_.notify_one();
  return true;
}

void WorkQueue::ReleaseRunningTask() {
  // A nested task's release would free the queue while its outer task runs.
  if (std::this_thread::get_id() != worker_.get_id() || t_nested_tasks > 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  worker_running_ = false;
}

void WorkQueue::WaitUntilIdle() {
  if (t_running_queue == this) return;
  // A marker task behind everything queued; inline modes run it at once.
  std::promise<void> done;
  std::future<void> ready = done.get_future();
  Enqueue([&done] { done.set_value(); });
  ready.wait();
}

void WorkQueue::WorkerLoop() {
  t_running_queue = this;
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      worker_running_ = false;
      // While an inline task holds the queue, later tasks wait for it.
      auto can_run = [this] { return !tasks_.empty() && !inline_running_; };
      if (!can_run() && !(stopping_ && tasks_.empty())) {
        worker_sleeping_ = true;
        cv_.wait(lock, [&] { return can_run() || (stopping_ && tasks_.empty()); });
        worker_sleeping_ = false;
      }
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
      worker_running_ = true;
    }
    RunGuarded(name_, task);
    // Drop the captures (buffers, programs) here, outside the lock.
    task = nullptr;
  }
}

}  // namespace xjit
