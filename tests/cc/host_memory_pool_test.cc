#include "xjit/runtime/host_memory_pool.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xjit {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

bool Aligned(void* p) { return reinterpret_cast<uintptr_t>(p) % HostMemoryPool::kAlignment == 0; }

TEST(HostMemoryPoolTest, SizeClassesHaveAtMostAQuarterOfSlack) {
  EXPECT_EQ(HostMemoryPool::SizeClass(0), 64u);
  EXPECT_EQ(HostMemoryPool::SizeClass(1), 64u);
  EXPECT_EQ(HostMemoryPool::SizeClass(65), 128u);
  for (size_t bytes : {size_t{256} << 10, (size_t{256} << 10) + 1, 3 * kMiB + 7, 16 * kMiB,
                       16 * kMiB + 1, size_t{5} << 30}) {
    size_t c = HostMemoryPool::SizeClass(bytes);
    EXPECT_GE(c, bytes);
    EXPECT_LE(c - bytes, bytes / 4) << bytes;
    EXPECT_EQ(HostMemoryPool::SizeClass(c), c) << "a class is its own class";
  }
}

TEST(HostMemoryPoolTest, LargeBlocksAreRecycledSmallOnesAreNot) {
  HostMemoryPool pool(64 * kMiB);
  void* a = pool.Allocate(4 * kMiB);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(Aligned(a));
  std::memset(a, 1, 4 * kMiB);
  pool.Deallocate(a);
  EXPECT_EQ(pool.cached_bytes(), 4 * kMiB);
  void* b = pool.Allocate(4 * kMiB - 100);  // the same class
  EXPECT_EQ(b, a);
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.Deallocate(b);
  void* small = pool.Allocate(1000);
  EXPECT_TRUE(Aligned(small));
  pool.Deallocate(small);
  EXPECT_EQ(pool.cached_bytes(), 4 * kMiB);
  void* zero = pool.Allocate(0);
  EXPECT_NE(zero, nullptr);
  pool.Deallocate(zero);
  pool.Deallocate(nullptr);
}

TEST(HostMemoryPoolTest, KeepsTheNewestFreesWithinTheBudget) {
  HostMemoryPool pool(10 * kMiB);
  void* a = pool.Allocate(4 * kMiB);
  void* b = pool.Allocate(5 * kMiB);
  void* c = pool.Allocate(4 * kMiB);
  pool.Deallocate(a);
  pool.Deallocate(b);
  EXPECT_EQ(pool.cached_bytes(), 9 * kMiB);
  pool.Deallocate(c);  // over budget: older blocks make room
  EXPECT_LE(pool.cached_bytes(), 10 * kMiB);
  void* again = pool.Allocate(4 * kMiB);
  EXPECT_EQ(again, c);
  pool.Deallocate(again);
  void* huge = pool.Allocate(11 * kMiB);  // larger than the budget: never cached
  pool.Deallocate(huge);
  EXPECT_LE(pool.cached_bytes(), 10 * kMiB);
  HostMemoryPool off(0);
  void* d = off.Allocate(kMiB);
  off.Deallocate(d);
  EXPECT_EQ(off.cached_bytes(), 0u);
}

TEST(HostMemoryPoolTest, ImpossibleRequestsFail) {
  HostMemoryPool pool(kMiB);
  EXPECT_EQ(pool.Allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(pool.Allocate(SIZE_MAX / 2 + 1), nullptr);
}

TEST(HostMemoryPoolTest, ThreadsShareThePool) {
  HostMemoryPool pool(256 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 200; ++i) {
        size_t bytes = (size_t{1} << 18) * (1 + (i + t) % 5);
        auto* p = static_cast<unsigned char*>(pool.Allocate(bytes));
        ASSERT_NE(p, nullptr);
        p[0] = p[bytes - 1] = static_cast<unsigned char>(t);
        pool.Deallocate(p);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_LE(pool.cached_bytes(), 256 * kMiB);
}

}  // namespace
}  // namespace xjit
