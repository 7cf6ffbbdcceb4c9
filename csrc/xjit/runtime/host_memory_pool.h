// Host memory for device buffers, recycled by size class. Fresh pages from
// the kernel fault on first touch (a 16 MB result costs ~4,000 faults, more
// than the work on it), and glibc returns large blocks to the kernel at once,
// so a jitted call that allocates its inputs and results anew would fault on
// every call. The pool keeps freed blocks of 256 KiB and more, up to a byte
// budget, and hands them back for the same size class: steady-state calls
// touch only warm memory. Small blocks go to malloc, which recycles them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace xjit {

class HostMemoryPool {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kMinPooledBytes = size_t{256} << 10;

  // `budget_bytes`: the most that freed blocks may hold at once.
  explicit HostMemoryPool(size_t budget_bytes);
  ~HostMemoryPool();
  HostMemoryPool(const HostMemoryPool&) = delete;
  HostMemoryPool& operator=(const HostMemoryPool&) = delete;

  // kAlignment-aligned memory of at least `bytes` (non-null for 0 bytes);
  // null when the system has none.
  void* Allocate(size_t bytes);
  void Deallocate(void* memory);

  // The size class of a request: four classes per power of two (at most 25%
  // slack); requests below kMinPooledBytes are rounded to the alignment.
  static size_t SizeClass(size_t bytes);
  // Bytes held by freed blocks now.
  size_t cached_bytes() const;

 private:
  size_t budget_bytes_;
  mutable absl::Mutex mu_;
  size_t cached_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xjit
