// A device array: device memory + shape + ready event. The memory belongs to
// the device's Platform (platform.h): the runtime never dereferences it, it
// only hands the address to programs and transfers.
#pragma once

#include <atomic>
#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/shape.h"
#include "xjit/runtime/event.h"

namespace xjit {

class Device;

class Buffer {
 public:
  // Allocates uninitialized device memory whose ready event is not yet set.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Shape shape, Device* device);
  // Copies host data (row-major) to the device; returns once `data` may be
  // reused. The buffer is ready when the transfer is done.
  static absl::StatusOr<std::shared_ptr<Buffer>> FromHost(Shape shape, const void* data,
                                                          Device* device);
  // A ready buffer over host memory the caller owns (a numpy array's data),
  // on a platform whose device memory is host memory: no copy. The caller
  // keeps the memory alive and unchanged until every use of the buffer has
  // finished (the jit binding waits for the results). Never freed here,
  // never donated (it counts as an external reference).
  static absl::StatusOr<std::shared_ptr<Buffer>> WrapHostMemory(Shape shape, void* data,
                                                                Device* device);
  // Donation: a new, not yet ready buffer of `donor`'s shape that takes over
  // donor's memory; donor is deleted (it keeps the address only for work
  // already enqueued that reads it, and no longer frees it). Null when donor
  // was deleted already (another thread consumed it first).
  static std::shared_ptr<Buffer> TakeOverMemory(Buffer& donor);
  ~Buffer();

  const Shape& shape() const { return shape_; }
  Device* device() const { return device_; }
  // The device address: opaque outside the platform's programs and transfers.
  void* data() const { return data_; }
  // The event lives inside the buffer (one allocation per buffer, not two):
  // hold the buffer to keep the event alive.
  Event* ready() const { return &ready_; }
  // Waits for the producer, then copies to host memory of byte_size().
  absl::Status CopyToHost(void* dst) const;

  // JAX's Array.delete(): the value is gone; using it again is an error the
  // callers report. Memory is released when the last holder (an array, a
  // queued task) lets go of the buffer.
  void Delete() { deleted_.store(true, std::memory_order_release); }
  bool is_deleted() const { return deleted_.load(std::memory_order_acquire); }

  // Views of the memory handed outside the runtime (a numpy array over host
  // memory). Donation never reuses memory someone else can still read.
  void AddExternalReference() { external_references_.fetch_add(1, std::memory_order_relaxed); }
  void DropExternalReference() { external_references_.fetch_sub(1, std::memory_order_relaxed); }
  bool has_external_references() const {
    return external_references_.load(std::memory_order_relaxed) != 0;
  }

  // Only Buffer's factories can make one; public for std::make_shared.
  struct PrivateTag {
    explicit PrivateTag() = default;
  };
  Buffer(PrivateTag, Shape shape, Device* device, void* data);

 private:
  Shape shape_;
  Device* device_;
  void* data_;
  bool owns_memory_ = true;  // false once donated
  std::atomic<bool> deleted_{false};
  std::atomic<int> external_references_{0};
  mutable Event ready_;
};

}  // namespace xjit
