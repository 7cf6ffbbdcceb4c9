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
  const std::shared_ptr<Event>& ready() const { return ready_; }
  // Waits for the producer, then copies to host memory of byte_size().
  absl::Status CopyToHost(void* dst) const;

 private:
  Buffer(Shape shape, Device* device, void* data);
  Shape shape_;
  Device* device_;
  void* data_;
  std::shared_ptr<Event> ready_;
};

}  // namespace xjit
