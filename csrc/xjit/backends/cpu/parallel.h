// Multi-threading policy shared by the CPU kernels: OpenMP over contiguous
// chunks, and only when the work is big enough to pay for waking the team.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace xjit::cpu {

// Below this many elements a kernel stays on the calling thread: dispatch cost
// dominates and a fork/join would be slower.
inline constexpr int64_t kParallelThreshold = 32 * 1024;

// Calls fn(begin, end) over [0, n) in chunks of `grain`, in parallel when
// `cost` (elements of work) exceeds the threshold.
template <typename Fn>
void ParallelFor(int64_t n, int64_t grain, int64_t cost, const Fn& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  if (cost < kParallelThreshold || n <= grain) {
    fn(int64_t{0}, n);
    return;
  }
  int64_t chunks = (n + grain - 1) / grain;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * grain;
    fn(begin, std::min(n, begin + grain));
  }
}

// Threads a parallel loop may use (1 without OpenMP).
inline int64_t MaxThreads() {
#ifdef _OPENMP
  return std::max(1, omp_get_max_threads());
#else
  return 1;
#endif
}

// The calling thread's scratch of at least `bytes` (64-byte aligned), kept
// between calls, for kernels run on every call (ForEachBlockWithScratch
// allocates its buffers per call instead). Not for nested use on one thread.
inline void* ThreadScratch(int64_t bytes) {
  struct Scratch {
    void* data = nullptr;
    int64_t capacity = 0;
    ~Scratch() { std::free(data); }
  };
  thread_local Scratch scratch;
  if (bytes > scratch.capacity) {
    std::free(scratch.data);
    scratch.data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    scratch.capacity = bytes;
  }
  return scratch.data;
}

// Calls fn(scratch, block) for each block in [0, blocks), with scratch_bytes
// of scratch per thread: in order on `serial_scratch` when `serial`,
// otherwise split statically over the OpenMP team, a buffer per thread (the
// fused thunks' tile and row-block buffers).
template <typename Fn>
void ForEachBlockWithScratch(int64_t blocks, int64_t scratch_bytes, bool serial,
                             std::vector<unsigned char>* serial_scratch, const Fn& fn) {
  if (serial) {
    serial_scratch->resize(scratch_bytes);
    for (int64_t b = 0; b < blocks; ++b) fn(serial_scratch->data(), b);
    return;
  }
#pragma omp parallel
  {
    std::unique_ptr<unsigned char[]> scratch(new unsigned char[scratch_bytes + 1]);
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) fn(scratch.get(), b);
  }
}

}  // namespace xjit::cpu
