#include "xjit/runtime/host_memory_pool.h"

#include <cstdlib>
#include <cstring>

namespace xjit {
namespace {

// Each block starts with one aligned header line holding its size class, so
// Deallocate needs no size and no lookup.
constexpr size_t kHeader = HostMemoryPool::kAlignment;

size_t BlockClass(void* memory) {
  size_t size_class;
  std::memcpy(&size_class, static_cast<unsigned char*>(memory) - kHeader, sizeof(size_class));
  return size_class;
}

}  // namespace

HostMemoryPool::HostMemoryPool(size_t budget_bytes) : budget_bytes_(budget_bytes) {}

HostMemoryPool::~HostMemoryPool() {
  absl::MutexLock lock(&mu_);
  for (auto& [size_class, blocks] : free_) {
    for (void* b : blocks) std::free(static_cast<unsigned char*>(b) - kHeader);
  }
}

size_t HostMemoryPool::SizeClass(size_t bytes) {
  if (bytes < kMinPooledBytes) {
    return bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }
  int top = 63 - __builtin_clzll(static_cast<unsigned long long>(bytes));
  size_t step = size_t{1} << (top - 2);
  return (bytes + step - 1) / step * step;
}

void* HostMemoryPool::Allocate(size_t bytes) {
  if (bytes > SIZE_MAX / 2) return nullptr;
  size_t size_class = SizeClass(bytes);
  if (size_class >= kMinPooledBytes) {
    absl::MutexLock lock(&mu_);
    auto it = free_.find(size_class);
    if (it != free_.end() && !it->second.empty()) {
      void* b = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= size_class;
      return b;
    }
  }
  void* raw = std::aligned_alloc(kAlignment, size_class + kHeader);
  if (raw == nullptr) return nullptr;
  std::memcpy(raw, &size_class, sizeof(size_class));
  return static_cast<unsigned char*>(raw) + kHeader;
}

void HostMemoryPool::Deallocate(void* memory) {
  if (memory == nullptr) return;
  size_t size_class = BlockClass(memory);
  if (size_class >= kMinPooledBytes) {
    absl::MutexLock lock(&mu_);
    if (size_class <= budget_bytes_) {
      // Over budget: release other cached blocks first, so the newest frees
      // (the sizes the program uses now) are the ones kept.
      for (auto it = free_.begin(); cached_bytes_ + size_class > budget_bytes_;) {
        if (it->second.empty()) {
          ++it;
          continue;
        }
        std::free(static_cast<unsigned char*>(it->second.back()) - kHeader);
        it->second.pop_back();
        cached_bytes_ -= it->first;
      }
      free_[size_class].push_back(memory);
      cached_bytes_ += size_class;
      return;
    }
  }
  std::free(static_cast<unsigned char*>(memory) - kHeader);
}

size_t HostMemoryPool::cached_bytes() const {
  absl::MutexLock lock(&mu_);
  return cached_bytes_;
}

}  // namespace xjit
