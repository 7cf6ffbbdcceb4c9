// The runtime: events, per-device work queues, platforms, buffers, clients,
// asynchronous execution with argument checking (on the reference platform)
// and donation.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
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
#include "xjit/runtime/host_platform.h"
#include "xjit/runtime/layout_transpose.h"
#include "xjit/runtime/platform.h"
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

TEST(EventTest, AwaitSettledWaitsForASetterOnAnotherThread) {
  // The waiter destroys the event right after: the setter must be done with it.
  for (int i = 0; i < 100; ++i) {
    auto* e = new Event();
    std::thread t([e] { e->SetReady(absl::DataLossError("late")); });
    EXPECT_EQ(e->AwaitSettled().code(), absl::StatusCode::kDataLoss);
    delete e;
    t.join();
  }
}

// Every permutation of a few shapes (ranks 2-4, tile edges crossed), for each
// element width, against the element-by-element definition.
TEST(LayoutTransposeTest, MatchesTheDefinitionForEveryOrderAndWidth) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 5}, {70, 33}, {2, 40, 37}, {2, 3, 4, 5},
                                                    {1, 0, 3}};
  for (const auto& dims : shapes) {
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int64_t> order(rank);
    for (int64_t i = 0; i < rank; ++i) order[i] = i;
    do {
      for (int64_t width : {1, 2, 4, 8, 16, 3}) {
        std::vector<unsigned char> src(n * width), dst(n * width, 0), want(n * width, 0);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
        std::vector<int64_t> out_dims(rank), index(rank, 0);
        for (int64_t i = 0; i < rank; ++i) out_dims[i] = dims[order[i]];
        for (int64_t k = 0; k < n; ++k) {  // k: dst's linear index; index: its coordinates
          int64_t off = 0;
          std::vector<int64_t> src_index(rank);
          for (int64_t i = 0; i < rank; ++i) src_index[order[i]] = index[i];
          for (int64_t d = 0; d < rank; ++d) off = off * dims[d] + src_index[d];
          std::memcpy(&want[k * width], &src[off * width], width);
          for (int64_t i = rank - 1; i >= 0 && ++index[i] == out_dims[i]; --i) index[i] = 0;
        }
        TransposeDense(src.data(), dims, order, width, dst.data());
        ASSERT_EQ(dst, want) << "rank " << rank << " width " << width;
      }
    } while (std::next_permutation(order.begin(), order.end()));
  }
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

TEST(WorkQueueTest, WaitUntilIdleWaitsForEverythingQueuedBefore) {
  WorkQueue q("test");
  std::atomic<int> done{0};
  for (int i = 0; i < 50; ++i) {
    q.Enqueue([&done] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++done;
    });
  }
  q.WaitUntilIdle();
  EXPECT_EQ(done.load(), 50);
  // From a task on the worker itself it returns instead of deadlocking.
  std::atomic<bool> inner{false};
  q.Enqueue([&] {
    q.WaitUntilIdle();
    inner = true;
  });
  q.WaitUntilIdle();
  EXPECT_TRUE(inner.load());
}

TEST(WorkQueueTest, ATaskEnqueuingOnItsOwnQueueRunsItAtOnce) {
  WorkQueue q("test");
  std::vector<int> order;
  q.Enqueue([&] {
    order.push_back(1);
    q.Enqueue([&] { order.push_back(2); });  // would deadlock if queued behind
    order.push_back(3);
  });
  q.WaitUntilIdle();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  // The same from a task running inline on the caller's thread (retried:
  // the worker may still be leaving the marker task of WaitUntilIdle).
  order.clear();
  while (!q.TryRunInline([&] {
    order.push_back(1);
    q.Enqueue([&] { order.push_back(2); });
    order.push_back(3);
  })) {
    std::this_thread::yield();
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
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


// A platform whose memory the runtime may only reach through it: memory is
// handed out with a tag in front and every call is counted, so a runtime
// that memcpy'd device memory itself, or freed it with free(), would fail.
struct CountingStats {
  std::atomic<int> allocations{0}, deallocations{0}, to_device{0}, to_host{0};
};
CountingStats& Stats() {
  static CountingStats* stats = new CountingStats();
  return *stats;
}

class CountingPlatform : public Platform {
 public:
  static constexpr uint64_t kTag = 0x5eedf00d;
  const std::string& name() const override { return name_; }
  int DeviceCount() const override { return 3; }
  Compiler& compiler() override { return **GetCompiler("reference"); }
  absl::StatusOr<void*> Allocate(int device, size_t bytes) override {
    ++Stats().allocations;
    auto* block = static_cast<uint64_t*>(std::aligned_alloc(64, 64 + (bytes + 63) / 64 * 64));
    block[0] = kTag + device;
    return reinterpret_cast<char*>(block) + 64;
  }
  void Deallocate(int device, void* memory) override {
    ++Stats().deallocations;
    auto* block = reinterpret_cast<uint64_t*>(static_cast<char*>(memory) - 64);
    EXPECT_EQ(block[0], kTag + device);
    std::free(block);
  }
  void CopyToDevice(int, const void* host, void* memory, size_t bytes, Event* done) override {
    ++Stats().to_device;
    std::memcpy(memory, host, bytes);
    // Completes later, from another thread, as a device's stream would.
    std::thread([done] { done->SetReady(); }).detach();
  }
  void CopyToHost(int, const void* memory, void* host, size_t bytes, Event* done) override {
    ++Stats().to_host;
    std::memcpy(host, memory, bytes);
    done->SetReady();
  }

 private:
  std::string name_ = "counting";
};

const bool kCountingRegistered = [] {
  RegisterPlatform("counting", [] { return std::make_unique<CountingPlatform>(); });
  return true;
}();

TEST(PlatformTest, RegistryListsCpuFirstAndNamesUnknownPlatforms) {
  std::vector<std::string> platforms = RegisteredPlatforms();
  ASSERT_FALSE(platforms.empty());
  EXPECT_EQ(platforms[0], "cpu");
  EXPECT_NE(std::find(platforms.begin(), platforms.end(), "reference"), platforms.end());
  absl::StatusOr<Platform*> cpu = GetPlatform("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ((*cpu)->name(), "cpu");
  EXPECT_TRUE((*cpu)->HostVisibleMemory());
  EXPECT_EQ(*GetPlatform("cpu"), *cpu);  // one instance
  absl::StatusOr<Platform*> missing = GetPlatform("tpu");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("reference"), std::string::npos);
  EXPECT_EQ(GetCompiler("tpu").status().code(), absl::StatusCode::kNotFound);
}

TEST(PlatformTest, ForcedHostDeviceCountReadsXlaFlags) {
  EXPECT_EQ(ForcedHostDeviceCount(nullptr), 1);
  EXPECT_EQ(ForcedHostDeviceCount(""), 1);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_count=4"), 4);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_cpu_foo=1  --xla_force_host_platform_device_count=8 "
                                  "--xla_bar"), 8);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_count=2 "
                                  "--xla_force_host_platform_device_count=3"), 3);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_count=zero"), 1);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_count=0"), 1);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_count=-2"), 1);
  EXPECT_EQ(ForcedHostDeviceCount("--xla_force_host_platform_device_countx=5"), 1);
}

TEST(PlatformTest, HostPlatformAllocatesAlignedAndCopies) {
  std::unique_ptr<Platform> p = MakeHostPlatform("host-test", nullptr, 0);
  EXPECT_EQ(p->DeviceCount(), 1);  // at least one device
  void* m = *p->Allocate(0, 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m) % 64, 0u);
  int in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
  Event to_device, to_host;
  p->CopyToDevice(0, in, m, sizeof(in), &to_device);
  EXPECT_TRUE(to_device.IsReady());  // host copies are synchronous
  p->CopyToHost(0, m, out, sizeof(out), &to_host);
  EXPECT_TRUE(to_host.IsReady());
  EXPECT_EQ(out[2], 3);
  p->Deallocate(0, m);
}

TEST(PlatformTest, RuntimeReachesDeviceMemoryOnlyThroughThePlatform) {
  absl::StatusOr<Client*> client = Client::Get("counting");
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_EQ((*client)->devices().size(), 3u);
  Device* d2 = (*client)->devices()[2].get();
  EXPECT_EQ(d2->id(), 2);
  EXPECT_EQ(d2->ToString(), "CountingDevice(id=2)");
  int allocations = Stats().allocations, deallocations = Stats().deallocations;
  int to_device = Stats().to_device, to_host = Stats().to_host;
  {
    auto x = F32Buffer({1, 2, 3}, d2);  // waits for the asynchronous transfer
    EXPECT_TRUE(x->ready()->IsReady());
    auto exe = *Executable::Compile(MulAddModule(3), d2);
    auto out = *exe->Execute({x, x});
    EXPECT_EQ(ToVector(*out[0]), (std::vector<float>{2, 6, 12}));
  }
  EXPECT_EQ(Stats().allocations - allocations, 2);
  EXPECT_EQ(Stats().deallocations - deallocations, 2);
  EXPECT_EQ(Stats().to_device - to_device, 1);
  EXPECT_EQ(Stats().to_host - to_host, 1);
}

TEST(DonationTest, ResultTakesOverDonatedMemory) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(3), d);
  auto x = F32Buffer({1, 2, 3}, d);
  auto y = F32Buffer({4, 5, 6}, d);
  void* x_memory = x->data();
  const bool donated[] = {true, false};
  auto out = exe->Execute({x, y}, donated);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0]->data(), x_memory);
  EXPECT_TRUE(x->is_deleted());
  EXPECT_FALSE(y->is_deleted());
  EXPECT_EQ(ToVector(*(*out)[0]), (std::vector<float>{5, 12, 21}));

  auto again = exe->Execute({x, y});
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(again.status().message().find("deleted"), std::string::npos);
}

TEST(DonationTest, ChainsOnUnreadyDonatedBuffers) {
  Device* d = ReferenceDevice();
  std::shared_ptr<Buffer> acc = F32Buffer({1, 1}, d);
  void* memory = acc->data();
  auto two = F32Buffer({2, 2}, d);
  auto exe = *Executable::Compile(MulAddModule(2), d);
  const bool donated[] = {true, false};
  for (int i = 0; i < 10; ++i) acc = (*exe->Execute({acc, two}, donated))[0];
  EXPECT_EQ(ToVector(*acc), (std::vector<float>{59049, 59049}));
  EXPECT_EQ(acc->data(), memory);  // one allocation all along
}

TEST(DonationTest, MemoryOthersCanReadIsNotReused) {
  Device* d = ReferenceDevice();
  auto exe = *Executable::Compile(MulAddModule(3), d);
  const bool first_donated[] = {true, false};

  // Passed at another position as well: the program reads it there.
  auto x = F32Buffer({1, 2, 3}, d);
  auto out = *exe->Execute({x, x}, first_donated);
  EXPECT_NE(out[0]->data(), x->data());
  EXPECT_TRUE(x->is_deleted());
  EXPECT_EQ(ToVector(*out[0]), (std::vector<float>{2, 6, 12}));

  // Viewed from outside (a numpy array over host memory).
  auto viewed = F32Buffer({1, 2, 3}, d);
  viewed->AddExternalReference();
  out = *exe->Execute({viewed, F32Buffer({1, 1, 1}, d)}, first_donated);
  EXPECT_NE(out[0]->data(), viewed->data());
  EXPECT_TRUE(viewed->is_deleted());
  viewed->DropExternalReference();
}

TEST(DonationTest, OnlyResultsOfTheSameShapeAndAllowedAliasesReuse) {
  // main(x: f32[2], y: f32[3]) = (y, x * x): result 0 matches only y.
  ModuleBuilder mb("swap");
  ComputationBuilder* cb = mb.NewComputation("main");
  Instruction* x = cb->Parameter(Shape(DType::kF32, {2}));
  Instruction* y = cb->Parameter(Shape(DType::kF32, {3}));
  Instruction* sq = *cb->Add(Opcode::kMultiply, {x, x});
  Computation* main = *cb->Finish({y, sq});
  std::shared_ptr<Module> module(*mb.Build(main));

  Device* ref = ReferenceDevice();
  auto exe = *Executable::Compile(module, ref);
  auto xb = F32Buffer({3, 4}, ref);
  auto yb = F32Buffer({7, 8, 9}, ref);
  void* x_memory = xb->data();
  void* y_memory = yb->data();
  const bool both[] = {true, true};
  auto out = *exe->Execute({xb, yb}, both);
  EXPECT_EQ(out[0]->data(), y_memory);
  EXPECT_EQ(out[1]->data(), x_memory);
  EXPECT_EQ(ToVector(*out[0]), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(ToVector(*out[1]), (std::vector<float>{9, 16}));

  // The cpu program allows both aliases too (y is copied onto itself, x * x
  // reads each element before writing it), and the donated arguments are
  // consumed.
  Device* cpu = (*Client::Get("cpu"))->devices()[0].get();
  auto cpu_exe = *Executable::Compile(module, cpu);
  auto xc = F32Buffer({3, 4}, cpu);
  auto yc = F32Buffer({7, 8, 9}, cpu);
  void* xc_memory = xc->data();
  void* yc_memory = yc->data();
  auto cpu_out = *cpu_exe->Execute({xc, yc}, both);
  EXPECT_EQ(cpu_out[0]->data(), yc_memory);
  EXPECT_EQ(cpu_out[1]->data(), xc_memory);
  EXPECT_TRUE(xc->is_deleted());
  EXPECT_TRUE(yc->is_deleted());
  EXPECT_EQ(ToVector(*cpu_out[0]), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(ToVector(*cpu_out[1]), (std::vector<float>{9, 16}));

  const bool wrong_count[] = {true};
  EXPECT_EQ(exe->Execute({F32Buffer({1, 2}, ref), F32Buffer({1, 2, 3}, ref)}, wrong_count)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BufferTest, MemoryIsTakenOverOnce) {
  Device* d = (*Client::Get("counting"))->devices()[0].get();
  auto donor = F32Buffer({1, 2}, d);
  std::shared_ptr<Buffer> taker = Buffer::TakeOverMemory(*donor);
  ASSERT_NE(taker, nullptr);
  EXPECT_EQ(taker->data(), donor->data());
  EXPECT_EQ(taker->shape(), donor->shape());
  EXPECT_FALSE(taker->ready()->IsReady());  // the program that writes it sets it
  EXPECT_TRUE(donor->is_deleted());
  EXPECT_EQ(Buffer::TakeOverMemory(*donor), nullptr);  // consumed already
  taker->ready()->SetReady();
  int deallocations = Stats().deallocations;
  donor.reset();  // does not free the memory the taker now owns
  EXPECT_EQ(Stats().deallocations, deallocations);
  EXPECT_EQ(ToVector(*taker), (std::vector<float>{1, 2}));
  taker.reset();
  EXPECT_EQ(Stats().deallocations, deallocations + 1);
}

TEST(BufferTest, DeleteMarksTheBuffer) {
  auto b = F32Buffer({1}, ReferenceDevice());
  EXPECT_FALSE(b->is_deleted());
  b->Delete();
  EXPECT_TRUE(b->is_deleted());
}

}  // namespace
}  // namespace xjit
