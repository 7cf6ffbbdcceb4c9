// A device array: storage + shape + ready event. Storage is 64-byte aligned
// host memory for the host platforms (cpu, reference).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "xjit/ir/shape.h"
#include "xjit/runtime/event.h"

namespace xjit {

class Device;

class Buffer {
 public:
  // Allocates uninitialized storage whose ready event is not yet set.
  static absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Shape shape, Device* device);
  // Copies host data (row-major) into a new, ready buffer.
  static absl::StatusOr<std::shared_ptr<Buffer>> FromHost(Shape shape, const void* data,
                                                          Device* device);
  ~Buffer();

  const Shape& shape() const { return shape_; }
  Device* device() const { return device_; }
  void* data() const { return data_; }
  // The event lives inside the buffer (one allocation per buffer, not two):
  // hold the buffer to keep the event alive.
  Event* ready() const { return &ready_; }
  // Waits for the producer, then copies to host memory of byte_size().
  absl::Status CopyToHost(void* dst) const;

  // Only Buffer's factories can make one; public for std::make_shared.
  struct PrivateTag {
    explicit PrivateTag() = default;
  };
  Buffer(PrivateTag, Shape shape, Device* device, void* data);

 private:
  Shape shape_;
  Device* device_;
  void* data_;
  mutable Event ready_;
};

}  // namespace xjit
