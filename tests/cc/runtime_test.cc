// The runtime: events, per-device work queues, buffers, clients and
// asynchronous execution with argument checking (on the reference platform).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <cstdint>
#include <thread>
#include <vector>

#include "xjit/builder/builder.h"
#include "xjit/runtime/backend.h"
#include "xjit/runtime/buffer.h"
#include "xjit/runtime/device.h"
#include "xjit/runtime/event.h"
#include "xjit/runtime/executable.h"
#include "xjit/runtime/work_queue.h"

namespace xjit {
namespace {

Device* ReferenceDevice() {
  absl::StatusOr<Client*> client = Client::Get("reference");
  EXPECT_TRUE(client.ok()) << client.status();
  return (*client)->devices()[0].get();
}

// main(x: f32[n], y: f32[n]) = x * y + x
std::shared_ptr<Module> MulAddModule(int64_t n) {
  ModuleBuilder mb("muladd");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(Shape(DType::kF32, {n}));
  Instruction* y = cb->Parameter(Shape(DType::kF32, {n}));
  Instruction* m = *cb->Add(Opcode::kMultiply, {x, y});
  Instruction* r = *cb->Add(Opcode::kAdd, {m, x});
  Computation* main = *cb->Finish({r});
  absl::StatusOr<std::unique_ptr<Module>> module = mb.Build(main);
  EXPECT_TRUE(module.ok()) << module.status();
  return std::shared_ptr<Module>(*std::move(module));
}

std::shared_ptr<Buffer> F32Buffer(std::vector<float> v, Device* d) {
  return *Buffer::FromHost(Shape(DType::kF32, {static_cast<int64_t>(v.size())}), v.data(), d);
}

std::vector<float> ToVector(const Buffer& b) {
  std::vector<float> out(b.shape().num_elements());
  absl::Status s = b.CopyToHost(out.data());
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(EventTest, ReadyAndStatus) {
  auto ready = Event::MakeReady();
  EXPECT_TRUE(ready->IsReady());
  EXPECT_TRUE(ready->Await().ok());
  auto failed = Event::MakeReady(absl::InternalError("boom"));
  EXPECT_EQ(failed->Await().code(), absl::StatusCode::kInternal);
}

TEST(EventTest, SetFromAnotherThreadAndFirstWins) {
  auto e = std::make_shared<Event>();
  EXPECT_FALSE(e->IsReady());
  std::thread t([e] { e->SetReady(absl::OutOfRangeError("first")); });
  EXPECT_EQ(e->Await().code(), absl::StatusCode::kOutOfRange);
  t.join();
  e->SetReady();  // ignored: events are one-shot
  EXPECT_EQ(e->Await().code(), absl::StatusCode::kOutOfRange);
}

TEST(WorkQueueTest, RunsInOrderAndDrainsOnDestruction) {
  std::vector<int> seen;
  {
    WorkQueue q("test");
    for (int i = 0; i < 1000; ++i) q.Enqueue([&seen, i] { seen.push_back(i); });
  }
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(seen[i], i);
}

TEST(WorkQueueTest, SurvivesThrowingTask) {
  std::atomic<int> after{0};
  {
    WorkQueue q("test");
    q.Enqueue([] { throw std::runtime_error("task failure"); });
    q.Enqueue([&after] { after = 1; });
  }
  EXPECT_EQ(after.load(), 1);
}

TEST(WorkQueueTest, RunsInlineOnlyWhenIdle) {
  WorkQueue q("test");
  bool ran = false;
  EXPECT_TRUE(q.TryRunInline([&ran] { ran = true; }));
  EXPECT_TRUE(ran);

  // Busy (a task runs): refused, and the inline task does not run.
  std::atomic<bool> release{false}, started{false};
  q.Enqueue([&] {
    started = true;
    while (!release) std::this_thread::yield();
  });
  while (!started) std::this_thread::yield();
  ran = false;
  EXPECT_FALSE(q.TryRunInline([&ran] { ran = true; }));
  EXPECT_FALSE(ran);
  release = true;
}

TEST(WorkQueueTest, TasksEnqueuedDuringAnInlineRunWaitForIt) {
  WorkQueue q("test");
  std::vector<int> order;
  std::mutex mu;
  auto record = [&](int i) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(i);
  };
  EXPECT_TRUE(q.TryRunInline([&] {
    // Another thread enqueues while this runs; the worker must not start it.
    std::thread producer([&] { q.Enqueue([&] { record(2); }); });
    producer.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    record(1);
  }));
  std::atomic<bool> done{false};
  q.Enqueue([&] { done = true; });
  while (!done) std::this_thread::yield();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(BufferTest, AlignedZeroSizeAndTuples) {
  Device* d = ReferenceDevice();
  auto b = *Buffer::Allocate(Shape(DType::kF64, {3, 5}), d);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  EXPECT_FALSE(b->ready()->IsReady());
  auto empty = *Buffer::Allocate(Shape(DType::kF32, {0, 4}), d);
  EXPECT_NE(empty->data(), nullptr);
  auto tuple = Buffer::Allocate(Shape::Tuple({Shape(DType::kF32, {})}), d);
  EXPECT_EQ(tuple.status().code(), absl::StatusCode::kInvalidArgument);
  auto negative = Buffer::Allocate(Shape(DType::kF32, {-1}), d);
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BufferTest, FromHostIsReadyCopy) {
  Device* d = ReferenceDevice();
  std::vector<float> v = {1, 2, 3};
  auto b = F32Buffer(v, d);
  EXPECT_TRUE(b->ready()->IsReady());
  v[0] = 100;  // the buffer owns its copy
  EXPECT_EQ(ToVector(*b), (std::vector<float>{1, 2, 3}));
  auto empty = *Buffer::FromHost(Shape(DType::kS32, {0}), nullptr, d);
  EXPECT_TRUE(empty->CopyToHost(nullptr).ok());
}

TEST(ClientTest, OneClientPerPlatform) {
  absl::StatusOr<Client*> a = Client::Get("reference");
  absl::StatusOr<Client*> b = Client::Get("reference");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, *b);
  ASSERT_EQ((*a)->devices().size(), 1u);
  const Device& d = *(*a)->devices()[0];
  EXPECT_EQ(d.ToString(), "ReferenceDevice(id=0)");
  EXPECT_EQ(d.device_kind(), "reference");
  EXPECT_EQ(d.platform(), "reference");
  EXPECT_EQ(Client::Get("no-such-platform").status().code(), absl::StatusCode::kNotFound);
  std::vector<std::string> platforms = RegisteredPlatforms();
  EXPECT_NE(std::find(platforms.begin(), platforms.end(), "reference"), platforms.end());
}

TEST(ClientTest, ConcurrentGetMakesOneClient) {
  std::vector<Client*> got(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&got, i] { got[i] = *Client::Get("cpu"); });
  }
  for (auto& t : threads) t.join();
  for (Client* c : got) EXPECT_EQ(c, got[0]);
  EXPECT_EQ(got[0]->devices()[0]->ToString(), "CpuDevice(id=0)");
}

TEST(ExecutableTest, ExecutesAsynchronously) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(3), d);
  ASSERT_EQ(exe->parameter_shapes().size(), 2u);
  auto x = F32Buffer({1, 2, 3}, d);
  auto y = F32Buffer({4, 5, 6}, d);
  auto out = exe->Execute({x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(ToVector(*(*out)[0]), (std::vector<float>{5, 12, 21}));
}

TEST(ExecutableTest, ChainsOnUnreadyBuffersAndOutlivesExecutable) {
  Device* d = ReferenceDevice();
  std::shared_ptr<Buffer> acc = F32Buffer({1, 1}, d);
  auto two = F32Buffer({2, 2}, d);
  {
    auto exe = *Executable::Compile(MulAddModule(2), d);
    // acc = acc * 2 + acc, 10 times, each step consuming an unready result.
    for (int i = 0; i < 10; ++i) acc = (*exe->Execute({acc, two}))[0];
  }  // the executable dies before its queued tasks ran
  EXPECT_EQ(ToVector(*acc), (std::vector<float>{59049, 59049}));
}

TEST(ExecutableTest, ChecksArguments) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(3), d);
  auto x = F32Buffer({1, 2, 3}, d);

  auto arity = exe->Execute({x});
  EXPECT_EQ(arity.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(arity.status().message().find("takes 2 arguments but got 1"), std::string::npos);

  std::vector<int32_t> ints = {1, 2, 3};
  auto i = *Buffer::FromHost(Shape(DType::kS32, {3}), ints.data(), d);
  auto dtype = exe->Execute({x, i});
  EXPECT_EQ(dtype.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(dtype.status().message().find("Argument 1"), std::string::npos);
  EXPECT_NE(dtype.status().message().find("tensor<3xi32>"), std::string::npos);
  EXPECT_NE(dtype.status().message().find("tensor<3xf32>"), std::string::npos);

  auto dims = exe->Execute({x, F32Buffer({1, 2}, d)});
  EXPECT_EQ(dims.status().code(), absl::StatusCode::kInvalidArgument);

  auto null_arg = exe->Execute({x, nullptr});
  EXPECT_EQ(null_arg.status().code(), absl::StatusCode::kInvalidArgument);

  Device* cpu = (*Client::Get("cpu"))->devices()[0].get();
  auto elsewhere = exe->Execute({x, F32Buffer({1, 2, 3}, cpu)});
  EXPECT_EQ(elsewhere.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(elsewhere.status().message().find("CpuDevice(id=0)"), std::string::npos);
}

TEST(ExecutableTest, PropagatesArgumentErrors) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(2), d);
  auto bad = *Buffer::Allocate(Shape(DType::kF32, {2}), d);
  auto out = *exe->Execute({bad, F32Buffer({1, 1}, d)});
  auto downstream = *exe->Execute({out[0], out[0]});
  bad->ready()->SetReady(absl::InternalError("producer failed"));
  std::vector<float> host(2);
  absl::Status s = downstream[0]->CopyToHost(host.data());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("producer failed"), std::string::npos);
}

TEST(ExecutableTest, CheapProgramOnIdleDeviceIsReadyOnReturn) {
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    Device* d = (*Client::Get(platform))->devices()[0].get();
    auto exe = *Executable::Compile(MulAddModule(3), d);
    auto x = F32Buffer({1, 2, 3}, d);
    // Whether or not this first call ran inline, the device is idle once its
    // result is ready (a queued task lets go of the queue before publishing).
    auto first = (*exe->Execute({x, x}))[0];
    EXPECT_TRUE(first->ready()->Await().ok());
    auto out = (*exe->Execute({x, x}))[0];
    EXPECT_TRUE(out->ready()->IsReady());
    EXPECT_EQ(ToVector(*out), (std::vector<float>{2, 6, 12}));
  }
}

// The inline path must keep the device's order: a cheap Execute issued while
// an earlier task is queued or running waits for it. The earlier task here
// rewrites an argument in place (which only a task ordered before the
// program may do), so a result computed too early shows the old values.
TEST(ExecutableTest, CheapProgramNeverOvertakesQueuedWork) {
  for (const char* platform : {"reference", "cpu"}) {
    SCOPED_TRACE(platform);
    Device* d = (*Client::Get(platform))->devices()[0].get();
    auto exe = *Executable::Compile(MulAddModule(2), d);
    auto x = F32Buffer({1, 2}, d);
    std::atomic<bool> release{false};
    d->Enqueue([&release, x] {
      while (!release) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      float* data = static_cast<float*>(x->data());
      data[0] = 10;
      data[1] = 20;
    });
    auto out = *exe->Execute({x, x});
    EXPECT_FALSE(out[0]->ready()->IsReady());  // queued behind the slow task
    release = true;
    EXPECT_EQ(ToVector(*out[0]), (std::vector<float>{110, 420}));
  }
}

TEST(ExecutableTest, InlineRunPropagatesReadyArgumentErrors) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(2), d);
  auto bad = *Buffer::Allocate(Shape(DType::kF32, {2}), d);
  bad->ready()->SetReady(absl::InternalError("producer failed"));
  auto out = *exe->Execute({bad, F32Buffer({1, 1}, d)});
  std::vector<float> host(2);
  absl::Status s = out[0]->CopyToHost(host.data());
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("producer failed"), std::string::npos);
}

TEST(ExecutableTest, CompileRejectsBadInput) {
  Device* d = ReferenceDevice();
  EXPECT_EQ(Executable::Compile(nullptr, d).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Executable::Compile(MulAddModule(2), nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto no_entry = std::make_shared<Module>("empty");
  EXPECT_EQ(Executable::Compile(no_entry, d).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xjit
